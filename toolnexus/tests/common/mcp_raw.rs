//! A served Toolkit on 127.0.0.1 (port 0), for every HTTP test, and a plain HTTP client that speaks MCP's
//! streamable HTTP by hand, for the tests that send what rmcp's own client never would.
//!
//! The HTTP suites (`tests/mcp/http/`, `tests/mcp_flood/`) run once for each [`Mount`]: served
//! by `HttpServer`, and by `HttpService` mounted in an axum `Router`.
#![allow(dead_code, reason = "each test file uses its own part")]

use std::net::SocketAddr;
use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::HeaderMap;
use serde_json::{Value, json};
use tokio::sync::oneshot;
use toolnexus::Toolkit;
use toolnexus::mcp::{HttpOptions, HttpServer, HttpService, MCP_PATH, McpServer};

/// How a suite's server is served: each HTTP suite is compiled once per value (as the modules
/// `turnkey` and `mounted` of its test binary), and the suite's tests pass theirs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mount {
    /// `HttpServer`, the turnkey server.
    Turnkey,
    /// `HttpService` at `/mcp` in an axum `Router`, with `metadata_service()` routed at the two
    /// well-known paths.
    Router,
}

impl Mount {
    /// Whether the server is `HttpService` in an axum `Router`.
    pub fn mounted(self) -> bool {
        self == Mount::Router
    }

    /// `options` with what a loopback-bound `HttpServer` allows by default said out loud, as a
    /// mounted service needs it said (it never learns its address); `options` as they are for
    /// the turnkey server.
    pub fn loopback(self, options: HttpOptions) -> HttpOptions {
        if !self.mounted() {
            return options;
        }
        options
            .allow_origins([
                "http://localhost:*",
                "https://localhost:*",
                "http://127.0.0.1:*",
                "https://127.0.0.1:*",
                "http://[::1]:*",
                "https://[::1]:*",
            ])
            .allow_hosts(["localhost", "127.0.0.1", "::1"])
    }

    /// `toolkit` served on a loopback port.
    pub async fn start(self, toolkit: Toolkit, options: HttpOptions) -> Running {
        self.serve(McpServer::new(toolkit), options).await
    }

    /// `server` served on a loopback port: by `HttpServer`, or by `HttpService` at `/mcp` in an
    /// axum `Router`.
    pub async fn serve(self, server: McpServer, options: HttpOptions) -> Running {
        match self {
            Mount::Turnkey => serve_turnkey(server, options).await,
            Mount::Router => serve_mounted(server, options).await,
        }
    }
}

/// A running server and the switch that shuts it down.
pub struct Running {
    pub addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    finished: tokio::task::JoinHandle<()>,
}

impl Running {
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// Asks the server to shut down.
    pub fn stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }

    /// Shuts the server down and waits (at most `within`) until it has; whether it had.
    pub async fn shut_down_within(mut self, within: Duration) -> bool {
        self.stop();
        tokio::time::timeout(within, &mut self.finished)
            .await
            .is_ok()
    }

    /// Shuts the server down and waits (boundedly) until it has.
    pub async fn shut_down(mut self) {
        self.stop();
        tokio::time::timeout(Duration::from_secs(30), &mut self.finished)
            .await
            .expect("the server shuts down")
            .expect("the server task did not panic");
    }
}

/// `toolkit` served on a loopback port by `HttpServer`, for the tests that run once.
pub async fn start(toolkit: Toolkit, options: HttpOptions) -> Running {
    Mount::Turnkey.start(toolkit, options).await
}

/// `server` served on a loopback port by `HttpServer`, for the tests that run once.
pub async fn serve(server: McpServer, options: HttpOptions) -> Running {
    Mount::Turnkey.serve(server, options).await
}

async fn serve_turnkey(server: McpServer, options: HttpOptions) -> Running {
    let http = HttpServer::bind("127.0.0.1:0", server, options)
        .await
        .expect("binds a loopback port");
    let addr = http.local_addr();
    let (stop, stopped) = oneshot::channel::<()>();
    let finished = tokio::spawn(http.run_until(async {
        let _ = stopped.await;
    }));
    Running {
        addr,
        stop: Some(stop),
        finished,
    }
}

async fn serve_mounted(server: McpServer, options: HttpOptions) -> Running {
    let service = HttpService::new(server, options).expect("valid options");
    let metadata = service.metadata_service();
    let app = axum::Router::new()
        .route_service(MCP_PATH, service)
        .route_service("/.well-known/oauth-protected-resource", metadata.clone())
        .route_service("/.well-known/oauth-protected-resource/mcp", metadata);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("binds a loopback port");
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    // Stops accepting when told; connections still open end with their clients.
    let finished = tokio::spawn(async move {
        tokio::select! {
            served = axum::serve(listener, app) => served.expect("axum serves"),
            _ = stopped => {}
        }
    });
    Running {
        addr,
        stop: Some(stop),
        finished,
    }
}

