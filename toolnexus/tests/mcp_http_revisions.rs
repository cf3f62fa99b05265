//! Every MCP revision rmcp speaks, over streamable HTTP with sessions and without: every
//! message our server sends is valid against the official JSON schema of the revision
//! negotiated. (The HTTP server's own behaviour is `mcp_http.rs`'s.)
#![cfg(feature = "mcp-http")]

#[path = "common/mcp_client.rs"]
mod mcp_client;
#[path = "common/mcp_tools.rs"]
mod mcp_tools;

use std::net::SocketAddr;
use std::time::Duration;

use rmcp::model::CallToolRequestParams;
use rmcp::service::{RoleClient, RunningService};
use serde_json::json;
use tokio::sync::oneshot;
use toolnexus::Toolkit;
use toolnexus::mcp::{HttpOptions, HttpServer, McpServer};

use mcp_client::{Modes, REVISIONS, TestClient, check_log, connect_http};
use mcp_tools::{mcp_tools, shaped_tools};

/// A server on a loopback port, stopped by dropping `stop`.
pub struct Running {
    pub addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    finished: tokio::task::JoinHandle<()>,
}

impl Running {
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    pub async fn shut_down(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        tokio::time::timeout(Duration::from_secs(30), &mut self.finished)
            .await
            .expect("the server shuts down")
            .expect("the server task did not panic");
    }
}

pub async fn start(server: McpServer, stateless: bool) -> Running {
    let options = HttpOptions::new()
        .stateless(stateless)
        .shutdown_grace(Duration::from_secs(1));
    let http = HttpServer::bind("127.0.0.1:0", server, options)
        .await
        .expect("binds a loopback port");
    let addr = http.local_addr();
    let (stop, stopped) = oneshot::channel::<()>();
    let finished = tokio::spawn(http.run_until(async {
        let _ = stopped.await;
    }));
    Running {
        addr,
        stop: Some(stop),
        finished,
    }
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
        client
            .call_tool(params)
            .await
            .unwrap_or_else(|error| panic!("tools/call {tool}: {error}"));
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
