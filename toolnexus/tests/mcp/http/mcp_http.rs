//! The `mcp-http` feature: a Toolkit served over MCP streamable HTTP on 127.0.0.1 (port 0)
//! and driven by rmcp's own HTTP client — list, call, structured output, 200 concurrent
//! calls (stateful and stateless), the bearer token, the `Origin` and `Host` checks, and a
//! graceful shutdown. Every server here stops itself at the end of its test; every loop is
//! bounded.
#![cfg(feature = "mcp-http")]

use crate::common::mcp_raw;
use crate::common::mcp_tools;

use std::collections::{BTreeSet, HashMap};
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequest, CallToolRequestParams, ClientRequest};
use rmcp::service::{PeerRequestOptions, RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};
use tokio::task::JoinSet;
use toolnexus::mcp::{HttpOptions, HttpServer, McpServer};
use toolnexus::{Json, ToolContext, Toolkit, define_tool};

use super::MOUNT;
use mcp_raw::Running;
use mcp_tools::{McpTools, check_against, mcp_tools};

const TOKEN: &str = "correct horse battery staple";

/// The shared MCP tools plus `echo` (structured `{"n": n}`) and `slow` (300 ms), and the
/// flag set when `stuck`'s future is dropped.
fn tools() -> (Toolkit, Arc<AtomicBool>) {
    let echo = define_tool(
        "echo",
        "Echoes a number",
        json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}),
    )
    .unwrap()
    .output_schema(
        json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}),
    )
    .unwrap()
    .sync(|args: Value, _: &ToolContext| Json(json!({"n": args["n"]})));
    let slow = define_tool(
        "slow",
        "Takes a moment",
        json!({"type": "object", "properties": {}}),
    )
    .unwrap()
    .run(|_: Value, _: ToolContext| async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        "finished"
    });
    let McpTools {
        toolkit,
        stuck_dropped,
    } = mcp_tools();
    (toolkit.with(echo).with(slow), stuck_dropped)
}

fn toolkit() -> Toolkit {
    tools().0
}

async fn start(options: HttpOptions) -> Running {
    start_with(toolkit(), options).await
}

async fn start_with(toolkit: Toolkit, options: HttpOptions) -> Running {
    MOUNT.start(toolkit, options).await
}

fn config(running: &Running) -> StreamableHttpClientTransportConfig {
    StreamableHttpClientTransportConfig::with_uri(running.url()).auth_header(TOKEN)
}

async fn connect(config: StreamableHttpClientTransportConfig) -> RunningService<RoleClient, ()> {
    ().serve(StreamableHttpClientTransport::from_config(config))
        .await
        .expect("client initializes")
}

fn echo(n: usize) -> CallToolRequestParams {
    CallToolRequestParams::new("echo").with_arguments(json!({"n": n}).as_object().unwrap().clone())
}

