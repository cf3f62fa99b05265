//! SPEC §12 over MCP: the caller reaches the tool (`ClientInfo` on every transport; over HTTP
//! the request's `Parts` without its `Authorization` header, and every value an HTTP layer put
//! into the request's extensions), layers see the JSON-RPC id, and `tools/list` differs per
//! caller (never cacheable across callers). Every server stops at the end of its test.
#![cfg(feature = "mcp-http")]

use crate::common::mcp_client;
use crate::common::mcp_raw;

use std::sync::{Arc, Mutex};

use http::request::Parts;
use rmcp::model::{CallToolRequestParams, ProtocolVersion};
use serde_json::{Value, json};
use toolnexus::mcp::{ClientInfo, HttpOptions, McpServer};
use toolnexus::{Extension, Json, Next, State, Tool, ToolCall, ToolContext, Toolkit, tool, tools};

use mcp_client::{Log, Modes, TestClient, connect_over};
use mcp_raw::Running;
use rmcp::ServiceExt;
use toolnexus::mcp::LineTransport;

/// What an HTTP layer in front of the endpoint decided about the caller.
#[derive(Clone, Debug)]
struct Role(String);

/// Says what the server knows of the caller.
#[tool]
fn whoami(
    info: Option<Extension<ClientInfo>>,
    parts: Option<Extension<Parts>>,
    role: Option<Extension<Role>>,
) -> Json<Value> {
    let header = |name: &str| {
        parts
            .as_ref()
            .and_then(|parts| parts.headers.get(name))
            .map(|value| value.to_str().unwrap_or_default().to_owned())
    };
    let info = info.map(|info| info.0).unwrap_or_default();
    Json(json!({
        "name": info.name,
        "version": info.version,
        "revision": info.revision,
        "http": parts.is_some(),
        "authorization": header("authorization"),
        "x-role": header("x-role"),
        "role": role.map(|role| role.0 .0),
    }))
}

/// Resets everything; admins only.
#[tool]
fn admin_reset(log: State<Mutex<Vec<String>>>) -> &'static str {
    let _ = log;
    "reset"
}

fn is_admin(ctx: &ToolContext) -> bool {
    let header = ctx
        .extension::<Parts>()
        .and_then(|parts| parts.headers.get("x-role"))
        .is_some_and(|role| role == "admin");
    let layer = ctx
        .extension::<Role>()
        .is_some_and(|role| role.0 == "admin");
    header || layer
}

/// The toolkit every test serves, and the ids its layer saw.
fn toolkit() -> (Toolkit, Arc<Mutex<Vec<String>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let toolkit = Toolkit::new()
        .with_all(tools![whoami, admin_reset])
        .with_state(Mutex::new(Vec::<String>::new()))
        .around(move |call: ToolCall, ctx: ToolContext, next: Next| {
            log.lock()
                .unwrap()
                .push(format!("{} {}", call.id, call.name));
            next.run(call, ctx)
        })
        .visible_if(|tool: &dyn Tool, ctx: &ToolContext| {
            !tool.name().starts_with("admin_") || is_admin(ctx)
        });
    (toolkit, seen)
}

fn text_of(result: &rmcp::model::CallToolResult) -> Value {
    let text = result.content[0]
        .as_text()
        .expect("a text block")
        .text
        .clone();
    serde_json::from_str(&text).unwrap_or(Value::String(text))
}

/// `server` on the stdio transport (`LineTransport`, what `serve_stdio` runs on) over an
/// in-process pipe, and `client` connected to it.
async fn connect_stdio(
    server: McpServer,
    client: TestClient,
) -> (
    rmcp::service::RunningService<rmcp::RoleClient, TestClient>,
    Log,
) {
    let (server_end, client_end) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        let (read, write) = tokio::io::split(server_end);
        let running = server
            .serve(LineTransport::new(read, write))
            .await
            .expect("server starts");
        let _ = running.waiting().await;
    });
    let log = Log::default();
    let (read, write) = tokio::io::split(client_end);
    let transport = rmcp::transport::async_rw::AsyncRwTransport::new_client(read, write);
    let running = connect_over(client, transport, &log).await;
    (running, log)
}

