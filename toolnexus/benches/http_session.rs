//! Session-mode MCP over HTTP, call after call on one keep-alive client: calls per second and
//! the median per call, for `HttpServer` beside rmcp's own `StreamableHttpService` (its
//! defaults, session mode, served by axum with `TCP_NODELAY`) in the same run, the servers
//! taking turns round by round so load changes slow them alike. Wall-clock, so run it on a
//! quiet machine: `cargo bench -p toolnexus --features mcp-http --bench http_session`.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::serve::ListenerExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::{Value, json};
use toolnexus::mcp::{HttpOptions, HttpServer, McpServer};
use toolnexus::{Toolkit, tool, tools};

/// Adds two integers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

const ROUNDS: usize = 20;
const CALLS_PER_ROUND: usize = 50;

struct Session {
    http: reqwest::Client,
    url: String,
    id: String,
}

async fn post(http: &reqwest::Client, url: &str, session: Option<&str>, body: Value) -> String {
    let mut request = http
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .body(body.to_string());
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    let response = request.send().await.unwrap();
    let id = response
        .headers()
        .get("mcp-session-id")
        .map(|id| id.to_str().unwrap().to_owned());
    let text = response.text().await.unwrap();
    id.unwrap_or(text)
}

async fn open(addr: SocketAddr) -> Session {
    let http = reqwest::Client::new();
    let url = format!("http://{addr}/mcp");
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"}}});
    let id = post(&http, &url, None, initialize).await;
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    post(&http, &url, Some(&id), initialized).await;
    Session { http, url, id }
}

async fn call(session: &Session, n: usize) {
    let call = json!({"jsonrpc": "2.0", "id": n, "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": n, "b": 1}}});
    let answer = post(&session.http, &session.url, Some(&session.id), call).await;
    assert!(
        answer.contains(&format!("\"text\":\"{}\"", n + 1)),
        "{answer}"
    );
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let toolkit = Arc::new(Toolkit::new().with_all(tools![add]));

        let ours = HttpServer::bind(
            "127.0.0.1:0",
            McpServer::new(Arc::clone(&toolkit)),
            HttpOptions::new(),
        )
        .await
        .unwrap();
        let ours_addr = ours.local_addr();
        tokio::spawn(ours.run_until(std::future::pending()));

        let server = McpServer::new(Arc::clone(&toolkit));
        let rmcp = StreamableHttpService::new(
            move || Ok(server.clone()),
            Arc::new(LocalSessionManager::default()),
            StreamableHttpServerConfig::default(),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let rmcp_addr = listener.local_addr().unwrap();
        let listener = listener.tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
        let app = axum::Router::new().route_service("/mcp", rmcp);
        tokio::spawn(async move { axum::serve(listener, app).await });

        let servers = [
            ("toolnexus HttpServer", ours_addr),
            ("rmcp StreamableHttpService", rmcp_addr),
        ];
        let mut sessions = Vec::new();
        for (_, addr) in servers {
            let session = open(addr).await;
            for n in 0..20 {
                call(&session, n).await; // warm up
            }
            sessions.push(session);
        }
        let mut took: Vec<Vec<Duration>> = vec![Vec::new(); servers.len()];
        let mut total = vec![Duration::ZERO; servers.len()];
        for round in 0..ROUNDS {
            for (index, session) in sessions.iter().enumerate() {
                let started = Instant::now();
                for n in 0..CALLS_PER_ROUND {
                    let one = Instant::now();
                    call(session, round * CALLS_PER_ROUND + n).await;
                    took[index].push(one.elapsed());
                }
                total[index] += started.elapsed();
            }
        }
        let calls = (ROUNDS * CALLS_PER_ROUND) as f64;
        for (index, (name, _)) in servers.iter().enumerate() {
            took[index].sort();
            let p50 = took[index][took[index].len() / 2];
            println!(
                "{name:<28} {:>8.0} calls/s   p50 {:>7.0} µs",
                calls / total[index].as_secs_f64(),
                p50.as_secs_f64() * 1e6
            );
        }
    });
}
