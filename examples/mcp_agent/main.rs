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
//! With `--login` the remote server is a calendar that serves signed-in callers only, and the
//! agent signs in with OAuth (`McpTools::http(url).oauth(OAuthClient)`; README "Signing in to
//! remote servers"). Everything runs in this process, with no network and no node
//! (`login.rs`): our own MCP server over HTTP, protected as SPEC §12B describes
//! (`protected_resource`, `verify_bearer`), and a stand-in authorization server, hand-written
//! on tokio, that approves every login. A login is a `Request` of kind `"authorization"`
//! carrying the authorization URL; `ask_the_user` prints the URL and plays the person's
//! browser: it opens the URL, and the authorization server redirects it to
//! `OAuthClient::callback_listener`, which makes the redirect the answer. The server wants a
//! token for every request, listing its tools too, so the first login comes when connecting
//! (`McpClientError::pending`, then `OAuthClient::sign_in`). Then the script skips an hour:
//! the token expires and the stand-in gives no refresh tokens, so the model's call to the
//! calendar suspends with a new login, which the loop hands to `ask_the_user` like any
//! suspension, and the call completes with the new token. No token is printed.
//!
//! Run it with:
//!
//! ```text
//! cargo build --example mcp_server --features mcp
//! cargo run --example mcp_agent --features mcp-client [-- --filesystem DIR]
//! cargo run --example mcp_agent --features mcp-client -- --login
//! ```

mod login;

use std::time::Duration;

use toolnexus::mcp::{CallbackListener, McpTools, OAuthClient};
use toolnexus::serde_json::{self, Value, json};
use toolnexus::{
    Answer, Api, Reason, Request, RunState, ToolContext, Toolkit, tool, tool_calls, tool_results,
    tools,
};

type Error = Box<dyn std::error::Error + Send + Sync>;

/// What the agent runs against: `examples/mcp_server`, with the filesystem server beside it
/// (`--filesystem DIR`), or the calendar that needs a sign-in (`--login`).
enum Mode {
    Notes,
    Filesystem(String),
    Login,
}

/// Counts the words of a text.
#[tool]
fn word_count(
    /// The text to count
    text: String,
) -> usize {
    text.split_whitespace().count()
}

