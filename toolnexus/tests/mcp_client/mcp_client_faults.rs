//! `McpTools` against a stdio server that misbehaves on request (tests/fixtures/fake_mcp_server.py,
//! a 2025-* server without `server/discover`): a server killed mid-call, one that exits, one
//! that writes garbage, one that hangs; each call in flight answers an `isError` result naming
//! the server and what happened, and the next call starts the server again. Also what only a
//! 2025-* server does: `elicitation/create` during a call, `notifications/tools/list_changed`.
#![cfg(feature = "mcp-client")]

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolnexus::mcp::McpTools;
use toolnexus::{Answer, Reason, Request, ToolContext, ToolSource, Toolkit};

const SCRIPT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/fake_mcp_server.py"
);

async fn fake(starts: Option<&std::path::Path>) -> McpTools {
    let mut builder = McpTools::command("python3", [SCRIPT]).name("fake");
    if let Some(starts) = starts {
        builder = builder.env("FAKE_STARTS", starts.display().to_string());
    }
    builder.connect().await.expect("the fake server starts")
}

fn toolkit(server: &McpTools) -> Toolkit {
    Toolkit::new().with_all(server.tools())
}

async fn run(toolkit: &Toolkit, name: &str) -> toolnexus::ToolResult {
    toolkit
        .execute(name, json!({}), &ToolContext::default())
        .await
}

#[tokio::test]
async fn an_older_server_is_spoken_to_in_its_revision() {
    let server = fake(None).await;
    assert_eq!(
        server.protocol_version().await.as_deref(),
        Some("2025-11-25")
    );
    let tools = server.tools();
    assert_eq!(tools.len(), 9);
    assert!(tools.iter().all(|tool| tool.source() == ToolSource::Mcp));
}

#[tokio::test]
async fn a_server_killed_mid_call_answers_the_call_and_is_started_again() {
    let starts = tempfile::NamedTempFile::new().unwrap();
    let server = fake(Some(starts.path())).await;
    let toolkit = Arc::new(toolkit(&server));
    let first_pid = run(&toolkit, "pid").await.output;

    let sleeping = tokio::spawn({
        let toolkit = Arc::clone(&toolkit);
        async move { run(&toolkit, "sleep").await }
    });
    tokio::time::sleep(Duration::from_millis(500)).await;
    let killed = std::process::Command::new("kill")
        .args(["-9", &first_pid])
        .status()
        .unwrap();
    assert!(killed.success());
    let began = Instant::now();
    let result = sleeping.await.unwrap();
    assert!(began.elapsed() < Duration::from_secs(5), "answered at once");
    assert!(result.is_error);
    assert!(
        result
            .output
            .starts_with("MCP server `fake` exited (signal: 9"),
        "{}",
        result.output
    );
    assert!(
        result.output.ends_with("(calling `sleep`)"),
        "{}",
        result.output
    );
    assert_eq!(result.metadata["server"], "fake");

    let second_pid = run(&toolkit, "pid").await;
    assert!(!second_pid.is_error, "{}", second_pid.output);
    assert_ne!(second_pid.output, first_pid, "a new process");
    let started = std::fs::read_to_string(starts.path()).unwrap();
    assert_eq!(started.lines().count(), 2, "{started}");
}

#[tokio::test]
async fn a_server_that_exits_or_writes_garbage_is_named_with_what_happened() {
    let server = fake(None).await;
    let toolkit = toolkit(&server);
    let exited = run(&toolkit, "exit").await;
    assert!(exited.is_error);
    assert_eq!(
        exited.output,
        "MCP server `fake` exited (exit status: 3) (calling `exit`)"
    );
    // The next call starts it again (after the first backoff).
    assert!(!run(&toolkit, "pid").await.is_error);

    let garbage = run(&toolkit, "garbage").await;
    assert!(garbage.is_error);
    assert_eq!(
        garbage.output,
        "MCP server `fake` wrote a line that is not JSON-RPC: `this is not JSON-RPC` (calling `garbage`)"
    );
    assert!(!run(&toolkit, "pid").await.is_error);

    // A line past the limit ends the connection once it passes, not when (if ever) it ends.
    let began = Instant::now();
    let endless = toolkit
        .execute("garbage", json!({"endless": true}), &ToolContext::default())
        .await;
    assert!(
        began.elapsed() < Duration::from_secs(20),
        "answered at once"
    );
    assert_eq!(
        endless.output,
        format!(
            "MCP server `fake` could not be read: wrote a line longer than {} bytes (calling `garbage`)",
            toolnexus::mcp::MAX_LINE_BYTES
        )
    );
    assert!(!run(&toolkit, "pid").await.is_error);
}

