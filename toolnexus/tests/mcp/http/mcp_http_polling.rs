//! SSE polling (`HttpOptions::poll_after`): a call in a session that sends nothing within the
//! time gets a stream the server closes after its priming event; the client's `GET` with
//! `Last-Event-ID` gets the answer, even one that came while it was away, and only in its own
//! session; a call that answers in time is answered as JSON, as without the option.
#![cfg(feature = "mcp-http")]

use crate::common::mcp_raw::{self, Client};

use std::sync::Arc;
use std::time::Duration;

use reqwest::StatusCode;
use tokio::sync::Notify;
use toolnexus::mcp::{HttpOptions, McpServer};
use toolnexus::{State, Toolkit, tool, tools};

use super::MOUNT;

/// Opens when the test says so.
struct Gate(Arc<Notify>);

/// Waits for the gate.
#[tool]
async fn gated(gate: State<Gate>) -> String {
    gate.0.0.notified().await;
    "through the gate".to_owned()
}

/// Answers at once.
#[tool]
fn at_once() -> String {
    "at once".to_owned()
}

/// A `GET` for the rest of a closed stream, as a client of `session` sends it.
async fn resume(client: &Client, session: Option<&str>, last: &str) -> (StatusCode, String) {
    let mut request = client
        .http
        .get(&client.url)
        .header("accept", "text/event-stream")
        .header("last-event-id", last);
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    let text = tokio::time::timeout(Duration::from_secs(30), response.text())
        .await
        .expect("the stream ends")
        .unwrap_or_default();
    (status, text)
}

#[tokio::test]
async fn a_call_that_outlasts_poll_after_is_resumed_with_last_event_id() {
    let gate = Arc::new(Notify::new());
    let toolkit = Toolkit::new()
        .with_state(Gate(Arc::clone(&gate)))
        .with_all(tools![gated, at_once]);
    let options = HttpOptions::new().poll_after(Duration::from_millis(50));
    let running = MOUNT.serve(McpServer::new(toolkit), options).await;
    let mut client = Client::new(&running);
    client.initialize().await;
    let session = client.session.clone();

    let quick = client.call(1, "at_once", "{}").await;
    assert_eq!(
        quick.headers["content-type"], "application/json",
        "{}",
        quick.text
    );
    assert_eq!(quick.message["result"]["content"][0]["text"], "at once");

    let closed = client.call(2, "gated", "{}").await;
    assert_eq!(closed.headers["content-type"], "text/event-stream");
    let last = closed.text.lines().next().unwrap();
    let last = last.strip_prefix("id: ").expect("an event id").to_owned();
    assert_eq!(closed.text, format!("id: {last}\nretry: 1000\ndata:\n\n"));
    assert!(closed.message.is_null(), "no answer yet: {}", closed.text);

    // The answer comes while the client is away, and waits for it.
    gate.notify_one();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let (status, stranger) = resume(&client, Some("not-this-session"), &last).await;
    assert!(
        !stranger.contains("through the gate"),
        "{status} {stranger}"
    );
    let (status, resumed) = resume(&client, session.as_deref(), &last).await;
    assert_eq!(status, StatusCode::OK, "{resumed}");
    let answer = mcp_raw::message_in(&resumed);
    assert_eq!(answer["id"], 2, "{resumed}");
    assert_eq!(answer["result"]["content"][0]["text"], "through the gate");
    let (stream, _) = last.rsplit_once('-').unwrap();
    assert!(
        resumed.starts_with(&format!("id: {stream}-1\n")),
        "{resumed}"
    );
    running.shut_down().await;
}
