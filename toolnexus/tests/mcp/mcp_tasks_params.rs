//! `tasks/*` requests whose params are missing or of the wrong shape (issue 51, item 2): each
//! of a revision's own methods is answered `-32602`, on every transport, and no answer names
//! what the server routes a request under (its `io.toolnexus/…` methods) or the types it reads
//! params into. Over HTTP the `Mcp-Method` header is checked against the method the client
//! sent.

use std::time::Duration;

use rmcp::ServiceExt;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines, ReadHalf, WriteHalf};
use tokio::io::{DuplexStream, split};
use toolnexus::mcp::{LineTransport, McpServer};

use super::mcp_tasks::toolkit;

/// The `_meta` every 2026-07-28 request carries.
fn meta_2026() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities":
            {"extensions": {"io.modelcontextprotocol/tasks": {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
    })
}

/// Params no `tasks/*` method takes: none, not an object, without a `taskId`, or with one
/// that is not a string. `None` is a request without `params`.
fn bad_task_params() -> Vec<Option<Value>> {
    vec![
        None,
        Some(json!([])),
        Some(json!(["t"])),
        Some(json!("t")),
        Some(json!(5)),
        Some(json!({})),
        Some(json!({"taskId": 5})),
        Some(json!({"taskId": null})),
        Some(json!({"taskId": {"id": "t"}})),
    ]
}

/// `bad` as a 2026-07-28 client sends it: with the revision's `_meta` when it is an object.
fn of_2026(bad: Option<Value>) -> Option<Value> {
    bad.map(|mut params| {
        if let Some(object) = params.as_object_mut() {
            object.insert("_meta".to_owned(), meta_2026());
        }
        params
    })
}

/// The bad requests of 2026-07-28's methods (`tasks/update` also without its
/// `inputResponses`, or with them of the wrong type).
fn bad_2026_requests() -> Vec<(&'static str, Option<Value>)> {
    let mut requests = Vec::new();
    for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
        for bad in bad_task_params() {
            requests.push((method, of_2026(bad)));
        }
    }
    for responses in [None, Some(json!("yes")), Some(json!([])), Some(Value::Null)] {
        let mut params = json!({"taskId": "t"});
        if let Some(responses) = responses {
            params["inputResponses"] = responses;
        }
        requests.push(("tasks/update", of_2026(Some(params))));
    }
    requests
}

/// The bad requests of 2025-11-25's core tasks (`tasks/list` takes no params, but a
/// `cursor` it gave).
fn bad_2025_requests() -> Vec<(&'static str, Option<Value>)> {
    let mut requests = Vec::new();
    for method in ["tasks/get", "tasks/result", "tasks/cancel"] {
        for bad in bad_task_params() {
            requests.push((method, bad));
        }
    }
    for bad in [
        json!([]),
        json!("t"),
        json!({"cursor": 5}),
        json!({"cursor": "x"}),
    ] {
        requests.push(("tasks/list", Some(bad)));
    }
    requests
}

/// Asserts `reply` to `method` with `params` is the `-32602` error naming nothing internal
/// (`-32600` for params that are not structured: JSON-RPC has no request with those).
fn assert_invalid_params(transport: &str, method: &str, params: Option<&Value>, reply: &Value) {
    let context = format!("{transport}: {method} with params {params:?}: {reply}");
    let structured = params.is_none_or(|params| params.is_object() || params.is_array());
    let code = if structured { -32602 } else { -32600 };
    assert_eq!(reply["error"]["code"], code, "{context}");
    assert_names_nothing_internal(&context, reply);
}

/// Asserts no message of `reply` names the server's own routing or types.
fn assert_names_nothing_internal(context: &str, reply: &Value) {
    let message = reply["error"]["message"].as_str().unwrap_or_default();
    for internal in ["io.toolnexus", "Params", "struct ", "CustomRequest"] {
        assert!(!message.contains(internal), "{context}: names `{internal}`");
    }
}

fn request(id: usize, method: &str, params: Option<&Value>) -> Value {
    let mut message = json!({"jsonrpc": "2.0", "id": id, "method": method});
    if let Some(params) = params {
        message["params"] = params.clone();
    }
    message
}