#[tokio::test]
async fn over_stdio_the_tool_learns_the_client_and_layers_see_the_request_id() {
    for revision in [ProtocolVersion::V_2025_11_25, ProtocolVersion::V_2026_07_28] {
        let (toolkit, seen) = toolkit();
        let server = McpServer::new(toolkit);
        let client = TestClient::new(revision.clone(), Modes::None);
        let (running, log) = connect_stdio(server, client).await;
        let result = running
            .call_tool(CallToolRequestParams::new("whoami"))
            .await
            .expect("the call goes through");
        let who = text_of(&result);
        assert_eq!(who["revision"], revision.as_str(), "{who}");
        assert!(who["name"].is_string(), "the client's name: {who}");
        assert_eq!(who["http"], false);

        let listed = running.list_all_tools().await.unwrap();
        let names: Vec<&str> = listed.iter().map(|tool| tool.name.as_ref()).collect();
        assert_eq!(names, ["whoami"], "admin tools hidden from this caller");
        // SPEC §8: hidden from this caller is unknown to it, and over MCP that is `-32602`.
        let hidden = running
            .call_tool(CallToolRequestParams::new("admin_reset"))
            .await
            .expect_err("a hidden tool is a JSON-RPC error");
        let rmcp::ServiceError::McpError(hidden) = hidden else {
            panic!("{hidden:?}");
        };
        assert_eq!(
            (hidden.code.0, hidden.message.as_ref()),
            (-32602, "Unknown tool: admin_reset")
        );

        let ids = seen.lock().unwrap().clone();
        assert_eq!(ids.len(), 1, "no layer ran for the hidden tool: {ids:?}");
        let (id, name) = ids[0].split_once(' ').unwrap();
        assert_eq!(name, "whoami");
        let sent_id = log
            .lock()
            .unwrap()
            .iter()
            .map(|(_, message)| message.clone())
            .find(|message| message["method"] == "tools/call")
            .map(|message| message["id"].to_string())
            .expect("the call was sent");
        assert_eq!(id, sent_id.trim_matches('"'), "the JSON-RPC id");
        if revision == ProtocolVersion::V_2026_07_28 {
            let list = log
                .lock()
                .unwrap()
                .iter()
                .map(|(_, message)| message.clone())
                .find(|message| message["result"].get("tools").is_some())
                .expect("a tools/list answer");
            assert_eq!(list["result"]["cacheScope"], "private", "{list}");
        }
        running.cancel().await.unwrap();
    }
}

/// POSTs `body` with `headers` and the session, and returns the answer's message.
async fn post(client: &mcp_raw::Client, headers: &[(&str, &str)], body: String) -> mcp_raw::Reply {
    let mut request = client
        .http
        .post(&client.url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    if let Some(session) = &client.session {
        request = request.header("mcp-session-id", session);
    }
    let response = request.send().await.expect("the server answers");
    let status = response.status();
    let headers = response.headers().clone();
    let text = response.text().await.unwrap_or_default();
    mcp_raw::Reply {
        status,
        headers,
        message: mcp_raw::message_in(&text),
        text,
    }
}

const TOKEN: &str = "a-secret-of-some-length";

async fn initialized(running: &Running, headers: &[(&str, &str)]) -> mcp_raw::Client {
    let mut client = mcp_raw::Client::new(running);
    let reply = post(&client, headers, mcp_raw::INITIALIZE.to_owned()).await;
    assert!(reply.status.is_success(), "{}", reply.text);
    if let Some(session) = reply.headers.get("mcp-session-id") {
        client.session = Some(session.to_str().unwrap().to_owned());
        let done = post(
            &client,
            headers,
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
        )
        .await;
        assert!(done.status.is_success(), "{}", done.text);
    }
    client
}

fn call(id: u64, name: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": {}}})
        .to_string()
}

fn list(id: u64) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"}).to_string()
}

fn tool_names(reply: &mcp_raw::Reply) -> Vec<String> {
    reply.message["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("a tools/list answer: {}", reply.text))
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_owned())
        .collect()
}