/// An answer: its status, its headers, and the JSON-RPC message it carries (from a JSON
/// body or the `data:` of an event stream), `Null` when it carries none.
#[derive(Debug)]
pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub message: Value,
    pub text: String,
}

/// A hand-driven MCP client: one HTTP client (keep-alive), and the session once it has one.
pub struct Client {
    pub http: reqwest::Client,
    pub url: String,
    pub session: Option<String>,
}

pub const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;

impl Client {
    pub fn new(running: &Running) -> Self {
        Self {
            http: reqwest::Client::new(),
            url: running.url(),
            session: None,
        }
    }

    /// POSTs `body` (with the session, if any) and reads the answer whole.
    pub async fn post(&self, body: impl Into<String>) -> Reply {
        let mut request = self
            .http
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body.into());
        if let Some(session) = &self.session {
            request = request.header("mcp-session-id", session);
        }
        let response = tokio::time::timeout(Duration::from_secs(30), request.send())
            .await
            .expect("the server answers")
            .expect("the request goes through");
        let status = response.status();
        let headers = response.headers().clone();
        let text = tokio::time::timeout(Duration::from_secs(30), response.text())
            .await
            .expect("the answer ends")
            .unwrap_or_default();
        let message = message_in(&text);
        Reply {
            status,
            headers,
            message,
            text,
        }
    }

    /// Opens a session (stateful servers) and says `initialized`; the `initialize` answer.
    pub async fn initialize(&mut self) -> Reply {
        let reply = self.post(INITIALIZE).await;
        if let Some(session) = reply.headers.get("mcp-session-id") {
            self.session = Some(session.to_str().unwrap().to_owned());
            let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
            let done = self.post(initialized.to_string()).await;
            assert_eq!(done.status, StatusCode::ACCEPTED, "{}", done.text);
        }
        reply
    }

    /// `tools/call` of `name` with `arguments` (any JSON text), as request `id`.
    pub async fn call(&self, id: u64, name: &str, arguments: &str) -> Reply {
        self.post(format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{name}","arguments":{arguments}}}}}"#
        ))
        .await
    }
}

/// The JSON-RPC message in an answer's body: the body itself, or the last `data:` line of an
/// event stream that holds one.
/// Sends `request` as it is on a fresh connection and reads until the server closes it: the
/// whole response, for the tests that send bytes no HTTP client would.
pub async fn exchange(addr: SocketAddr, request: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    tokio::time::timeout(Duration::from_secs(30), stream.read_to_end(&mut response))
        .await
        .expect("the server answers and closes")
        .unwrap();
    String::from_utf8_lossy(&response).into_owned()
}

pub fn message_in(text: &str) -> Value {
    if let Ok(message) = serde_json::from_str(text) {
        return message;
    }
    text.lines()
        .rev()
        .filter_map(|line| line.strip_prefix("data:"))
        .find_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
        .unwrap_or(Value::Null)
}

/// POSTs request `id` of a 2026-07-28 client that declared the tasks extension (its `_meta`
/// and headers as that revision has them), and returns the answer as it starts.
pub async fn post_2026(url: &str, id: u64, method: &str, params: Value) -> reqwest::Response {
    post_2026_with(url, &[], id, method, params).await
}

/// [`post_2026`] with `headers` besides (a bearer token, a session).
pub async fn post_2026_with(
    url: &str,
    headers: &[(&str, &str)],
    id: u64,
    method: &str,
    mut params: Value,
) -> reqwest::Response {
    params["_meta"] = super::tasks::client_meta_2026();
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method);
    if let Some(name) = params["name"].as_str() {
        request = request.header("mcp-name", name);
    }
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    request.body(message.to_string()).send().await.unwrap()
}

/// The JSON-RPC messages of an event stream, one at a time, as they arrive.
pub struct Events {
    response: reqwest::Response,
    read: String,
}

impl Events {
    pub fn of(response: reqwest::Response) -> Self {
        Self {
            response,
            read: String::new(),
        }
    }

    /// The next message (priming events skipped).
    pub async fn next(&mut self) -> Value {
        loop {
            while let Some(end) = self.read.find("\n\n") {
                let event: String = self.read.drain(..end + 2).collect();
                let message = message_in(&event);
                if !message.is_null() {
                    return message;
                }
            }
            let chunk = tokio::time::timeout(Duration::from_secs(30), self.response.chunk())
                .await
                .expect("the stream goes on")
                .unwrap()
                .expect("the stream stays open");
            self.read.push_str(std::str::from_utf8(&chunk).unwrap());
        }
    }
}
