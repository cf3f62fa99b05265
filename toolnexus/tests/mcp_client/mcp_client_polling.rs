//! `McpTools` against our HTTP server with SSE polling on (`HttpOptions::poll_after`): a call
//! whose stream the server closes after its priming event is resumed by the client with
//! `Last-Event-ID`, on every revision with sessions, and its answer arrives whole.
#![cfg(feature = "mcp-http")]

use std::time::{Duration, Instant};

use serde_json::json;
use toolnexus::mcp::{HttpOptions, McpServer, McpTools};
use toolnexus::{ToolContext, Toolkit, tool, tools};

/// Answers after a while, having sent nothing meanwhile.
#[tool]
async fn after_a_while(ms: u64) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("answered after {ms} ms")
}

#[tokio::test]
async fn a_call_whose_stream_the_server_closes_is_resumed_by_mcp_tools() {
    let server = McpServer::new(Toolkit::new().with_all(tools![after_a_while]));
    let options = HttpOptions::new().poll_after(Duration::from_millis(30));
    let running = crate::common::mcp_raw::serve(server, options).await;
    let url = running.url();
    for revision in ["2025-11-25", "2025-06-18", "2025-03-26"] {
        let remote = McpTools::http(&url)
            .protocol_version(revision)
            .connect()
            .await
            .unwrap();
        let toolkit = Toolkit::new().with_all(remote.tools());
        let ctx = ToolContext::default();
        let started = Instant::now();
        let result = toolkit
            .execute("after_a_while", json!({"ms": 300}), &ctx)
            .await;
        assert_eq!(
            (result.output.as_str(), result.is_error),
            ("answered after 300 ms", false),
            "{revision}: {result:?}"
        );
        // The stream was closed and resumed: the client waited the priming event's
        // `retry: 1000` before it came back.
        assert!(
            started.elapsed() >= Duration::from_millis(1000),
            "{revision}"
        );
    }
    running.shut_down().await;
}
