//! What a remote call costs in the calling process: `McpTools` (a `Toolkit::execute` of a
//! remote tool: the argument check, the request, the result mapped to a `ToolResult`) against
//! rmcp's own client calling the same stdio server (`peer.call_tool` over its line transport
//! on the child's pipes), the floor. Counted by
//! callgrind in this process only (the server is a child process, not traced):
//! `scripts/callgrind-mcp-client.sh` runs each side twice, with N and 2N calls, and divides
//! the difference by N, so starting the server and the handshake drop out.
//!
//! TOOLNEXUS_BENCH_MODE=ours|rmcp, TOOLNEXUS_BENCH_CALLS=N.

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::async_rw::AsyncRwTransport;
use serde_json::json;
use toolnexus::mcp::McpTools;
use toolnexus::{ToolContext, Toolkit};

const SCRIPT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/fake_mcp_server.py"
);

fn main() {
    let mode = std::env::var("TOOLNEXUS_BENCH_MODE").unwrap_or_else(|_| "ours".to_owned());
    let calls: usize = std::env::var("TOOLNEXUS_BENCH_CALLS")
        .ok()
        .and_then(|calls| calls.parse().ok())
        .unwrap_or(100);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        match mode.as_str() {
            "ours" => {
                let server = McpTools::command("python3", [SCRIPT])
                    .protocol_version("2025-11-25")
                    .connect()
                    .await
                    .expect("the server starts");
                let toolkit = Toolkit::new().with_all(server.tools());
                let ctx = ToolContext::default();
                for _ in 0..calls {
                    let result = toolkit.execute("pid", json!({}), &ctx).await;
                    assert!(!result.is_error, "{}", result.output);
                }
            }
            "rmcp" => {
                // rmcp's own line transport on the child's pipes (what its `TokioChildProcess`
                // wraps).
                let mut child = tokio::process::Command::new("python3")
                    .arg(SCRIPT)
                    .stdin(std::process::Stdio::piped())
                    .stdout(std::process::Stdio::piped())
                    .kill_on_drop(true)
                    .spawn()
                    .expect("the server starts");
                let (stdout, stdin) = (child.stdout.take().unwrap(), child.stdin.take().unwrap());
                let transport = AsyncRwTransport::new_client(stdout, stdin);
                let client = ().serve(transport).await.expect("initializes");
                for _ in 0..calls {
                    let result = client
                        .call_tool(
                            CallToolRequestParams::new("pid")
                                .with_arguments(serde_json::Map::new()),
                        )
                        .await
                        .expect("a result");
                    assert_ne!(result.is_error, Some(true));
                }
                let _ = client.cancel().await;
            }
            other => panic!("unknown mode {other}"),
        }
    });
}