/// What the loop does when a tool suspends: a real app asks its user; this one approves, and
/// for a login shows the URL and plays the person's browser, whose redirect `callback` takes.
async fn ask_the_user(request: Request, callback: Option<&CallbackListener>) -> Answer {
    println!("  ~ asked ({}): {}", request.kind, request.prompt);
    let ("authorization", Some(url), Some(callback)) =
        (request.kind.as_str(), request.url.clone(), callback)
    else {
        return Answer::approve(&request);
    };
    println!("    open {url}");
    // The browser's redirect ends the wait; a browser that fails first ends it as declined.
    tokio::select! {
        answer = callback.answer(request.clone()) => {
            println!("    answered: the browser came back to {}", callback.redirect_uri());
            answer
        }
        Err(why) = login::browse(&url) => {
            println!("    the browser failed: {why}");
            Answer::decline(&request, Reason::Declined)
        }
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    let mode = match std::env::args().skip(1).collect::<Vec<_>>().as_slice() {
        [] => Mode::Notes,
        [flag, dir] if flag == "--filesystem" => Mode::Filesystem(dir.clone()),
        [flag] if flag == "--login" => Mode::Login,
        _ => return Err("usage: mcp_agent [--filesystem DIR | --login]".into()),
    };
    let (servers, callback) = match &mode {
        Mode::Login => {
            let (server, callback) = signed_in().await?;
            (vec![server], Some(callback))
        }
        Mode::Notes | Mode::Filesystem(_) => (from_mcp_json(&mode).await?, None),
    };

    let mut toolkit = Toolkit::new().with_all(tools![word_count]);
    for server in servers {
        println!("{}: {} tools", server.name(), server.tools().len());
        let server = server.deferred();
        toolkit = toolkit.with_all(server.tools_prefixed(&format!("{}_", server.name())));
    }

    let api = Api::OpenAiChat;
    let ctx = ToolContext {
        timeout: Some(Duration::from_secs(30)),
        ..Default::default()
    };
    let ask = match &mode {
        Mode::Notes => "Weather in Paris? How long is my note? Then delete note 3.",
        Mode::Filesystem(_) => {
            "Weather in Paris? How long is my note? Then delete note 3. And which files do I have?"
        }
        Mode::Login => "What are my meetings on Monday? And how long is my note?",
    };
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
        let reply = model(turn, &mode);
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
                    .call_with(&call.name, args, &ctx, |request| {
                        ask_the_user(request, callback.as_ref())
                    })
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

/// The servers of an `mcp.json`: `examples/mcp_server`, and the filesystem server's with
/// `--filesystem`.
async fn from_mcp_json(mode: &Mode) -> Result<Vec<McpTools>, Error> {
    // The server binary sits beside this one (target/<profile>/examples/).
    let server = std::env::current_exe()?.with_file_name("mcp_server");
    if !server.exists() {
        return Err(format!(
            "{} is not built: run `cargo build --example mcp_server --features mcp` first",
            server.display()
        )
        .into());
    }
    let mut servers = json!({"notes": {"command": server, "args": []}});
    if let Mode::Filesystem(dir) = mode {
        servers["filesystem"] = json!({"command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-filesystem", dir]});
    }
    let config =
        std::env::temp_dir().join(format!("toolnexus-mcp-agent-{}.json", std::process::id()));
    let mcp_json = json!({ "mcpServers": servers });
    std::fs::write(&config, serde_json::to_string_pretty(&mcp_json)?)?;
    let servers = McpTools::from_config(&config).await;
    std::fs::remove_file(&config)?;
    Ok(servers?)
}

/// `--login`: starts the authorization server and the calendar, and connects to the
/// calendar, signing in when it asks; the listener that takes the browser's redirects.
async fn signed_in() -> Result<(McpTools, CallbackListener), Error> {
    let auth = login::AuthServer::start().await?;
    println!(
        "authorization server (a stand-in that approves every login): {}",
        auth.url
    );
    let url = login::calendar(&auth).await?;
    println!("calendar: {url}, for signed-in callers only");
    let callback = OAuthClient::callback_listener("127.0.0.1:0").await?;
    let oauth = OAuthClient::new(callback.redirect_uri()).client_id(login::CLIENT_ID);
    let server = McpTools::http(&url).name("calendar").oauth(oauth.clone());
    let connected = match server.clone().connect().await {
        Ok(connected) => connected,
        Err(error) => {
            let request = error.pending().ok_or_else(|| error.clone())?.clone();
            let answer = ask_the_user(request, Some(&callback)).await;
            oauth.sign_in(&answer).await?;
            println!("  ~ signed in to `calendar`");
            server.connect().await?
        }
    };
    // Skipping an hour: with no refresh token, the model's call will need a new login.
    auth.expire_tokens();
    println!("(an hour later: the token has expired, and there is no refresh token)");
    Ok((connected, callback))
}

/// The stand-in for the provider: the script's turn `turn` as a Chat Completions response;
/// with the filesystem server, two more turns list its directory; with the calendar, a
/// search finds its tool and the next turn calls it.
fn model(turn: usize, mode: &Mode) -> Value {
    let calls: Vec<(&str, Value)> = match (mode, turn) {
        (Mode::Login, 0) => vec![
            (
                "search_tools",
                json!({"query": "my meetings on a day", "limit": 1}),
            ),
            ("word_count", json!({"text": "buy milk and eggs"})),
        ],
        (Mode::Login, 1) => vec![("calendar_agenda", json!({"day": "Monday"}))],
        (Mode::Login, _) => Vec::new(),
        (_, 0) => vec![
            (
                "search_tools",
                json!({"query": "weather in a city", "limit": 1}),
            ),
            ("word_count", json!({"text": "buy milk and eggs"})),
        ],
        (_, 1) => vec![
            ("notes_get_weather", json!({"city": "Paris"})),
            (
                "search_tools",
                json!({"query": "delete a note", "limit": 1}),
            ),
        ],
        (Mode::Notes, 2) => vec![("notes_delete_note", json!({"id": 3}))],
        (Mode::Filesystem(_), 2) => vec![
            ("notes_delete_note", json!({"id": 3})),
            (
                "search_tools",
                json!({"query": "list the files in a directory", "limit": 1}),
            ),
        ],
        (Mode::Filesystem(dir), 3) => vec![("filesystem_list_directory", json!({"path": dir}))],
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
        let done = "Paris is 18°C, your note has 4 words, and note 3 is deleted.";
        let content = match mode {
            Mode::Notes => done.to_owned(),
            Mode::Filesystem(_) => format!("{done} The directory is listed above."),
            Mode::Login => "On Monday you have a standup at 09:30 and a design review at \
                14:00; your note has 4 words."
                .to_owned(),
        };
        json!({"role": "assistant", "content": content})
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
