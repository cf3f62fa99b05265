//! Every MCP revision rmcp speaks, over streamable HTTP with sessions and without: every
//! message our server sends is valid against the official JSON schema of the revision
//! negotiated — and suspensions and progress reach the client over HTTP, including a call
//! suspended on one stateless replica and completed on another. (The HTTP server's own
//! behaviour is `mcp_http.rs`'s.)
#![cfg(feature = "mcp-http")]

use crate::common::mcp_client;
use crate::common::mcp_raw;
use crate::common::mcp_tools;

use std::time::Duration;

use rmcp::model::{CallToolRequestParams, CallToolResponse, ElicitationAction, ProtocolVersion};
use rmcp::service::{RoleClient, RunningService};
use serde_json::json;
use toolnexus::Toolkit;
use toolnexus::mcp::{HttpOptions, McpServer};

use super::MOUNT;
use mcp_client::{Modes, REVISIONS, TestClient, accept_every, check_log, connect_http};
use mcp_raw::Running;
use mcp_tools::{asking_tools, mcp_tools, progress_tool, shaped_tools};

/// A server on a loopback port, stopped by dropping `stop`.
/// `server` on a loopback port, in session or stateless mode.
async fn start(server: McpServer, stateless: bool) -> Running {
    let options = HttpOptions::new()
        .stateless(stateless)
        .shutdown_grace(Duration::from_secs(1));
    MOUNT.serve(server, options).await
}

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

async fn call_everything(client: &RunningService<RoleClient, TestClient>) -> usize {
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

async fn every_message_valid(stateless: bool) {
    let running = start(McpServer::new(toolkit()), stateless).await;
    for revision in REVISIONS {
        let client = TestClient::new(revision.clone(), Modes::None);
        let (client, log) = connect_http(&running.url(), client).await;
        let calls = call_everything(&client).await;
        client.cancel().await.unwrap();
        let checked = check_log(&revision, &log);
        assert!(
            checked > calls,
            "{revision}: only {checked} messages checked"
        );
    }
    running.shut_down().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_message_is_valid_with_sessions() {
    every_message_valid(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_message_is_valid_stateless() {
    every_message_valid(true).await;
}

fn params(name: &str, arguments: serde_json::Value) -> CallToolRequestParams {
    CallToolRequestParams::new(name.to_owned())
        .with_arguments(arguments.as_object().unwrap().clone())
}

fn text(result: &rmcp::model::CallToolResult) -> (&str, Option<bool>) {
    (
        result.content[0].as_text().unwrap().text.as_str(),
        result.is_error,
    )
}

/// An approval, a login, an input form and progress over HTTP, for each generation that can
/// be asked (2025-11-25 with sessions only: a stateless server cannot send a request).
async fn asking_over_http(stateless: bool) {
    let toolkit = asking_tools().0.with(progress_tool());
    let running = start(McpServer::new(toolkit), stateless).await;
    let mut revisions = vec![ProtocolVersion::V_2026_07_28];
    if !stateless {
        revisions.push(ProtocolVersion::V_2025_11_25);
    }
    for revision in revisions {
        let client = TestClient::new(revision.clone(), Modes::Both);
        client
            .answer(ElicitationAction::Accept, Some(json!({})))
            .answer(ElicitationAction::Accept, None)
            .answer(ElicitationAction::Accept, Some(json!({"env": "staging"})));
        let (client, log) = connect_http(&running.url(), client).await;
        let approved = client
            .call_tool(params("delete_note", json!({"id": 3})))
            .await
            .unwrap();
        assert_eq!(
            text(&approved),
            ("deleted note 3", Some(false)),
            "{revision}"
        );
        let login = client.call_tool(params("login", json!({}))).await.unwrap();
        assert_eq!(text(&login), ("logged in", Some(false)), "{revision}");
        let env = client
            .call_tool(params("pick_env", json!({})))
            .await
            .unwrap();
        assert_eq!(
            text(&env),
            ("deploying to staging", Some(false)),
            "{revision}"
        );
        let counted = client
            .call_tool(params("progress", json!({})))
            .await
            .unwrap();
        assert_eq!(text(&counted).0, "done");
        let progress = log
            .lock()
            .unwrap()
            .iter()
            .filter(|(_, message)| message["method"] == "notifications/progress")
            .count();
        assert_eq!(progress, 3, "{revision}: 0, 50 and 100 of 100");
        client.cancel().await.unwrap();
        check_log(&revision, &log);
    }
    if stateless {
        // A 2025-11-25 client of a stateless server cannot be sent a request: today's result.
        let revision = ProtocolVersion::V_2025_11_25;
        let client = TestClient::new(revision.clone(), Modes::Both);
        let script = client.clone();
        let (client, log) = connect_http(&running.url(), client).await;
        let asked = tokio::time::timeout(
            Duration::from_secs(60),
            client.call_tool(params("delete_note", json!({"id": 3}))),
        )
        .await
        .expect("answered, not stuck")
        .unwrap();
        assert_eq!(
            text(&asked),
            (
                "needs approval, which this client cannot ask for: Delete note 3?",
                Some(true)
            )
        );
        assert!(script.asked().is_empty());
        client.cancel().await.unwrap();
        check_log(&revision, &log);
    }
    running.shut_down().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn asking_with_sessions() {
    asking_over_http(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn asking_stateless() {
    asking_over_http(true).await;
}

/// Two stateless replicas with one key: a call suspended on one completes on the other.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_suspended_on_one_replica_completes_on_another() {
    let key = "the key every replica is given, 32 bytes or more";
    let (toolkit, runs) = asking_tools();
    let replica = || McpServer::new(toolkit.clone()).with_state_key(key).unwrap();
    let (one, two) = (start(replica(), true).await, start(replica(), true).await);
    let revision = ProtocolVersion::V_2026_07_28;
    let (first, log_one) =
        connect_http(&one.url(), TestClient::new(revision.clone(), Modes::Form)).await;
    let (second, log_two) =
        connect_http(&two.url(), TestClient::new(revision.clone(), Modes::Form)).await;

    let question = match first
        .call_tool_once(params("delete_note", json!({"id": 9})))
        .await
        .unwrap()
    {
        CallToolResponse::InputRequired(question) => question,
        other => panic!("expected input_required, got {other:?}"),
    };
    let responses = accept_every(&question);
    let retry = params("delete_note", json!({"id": 9}))
        .with_input_responses(responses)
        .with_request_state(question.request_state.clone().unwrap());
    let CallToolResponse::Complete(done) = second.call_tool_once(retry).await.unwrap() else {
        panic!("a result");
    };
    assert_eq!(text(&done), ("deleted note 9", Some(false)));
    assert_eq!(runs.load(std::sync::atomic::Ordering::SeqCst), 1);
    first.cancel().await.unwrap();
    second.cancel().await.unwrap();
    check_log(&revision, &log_one);
    check_log(&revision, &log_two);
    one.shut_down().await;
    two.shut_down().await;
}
