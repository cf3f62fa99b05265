//! Arbitrary lines to the MCP stdio server in process ([`LineTransport`] over a pipe, after an
//! `initialize`): every reply is one JSON-RPC 2.0 message a line, and the server neither
//! panics nor stops answering — the call after the input is still answered.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use toolnexus::mcp::ServiceExt;
use toolnexus::mcp::{LineTransport, McpServer};
use toolnexus::serde_json::{self, Value};
use toolnexus::{Toolkit, tool, tools};

/// Adds two integers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"fuzz","version":"0"}}}"#;
const LAST: &str = r#"{"jsonrpc":"2.0","id":"last","method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}"#;

fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    })
}

fuzz_target!(|data: &[u8]| {
    runtime().block_on(async {
        let (client, server) = tokio::io::duplex(1 << 16);
        let (server_read, server_write) = tokio::io::split(server);
        let served = tokio::spawn(async move {
            let transport = LineTransport::new(server_read, server_write);
            if let Ok(running) = McpServer::new(Toolkit::new().with_all(tools![add]))
                .serve(transport)
                .await
            {
                let _ = running.waiting().await;
            }
        });
        let (client_read, mut client_write) = tokio::io::split(client);
        let writing = async move {
            let mut input = Vec::with_capacity(data.len() + 512);
            input.extend_from_slice(INITIALIZE.as_bytes());
            input.push(b'\n');
            // The input's own lines; a newline ends the last one so `LAST` stands alone.
            input.extend_from_slice(data);
            input.push(b'\n');
            input.extend_from_slice(LAST.as_bytes());
            input.push(b'\n');
            client_write.write_all(&input).await.unwrap();
            client_write
        };
        let reading = async move {
            let mut lines = BufReader::new(client_read).lines();
            while let Some(line) = lines.next_line().await.unwrap() {
                let reply: Value = serde_json::from_str(&line).expect("each reply is JSON");
                assert_eq!(reply["jsonrpc"], "2.0", "{line}");
                if reply["id"] == "last" {
                    return;
                }
            }
            // The input may itself end the session (a cancelled initialize, say); then the
            // pipe closes without `LAST` answered, which is no failure of the transport.
        };
        let (writer, ()) = tokio::join!(writing, reading);
        drop(writer);
        let _ = served.await;
    });
});
