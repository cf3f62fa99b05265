//! Tasks on the wire (SPEC §14): over streamable HTTP with sessions and stateless, bad
//! `tasks/*` params as raw lines, `subscriptions/listen` with the extension's `taskIds` (on
//! stdio and HTTP), and 2025-11-25's core tasks over HTTP.

use crate::common::mcp_client;

use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::model::ProtocolVersion;
use serde_json::{Value, json};
use toolnexus::mcp::{LineTransport, McpServer};

use super::mcp_tasks::{connect, toolkit};
use crate::common::tasks::call;
use mcp_client::check_log;

/// Over streamable HTTP, with sessions and stateless: rmcp's client sends `Mcp-Name` (the task
/// id) on every `tasks/*`, which the transport checks against the body.
#[cfg(feature = "mcp-http")]
#[tokio::test]
async fn over_http_with_sessions_and_stateless_a_task_is_polled_to_its_result() {
    use super::mcp_tasks::with_handles;
    use crate::common::mcp_raw;
    use crate::common::tasks::{accept_input, get, started, until};
    use mcp_client::{Modes, TestClient};
    use toolnexus::mcp::HttpOptions;

    for options in [HttpOptions::new(), HttpOptions::new().stateless(true)] {
        let (toolkit, gate, _) = with_handles();
        let server = McpServer::new(toolkit).task_after(Duration::from_millis(20));
        let running = mcp_raw::serve(server, options).await;
        let mut client = TestClient::new(ProtocolVersion::V_2026_07_28, Modes::Both);
        client.tasks = true;
        let (client, log) = mcp_client::connect_http(&running.url(), client).await;
        let id = started(&client, "slow", json!({})).await.task.task_id;
        assert_eq!(get(&client, &id).await["status"], "working");
        gate.notify_one();
        let done = until(&client, &id, "completed").await;
        assert_eq!(done["result"]["content"][0]["text"], "through the gate");
        let asked = started(&client, "publish_report", json!({"name": "q1"}))
            .await
            .task
            .task_id;
        let asking = until(&client, &asked, "input_required").await;
        accept_input(&client, &asked, &asking).await;
        let published = until(&client, &asked, "completed").await;
        assert_eq!(published["result"]["content"][0]["text"], "published q1");
        check_log(&ProtocolVersion::V_2026_07_28, &log);
        drop(client);
        running.shut_down().await;
    }
}

/// Bad `tasks/*` params, sent as raw lines: each answered `-32602`, and the server goes on.
#[tokio::test]
async fn bad_tasks_params_are_answered_invalid_params() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    let (server_end, client_end) = tokio::io::duplex(64 * 1024);
    let (read, write) = tokio::io::split(server_end);
    tokio::spawn(async move {
        let running = McpServer::new(toolkit())
            .serve(LineTransport::new(read, write))
            .await;
        if let Ok(running) = running {
            let _ = running.waiting().await;
        }
    });
    let (read, mut write) = tokio::io::split(client_end);
    let mut lines = BufReader::new(read).lines();
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities":
            {"extensions": {"io.modelcontextprotocol/tasks": {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
    });
    let bad = [
        ("tasks/get", json!({})),
        ("tasks/get", json!({"taskId": 5})),
        ("tasks/get", json!({"taskId": "no-such-task"})),
        ("tasks/cancel", json!({"taskId": null})),
        ("tasks/update", json!({"taskId": "no-such-task"})),
        (
            "tasks/update",
            json!({"taskId": "no-such-task", "inputResponses": "yes"}),
        ),
        (
            "tasks/update",
            json!({"taskId": "no-such-task", "inputResponses": {}}),
        ),
    ];
    for (id, (method, mut params)) in bad.into_iter().enumerate() {
        params["_meta"] = meta.clone();
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        write
            .write_all(format!("{line}\n").as_bytes())
            .await
            .unwrap();
        let reply = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
            .await
            .expect("an answer")
            .unwrap()
            .expect("a line");
        let reply: Value = serde_json::from_str(&reply).unwrap();
        assert_eq!(reply["id"], id, "{reply}");
        assert_eq!(reply["error"]["code"], -32602, "{method} {line}: {reply}");
    }
}

