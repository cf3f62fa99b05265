//! Tasks on the wire (SPEC §14): over streamable HTTP with sessions and stateless, bad
//! `tasks/*` params as raw lines, and `subscriptions/listen`.

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
