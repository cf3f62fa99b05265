//! An agent whose toolkit holds a local `#[tool]` fn and the tools of MCP servers, run by
//! `toolnexus::client::Client` on a scripted Chat Completions model (no network, no API
//! key): `examples/shared/canned.rs`, the stand-in `agent_loop` runs on too, answering each
//! turn with a canned body. The server is this repository's `examples/mcp_server` over stdio,
//! read from an `mcp.json`; its `delete_note` asks for approval, which crosses the boundary
//! as a suspension (MCP 2026-07-28 `InputRequiredResult`) and is answered in the run by the
//! client's `wait_for` (`ask_the_user` here), exactly like a local approval.
//!
//! The servers' tools are deferred (SPEC §15): each request carries only the local tool, what
//! a search has loaded and `search_tools` (a `before_model` hook prints them each turn); the
//! model searches first, and the run answers the search and loads what it found into its
//! [`RunState`](toolnexus::RunState), which also counts retries: a tool past its budget ends
//! the run `Incomplete` with `Limit::Retries` instead of spinning (SPEC §15B), and the example
//! says so. An `after_tool` hook prints each call and its result; the run's transcript is
//! printed at the end. The server is the repository's own so that the example runs without
//! node or a network.
//!
//! With `--filesystem DIR` the `mcp.json` also names the official filesystem server
//! (`npx @modelcontextprotocol/server-filesystem DIR`, which needs node), deferred the same
//! way: the model then searches for a directory listing, loads it and lists `DIR`.
//! `scripts/mcp-agent-filesystem.sh` installs the server and runs that.
//!
//! With `--login` a calendar that serves signed-in callers only joins the notes server, and
//! the agent signs in to it with OAuth (`McpTools::http(url).oauth(OAuthClient)`; README
//! "Signing in to remote servers"). Everything runs in this process, with no network and no
//! node (`login.rs`): our own MCP server over HTTP, protected as SPEC §12B describes
//! (`protected_resource`, `verify_bearer`), and a stand-in authorization server, hand-written
//! on tokio, that approves every login. A login is a `Request` of kind `"authorization"`
//! carrying the authorization URL; `ask_the_user` prints the URL and plays the person's
//! browser: it opens the URL, and the authorization server redirects it to
//! `OAuthClient::callback_listener`, which makes the redirect the answer. The server wants a
//! token for every request, listing its tools too, so the first login comes when connecting,
//! before the run (`McpClientError::pending`, then `OAuthClient::sign_in`). Then the script
//! skips an hour: the token expires and the stand-in gives no refresh tokens, so the model's
//! call to the calendar suspends with a new login, and later its `delete_note` with the
//! approval: two suspensions of one run, each answered by `wait_for` and the call completed.
//! No token is printed.
//!
//! Run it with:
//!
//! ```text
//! cargo build --example mcp_server --features mcp
//! cargo run --example mcp_agent --features mcp-client [-- --filesystem DIR]
//! cargo run --example mcp_agent --features mcp-client -- --login
//! ```

#[path = "../shared/canned.rs"]
mod canned;
mod login;

use std::sync::Arc;
use std::time::Duration;

use toolnexus::client::{Client, Limit, Message, Status};
use toolnexus::mcp::{CallbackListener, McpTools, OAuthClient};
use toolnexus::serde_json::{self, Value, json};
use toolnexus::{Answer, Api, Reason, Request, ToolContext, Toolkit, tool, tools};

type Error = Box<dyn std::error::Error + Send + Sync>;

/// What the agent runs against: `examples/mcp_server`, with the filesystem server beside it
/// (`--filesystem DIR`) or the calendar that needs a sign-in (`--login`).
#[derive(Clone)]
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

