//! Every MCP revision rmcp speaks (2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28), driven by
//! rmcp's client pinned to that revision over an in-process pipe: every message our server
//! sends is valid against the official JSON schema of the revision negotiated.
#![cfg(feature = "mcp")]

#[path = "common/mcp_client.rs"]
mod mcp_client;
#[path = "common/mcp_tools.rs"]
mod mcp_tools;

use rmcp::model::CallToolRequestParams;
use rmcp::service::{RoleClient, RunningService};
use serde_json::{Value, json};
use toolnexus::Toolkit;
use toolnexus::mcp::McpServer;

use mcp_client::{Modes, REVISIONS, TestClient, check_log, connect_pipe};
use mcp_tools::{mcp_tools, shaped_tools};

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
        client
            .call_tool(params)
            .await
            .unwrap_or_else(|error| panic!("tools/call {tool}: {error}"));
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
