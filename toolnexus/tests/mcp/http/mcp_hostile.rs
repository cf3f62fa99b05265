//! The MCP server against hostile and unusual clients, on 127.0.0.1 (port 0): arguments that
//! are not an object, keys given twice, malformed bodies, bodies too large or stalled, two
//! `Host` headers, CORS, a client that leaves mid-call, a shutdown with a half-sent request,
//! the keep-alive latency of session mode, and garbage on stdio. Every server stops itself
//! at the end of its test; every loop and wait is bounded.
#![cfg(feature = "mcp-http")]

use crate::common::mcp_raw;
use crate::common::mcp_tools;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use toolnexus::mcp::HttpOptions;
use toolnexus::{ToolContext, Toolkit, tool, tools};

use super::MOUNT;
use mcp_raw::{Client, INITIALIZE, exchange};
use mcp_tools::{McpTools, mcp_tools};

/// Adds two integers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn served() -> (Toolkit, Arc<AtomicBool>) {
    let McpTools {
        toolkit,
        stuck_dropped,
    } = mcp_tools();
    (toolkit.with_all(tools![add]), stuck_dropped)
}

fn toolkit() -> Toolkit {
    served().0
}

fn both_modes() -> [HttpOptions; 2] {
    [HttpOptions::new(), HttpOptions::new().stateless(true)]
}

