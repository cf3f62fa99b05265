//! Garbage on the stdio transport ([`LineTransport`], what `serve_stdio` runs on), over an
//! in-process pipe: every line that cannot be read gets a JSON-RPC error (`id: null` when
//! none can be read) and the server goes on; a `tools/call`'s arguments that are not an
//! object or name a key twice get `execute_json`'s `isError` result.
#![cfg(feature = "mcp")]

use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, ReadHalf, WriteHalf};
use toolnexus::mcp::ServiceExt;
use toolnexus::mcp::{LineTransport, MAX_LINE_BYTES, McpServer};
use toolnexus::{ToolContext, Toolkit, tool, tools};

/// Adds two integers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn toolkit() -> Toolkit {
    Toolkit::new().with_all(tools![add])
}

struct Pipe {
    write: WriteHalf<DuplexStream>,
    read: BufReader<ReadHalf<DuplexStream>>,
}

impl Pipe {
    fn serve() -> Self {
        let (client, server) = tokio::io::duplex(64 * 1024);
        let (server_read, server_write) = tokio::io::split(server);
        tokio::spawn(async move {
            let running = McpServer::new(toolkit())
                .serve(LineTransport::new(server_read, server_write))
                .await;
            if let Ok(running) = running {
                let _ = running.waiting().await;
            }
        });
        let (read, write) = tokio::io::split(client);
        Self {
            write,
            read: BufReader::new(read),
        }
    }

    async fn send(&mut self, line: &[u8]) {
        self.write.write_all(line).await.unwrap();
        self.write.write_all(b"\n").await.unwrap();
    }

    async fn reply(&mut self) -> Value {
        let mut line = String::new();
        tokio::time::timeout(Duration::from_secs(30), self.read.read_line(&mut line))
            .await
            .expect("the server answers")
            .unwrap();
        serde_json::from_str(&line).unwrap_or_else(|_| panic!("not JSON: {line}"))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_unreadable_line_is_answered_and_the_server_goes_on() {
    let mut pipe = Pipe::serve();
    let deep = "[".repeat(10_000);
    let too_long = vec![b' '; MAX_LINE_BYTES + 1];
    let garbage: [(&[u8], i64, Value); 8] = [
        (b"not json", -32700, Value::Null),
        (b"\xff\xfe", -32700, Value::Null),
        (
            br#"{"jsonrpc":"2.0","id":1,"method":"ping""#,
            -32700,
            Value::Null,
        ),
        (deep.as_bytes(), -32700, Value::Null),
        (&too_long, -32600, Value::Null),
        (b"[1,2]", -32600, Value::Null),
        (
            br#"{"jsonrpc":"1.0","id":5,"method":"ping"}"#,
            -32600,
            json!(5),
        ),
        (
            br#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"arguments":{}}}"#,
            -32602,
            json!(6),
        ),
    ];
    // Before the handshake and after it alike.
    for round in 0..2 {
        for (line, code, id) in &garbage {
            pipe.send(line).await;
            let reply = pipe.reply().await;
            let shown = String::from_utf8_lossy(&line[..line.len().min(40)]);
            assert_eq!(reply["error"]["code"], *code, "{shown}: {reply}");
            assert_eq!(reply["id"], *id, "{shown}");
        }
        pipe.send(b"   ").await;
        if round == 0 {
            let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "pipe", "version": "0"}}});
            pipe.send(initialize.to_string().as_bytes()).await;
            assert_eq!(pipe.reply().await["id"], 0);
            pipe.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
                .await;
        }
    }
    for (id, arguments) in ["[1,2]", r#""x""#, "5", r#"{"a":1,"a":100,"b":1}"#]
        .into_iter()
        .enumerate()
    {
        let call = format!(
            r#"{{"jsonrpc":"2.0","id":{},"method":"tools/call","params":{{"name":"add","arguments":{arguments}}}}}"#,
            id + 10
        );
        pipe.send(call.as_bytes()).await;
        let reply = pipe.reply().await;
        let expected = toolkit()
            .execute_json("add", arguments, &ToolContext::default())
            .await;
        assert!(expected.is_error);
        assert_eq!(reply["result"]["isError"], true, "{arguments}: {reply}");
        assert_eq!(
            reply["result"]["content"][0]["text"], expected.output,
            "{arguments}"
        );
    }
    pipe.send(br#"{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":100}}}"#)
        .await;
    assert_eq!(pipe.reply().await["result"]["content"][0]["text"], "101");
}
