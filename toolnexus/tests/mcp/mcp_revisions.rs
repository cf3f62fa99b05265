//! Every MCP revision rmcp speaks (2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28), driven by
//! rmcp's client pinned to that revision over an in-process pipe: every message our server
//! sends is valid against the official JSON schema of the revision negotiated.
#![cfg(feature = "mcp")]

use crate::common::mcp_client;
use crate::common::mcp_tools;

use std::time::Duration;

use rmcp::model::CallToolRequestParams;
use rmcp::service::{RoleClient, RunningService};
use serde_json::{Value, json};
use toolnexus::Toolkit;
use toolnexus::mcp::McpServer;

use mcp_client::{Dir, Modes, REVISIONS, TestClient, check_log, connect_pipe};
use mcp_tools::{mcp_tools, progress_tool, shaped_tools};

/// The shared MCP tools (but `stuck`) and the results of every shape.
fn toolkit() -> Toolkit {
    let mut toolkit = Toolkit::new();
    for tool in mcp_tools()
        .toolkit
        .tools()
        .iter()
        .chain(shaped_tools().tools())
    {
        if tool.name() != "stuck" {
            toolkit.register(tool.clone());
        }
    }
    toolkit
}

/// Lists, then calls every tool once (and one unknown tool) with arguments it accepts.
pub async fn call_everything(client: &RunningService<RoleClient, TestClient>) -> usize {
    let tools = client.list_all_tools().await.expect("tools/list");
    let mut calls = 0;
    for tool in tools
        .iter()
        .map(|tool| tool.name.to_string())
        .chain(["nope".to_owned()])
    {
        let arguments = match tool.as_str() {
            "weather" => json!({"city": "Oslo"}),
            "maybe_point" => json!({"some": true}),
            _ => json!({}),
        };
        let params = CallToolRequestParams::new(tool.clone())
            .with_arguments(arguments.as_object().unwrap().clone());
        let answer = client.call_tool(params).await;
        // An unknown tool is the protocol's `-32602` (SPEC §8); its error message is checked
        // against the revision's schema like every other message.
        match (tool.as_str(), answer) {
            ("nope", Err(rmcp::ServiceError::McpError(error))) => assert_eq!(error.code.0, -32602),
            (_, Ok(_)) if tool != "nope" => {}
            (_, answer) => panic!("tools/call {tool}: {answer:?}"),
        }
        calls += 1;
    }
    calls
}

#[tokio::test]
async fn every_message_is_valid_under_the_revision_negotiated() {
    for revision in REVISIONS {
        let client = TestClient::new(revision.clone(), Modes::None);
        let (running, log) = connect_pipe(McpServer::new(toolkit()), client).await;
        let calls = call_everything(&running).await;
        running.cancel().await.unwrap();
        let checked = check_log(&revision, &log);
        // The handshake, tools/list and every call were answered and checked.
        assert!(
            checked > calls,
            "{revision}: only {checked} messages checked"
        );
    }
}

#[tokio::test]
async fn a_2026_07_28_result_says_its_result_type() {
    let client = TestClient::new(REVISIONS[3].clone(), Modes::None);
    let (running, log) = connect_pipe(McpServer::new(toolkit()), client).await;
    call_everything(&running).await;
    running.cancel().await.unwrap();
    let log = log.lock().unwrap();
    let results: Vec<&Value> = log
        .iter()
        .filter_map(|(_, message)| message.get("result"))
        .filter(|result| result.get("content").is_some())
        .collect();
    assert!(results.len() > 5);
    for result in results {
        assert_eq!(result["resultType"], "complete", "{result}");
    }
}

#[tokio::test]
async fn progress_reaches_the_client_before_the_result() {
    for revision in REVISIONS {
        let client = TestClient::new(revision.clone(), Modes::None);
        let seen = client.clone();
        let server = McpServer::new(Toolkit::new().with(progress_tool()));
        let (running, log) = connect_pipe(server, client).await;
        let done = running
            .call_tool(CallToolRequestParams::new("progress"))
            .await
            .unwrap();
        assert_eq!(done.content[0].as_text().unwrap().text, "done");
        running.cancel().await.unwrap();
        check_log(&revision, &log);

        // On the wire: three notifications for the call's token, then its result.
        let log = log.lock().unwrap().clone();
        let call = log
            .iter()
            .find(|(_, message)| message["method"] == "tools/call")
            .map(|(_, message)| message.clone())
            .unwrap();
        let token = &call["params"]["_meta"]["progressToken"];
        let from_server: Vec<&Value> = log
            .iter()
            .filter(|(dir, _)| *dir == Dir::FromServer)
            .map(|(_, message)| message)
            .filter(|message| {
                message["method"] == "notifications/progress" || message["id"] == call["id"]
            })
            .collect();
        let expected = [
            json!({"progressToken": token, "progress": 0.0, "total": 100.0, "message": "starting"}),
            json!({"progressToken": token, "progress": 50.0, "total": 100.0}),
            json!({"progressToken": token, "progress": 100.0, "total": 100.0, "message": "done"}),
        ];
        assert_eq!(from_server.len(), 4, "{revision}: {from_server:#?}");
        for (message, expected) in from_server.iter().zip(&expected) {
            assert_eq!(message["params"], *expected, "{revision}");
        }
        assert_eq!(from_server[3]["result"]["content"][0]["text"], "done");
        wait_until(|| seen.progress().len() == 3).await;
    }
}

#[tokio::test]
async fn a_call_timeout_bounds_every_call() {
    let server = McpServer::new(mcp_tools().toolkit).with_call_timeout(Duration::from_millis(50));
    let client = TestClient::new(REVISIONS[2].clone(), Modes::None);
    let (running, _) = connect_pipe(server, client).await;
    let stuck = running
        .call_tool(CallToolRequestParams::new("stuck"))
        .await
        .unwrap();
    assert_eq!(stuck.is_error, Some(true));
    assert_eq!(
        stuck.content[0].as_text().unwrap().text,
        "tool `stuck` timed out after 50ms"
    );
    running.cancel().await.unwrap();
}

/// Waits (boundedly) until `done` holds.
async fn wait_until(done: impl Fn() -> bool) {
    for _ in 0..500 {
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("gave up waiting");
}

#[tokio::test]
async fn without_a_progress_token_no_progress_is_sent() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    let (server_end, client_end) = tokio::io::duplex(64 * 1024);
    let server = McpServer::new(Toolkit::new().with(progress_tool()));
    tokio::spawn(async move {
        use rmcp::ServiceExt;
        let running = server.serve(server_end).await.expect("server starts");
        let _ = running.waiting().await;
    });
    let (read, mut write) = tokio::io::split(client_end);
    let mut lines = BufReader::new(read).lines();
    let messages = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "progress", "arguments": {}}}),
    ];
    for message in &messages {
        write
            .write_all(format!("{message}\n").as_bytes())
            .await
            .unwrap();
    }
    let mut received = Vec::new();
    while received.len() < 2 {
        let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
            .await
            .expect("the server answers")
            .unwrap()
            .expect("a line");
        received.push(serde_json::from_str::<Value>(&line).unwrap());
    }
    assert_eq!(received[0]["id"], 1);
    // The next message is the call's result: no notification came before it.
    assert_eq!(received[1]["id"], 2, "{:#}", received[1]);
    assert_eq!(received[1]["result"]["content"][0]["text"], "done");
}