#[tokio::test]
async fn a_server_that_hangs_is_answered_at_the_deadline() {
    let server = fake(None)
        .await
        .with_call_timeout(Duration::from_millis(400));
    let toolkit = toolkit(&server);
    let began = Instant::now();
    let hung = run(&toolkit, "hang").await;
    assert!(began.elapsed() < Duration::from_secs(3));
    assert_eq!(
        hung.output,
        "MCP server `fake` did not answer within 400ms; the call was cancelled (calling `hang`)"
    );
    // The caller's own deadline wins over the server's default.
    let ctx = ToolContext {
        timeout: Some(Duration::from_millis(200)),
        ..ToolContext::default()
    };
    let began = Instant::now();
    let hung = toolkit.execute("hang", json!({}), &ctx).await;
    assert!(hung.is_error);
    assert!(began.elapsed() < Duration::from_secs(3));
    // The connection still works.
    assert!(!run(&toolkit, "pid").await.is_error);
}

#[tokio::test]
async fn a_list_change_refreshes_the_tools() {
    let server = fake(None).await;
    assert!(server.tools().iter().all(|tool| tool.name() != "extra"));
    assert_eq!(run(&toolkit(&server), "grow").await.output, "grown");
    let began = Instant::now();
    while !server.tools().iter().any(|tool| tool.name() == "extra") {
        assert!(
            began.elapsed() < Duration::from_secs(10),
            "the list was refreshed"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(server.tools().len(), 10);
}

#[tokio::test]
async fn remote_progress_reaches_the_context() {
    let server = fake(None).await;
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&seen);
    let ctx = ToolContext::default().on_progress(move |done, total, message| {
        record
            .lock()
            .unwrap()
            .push((done, total, message.map(str::to_owned)));
    });
    let done = toolkit(&server).execute("progress", json!({}), &ctx).await;
    assert_eq!(done.output, "done");
    let step = |n: f64| (n, Some(3.0), Some("step".to_owned()));
    assert_eq!(*seen.lock().unwrap(), [step(1.0), step(2.0), step(3.0)]);
}

/// rmcp hands each notification to a task of its own, which may run after the call that the
/// next line resolves; every step the server sent before its result must still reach the
/// context before the call returns. Many calls, on a runtime with several workers, where the
/// race shows.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_progress_step_sent_before_the_result_arrives_before_the_call_returns() {
    let server = fake(None).await;
    let toolkit = toolkit(&server);
    for round in 0..300 {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let record = Arc::clone(&seen);
        let ctx = ToolContext::default().on_progress(move |done, total, _| {
            record.lock().unwrap().push((done, total));
        });
        let done = toolkit.execute("burst", json!({}), &ctx).await;
        assert_eq!(done.output, "burst", "round {round}");
        let steps = seen.lock().unwrap().clone();
        let all: Vec<(f64, Option<f64>)> = (1..=4).map(|n| (f64::from(n), Some(4.0))).collect();
        assert_eq!(steps, all, "round {round}");
    }
}

