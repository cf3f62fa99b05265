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
//! the repository's own so that the example runs without node or a network; any
//! `McpTools::deferred()` server (the filesystem server, GitHub's) joins the same way.
//!
//! Run it with:
//!
//! ```text
//! cargo build --example mcp_server --features mcp
//! cargo run --example mcp_agent --features mcp-client
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
    Answer {
        id: request.id,
        ok: true,
        data: None,
        reason: None,
    }
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
    let config =
        std::env::temp_dir().join(format!("toolnexus-mcp-agent-{}.json", std::process::id()));
    let mcp_json = json!({"mcpServers": {"notes": {"command": server, "args": []}}});
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
    let mut conversation = vec![
        json!({"role": "user", "content": "Weather in Paris? How long is my note? Then delete note 3."}),
    ];
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
        let reply = model(turn);
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

/// The stand-in for the provider: the script's turn `turn` as a Chat Completions response.
fn model(turn: usize) -> Value {
    let calls: &[(&str, Value)] = match turn {
        0 => &[
            (
                "search_tools",
                json!({"query": "weather in a city", "limit": 1}),
            ),
            ("word_count", json!({"text": "buy milk and eggs"})),
        ],
        1 => &[
            ("notes_get_weather", json!({"city": "Paris"})),
            (
                "search_tools",
                json!({"query": "delete a note", "limit": 1}),
            ),
        ],
        2 => &[("notes_delete_note", json!({"id": 3}))],
        _ => &[],
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
        json!({"role": "assistant", "content": "Paris is 18°C, your note has 4 words, and note 3 is deleted."})
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