/// `subscriptions/listen` on 2026-07-28: `toolsListChanged` is acknowledged, over stdio and
/// over HTTP; the stream stays open until the client cancels it.
#[tokio::test]
async fn subscriptions_listen_acknowledges_tools_list_changed() {
    use rmcp::model::SubscriptionFilter;

    let wanted = SubscriptionFilter::builder().tools_list_changed().build();
    let (client, log) = connect(McpServer::new(toolkit()), true).await;
    let mut listening = client.peer().listen(wanted.clone()).await.unwrap();
    assert_eq!(listening.acknowledged().tools_list_changed, Some(true));
    listening.cancel().await.unwrap();
    // Still serving calls.
    let done = client
        .call_tool(call("quick", json!({"n": 3})))
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&done).unwrap()["content"][0]["text"],
        "quick 3"
    );
    check_log(&ProtocolVersion::V_2026_07_28, &log);

    #[cfg(feature = "mcp-http")]
    {
        use mcp_client::{Modes, TestClient};
        use toolnexus::mcp::HttpOptions;
        for options in [HttpOptions::new(), HttpOptions::new().stateless(true)] {
            let running = crate::common::mcp_raw::serve(McpServer::new(toolkit()), options).await;
            let mut client = TestClient::new(ProtocolVersion::V_2026_07_28, Modes::Both);
            client.tasks = true;
            let (client, log) = mcp_client::connect_http(&running.url(), client).await;
            let mut listening = client.peer().listen(wanted.clone()).await.unwrap();
            assert_eq!(listening.acknowledged().tools_list_changed, Some(true));
            listening.cancel().await.unwrap();
            check_log(&ProtocolVersion::V_2026_07_28, &log);
            drop(client);
            running.shut_down().await;
        }
    }
}

/// A 2026-07-28 client by hand on stdio, declaring the tasks extension.
struct RawClient {
    lines: tokio::io::Lines<tokio::io::BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
    write: tokio::io::WriteHalf<tokio::io::DuplexStream>,
}

impl RawClient {
    fn over(server: McpServer) -> Self {
        use tokio::io::AsyncBufReadExt;
        let (read, write) = mcp_client::line_pipe(server);
        Self {
            lines: tokio::io::BufReader::new(read).lines(),
            write,
        }
    }

    async fn send(&mut self, id: u64, method: &str, mut params: Value) {
        use tokio::io::AsyncWriteExt;
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities":
                {"extensions": {"io.modelcontextprotocol/tasks": {}}},
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
        });
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let line = format!("{line}\n");
        self.write.write_all(line.as_bytes()).await.unwrap();
    }

    async fn next(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(30), self.lines.next_line())
            .await
            .expect("the server sends")
            .unwrap()
            .expect("a line");
        serde_json::from_str(&line).unwrap()
    }
}