/// What `execute_json` answers for `arguments` sent to `add`: the text every transport must
/// give back.
async fn execute_json_says(arguments: &str) -> String {
    let result = toolkit()
        .execute_json("add", arguments, &ToolContext::default())
        .await;
    assert!(result.is_error, "{arguments}: {}", result.output);
    result.output
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arguments_that_are_not_an_object_or_name_a_key_twice_are_is_error_results() {
    for options in both_modes() {
        let running = MOUNT.start(toolkit(), options).await;
        let mut client = Client::new(&running);
        assert_eq!(client.initialize().await.status, StatusCode::OK);
        for (id, arguments) in [
            "[1,2]",
            r#""x""#,
            "5",
            r#"{"a":1,"a":100,"b":1}"#,
            r#"{"a":1,"b":{"c":1,"c":2}}"#,
        ]
        .into_iter()
        .enumerate()
        {
            let reply = client.call(id as u64, "add", arguments).await;
            let result = &reply.message["result"];
            assert_eq!(result["isError"], true, "{arguments}: {}", reply.text);
            assert_eq!(
                result["content"][0]["text"],
                execute_json_says(arguments).await,
                "{arguments}"
            );
        }
        // The well-formed call still adds.
        let reply = client.call(9, "add", r#"{"a":1,"b":100}"#).await;
        assert_eq!(reply.message["result"]["content"][0]["text"], "101");

        for params in [r#"{}"#, r#"{"name":5}"#, r#"{"arguments":{}}"#] {
            let reply = client
                .post(format!(
                    r#"{{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{params}}}"#
                ))
                .await;
            assert_eq!(
                reply.message["error"]["code"], -32602,
                "{params}: {}",
                reply.text
            );
            assert_eq!(reply.message["id"], 4);
        }
        running.shut_down().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_bodies_get_json_rpc_errors_with_400() {
    let deep = "[".repeat(10_000);
    for options in both_modes() {
        let running = MOUNT.start(toolkit(), options).await;
        let client = Client::new(&running);
        for (body, code, id) in [
            ("not json", -32700, Value::Null),
            ("{\"jsonrpc\":", -32700, Value::Null),
            (deep.as_str(), -32700, Value::Null),
            ("[]", -32600, Value::Null),
            ("5", -32600, Value::Null),
            (
                r#"{"jsonrpc":"1.0","id":3,"method":"tools/list"}"#,
                -32600,
                json!(3),
            ),
            (r#"{"id":3,"method":"tools/list"}"#, -32600, json!(3)),
            (
                r#"{"jsonrpc":"2.0","id":{},"method":"tools/list"}"#,
                -32600,
                Value::Null,
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#,
                -32600,
                Value::Null,
            ),
            (
                r#"{"jsonrpc":"2.0","id":8,"method":"tools/list","params":5}"#,
                -32600,
                json!(8),
            ),
            (r#"{"jsonrpc":"2.0","id":8}"#, -32600, json!(8)),
        ] {
            let reply = client.post(body).await;
            let shown = &body[..body.len().min(40)];
            assert_eq!(
                reply.status,
                StatusCode::BAD_REQUEST,
                "{shown}: {}",
                reply.text
            );
            assert_eq!(
                reply.message["error"]["code"], code,
                "{shown}: {}",
                reply.text
            );
            assert_eq!(reply.message["id"], id, "{shown}");
            assert!(reply.text.len() < 1000, "{shown}: {}", reply.text);
        }
        running.shut_down().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_over_the_cap_gets_413_and_a_large_value_under_it_an_answer() {
    let cap = 64 * 1024;
    let running = MOUNT
        .start(
            toolkit(),
            HttpOptions::new().stateless(true).max_body_bytes(cap),
        )
        .await;
    let client = Client::new(&running);
    let too_big = format!(r#"{{"a":"{}"}}"#, "x".repeat(cap));
    let reply = client.call(1, "add", &too_big).await;
    // Our answer, turnkey and mounted alike (the one limit there is: rmcp's is lifted).
    assert_eq!(
        reply.status,
        StatusCode::PAYLOAD_TOO_LARGE,
        "{}",
        reply.text
    );
    assert_eq!(
        reply.text,
        "Payload Too Large: the body is over the server's limit"
    );
    assert_eq!(reply.headers["connection"], "close");

    let large = format!(r#"{{"a":"{}","b":1}}"#, "9".repeat(cap - 1000));
    let reply = client.call(2, "add", &large).await;
    assert_eq!(reply.message["result"]["isError"], true, "{}", reply.text);
    running.shut_down().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_body_limit_counts_what_was_sent_not_what_screening_made_of_it() {
    // Arguments that are not an object travel on as their text, escaped: 40 KB of `\"` become
    // 80 KB, which a second limit behind screening (rmcp's) refused with its own 413.
    let cap = 64 * 1024;
    let running = MOUNT
        .start(
            toolkit(),
            HttpOptions::new().stateless(true).max_body_bytes(cap),
        )
        .await;
    let client = Client::new(&running);
    let arguments = format!(r#""{}""#, r#"\""#.repeat(20_000));
    let reply = client.call(1, "add", &arguments).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.text);
    assert_eq!(
        reply.message["result"]["content"][0]["text"],
        execute_json_says(&arguments).await
    );
    running.shut_down().await;
}

fn request_head(addr: SocketAddr, method: &str, extra: &str, length: usize) -> String {
    format!(
        "{method} /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {length}\r\nConnection: close\r\n{extra}\r\n"
    )
}

#[tokio::test]
async fn two_host_headers_are_refused_with_400() {
    let running = MOUNT
        .start(toolkit(), HttpOptions::new().stateless(true))
        .await;
    let addr = running.addr;
    let twice = request_head(addr, "POST", "Host: evil.example\r\n", INITIALIZE.len()) + INITIALIZE;
    let response = exchange(addr, &twice).await;
    assert!(response.starts_with("HTTP/1.1 400"), "{response}");
    let once = request_head(addr, "POST", "", INITIALIZE.len()) + INITIALIZE;
    let response = exchange(addr, &once).await;
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    running.shut_down().await;
}

#[tokio::test]
async fn cors_answers_allowed_origins_before_the_token_and_nothing_else() {
    let running = MOUNT
        .start(
            toolkit(),
            MOUNT.loopback(HttpOptions::new().bearer_token("s3cret").stateless(true)),
        )
        .await;
    let http = reqwest::Client::new();
    let url = running.url();
    let preflight = |origin: &'static str| {
        http.request(reqwest::Method::OPTIONS, &url)
            .header("origin", origin)
            .header("access-control-request-method", "POST")
            .header(
                "access-control-request-headers",
                "authorization, content-type, mcp-session-id",
            )
            .send()
    };
    let allowed = preflight("http://localhost:5173").await.unwrap();
    // tower-http's CORS layer answers a preflight `200`; a browser takes any 2xx.
    assert_eq!(allowed.status(), StatusCode::OK);
    let headers = allowed.headers();
    assert_eq!(
        headers["access-control-allow-origin"],
        "http://localhost:5173"
    );
    let allowed_headers = headers["access-control-allow-headers"]
        .to_str()
        .unwrap()
        .to_ascii_lowercase();
    for name in [
        "authorization",
        "content-type",
        "mcp-session-id",
        "mcp-protocol-version",
        "last-event-id",
    ] {
        assert!(allowed_headers.contains(name), "{name}");
    }
    assert!(
        headers["access-control-allow-methods"]
            .to_str()
            .unwrap()
            .contains("POST")
    );

    let foreign = preflight("http://evil.example").await.unwrap();
    assert_eq!(foreign.status(), StatusCode::FORBIDDEN);
    assert!(
        foreign
            .headers()
            .get("access-control-allow-origin")
            .is_none()
    );

    let post = |token: Option<&'static str>| {
        let mut request = http
            .post(&url)
            .header("origin", "http://127.0.0.1:8080")
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(INITIALIZE);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        request.send()
    };
    for (token, status) in [
        (Some("s3cret"), StatusCode::OK),
        (None, StatusCode::UNAUTHORIZED),
    ] {
        let answer = post(token).await.unwrap();
        assert_eq!(answer.status(), status);
        assert_eq!(
            answer.headers()["access-control-allow-origin"],
            "http://127.0.0.1:8080"
        );
        // Header names are case-insensitive.
        assert!(
            answer.headers()["access-control-expose-headers"]
                .to_str()
                .unwrap()
                .to_ascii_lowercase()
                .contains("mcp-session-id")
        );
    }
    // A request without `Origin` is no CORS request: no CORS headers.
    let plain = http
        .post(&url)
        .bearer_auth("s3cret")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(INITIALIZE)
        .send()
        .await
        .unwrap();
    assert!(plain.headers().get("access-control-allow-origin").is_none());
    running.shut_down().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stalled_bodies_time_out_and_do_not_lock_a_client_out() {
    let options = HttpOptions::new().body_read_timeout(Duration::from_millis(1500));
    let running = MOUNT.start(toolkit(), options).await;
    let addr = running.addr;
    let mut stalled = Vec::new();
    for _ in 0..200 {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream
            .write_all(request_head(addr, "POST", "", 1000).as_bytes())
            .await
            .unwrap();
        stalled.push(stream);
    }
    // While all 200 stall, a well-behaved client is served.
    let mut client = Client::new(&running);
    assert_eq!(client.initialize().await.status, StatusCode::OK);
    let reply = client.call(1, "add", r#"{"a":2,"b":3}"#).await;
    assert_eq!(
        reply.message["result"]["content"][0]["text"], "5",
        "{}",
        reply.text
    );
    // Each stalled request is answered 408 and its connection closed.
    for mut stream in stalled {
        let mut response = Vec::new();
        tokio::time::timeout(Duration::from_secs(30), stream.read_to_end(&mut response))
            .await
            .expect("a stalled connection is closed")
            .unwrap();
        let response = String::from_utf8_lossy(&response);
        assert!(response.starts_with("HTTP/1.1 408"), "{response}");
    }
    running.shut_down().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_does_not_wait_on_a_half_sent_request_or_an_idle_connection() {
    if MOUNT.mounted() {
        return; // the accept loop's: a mounted service's router owns its connections
    }
    let running = MOUNT
        .start(
            toolkit(),
            HttpOptions::new().shutdown_grace(Duration::from_secs(120)),
        )
        .await;
    let addr = running.addr;
    let mut half_sent = TcpStream::connect(addr).await.unwrap();
    half_sent
        .write_all(format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Ty").as_bytes())
        .await
        .unwrap();
    let mut client = Client::new(&running);
    assert_eq!(client.initialize().await.status, StatusCode::OK);
    // The client's keep-alive connection is idle now; neither holds the shutdown.
    assert!(
        running.shut_down_within(Duration::from_secs(60)).await,
        "the shutdown waited on a connection serving nothing"
    );
    drop(half_sent);
}

/// Calls `stuck` on its own connection, then closes it: the tool's future must be dropped.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_is_cancelled_when_its_connection_closes() {
    for options in both_modes() {
        let (toolkit, stuck_dropped) = served();
        let running = MOUNT.start(toolkit, options).await;
        let addr = running.addr;
        let mut client = Client::new(&running);
        client.initialize().await;
        let call = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"stuck","arguments":{}}}"#;
        let session = match &client.session {
            Some(session) => format!("Mcp-Session-Id: {session}\r\n"),
            None => String::new(),
        };
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let request = request_head(addr, "POST", &session, call.len()) + call;
        stream.write_all(request.as_bytes()).await.unwrap();
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert!(!stuck_dropped.load(Ordering::SeqCst));
        drop(stream);
        let give_up = Instant::now() + Duration::from_secs(30);
        while !stuck_dropped.load(Ordering::SeqCst) {
            assert!(
                Instant::now() < give_up,
                "the call ran on after its client left"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        running.shut_down().await;
    }
}

/// Session mode answers over an event stream in several writes; with Nagle's algorithm on,
/// each call waited up to ~40 ms for the client's delayed ACK. A ratio against stateless mode
/// in the same run, not a time: the calls alternate between the two servers, so load slows
/// both alike, and medians leave out the calls a busy machine stalled.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keep_alive_session_calls_are_within_a_small_factor_of_stateless_ones() {
    const CALLS: u64 = 40;
    let mut clients = Vec::new();
    let mut servers = Vec::new();
    for options in both_modes() {
        let running = MOUNT.start(toolkit(), options).await;
        let mut client = Client::new(&running);
        client.initialize().await;
        for id in 0..5 {
            client.call(id, "add", r#"{"a":1,"b":1}"#).await;
        }
        clients.push(client);
        servers.push(running);
    }
    let mut took = [Vec::new(), Vec::new()];
    for id in 0..CALLS {
        for (client, took) in clients.iter().zip(&mut took) {
            let started = Instant::now();
            let reply = client.call(id, "add", r#"{"a":1,"b":1}"#).await;
            took.push(started.elapsed());
            assert_eq!(reply.message["result"]["content"][0]["text"], "2");
        }
    }
    let [session, stateless] = took.map(|mut took| {
        took.sort();
        took[took.len() / 2]
    });
    for running in servers {
        running.shut_down().await;
    }
    // Without TCP_NODELAY the session median was 20-40 times the stateless one.
    assert!(
        session < stateless * 5,
        "median per call: session {session:?}, stateless {stateless:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_the_connection_limit_a_connection_waits_until_one_closes() {
    if MOUNT.mounted() {
        return; // the accept loop's: a mounted service's router owns its connections
    }
    let running = MOUNT
        .start(
            toolkit(),
            HttpOptions::new().max_connections(1).stateless(true),
        )
        .await;
    let addr = running.addr;
    let mut holder = TcpStream::connect(addr).await.unwrap();
    holder
        .write_all(format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\n").as_bytes())
        .await
        .unwrap();
    // Let the server accept the holder before the waiter arrives.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut waiter = TcpStream::connect(addr).await.unwrap();
    let request = request_head(addr, "POST", "", INITIALIZE.len()) + INITIALIZE;
    waiter.write_all(request.as_bytes()).await.unwrap();
    let mut first = [0; 1];
    let early = tokio::time::timeout(Duration::from_millis(500), waiter.read(&mut first)).await;
    assert!(early.is_err(), "answered while the only slot was taken");
    drop(holder);
    let mut response = Vec::new();
    tokio::time::timeout(Duration::from_secs(30), waiter.read_to_end(&mut response))
        .await
        .expect("served once the slot is free")
        .unwrap();
    let response = String::from_utf8_lossy(&response);
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    running.shut_down().await;
}

/// A relay in front of `addr` that counts the connections made through it.
async fn counting_relay(addr: SocketAddr) -> (SocketAddr, Arc<std::sync::atomic::AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let relay = listener.local_addr().unwrap();
    let accepted = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = Arc::clone(&accepted);
    tokio::spawn(async move {
        while let Ok((mut client, _)) = listener.accept().await {
            counted.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(async move {
                let mut server = TcpStream::connect(addr).await.unwrap();
                let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
            });
        }
    });
    (relay, accepted)
}

/// Reads an answer as the Python SDK does: a JSON body whole, an event stream only until its
/// answer, then lets go of it (a stream not yet ended costs the connection).
async fn answer_of(response: reqwest::Response, id: u64) -> Value {
    let json = response.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("application/json");
    if json {
        return response.json().await.unwrap();
    }
    let mut response = response;
    let mut text = String::new();
    while let Some(chunk) = response.chunk().await.unwrap() {
        text.push_str(&String::from_utf8_lossy(&chunk));
        let message = mcp_raw::message_in(&text);
        if message["id"] == id {
            return message;
        }
    }
    panic!("the stream ended without the answer: {text}");
}

/// A keep-alive client sends a session's calls over one connection: a call that needs no
/// stream is answered as JSON, and the session's `DELETE` is answered `204`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_s_calls_share_one_connection() {
    let running = MOUNT.start(toolkit(), HttpOptions::new()).await;
    let (relay, accepted) = counting_relay(running.addr).await;
    let url = format!("http://{relay}/mcp");
    let http = reqwest::Client::new();
    let post = |body: String, session: Option<&str>| {
        let mut request = http
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body);
        if let Some(session) = session {
            request = request
                .header("mcp-session-id", session)
                .header("mcp-protocol-version", "2025-11-25");
        }
        request.send()
    };
    let initialized = post(INITIALIZE.to_owned(), None).await.unwrap();
    let session = initialized.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    assert_eq!(answer_of(initialized, 0).await["id"], 0);
    tokio::time::sleep(Duration::from_millis(50)).await;
    let done = post(
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
        Some(&session),
    )
    .await
    .unwrap();
    assert_eq!(done.status(), StatusCode::ACCEPTED);
    done.bytes().await.unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    for id in 1..=20 {
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "add", "arguments": {"a": id, "b": 1}}});
        let response = post(call.to_string(), Some(&session)).await.unwrap();
        // The Python SDK 2.x keeps a connection only after a JSON answer.
        assert_eq!(
            response.headers()["content-type"],
            "application/json",
            "call {id}"
        );
        let answer = answer_of(response, id).await;
        // reqwest puts a connection back in its pool on a task of its own once the body has
        // ended; without a pause the next request can race it and open another.
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(answer["result"]["content"][0]["text"], (id + 1).to_string());
    }
    assert_eq!(
        accepted.load(Ordering::SeqCst),
        1,
        "connections for 22 requests"
    );
    let deleted = http
        .delete(&url)
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-11-25")
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), StatusCode::NO_CONTENT);
    running.shut_down().await;
}