/// What the run does when a tool suspends: a real app asks its user; this one approves, and
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
    let (mut servers, callback) = match &mode {
        Mode::Login => {
            let (calendar, callback) = signed_in().await?;
            (vec![calendar], Some(Arc::new(callback)))
        }
        Mode::Notes | Mode::Filesystem(_) => (Vec::new(), None),
    };
    servers.extend(from_mcp_json(&mode).await?);

    let mut toolkit = Toolkit::new().with_all(tools![word_count]);
    for server in servers {
        println!("{}: {} tools", server.name(), server.tools().len());
        let server = server.deferred();
        toolkit = toolkit.with_all(server.tools_prefixed(&format!("{}_", server.name())));
    }

    let ask = match &mode {
        Mode::Notes => "Weather in Paris? How long is my note? Then delete note 3.",
        Mode::Filesystem(_) => {
            "Weather in Paris? How long is my note? Then delete note 3. And which files do I have?"
        }
        Mode::Login => "What are my meetings on Monday? How long is my note? Then delete note 3.",
    };
    let script = mode.clone();
    let catalog = toolkit.len() + 1; // and `search_tools`
    let client = Client::with_model(canned::Canned::new(Api::OpenAiChat, move |turn| {
        model(turn, &script)
    }))
    .tool_context(ToolContext {
        timeout: Some(Duration::from_secs(30)),
        ..Default::default()
    })
    .before_model(move |messages, tools| {
        // What this request carries as `tools`: the local tool, what was loaded, the search.
        let names: Vec<&str> = (tools.as_array().into_iter().flatten())
            .filter_map(|entry| entry["function"]["name"].as_str())
            .collect();
        println!(
            "turn {}: sends {} of {catalog} tools: {}",
            turns_before(&messages),
            names.len(),
            names.join(", ")
        );
        std::future::ready((messages, tools))
    })
    .after_tool(|call, result| {
        println!("  > {} {} => {}", call.name, call.arguments, result.output);
        std::future::ready(result)
    })
    .wait_for(move |request| {
        let callback = callback.clone();
        async move { ask_the_user(request, callback.as_deref()).await }
    });

    let result = client.run(ask, &toolkit).await?;
    let ending = match (result.status, result.limit) {
        (Status::Done, _) => "done".to_owned(),
        // The last result names the tool: ``tool `NAME` failed N times in a row: …``.
        (_, Some(Limit::Retries)) => match result.tool_calls.last() {
            Some(last) => format!("stopped: {}", last.output),
            None => "stopped: a tool failed past its retry budget".to_owned(),
        },
        (status, limit) => format!("stopped: {status:?}, {limit:?}"),
    };
    println!(
        "\n{ending} after {} turns and {} tool calls; the transcript:",
        result.turns, result.tool_call_count
    );
    for message in &result.messages {
        println!("{}", serde_json::to_string(message)?);
    }
    Ok(())
}

/// How many turns the model has answered in `messages`: the number of the turn about to be sent.
fn turns_before(messages: &[Message]) -> usize {
    (messages.iter())
        .filter(|message| matches!(message, Message::Assistant { .. }))
        .count()
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

/// The stand-in for the provider: the script's turn `turn` as a Chat Completions response,
/// for [`canned::Canned`]. With the filesystem server, two more turns list its directory;
/// with the calendar, a search finds its agenda and the next turn calls it (the re-login)
/// beside the search for `delete_note`, which the turn after calls (the approval).
fn model(turn: usize, mode: &Mode) -> Value {
    let calls: Vec<(&str, Value)> = match (mode, turn) {
        (Mode::Login, 0) => vec![
            (
                "search_tools",
                json!({"query": "my meetings on a day", "limit": 1}),
            ),
            ("word_count", json!({"text": "buy milk and eggs"})),
        ],
        (Mode::Login, 1) => vec![
            ("calendar_agenda", json!({"day": "Monday"})),
            (
                "search_tools",
                json!({"query": "delete a note", "limit": 1}),
            ),
        ],
        (Mode::Login, 2) => vec![("notes_delete_note", json!({"id": 3}))],
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
                14:00; your note has 4 words, and note 3 is deleted."
                .to_owned(),
        };
        json!({"role": "assistant", "content": content})
    } else {
        json!({"role": "assistant", "content": null, "tool_calls": tool_calls})
    };
    let finish = if calls.is_empty() {
        "stop"
    } else {
        "tool_calls"
    };
    json!({"id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-5",
           "choices": [{"index": 0, "message": message, "finish_reason": finish}]})
}
