//! The defaults README "Serving over MCP" promises for production: a server bound elsewhere
//! than loopback allows no browser origin and any `Host`, `allow_hosts` narrows that (the
//! DNS-rebinding protection), calls still running when `shutdown_grace` ends are dropped, and
//! a sealed `requestState` expires after 10 minutes unless `with_state_expiry` says otherwise.
//! Every connection is made to 127.0.0.1; the "elsewhere" server listens on `0.0.0.0` (port
//! 0) for the length of one test.
#![cfg(feature = "mcp-http")]

use crate::common::mcp_client;
use crate::common::mcp_raw;
use crate::common::mcp_tools;

use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use rmcp::model::{CallToolRequestParams, CallToolResponse, ProtocolVersion};
use serde_json::json;
use tokio::sync::oneshot;
use toolnexus::mcp::{HttpOptions, HttpServer, McpServer};

use mcp_client::{Modes, TestClient, connect_pipe};
use mcp_raw::{INITIALIZE, exchange};
use mcp_tools::{McpTools, asking_tools, mcp_tools};

/// A stateless server of `mcp_tools()` bound to `bind` with `options`; the loopback address
/// that reaches it, and the switch that stops it.
async fn serve(bind: &str, options: HttpOptions) -> (SocketAddr, oneshot::Sender<()>) {
    let http = HttpServer::bind(
        bind,
        McpServer::new(mcp_tools().toolkit),
        options.stateless(true),
    )
    .await
    .expect("binds");
    let addr = SocketAddr::from(([127, 0, 0, 1], http.local_addr().port()));
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(http.run_until(async {
        let _ = stopped.await;
    }));
    (addr, stop)
}

/// The status of an `initialize` sent to `addr` with `Host: host` and `extra` headers.
async fn status(addr: SocketAddr, host: &str, extra: &str) -> u16 {
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nAccept: \
         application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\
         {extra}\r\n{INITIALIZE}",
        INITIALIZE.len()
    );
    let response = exchange(addr, &request).await;
    response
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP response: {response}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bound_elsewhere_than_loopback_no_browser_origin_is_allowed_and_any_host_is() {
    let (elsewhere, stop) = serve("0.0.0.0:0", HttpOptions::new()).await;
    let (loopback, stop_loopback) = serve("127.0.0.1:0", HttpOptions::new()).await;
    let port = elsewhere.port();
    for origin in [
        format!("http://localhost:{port}"),
        format!("http://127.0.0.1:{port}"),
        "https://app.example.com".to_owned(),
    ] {
        let header = format!("Origin: {origin}\r\n");
        assert_eq!(
            status(elsewhere, "127.0.0.1", &header).await,
            403,
            "{origin}"
        );
    }
    // The same loopback origin that one bound to loopback allows.
    let local = format!("Origin: http://localhost:{}\r\n", loopback.port());
    assert_eq!(status(loopback, "localhost", &local).await, 200);

    // Behind a load balancer it is reached by names it cannot know.
    for host in ["api.example.com", "10.0.0.7:8765", "evil.example"] {
        assert_eq!(status(elsewhere, host, "").await, 200, "{host}");
    }
    // Bound to loopback, only loopback names (a DNS-rebound name is refused).
    assert_eq!(status(loopback, "evil.example", "").await, 403);
    let _ = (stop.send(()), stop_loopback.send(()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn allow_hosts_refuses_every_other_host_wherever_the_server_is_bound() {
    for bind in ["0.0.0.0:0", "127.0.0.1:0"] {
        let options = HttpOptions::new().allow_hosts(["api.example.com"]);
        let (addr, stop) = serve(bind, options).await;
        assert_eq!(status(addr, "api.example.com", "").await, 200, "{bind}");
        for host in ["evil.example", "localhost", "127.0.0.1"] {
            assert_eq!(status(addr, host, "").await, 403, "{bind}, {host}");
        }
        let _ = stop.send(());
    }
}

/// README: shutdown "lets requests in flight finish (up to 10 s, `shutdown_grace`)"; a call
/// still running then is dropped, and the server stops.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_still_running_when_shutdown_grace_ends_is_dropped() {
    for stateless in [false, true] {
        let McpTools {
            toolkit,
            stuck_dropped,
        } = mcp_tools();
        let options = HttpOptions::new()
            .stateless(stateless)
            .shutdown_grace(Duration::from_millis(300));
        let mut running = mcp_raw::serve(McpServer::new(toolkit), options).await;
        let mut client = mcp_raw::Client::new(&running);
        client.initialize().await;
        let caller = tokio::spawn(async move { client.call(7, "stuck", "{}").await });
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert!(!stuck_dropped.load(Ordering::SeqCst), "the call is running");
        running.stop();
        assert!(
            running.shut_down_within(Duration::from_secs(20)).await,
            "the server waited past its grace on a call that never ends"
        );
        // Closing the sessions (or, stateless, rmcp's cancellation of the calls) drops the
        // tool's future on its own task, just after.
        let mut waited = 0;
        while !stuck_dropped.load(Ordering::SeqCst) && waited < 200 {
            tokio::time::sleep(Duration::from_millis(50)).await;
            waited += 1;
        }
        assert!(
            stuck_dropped.load(Ordering::SeqCst),
            "stateless: {stateless}: the call was dropped"
        );
        let answer = tokio::time::timeout(Duration::from_secs(20), caller)
            .await
            .expect("the caller's request ends")
            .unwrap();
        assert!(answer.message.get("result").is_none(), "{answer:?}");
    }
}

/// The expiry a sealed `requestState` carries (rmcp's `rs1.<body>.<tag>`, the body starting
/// with the expiry in unix milliseconds, big-endian), less the time now, in milliseconds.
fn lifetime_ms(state: &str) -> i64 {
    let body = state.split('.').nth(1).expect("rs1.<body>.<tag>");
    let body = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(body)
        .unwrap();
    let expiry = i64::from_be_bytes(body[..8].try_into().unwrap());
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
    expiry - i64::try_from(now.as_millis()).unwrap()
}

/// The state a 2026-07-28 call to `delete_note` on `server` suspends with.
async fn state_of(server: McpServer) -> String {
    let revision = ProtocolVersion::V_2026_07_28;
    let (client, _) = connect_pipe(server, TestClient::new(revision, Modes::Both)).await;
    let params = CallToolRequestParams::new("delete_note")
        .with_arguments(json!({"id": 1}).as_object().unwrap().clone());
    let state = match client.call_tool_once(params).await.unwrap() {
        CallToolResponse::InputRequired(question) => question.request_state.unwrap(),
        other => panic!("expected input_required, got {other:?}"),
    };
    client.cancel().await.unwrap();
    state
}

#[tokio::test]
async fn a_request_state_expires_after_ten_minutes_by_default() {
    let by_default = lifetime_ms(&state_of(McpServer::new(asking_tools().0)).await);
    assert!((590_000..=600_000).contains(&by_default), "{by_default} ms");
    let server = McpServer::new(asking_tools().0).with_state_expiry(Duration::from_secs(60));
    let set = lifetime_ms(&state_of(server).await);
    assert!((50_000..=60_000).contains(&set), "{set} ms");
}
