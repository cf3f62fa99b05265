//! An agent whose toolkit holds a local `#[tool]` fn and the tools of an MCP server read from
//! an `mcp.json`, driven by the scripted Chat Completions loop of `examples/agent_loop.rs` (no
//! network, no API key). The server is this repository's `examples/mcp_server` over stdio; its
//! `delete_note` asks for approval, which crosses the boundary as a suspension (MCP
//! 2026-07-28 `InputRequiredResult`) and is answered in the loop with `call_with`, exactly
//! like a local approval.
//!
//! The server's tools are deferred (SPEC §15): each request carries only the local tool, what
//! a search has loaded and `search_tools`; the model searches first, the toolkit answers the
//! search and loads what it found into the run's [`RunState`](toolnexus::RunState), which also
//! counts retries and stops the loop when a tool is past its budget (SPEC §15B). The server is
//! the repository's own so that the example runs without node or a network.
//!
//! With `--filesystem DIR` the `mcp.json` also names the official filesystem server
//! (`npx @modelcontextprotocol/server-filesystem DIR`, which needs node), deferred the same
//! way: the model then searches for a directory listing, loads it and lists `DIR`.
//! `scripts/mcp-agent-filesystem.sh` installs the server and runs that.
//!
//! Run it with:
//!
//! ```text
//! cargo build --example mcp_server --features mcp
//! cargo run --example mcp_agent --features mcp-client [-- --filesystem DIR]
//! ```

use std::time::Duration;

use toolnexus::mcp::McpTools;
use toolnexus::serde_json::{self, Value, json};
use toolnexus::{
    Answer, Api, Request, RunState, ToolContext, Toolkit, tool, tool_calls, tool_results, tools,
};

type Error = Box<dyn std::error::Error + Send + Sync>;

/// Counts the words of a text.
#[tool]
fn word_count(
    /// The text to count
    text: String,
) -> usize {
    text.split_whitespace().count()
}

/// What the loop does when a tool suspends: a real app asks its user; this one approves.
async fn ask_the_user(request: Request) -> Answer {
    println!("  ~ asked ({}): {}", request.kind, request.prompt);
    Answer::approve(&request)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    // The server binary sits beside this one (target/<profile>/examples/).
    let server = std::env::current_exe()?.with_file_name("mcp_server");
    if !server.exists() {
        return Err(format!(
            "{} is not built: run `cargo build --example mcp_server --features mcp` first",
            server.display()
        )
        .into());
    }
    let filesystem = match std::env::args().skip(1).collect::<Vec<_>>().as_slice() {
        [] => None,
        [flag, dir] if flag == "--filesystem" => Some(dir.clone()),
        _ => return Err("usage: mcp_agent [--filesystem DIR]".into()),
    };
    let mut servers = json!({"notes": {"command": server, "args": []}});
    if let Some(dir) = &filesystem {
        servers["filesystem"] = json!({"command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-filesystem", dir]});
    }
    let config =
        std::env::temp_dir().join(format!("toolnexus-mcp-agent-{}.json", std::process::id()));
    let mcp_json = json!({ "mcpServers": servers });
    std::fs::write(&config, serde_json::to_string_pretty(&mcp_json)?)?;
    let servers = McpTools::from_config(&config).await;
    std::fs::remove_file(&config)?;

    let mut toolkit = Toolkit::new().with_all(tools![word_count]);
    for server in servers? {
        println!("{}: {} tools", server.name(), server.tools().len());
        let server = server.deferred();
        toolkit = toolkit.with_all(server.tools_prefixed(&format!("{}_", server.name())));
    }

    let api = Api::OpenAiChat;
    let ctx = ToolContext {
        timeout: Some(Duration::from_secs(30)),
        ..Default::default()
    };
    let mut ask = String::from("Weather in Paris? How long is my note? Then delete note 3.");
    if filesystem.is_some() {
        ask.push_str(" And which files do I have?");
    }
    let mut conversation = vec![json!({"role": "user", "content": ask})];
    let mut run = RunState::default();
    for turn in 0.. {
        // What this request would carry as `tools`: the local tool, what was loaded, the search.
        let sent = toolkit.definitions(api, &run);
        let names: Vec<&str> = sent
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|entry| entry["function"]["name"].as_str())
            .collect();
        println!(
            "turn {turn}: sends {} of {} tools: {}",
            names.len(),
            toolkit.len() + 1,
            names.join(", ")
        );
        let reply = model(turn, filesystem.as_deref());
        conversation.push(reply["choices"][0]["message"].clone());
        let calls = tool_calls(api, &reply)?;
        if calls.is_empty() {
            break;
        }
        let mut results = toolkit.run_calls_in(&mut run, &calls, &ctx).await;
        for (call, result) in calls.iter().zip(&mut results) {
            if result.is_pending() {
                let args = serde_json::from_str(&call.arguments).unwrap_or_else(|_| json!({}));
                *result = toolkit
                    .call_with(&call.name, args, &ctx, ask_the_user)
                    .await;
            }
            println!("  > {} {} => {}", call.name, call.arguments, result.output);
        }
        conversation.extend(tool_results(api, &calls, &results));
        if let Some(tool) = run.exhausted() {
            println!("stopping: `{tool}` failed past its retry budget");
            break;
        }
    }
    println!("\ntranscript:");
    for message in &conversation {
        println!("{}", compact(message));
    }
    Ok(())
}

/// The stand-in for the provider: the script's turn `turn` as a Chat Completions response;
/// with the filesystem server's `filesystem` directory, two more turns list it.
fn model(turn: usize, filesystem: Option<&str>) -> Value {
    let calls: Vec<(&str, Value)> = match (turn, filesystem) {
        (0, _) => vec![
            (
                "search_tools",
                json!({"query": "weather in a city", "limit": 1}),
            ),
            ("word_count", json!({"text": "buy milk and eggs"})),
        ],
        (1, _) => vec![
            ("notes_get_weather", json!({"city": "Paris"})),
            (
                "search_tools",
                json!({"query": "delete a note", "limit": 1}),
            ),
        ],
        (2, None) => vec![("notes_delete_note", json!({"id": 3}))],
        (2, Some(_)) => vec![
            ("notes_delete_note", json!({"id": 3})),
            (
                "search_tools",
                json!({"query": "list the files in a directory", "limit": 1}),
            ),
        ],
        (3, Some(dir)) => vec![("filesystem_list_directory", json!({"path": dir}))],
        _ => Vec::new(),
    };
    let tool_calls: Vec<Value> = calls
        .iter()
        .enumerate()
        .map(|(i, (name, args))| {
            json!({"id": format!("call_{turn}{i}"), "type": "function",
                   "function": {"name": name, "arguments": args.to_string()}})
        })
        .collect();
    let message = if calls.is_empty() {
        let listed = if filesystem.is_some() {
            " The directory is listed above."
        } else {
            ""
        };
        json!({"role": "assistant", "content": format!("Paris is 18°C, your note has 4 words, and note 3 is deleted.{listed}")})
    } else {
        json!({"role": "assistant", "content": null, "tool_calls": tool_calls})
    };
    json!({"id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-5",
           "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]})
}

/// A value on one line.
fn compact(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}