/// A 2025-era server that answers `server/discover` (a method it does not know) with `{}`, as
/// the conformance suite's scenario servers do: not a discover result, so `initialize` follows.
#[tokio::test]
async fn an_empty_answer_to_discover_means_initialize() {
    let server = McpTools::command("python3", [SCRIPT])
        .name("fake")
        .env("FAKE_DISCOVER_EMPTY", "1")
        .connect()
        .await
        .expect("initialize follows the empty answer");
    assert_eq!(
        server.protocol_version().await.as_deref(),
        Some("2025-11-25")
    );
    let pid = run(&toolkit(&server), "pid").await;
    assert!(!pid.is_error, "{}", pid.output);
}

#[tokio::test]
async fn an_elicitation_goes_to_the_handler_or_is_declined() {
    let declined = run(&toolkit(&fake(None).await), "ask").await;
    assert_eq!(
        serde_json::from_str::<Value>(&declined.output).unwrap(),
        json!({"action": "decline"})
    );

    let asked = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&asked);
    let server = fake(None).await.on_elicitation(move |request: Request| {
        record.lock().unwrap().push(request.clone());
        async move {
            let mut data = serde_json::Map::new();
            data.insert("env".to_owned(), json!("staging"));
            Answer {
                id: request.id,
                ok: true,
                data: Some(data),
                reason: None,
            }
        }
    });
    let accepted = run(&toolkit(&server), "ask").await;
    assert_eq!(
        serde_json::from_str::<Value>(&accepted.output).unwrap(),
        json!({"action": "accept", "content": {"env": "staging"}})
    );
    let request = asked.lock().unwrap()[0].clone();
    assert_eq!(
        (request.kind.as_str(), request.prompt.as_str()),
        ("input", "Which environment?")
    );
    assert_eq!(
        request.data.unwrap()["schema"],
        json!({"type": "object", "properties": {"env": {"type": "string"}}})
    );

    let server = fake(None)
        .await
        .on_elicitation(|request: Request| async move {
            Answer {
                id: request.id,
                ok: false,
                data: None,
                reason: Some(Reason::Declined),
            }
        });
    let declined = run(&toolkit(&server), "ask").await;
    assert_eq!(
        serde_json::from_str::<Value>(&declined.output).unwrap(),
        json!({"action": "decline"})
    );
}

/// A retry the server refuses with `-32602` — here its `requestState` expired while the human
/// thought (SPEC §8C) — reaches the agent as an `isError` result carrying the server's message,
/// so the model still reads why; the tool did not run.
#[cfg(feature = "mcp-http")]
#[tokio::test]
async fn a_retry_refused_with_invalid_params_is_an_error_result_that_says_why() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use toolnexus::mcp::{HttpOptions, HttpServer, McpServer};

    for stateless in [false, true] {
        let runs = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&runs);
        let delete_note = toolnexus::define_tool(
            "delete_note",
            "Deletes a note",
            json!({"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}),
        )
        .unwrap()
        .approval("Delete note {id}?")
        .sync(move |args: Value, _: &ToolContext| {
            counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            format!("deleted note {}", args["id"])
        });
        let server = McpServer::new(Toolkit::new().with(delete_note))
            .with_state_expiry(Duration::from_millis(1));
        let options = HttpOptions::new().stateless(stateless);
        let http = HttpServer::bind("127.0.0.1:0", server, options)
            .await
            .unwrap();
        let url = format!("http://{}/mcp", http.local_addr());
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(http.run_until(async {
            let _ = stopped.await;
        }));
        let remote = McpTools::http(&url).name("notes").connect().await.unwrap();
        let approve_late = |request: Request| async move {
            tokio::time::sleep(Duration::from_millis(20)).await;
            Answer {
                id: request.id,
                ok: true,
                data: None,
                reason: None,
            }
        };
        let refused = toolkit(&remote)
            .call("delete_note", json!({"id": 1}), approve_late)
            .await;
        assert!(refused.is_error && !refused.is_pending(), "{refused:?}");
        assert_eq!(
            refused.output,
            "MCP server `notes` refused the call: tool `delete_note` did not run: its \
             requestState has expired; call the tool again (calling `delete_note`)",
            "stateless {stateless}"
        );
        assert_eq!(runs.load(Ordering::SeqCst), 0);
        let _ = stop.send(());
    }
}