fn structured(reply: &mcp_raw::Reply) -> Value {
    let text = reply.message["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("a result: {}", reply.text));
    serde_json::from_str(text).unwrap_or(Value::String(text.to_owned()))
}

#[tokio::test]
async fn over_http_the_tool_reads_the_request_without_its_token_and_each_caller_sees_its_tools() {
    for stateless in [false, true] {
        let (toolkit, seen) = toolkit();
        let options = HttpOptions::new().bearer_token(TOKEN).stateless(stateless);
        let running = mcp_raw::start(toolkit, options).await;
        let bearer = format!("Bearer {TOKEN}");
        let revision = ("mcp-protocol-version", "2025-11-25");
        let admin = [
            ("authorization", bearer.as_str()),
            ("x-role", "admin"),
            revision,
        ];
        let guest = [("authorization", bearer.as_str()), revision];

        let as_admin = initialized(&running, &admin).await;
        let who = structured(&post(&as_admin, &admin, call(7, "whoami")).await);
        assert_eq!(who["http"], true, "{who}");
        assert_eq!(
            who["authorization"],
            Value::Null,
            "the token is not passed on: {who}"
        );
        assert_eq!(who["x-role"], "admin");
        assert_eq!(who["revision"], "2025-11-25");
        if stateless {
            // rmcp answers a sessionless 2025-* request as if its own client had sent it.
            assert_eq!(
                (&who["name"], &who["version"]),
                (&Value::Null, &Value::Null),
                "a stateless 2025-* request does not say who sent it: {who}"
            );
        } else {
            assert_eq!(who["name"], "raw", "the session's client: {who}");
        }
        assert_eq!(
            tool_names(&post(&as_admin, &admin, list(8)).await),
            ["whoami", "admin_reset"]
        );
        let reset = post(&as_admin, &admin, call(9, "admin_reset")).await;
        assert_eq!(structured(&reset), "reset");

        let as_guest = initialized(&running, &guest).await;
        assert_eq!(
            tool_names(&post(&as_guest, &guest, list(10)).await),
            ["whoami"]
        );
        let refused = post(&as_guest, &guest, call(11, "admin_reset")).await;
        assert_eq!(
            refused.message["error"],
            json!({"code": -32602, "message": "Unknown tool: admin_reset"}),
            "{}",
            refused.text
        );
        assert_eq!(refused.message["id"], 11);

        let ids = seen.lock().unwrap().clone();
        assert_eq!(ids, ["7 whoami", "9 admin_reset"], "stateless: {stateless}");
        running.shut_down().await;
    }
}

#[tokio::test]
async fn a_value_an_http_layer_put_in_the_request_reaches_the_tool() {
    use http_body_util::BodyExt;
    use hyper_util::rt::{TokioExecutor, TokioIo};
    use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService,
    };

    let (toolkit, _) = toolkit();
    let server = McpServer::new(toolkit);
    let service = Arc::new(StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(NeverSessionManager::default()),
        StreamableHttpServerConfig::default()
            .with_legacy_session_mode(false)
            .with_json_response(true),
    ));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    // The user's own auth layer: a header becomes a typed request extension.
    let serving = tokio::spawn(async move {
        let (stream, _) = listener.accept().await.unwrap();
        let layer =
            hyper::service::service_fn(move |mut request: http::Request<hyper::body::Incoming>| {
                let service = Arc::clone(&service);
                async move {
                    let role = request
                        .headers()
                        .get("x-role")
                        .map(|role| role.to_str().unwrap_or_default().to_owned());
                    if let Some(role) = role {
                        request.extensions_mut().insert(Role(role));
                    }
                    let response = service.handle(request).await;
                    Ok::<_, std::convert::Infallible>(response.map(BodyExt::boxed_unsync))
                }
            });
        hyper_util::server::conn::auto::Builder::new(TokioExecutor::new())
            .serve_connection(TokioIo::new(stream), layer)
            .await
            .ok();
    });

    let url = format!("http://{addr}/mcp");
    let http = reqwest::Client::new();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "admin_reset", "arguments": {},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "layered", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {}
        }
    }});
    let reply = http
        .post(&url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "admin_reset")
        .header("x-role", "admin")
        .body(body.to_string())
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let message = mcp_raw::message_in(&reply);
    assert_eq!(
        message["result"]["content"][0]["text"], "reset",
        "the layer's Role made the admin tool visible and callable: {reply}"
    );
    serving.abort();
}

#[tokio::test]
async fn a_toolkit_that_cannot_serve_a_tool_is_refused_at_the_start() {
    let lacking = Toolkit::new().with_all(tools![admin_reset]);
    let expected = "tool `admin_reset` needs `State<Mutex<Vec<String>>>`, which the toolkit does not hold: add it with `Toolkit::with_state`";
    let bound = toolnexus::mcp::HttpServer::bind(
        "127.0.0.1:0",
        McpServer::new(lacking.clone()),
        HttpOptions::new(),
    )
    .await;
    let Err(refused) = bound else {
        panic!("bind refuses a toolkit missing state")
    };
    assert_eq!(refused.kind(), std::io::ErrorKind::InvalidInput);
    assert_eq!(refused.to_string(), expected);
    let stdio = toolnexus::mcp::serve_stdio(lacking)
        .await
        .expect_err("stdio refuses");
    assert_eq!(stdio.to_string(), expected);
}