/// The tasks extension's `notifications/tasks` through `subscriptions/listen`: the
/// acknowledgment names the task ids, the caller's task is told as it is and at each change,
/// another caller's never; malformed `taskIds` are `-32602`.
#[tokio::test]
async fn subscriptions_listen_tells_the_callers_tasks_changes() {
    use super::mcp_tasks::with_handles;
    use mcp_client::valid_as_task_shape;

    let (toolkit, gate, _) = with_handles();
    let server = McpServer::new(toolkit).task_after(Duration::from_millis(20));
    let mut client = RawClient::over(server.clone());
    client
        .send(1, "tools/call", json!({"name": "slow", "arguments": {}}))
        .await;
    let created = client.next().await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let id = created["result"]["taskId"].clone();
    let mut other = RawClient::over(server);
    other
        .send(1, "tools/call", json!({"name": "slow", "arguments": {}}))
        .await;
    let foreign = other.next().await["result"]["taskId"].clone();

    let filter = json!({"notifications": {"taskIds": [id, foreign]}});
    client.send(2, "subscriptions/listen", filter).await;
    let acknowledged = client.next().await;
    let revision = ProtocolVersion::V_2026_07_28;
    mcp_client::valid_as(
        &revision,
        "SubscriptionsAcknowledgedNotification",
        &acknowledged,
    )
    .unwrap();
    valid_as_task_shape(
        "TaskSubscriptionAcknowledgedNotifications",
        &acknowledged["params"]["notifications"],
    )
    .unwrap();
    assert_eq!(
        acknowledged["params"]["notifications"]["taskIds"],
        json!([id, foreign])
    );
    let now = client.next().await;
    assert_eq!(now["method"], "notifications/tasks", "{now}");
    valid_as_task_shape("TaskStatusNotification", &now).unwrap();
    assert_eq!(
        (&now["params"]["taskId"], &now["params"]["status"]),
        (&id, &json!("working"))
    );
    assert_eq!(
        now["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        2
    );
    gate.notify_one();
    let done = client.next().await;
    valid_as_task_shape("TaskStatusNotification", &done).unwrap();
    assert_eq!(
        (&done["params"]["taskId"], &done["params"]["status"]),
        (&id, &json!("completed"))
    );
    assert_eq!(
        done["params"]["result"]["content"][0]["text"],
        "through the gate"
    );
    // The other caller's task ends too, unheard of here: the next line is the answer to a
    // request sent after it ended.
    gate.notify_one();
    other.send(2, "tasks/get", json!({"taskId": foreign})).await;
    loop {
        let polled = other.next().await;
        if polled["result"]["status"] == "completed" {
            break;
        }
        other.send(2, "tasks/get", json!({"taskId": foreign})).await;
    }
    client.send(3, "tasks/get", json!({"taskId": id})).await;
    assert_eq!(client.next().await["id"], 3);

    let malformed = json!({"notifications": {"taskIds": [1]}});
    client.send(4, "subscriptions/listen", malformed).await;
    let refused = client.next().await;
    assert_eq!(
        refused["error"]["message"],
        "Invalid params: `notifications.taskIds` must be an array of task ids (strings)"
    );
}

/// Over streamable HTTP the acknowledgment names the task ids too, and the task's change
/// arrives on the stream.
#[cfg(feature = "mcp-http")]
#[tokio::test]
async fn over_http_subscriptions_listen_tells_a_tasks_changes() {
    use super::mcp_tasks::with_handles;
    use crate::common::mcp_raw::{self, Events, message_in, post_2026};
    use toolnexus::mcp::HttpOptions;

    for stateless in [false, true] {
        let (toolkit, gate, _) = with_handles();
        let server = McpServer::new(toolkit).task_after(Duration::from_millis(20));
        let running = mcp_raw::serve(server, HttpOptions::new().stateless(stateless)).await;
        let url = running.url();
        let slow = json!({"name": "slow", "arguments": {}});
        let created = post_2026(&url, 1, "tools/call", slow).await;
        let id = message_in(&created.text().await.unwrap())["result"]["taskId"].clone();
        assert!(id.is_string(), "stateless {stateless}");
        let filter = json!({"notifications": {"taskIds": [id]}});
        let mut events = Events::of(post_2026(&url, 2, "subscriptions/listen", filter).await);
        let acknowledged = events.next().await;
        assert_eq!(
            acknowledged["params"]["notifications"]["taskIds"],
            json!([id]),
            "stateless {stateless}: {acknowledged}"
        );
        let working = events.next().await;
        assert_eq!(working["params"]["status"], "working", "{working}");
        gate.notify_one();
        let completed = events.next().await;
        assert_eq!(completed["params"]["status"], "completed", "{completed}");
        drop(events);
        running.shut_down().await;
    }
}

/// 2025-11-25's core tasks over streamable HTTP, with sessions and stateless: the capability
/// in the `initialize` answer, a task asked for, polled and read.
#[cfg(feature = "mcp-http")]
#[tokio::test]
async fn over_http_a_2025_11_25_client_asks_for_a_task_and_reads_its_result() {
    use super::mcp_tasks::with_handles;
    use crate::common::mcp_client::valid_as;
    use crate::common::mcp_raw::{self, Client};
    use toolnexus::mcp::HttpOptions;

    for stateless in [false, true] {
        let options = HttpOptions::new().stateless(stateless);
        let (toolkit, _, _) = with_handles();
        let running = mcp_raw::serve(McpServer::new(toolkit), options).await;
        let mut client = Client::new(&running);
        let initialized = client.initialize().await.message;
        let revision = ProtocolVersion::V_2025_11_25;
        valid_as(&revision, "InitializeResult", &initialized["result"]).unwrap();
        assert_eq!(
            initialized["result"]["capabilities"]["tasks"]["requests"],
            json!({"tools": {"call": {}}})
        );
        // As the transport asks of a client after `initialize`: the revision in a header.
        let post = |id: u64, method: &str, params: Value| {
            let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
            let mut request = client
                .http
                .post(&client.url)
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .header("mcp-protocol-version", "2025-11-25")
                .body(message.to_string());
            if let Some(session) = &client.session {
                request = request.header("mcp-session-id", session);
            }
            async move {
                let text = request.send().await.unwrap().text().await.unwrap();
                mcp_raw::message_in(&text)["result"].clone()
            }
        };
        let quick = json!({"name": "quick", "arguments": {"n": 3}, "task": {}});
        let created = post(1, "tools/call", quick).await;
        valid_as(&revision, "CreateTaskResult", &created)
            .unwrap_or_else(|why| panic!("stateless {stateless}: {why}: {created}"));
        let id = created["task"]["taskId"].clone();
        let result = post(2, "tasks/result", json!({"taskId": id})).await;
        valid_as(&revision, "CallToolResult", &result).unwrap();
        assert_eq!(result["content"][0]["text"], "quick 3");
        let ended = post(3, "tasks/get", json!({"taskId": id})).await;
        valid_as(&revision, "GetTaskResult", &ended).unwrap();
        assert_eq!(ended["status"], "completed");
    }
}