/// Over stateless streamable HTTP on 2026-07-28, with the headers that revision sends
/// (`Mcp-Method` with the method sent, `Mcp-Name` with a `taskId` that is a string).
#[cfg(feature = "mcp-http")]
#[tokio::test]
async fn over_stateless_http_each_2026_tasks_method_with_bad_params_is_invalid_params() {
    use crate::common::mcp_raw;
    use toolnexus::mcp::HttpOptions;

    let options = HttpOptions::new().stateless(true);
    let running = mcp_raw::serve(McpServer::new(toolkit()), options).await;
    let http = reqwest::Client::new();
    for (id, (method, params)) in bad_2026_requests().into_iter().enumerate() {
        let mut post = http
            .post(running.url())
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", method);
        if let Some(task) = params.as_ref().and_then(|params| params["taskId"].as_str()) {
            post = post.header("mcp-name", task);
        }
        let body = request(id, method, params.as_ref()).to_string();
        let response = post.body(body).send().await.unwrap();
        assert_ne!(response.status(), reqwest::StatusCode::NOT_FOUND);
        let reply = mcp_raw::message_in(&response.text().await.unwrap());
        assert_eq!(reply["id"], id, "{reply}");
        assert_invalid_params("stateless HTTP", method, params.as_ref(), &reply);
    }
    running.shut_down().await;
}

/// Over streamable HTTP with a 2025-11-25 session, its core tasks' methods.
#[cfg(feature = "mcp-http")]
#[tokio::test]
async fn over_http_each_2025_11_25_tasks_method_with_bad_params_is_invalid_params() {
    use crate::common::mcp_raw::{self, Client};
    use toolnexus::mcp::HttpOptions;

    let running = mcp_raw::serve(McpServer::new(toolkit()), HttpOptions::new()).await;
    let mut client = Client::new(&running);
    client.initialize().await;
    let session = client.session.clone().expect("a session");
    for (id, (method, params)) in bad_2025_requests().into_iter().enumerate() {
        let response = client
            .http
            .post(&client.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-11-25")
            .header("mcp-session-id", &session)
            .body(request(id + 1, method, params.as_ref()).to_string())
            .send()
            .await
            .unwrap();
        let reply = mcp_raw::message_in(&response.text().await.unwrap());
        assert_eq!(reply["id"], id + 1, "{reply}");
        assert_invalid_params("HTTP 2025-11-25", method, params.as_ref(), &reply);
    }
    running.shut_down().await;
}

/// A server on a stdio connection of its own, driven line by line.
struct Stdio {
    write: WriteHalf<DuplexStream>,
    lines: Lines<BufReader<ReadHalf<DuplexStream>>>,
}

impl Stdio {
    fn start() -> Self {
        let (server_end, client_end) = tokio::io::duplex(64 * 1024);
        let (read, write) = split(server_end);
        tokio::spawn(async move {
            let running = McpServer::new(toolkit())
                .serve(LineTransport::new(read, write))
                .await;
            if let Ok(running) = running {
                let _ = running.waiting().await;
            }
        });
        let (read, write) = split(client_end);
        let lines = BufReader::new(read).lines();
        Self { write, lines }
    }

    async fn send(&mut self, message: &Value) {
        let line = format!("{message}\n");
        self.write.write_all(line.as_bytes()).await.unwrap();
    }

    /// The answer to request `id` (notifications skipped).
    async fn answer(&mut self, id: usize) -> Value {
        loop {
            let line = tokio::time::timeout(Duration::from_secs(30), self.lines.next_line())
                .await
                .expect("an answer")
                .unwrap()
                .expect("a line");
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == id {
                return message;
            }
        }
    }
}

/// Over stdio, 2026-07-28's methods as raw lines (no session: each request says its revision
/// in its `_meta`, and one without params says none).
#[tokio::test]
async fn over_stdio_each_2026_tasks_method_with_bad_params_is_invalid_params() {
    let mut stdio = Stdio::start();
    for (id, (method, params)) in bad_2026_requests().into_iter().enumerate() {
        stdio.send(&request(id, method, params.as_ref())).await;
        let reply = stdio.answer(id).await;
        assert_invalid_params("stdio 2026-07-28", method, params.as_ref(), &reply);
    }
}

/// Over stdio, a 2025-11-25 session's core tasks' methods.
#[tokio::test]
async fn over_stdio_each_2025_11_25_tasks_method_with_bad_params_is_invalid_params() {
    let mut stdio = Stdio::start();
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    }});
    stdio.send(&initialize).await;
    assert_eq!(
        stdio.answer(0).await["result"]["protocolVersion"],
        "2025-11-25"
    );
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    stdio.send(&initialized).await;
    for (id, (method, params)) in bad_2025_requests().into_iter().enumerate() {
        stdio.send(&request(id + 1, method, params.as_ref())).await;
        let reply = stdio.answer(id + 1).await;
        assert_invalid_params("stdio 2025-11-25", method, params.as_ref(), &reply);
    }
}