/// Lists, calls with structured output, then 200 concurrent calls, each answered with its
/// own number.
async fn serve_list_call_and_200_concurrent_calls(options: HttpOptions) {
    let running = start(options.bearer_token(TOKEN)).await;
    let client = connect(config(&running)).await;

    let listed = serde_json::to_value(client.list_all_tools().await.unwrap()).unwrap();
    assert_eq!(listed, toolkit().to_mcp());

    let weather = client
        .call_tool(
            CallToolRequestParams::new("weather")
                .with_arguments(json!({"city": "Oslo"}).as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    let weather = serde_json::to_value(weather).unwrap();
    assert_eq!(
        weather["structuredContent"],
        json!({"city": "Oslo", "celsius": 18.5})
    );
    let schema = &listed.as_array().unwrap()[0]["outputSchema"];
    check_against(schema, &weather["structuredContent"]).unwrap();

    let mut calls = JoinSet::new();
    for n in 0..200 {
        let peer = client.peer().clone();
        calls.spawn(async move { (n, peer.call_tool(echo(n)).await) });
    }
    let mut answered = BTreeSet::new();
    while let Some(joined) = calls.join_next().await {
        let (n, result) = joined.expect("the call task did not panic");
        let result = serde_json::to_value(result.expect("no call is lost")).unwrap();
        assert_eq!(result["structuredContent"], json!({"n": n}));
        assert_eq!(result["isError"], false);
        answered.insert(n);
    }
    assert_eq!(answered.len(), 200);

    client.cancel().await.unwrap();
    running.shut_down().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stateful_serves_list_call_and_concurrent_calls() {
    serve_list_call_and_200_concurrent_calls(HttpOptions::new()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stateless_serves_list_call_and_concurrent_calls() {
    serve_list_call_and_200_concurrent_calls(HttpOptions::new().stateless(true)).await;
}

/// The status line of one raw HTTP/1.1 exchange, and the response as text.
async fn raw(addr: SocketAddr, request: &str) -> (u16, String) {
    let response = mcp_raw::exchange(addr, request).await;
    let status = response
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP response: {response}"));
    (status, response)
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;

fn post(addr: SocketAddr, path: &str, headers: &[(&str, &str)]) -> String {
    let mut request = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
        INITIALIZE.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(INITIALIZE);
    request
}

#[tokio::test]
async fn a_missing_or_wrong_token_is_refused_with_401() {
    let running = start(HttpOptions::new().bearer_token(TOKEN).stateless(true)).await;
    let addr = running.addr;
    let bearer = format!("Bearer {TOKEN}");

    // With no protected resource to discover, both refusals say `invalid_token` (RFC 6750), so a
    // client asks its user for the token instead of starting an OAuth flow; the body says which.
    let (status, response) = raw(addr, &post(addr, "/mcp", &[])).await;
    assert_eq!(status, 401, "{response}");
    assert!(
        response.contains(
            "www-authenticate: Bearer error=\"invalid_token\", error_description=\"no bearer token was sent\""
        ),
        "{response}"
    );
    assert!(
        response
            .contains("Unauthorized: no bearer token was sent; send Authorization: Bearer <token>"),
        "{response}"
    );
    let (status, response) = raw(
        addr,
        &post(addr, "/mcp", &[("Authorization", "Bearer guess")]),
    )
    .await;
    assert_eq!(status, 401);
    assert!(
        response.contains(
            "www-authenticate: Bearer error=\"invalid_token\", error_description=\"the bearer token was not accepted\""
        ),
        "{response}"
    );
    assert!(
        response.contains("Unauthorized: the bearer token was not accepted"),
        "{response}"
    );
    let (status, response) = raw(addr, &post(addr, "/mcp", &[("Authorization", &bearer)])).await;
    assert_eq!(status, 200, "{response}");

    // rmcp's own client, with the wrong token, cannot even initialize.
    let wrong = StreamableHttpClientTransportConfig::with_uri(running.url()).auth_header("guess");
    assert!(
        ().serve(StreamableHttpClientTransport::from_config(wrong))
            .await
            .is_err()
    );
    running.shut_down().await;
}

/// A client that got the `401` looks for OAuth (the MCP Inspector probes the well-known paths,
/// then registers at `/register` and shows that answer): a server that wants a static token
/// says there is no sign-in and names the header instead.
#[tokio::test]
async fn oauth_probes_at_a_static_token_server_are_told_which_header_to_send() {
    if MOUNT.mounted() {
        return; // In an axum app the paths beside the endpoint are the app's own.
    }
    let probes = [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-authorization-server",
        "/.well-known/openid-configuration",
        "/register",
    ];
    for (options, told) in [
        (HttpOptions::new().bearer_token(TOKEN).stateless(true), true),
        (HttpOptions::new().stateless(true), false),
    ] {
        let running = start(options).await;
        let addr = running.addr;
        for path in probes.iter().copied().chain(["/elsewhere"]) {
            let (status, response) = raw(addr, &post(addr, path, &[])).await;
            assert_eq!(status, 404, "{path}: {response}");
            let expected = if told && path != "/elsewhere" {
                "Not Found: this MCP server offers no OAuth sign-in; send its bearer token as \
                 Authorization: Bearer <token>"
            } else {
                "Not Found: the MCP endpoint is /mcp"
            };
            assert!(response.contains(expected), "{path}: {response}");
        }
        running.shut_down().await;
    }
}

#[tokio::test]
async fn a_foreign_origin_is_refused_with_403_before_the_token_is_asked_for() {
    let options = HttpOptions::new().bearer_token(TOKEN).stateless(true);
    let running = start(MOUNT.loopback(options)).await;
    let addr = running.addr;
    let bearer = format!("Bearer {TOKEN}");

    for origin in [
        "http://evil.example",
        "null",
        "http://localhost.evil.example:80",
    ] {
        let (status, response) = raw(addr, &post(addr, "/mcp", &[("Origin", origin)])).await;
        assert_eq!(status, 403, "{origin}: {response}");
    }
    // Bound to loopback, a loopback origin is allowed by default.
    let local = [
        ("Origin", "http://localhost:5173"),
        ("Authorization", bearer.as_str()),
    ];
    let (status, response) = raw(addr, &post(addr, "/mcp", &local)).await;
    assert_eq!(status, 200, "{response}");

    // rmcp's client sending a foreign Origin header is refused too.
    let mut headers = HashMap::new();
    headers.insert(
        http::HeaderName::from_static("origin"),
        http::HeaderValue::from_static("https://evil.example"),
    );
    let foreign = config(&running).custom_headers(headers);
    assert!(
        ().serve(StreamableHttpClientTransport::from_config(foreign))
            .await
            .is_err()
    );
    running.shut_down().await;
}

#[tokio::test]
async fn configured_origins_replace_the_loopback_default() {
    let options = HttpOptions::new()
        .allow_origins(["https://app.example.com"])
        .stateless(true);
    let running = start(options).await;
    let addr = running.addr;
    let (status, _) = raw(
        addr,
        &post(addr, "/mcp", &[("Origin", "https://app.example.com")]),
    )
    .await;
    assert_eq!(status, 200);
    let (status, _) = raw(
        addr,
        &post(addr, "/mcp", &[("Origin", "http://localhost:5173")]),
    )
    .await;
    assert_eq!(status, 403);
    running.shut_down().await;

    let invalid = HttpServer::bind(
        "127.0.0.1:0",
        McpServer::new(Toolkit::new()),
        HttpOptions::new().allow_origins(["app.example.com"]),
    )
    .await
    .unwrap_err();
    assert_eq!(invalid.kind(), std::io::ErrorKind::InvalidInput);
    assert!(
        invalid.to_string().contains("`app.example.com`"),
        "{invalid}"
    );

    let empty_token = HttpServer::bind(
        "127.0.0.1:0",
        McpServer::new(Toolkit::new()),
        HttpOptions::new().bearer_token(""),
    )
    .await
    .unwrap_err();
    assert_eq!(empty_token.kind(), std::io::ErrorKind::InvalidInput);
}

/// Mounted, the service never learns its address: it allows no browser origin and any host
/// until told otherwise (SPEC §12B).
#[tokio::test]
async fn a_mounted_service_starts_with_the_defaults_of_a_non_loopback_server() {
    let service = toolnexus::mcp::HttpService::new(
        McpServer::new(toolkit()),
        HttpOptions::new().stateless(true),
    )
    .unwrap();
    let app = axum::Router::new().route_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let served = tokio::spawn(async move { axum::serve(listener, app).await });
    let (status, response) = raw(
        addr,
        &post(addr, "/mcp", &[("Origin", "http://localhost:5173")]),
    )
    .await;
    assert_eq!(status, 403, "{response}");
    let rebound =
        post(addr, "/mcp", &[]).replace(&format!("Host: {addr}"), "Host: mcp.example.com");
    let (status, response) = raw(addr, &rebound).await;
    assert_eq!(status, 200, "{response}");
    served.abort();
}

#[tokio::test]
async fn other_paths_and_rebound_hosts_are_refused() {
    let running = start(MOUNT.loopback(HttpOptions::new().stateless(true))).await;
    let addr = running.addr;
    let (status, _) = raw(addr, &post(addr, "/", &[])).await;
    assert_eq!(status, 404);
    // A DNS-rebinding page reaches a loopback server under its own name.
    let rebound = post(addr, "/mcp", &[]).replace(&format!("Host: {addr}"), "Host: evil.example");
    let (status, response) = raw(addr, &rebound).await;
    assert_eq!(status, 403, "{response}");
    running.shut_down().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_lets_a_call_in_flight_finish_then_refuses_connections() {
    if MOUNT.mounted() {
        return; // the accept loop's: a mounted service's router owns its shutdown
    }
    for options in [HttpOptions::new(), HttpOptions::new().stateless(true)] {
        let running = start(options.bearer_token(TOKEN)).await;
        let addr = running.addr;
        let client = connect(config(&running)).await;
        let peer = client.peer().clone();
        let slow =
            tokio::spawn(async move { peer.call_tool(CallToolRequestParams::new("slow")).await });
        // Let the call reach the tool, then shut down while it runs.
        tokio::time::sleep(Duration::from_millis(100)).await;
        running.shut_down().await;
        let result = slow.await.unwrap().expect("the call in flight finished");
        assert_eq!(
            serde_json::to_value(result).unwrap()["content"][0]["text"],
            "finished"
        );
        assert!(tokio::net::TcpStream::connect(addr).await.is_err());
        drop(client);
    }
}

#[tokio::test]
async fn stateful_answers_with_a_session_and_stateless_without() {
    for (options, session) in [
        (HttpOptions::new(), true),
        (HttpOptions::new().stateless(true), false),
    ] {
        let running = start(options).await;
        let addr = running.addr;
        let (status, response) = raw(addr, &post(addr, "/mcp", &[])).await;
        assert_eq!(status, 200, "{response}");
        let head = response.to_ascii_lowercase();
        assert_eq!(head.contains("mcp-session-id:"), session, "{response}");
        running.shut_down().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notifications_cancelled_over_http_drops_the_tool() {
    let (toolkit, stuck_dropped) = tools();
    let running = start_with(toolkit, HttpOptions::new()).await;
    let client = connect(StreamableHttpClientTransportConfig::with_uri(running.url())).await;
    let request =
        ClientRequest::CallToolRequest(CallToolRequest::new(CallToolRequestParams::new("stuck")));
    let handle = client
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    handle
        .cancel(Some("no longer needed".to_owned()))
        .await
        .unwrap();
    let give_up = Instant::now() + Duration::from_secs(30);
    while !stuck_dropped.load(Ordering::SeqCst) {
        assert!(Instant::now() < give_up, "the tool was never dropped");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    client.cancel().await.unwrap();
    running.shut_down().await;
}

/// A parameter marked `x-mcp-header` (what `#[param(header = "Region")]` writes, SEP-2243) is
/// checked against the `Mcp-Param-Region` header of a 2026-07-28 request: the same value
/// runs the tool; another value, or no header while the argument is there, is `-32020` with
/// HTTP 400 and the tool does not run.
#[tokio::test]
async fn a_header_parameter_must_match_its_mcp_param_header() {
    let ran = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = Arc::clone(&ran);
    let region = define_tool(
        "region",
        "Echoes the region",
        json!({"type": "object", "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}, "required": ["region"]}),
    )
    .unwrap()
    .sync(move |args: Value, _ctx: &ToolContext| {
        counted.fetch_add(1, Ordering::SeqCst);
        args["region"].as_str().unwrap_or_default().to_owned()
    });
    let running = mcp_raw::start(
        Toolkit::new().with(region),
        HttpOptions::new().stateless(true),
    )
    .await;
    let http = reqwest::Client::new();
    let call = |header: Option<&'static str>| {
        let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "region", "arguments": {"region": "eu-west"}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        }}});
        let mut request = http
            .post(running.url())
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", "region")
            .body(body.to_string());
        if let Some(value) = header {
            request = request.header("mcp-param-region", value);
        }
        async move {
            let response = request.send().await.unwrap();
            let status = response.status();
            (status, mcp_raw::message_in(&response.text().await.unwrap()))
        }
    };
    let (status, same) = call(Some("eu-west")).await;
    assert_eq!(status, 200, "{same}");
    assert_eq!(same["result"]["content"][0]["text"], "eu-west", "{same}");
    for header in [Some("us-east"), None] {
        let (status, refused) = call(header).await;
        assert_eq!(status, 400, "{header:?}: {refused}");
        assert_eq!(refused["error"]["code"], -32020, "{header:?}: {refused}");
        assert_eq!(refused["id"], 7);
    }
    assert_eq!(ran.load(Ordering::SeqCst), 1, "only the matching call ran");
    running.shut_down().await;
}
