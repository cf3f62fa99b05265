//! SPEC §10B over MCP: the suspension boundary as strict as the argument boundary, on stdio
//! (`LineTransport`, what `serve_stdio` runs on), HTTP with sessions and stateless HTTP.
//! An answer that does not fit the schema it was asked with is refused and the tool does not
//! run (2025-* `elicitation/create` results and 2026-07-28 `inputResponses`); a sealed
//! `requestState` opens once, for the session and the caller it was issued to; a retry field
//! of the wrong JSON type is `-32602` (HTTP 400). The in-process path and the generated
//! answers are in `answers.rs`.
#![cfg(feature = "mcp")]

use crate::common::mcp_client;
#[cfg(feature = "mcp-http")]
use crate::common::mcp_raw;
use crate::common::mcp_tools;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientJsonRpcMessage,
    ElicitationAction, GetExtensions, InputRequiredResult, InputResponses, ProtocolVersion,
};
use rmcp::service::{RoleClient, RoleServer, RunningService, ServiceExt};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::AsyncRwTransport;
use serde_json::{Value, json};
use toolnexus::mcp::{CallerId, LineTransport, McpServer};
use toolnexus::{Request, ToolContext, ToolResult, Toolkit, define_tool};

use mcp_client::{Log, Modes, TestClient, connect_over};
use mcp_tools::asking_tools;

type Client = RunningService<RoleClient, TestClient>;

const KEY: &[u8] = b"a key both replicas were given, 32+ bytes";

/// How the client reaches the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Over {
    Stdio,
    #[cfg(feature = "mcp-http")]
    Http {
        stateless: bool,
    },
}

/// Every transport a client of `revision` can be asked over (a stateless HTTP server
/// cannot send a 2025-* client a request).
fn transports(revision: &ProtocolVersion) -> Vec<Over> {
    let http: &[Over] = match *revision == ProtocolVersion::V_2026_07_28 {
        #[cfg(feature = "mcp-http")]
        true => &[
            Over::Http { stateless: false },
            Over::Http { stateless: true },
        ],
        #[cfg(feature = "mcp-http")]
        false => &[Over::Http { stateless: false }],
        #[cfg(not(feature = "mcp-http"))]
        _ => &[],
    };
    [Over::Stdio].iter().chain(http).copied().collect()
}

/// `server` served to `client` over `over`.
async fn serve(server: McpServer, client: TestClient, over: Over) -> (Client, Log) {
    match over {
        Over::Stdio => {
            let (read, write) = crate::common::mcp_client::line_pipe(server);
            let log = Log::default();
            let running =
                connect_over(client, AsyncRwTransport::new_client(read, write), &log).await;
            (running, log)
        }
        #[cfg(feature = "mcp-http")]
        Over::Http { stateless } => {
            use toolnexus::mcp::HttpOptions;
            let running = mcp_raw::serve(server, HttpOptions::new().stateless(stateless)).await;
            let url = running.url();
            // The server lives until the test's runtime ends.
            std::mem::forget(running);
            mcp_client::connect_http(&url, client).await
        }
    }
}

/// `pick_environment` (SPEC §10B's example): asks for `env` in `[staging, production]`, then
/// `deploying to ENV`; and how many times it got that far.
fn pick_environment() -> (Toolkit, Arc<AtomicUsize>) {
    let runs = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&runs);
    let tool = define_tool(
        "pick_environment",
        "Deploys, after asking which environment",
        json!({"type": "object", "properties": {}}),
    )
    .unwrap()
    .sync(move |_: Value, ctx: &ToolContext| match &ctx.answer {
        Some(answer) if answer.ok => {
            counted.fetch_add(1, Ordering::SeqCst);
            let env = answer.data.as_ref().and_then(|data| data.get("env"));
            ToolResult::ok(format!("deploying to {}", env.unwrap_or(&Value::Null)))
        }
        _ => {
            let schema = json!({
                "type": "object",
                "properties": {"env": {"type": "string", "enum": ["staging", "production"]}},
                "required": ["env"],
            });
            let data = json!({"schema": schema}).as_object().cloned().unwrap();
            toolnexus::pending(Request::new("input", "Which environment?").with_data(data))
        }
    });
    (Toolkit::new().with(tool), runs)
}

fn params(name: &str, arguments: Value) -> CallToolRequestParams {
    CallToolRequestParams::new(name.to_owned())
        .with_arguments(arguments.as_object().unwrap().clone())
}

fn text(result: &CallToolResult) -> (&str, Option<bool>) {
    (
        result.content[0].as_text().unwrap().text.as_str(),
        result.is_error,
    )
}

/// The first round of a 2026-07-28 call, by hand.
async fn first_round(client: &Client, name: &str, arguments: Value) -> InputRequiredResult {
    match client
        .call_tool_once(params(name, arguments))
        .await
        .unwrap()
    {
        CallToolResponse::InputRequired(question) => question,
        other => panic!("expected input_required, got {other:?}"),
    }
}

/// Retries `name` with `state` and `content` accepted as the answer to every request.
async fn retry(
    client: &Client,
    name: &str,
    arguments: Value,
    question: &InputRequiredResult,
    content: Value,
) -> Result<CallToolResult, rmcp::ErrorData> {
    let responses: InputResponses = question
        .input_requests
        .as_ref()
        .unwrap()
        .keys()
        .map(|key| (key.clone(), json!({"action": "accept", "content": content})))
        .collect();
    let state = question.request_state.clone().unwrap();
    let params = params(name, arguments)
        .with_input_responses(responses)
        .with_request_state(state);
    match client.call_tool_once(params).await {
        Ok(CallToolResponse::Complete(result)) => Ok(result),
        Err(rmcp::service::ServiceError::McpError(error)) => Err(error),
        other => panic!("expected a result or an error, got {other:?}"),
    }
}

/// A retry's result text (`Ok`), or the message of the `-32602` it was refused with (`Err`:
/// SEP-2322, a state that fails verification is rejected, SPEC §8C).
fn said(outcome: Result<CallToolResult, rmcp::ErrorData>) -> Result<String, String> {
    match outcome {
        Ok(result) => Ok(text(&result).0.to_owned()),
        Err(error) => {
            assert_eq!(
                error.code,
                rmcp::model::ErrorCode::INVALID_PARAMS,
                "{error:?}"
            );
            Err(error.message.into_owned())
        }
    }
}

const MOON: &str = "answer to `pick_environment`: field `env`: unknown variant `moon`, expected one of `staging`, `production`";

#[tokio::test]
async fn an_answer_outside_the_schema_is_refused_and_the_tool_does_not_run() {
    for revision in [ProtocolVersion::V_2025_06_18, ProtocolVersion::V_2025_11_25] {
        for over in transports(&revision) {
            let client = TestClient::new(revision.clone(), Modes::Form);
            client
                .answer(
                    ElicitationAction::Accept,
                    Some(json!({"env": "moon; rm -rf /"})),
                )
                .answer(ElicitationAction::Accept, Some(json!({"env": "moon"})))
                .answer(ElicitationAction::Accept, Some(json!({"env": "staging"})));
            let (toolkit, runs) = pick_environment();
            let (client, _) = serve(McpServer::new(toolkit), client, over).await;
            let call = || client.call_tool(params("pick_environment", json!({})));
            let injected = call().await.unwrap();
            assert!(
                text(&injected).0.starts_with(
                    "answer to `pick_environment`: field `env`: unknown variant `moon; rm -rf /`"
                ),
                "{revision} over {over:?}: {}",
                text(&injected).0
            );
            assert_eq!(text(&call().await.unwrap()), (MOON, Some(true)));
            assert_eq!(runs.load(Ordering::SeqCst), 0, "{revision} over {over:?}");
            let fine = call().await.unwrap();
            assert_eq!(text(&fine), ("deploying to \"staging\"", Some(false)));
            assert_eq!(runs.load(Ordering::SeqCst), 1);
            client.cancel().await.unwrap();
        }
    }
    let revision = ProtocolVersion::V_2026_07_28;
    for over in transports(&revision) {
        let (toolkit, runs) = pick_environment();
        let client = TestClient::new(revision.clone(), Modes::Form);
        let (client, _) = serve(McpServer::new(toolkit), client, over).await;
        let question = first_round(&client, "pick_environment", json!({})).await;
        let moon = retry(
            &client,
            "pick_environment",
            json!({}),
            &question,
            json!({"env": "moon"}),
        );
        assert_eq!(
            text(&moon.await.unwrap()),
            (MOON, Some(true)),
            "over {over:?}"
        );
        let missing = retry(&client, "pick_environment", json!({}), &question, json!({}));
        assert!(
            text(&missing.await.unwrap())
                .0
                .starts_with("answer to `pick_environment`: "),
            "over {over:?}"
        );
        assert_eq!(runs.load(Ordering::SeqCst), 0, "over {over:?}");
        // A refused answer does not use the state up: the right answer still completes it.
        let fine = retry(
            &client,
            "pick_environment",
            json!({}),
            &question,
            json!({"env": "production"}),
        );
        assert_eq!(
            text(&fine.await.unwrap()),
            ("deploying to \"production\"", Some(false))
        );
        assert_eq!(runs.load(Ordering::SeqCst), 1);
        client.cancel().await.unwrap();
    }
}

/// What a retry whose state does not verify gets: the likely causes, named.
const UNVERIFIED: &str = "tool `delete_note` did not run: its requestState does not verify under this server's key: it was tampered with, or issued by another server instance (or by this one before a restart); replicas must share the key (`McpServer::with_state_key`)";

#[tokio::test]
async fn a_state_that_does_not_verify_names_the_likely_causes() {
    let revision = ProtocolVersion::V_2026_07_28;
    for over in transports(&revision) {
        let (toolkit, runs) = asking_tools();
        let client = TestClient::new(revision.clone(), Modes::Form);
        let (client, _) = serve(McpServer::new(toolkit.clone()), client, over).await;
        // Issued by another instance (its own random key), and one byte changed.
        let (other, _) = serve(
            McpServer::new(toolkit),
            TestClient::new(revision.clone(), Modes::Form),
            over,
        )
        .await;
        let foreign = first_round(&other, "delete_note", json!({"id": 1})).await;
        let mut tampered = first_round(&client, "delete_note", json!({"id": 1})).await;
        let state = tampered.request_state.take().unwrap();
        let flipped = if state.ends_with('A') { 'B' } else { 'A' };
        tampered.request_state = Some(format!("{}{flipped}", &state[..state.len() - 1]));
        for question in [foreign, tampered] {
            let refused = retry(
                &client,
                "delete_note",
                json!({"id": 1}),
                &question,
                json!({}),
            );
            assert_eq!(
                said(refused.await),
                Err(UNVERIFIED.to_owned()),
                "over {over:?}"
            );
        }
        assert_eq!(runs.load(Ordering::SeqCst), 0);
        client.cancel().await.unwrap();
        other.cancel().await.unwrap();
    }
}

const USED: &str = "tool `delete_note` did not run: its requestState was already used";

#[tokio::test]
async fn an_approved_retry_sent_three_times_runs_once() {
    let revision = ProtocolVersion::V_2026_07_28;
    for over in transports(&revision) {
        let (toolkit, runs) = asking_tools();
        let client = TestClient::new(revision.clone(), Modes::Form);
        let (client, _) = serve(McpServer::new(toolkit), client, over).await;
        let question = first_round(&client, "delete_note", json!({"id": 1})).await;
        let mut seen = Vec::new();
        for _ in 0..3 {
            let result = retry(
                &client,
                "delete_note",
                json!({"id": 1}),
                &question,
                json!({}),
            );
            seen.push(said(result.await));
        }
        let used = || Err(USED.to_owned());
        let once = Ok("deleted note 1".to_owned());
        assert_eq!(seen, [once, used(), used()], "over {over:?}");
        assert_eq!(runs.load(Ordering::SeqCst), 1, "over {over:?}");
        client.cancel().await.unwrap();
    }
}

/// Replicas with one key each run a retry once when they share a [`StateStore`]; with a
/// store each, a retry replayed to the other replica runs again (what the README says).
#[cfg(feature = "mcp-http")]
#[tokio::test]
async fn stateless_replicas_share_the_record_of_used_states_through_a_store() {
    use toolnexus::mcp::InMemoryStateStore;
    let revision = ProtocolVersion::V_2026_07_28;
    for shared in [true, false] {
        let (toolkit, runs) = asking_tools();
        let one_store: Arc<InMemoryStateStore> = Arc::new(InMemoryStateStore::new());
        let replica = |store: Arc<InMemoryStateStore>| {
            McpServer::new(toolkit.clone())
                .with_state_key(KEY)
                .unwrap()
                .with_state_store(store)
        };
        let stores = match shared {
            true => [Arc::clone(&one_store), Arc::clone(&one_store)],
            false => [Arc::default(), Arc::default()],
        };
        let [a, b] = stores.map(replica);
        let stateless = Over::Http { stateless: true };
        let (first, _) = serve(a, TestClient::new(revision.clone(), Modes::Form), stateless).await;
        let (second, _) = serve(b, TestClient::new(revision.clone(), Modes::Form), stateless).await;
        let question = first_round(&first, "delete_note", json!({"id": 3})).await;
        let done = retry(
            &first,
            "delete_note",
            json!({"id": 3}),
            &question,
            json!({}),
        );
        assert_eq!(said(done.await), Ok("deleted note 3".to_owned()));
        let replayed = retry(
            &second,
            "delete_note",
            json!({"id": 3}),
            &question,
            json!({}),
        );
        let replayed = said(replayed.await);
        if shared {
            assert_eq!(replayed, Err(USED.to_owned()));
            assert_eq!(runs.load(Ordering::SeqCst), 1);
            assert_eq!(one_store.len(), 1);
        } else {
            assert_eq!(replayed, Ok("deleted note 3".to_owned()));
            assert_eq!(runs.load(Ordering::SeqCst), 2);
        }
        first.cancel().await.unwrap();
        second.cancel().await.unwrap();
    }
}

/// A state issued on one stdio connection does not open on another, even under a shared
/// key. (Over HTTP rmcp serves 2026-07-28 without sessions, with or without
/// `HttpOptions::stateless`: there a state binds the caller only, as
/// `stateless_replicas_share_the_record_of_used_states_through_a_store` shows.)
#[tokio::test]
async fn a_state_opens_only_on_the_stdio_connection_it_was_issued_on() {
    let revision = ProtocolVersion::V_2026_07_28;
    for over in [Over::Stdio] {
        let (toolkit, runs) = asking_tools();
        let server = || McpServer::new(toolkit.clone()).with_state_key(KEY).unwrap();
        let (one, _) = serve(
            server(),
            TestClient::new(revision.clone(), Modes::Form),
            over,
        )
        .await;
        let (two, _) = serve(
            server(),
            TestClient::new(revision.clone(), Modes::Form),
            over,
        )
        .await;
        let question = first_round(&one, "delete_note", json!({"id": 5})).await;
        let elsewhere = retry(&two, "delete_note", json!({"id": 5}), &question, json!({}));
        assert_eq!(
            said(elsewhere.await),
            Err(
                "tool `delete_note` did not run: its requestState was issued on another connection"
                    .to_owned()
            ),
            "over {over:?}"
        );
        assert_eq!(runs.load(Ordering::SeqCst), 0);
        let here = retry(&one, "delete_note", json!({"id": 5}), &question, json!({}));
        assert_eq!(
            text(&here.await.unwrap()).0,
            "deleted note 5",
            "over {over:?}"
        );
        one.cancel().await.unwrap();
        two.cancel().await.unwrap();
    }
}

/// A server transport that tags every request the way an authentication layer would:
/// `CallerId` in the request's extensions, or (as rmcp's HTTP transport hands requests
/// over) in the extensions of the HTTP request's `Parts`.
struct Authenticated<T> {
    inner: T,
    caller: &'static str,
    in_parts: bool,
}

impl<T: Transport<RoleServer> + Send> Transport<RoleServer> for Authenticated<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: rmcp::model::ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        let mut message = self.inner.receive().await?;
        if let ClientJsonRpcMessage::Request(request) = &mut message {
            let caller = CallerId(self.caller.to_owned());
            let extensions = request.request.extensions_mut();
            if self.in_parts {
                #[cfg(feature = "mcp-http")]
                {
                    let (parts, ()) = http::Request::builder()
                        .extension(caller)
                        .body(())
                        .unwrap()
                        .into_parts();
                    extensions.insert(parts);
                }
            } else {
                extensions.insert(caller);
            }
        }
        Some(message)
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

async fn as_caller(server: McpServer, caller: &'static str, in_parts: bool) -> Client {
    let (server_end, client_end) = tokio::io::duplex(64 * 1024);
    let (read, write) = tokio::io::split(server_end);
    let transport = Authenticated {
        inner: AsyncRwTransport::new_server(read, write),
        caller,
        in_parts,
    };
    tokio::spawn(async move {
        if let Ok(running) = server.serve(transport).await {
            let _ = running.waiting().await;
        }
    });
    let (read, write) = tokio::io::split(client_end);
    let client = TestClient::new(ProtocolVersion::V_2026_07_28, Modes::Form);
    connect_over(
        client,
        AsyncRwTransport::new_client(read, write),
        &Log::default(),
    )
    .await
}

#[tokio::test]
async fn a_state_issued_to_one_caller_does_not_open_for_another() {
    let mut ways = vec![false];
    if cfg!(feature = "mcp-http") {
        ways.push(true);
    }
    for in_parts in ways {
        let (toolkit, runs) = asking_tools();
        let server = || McpServer::new(toolkit.clone()).with_state_key(KEY).unwrap();
        let alice = as_caller(server(), "alice", in_parts).await;
        let bob = as_caller(server(), "bob", in_parts).await;
        let alice_again = as_caller(server(), "alice", in_parts).await;
        let question = first_round(&alice, "delete_note", json!({"id": 9})).await;
        let stolen = retry(&bob, "delete_note", json!({"id": 9}), &question, json!({}));
        assert_eq!(
            said(stolen.await),
            Err(
                "tool `delete_note` did not run: its requestState was issued to another caller"
                    .to_owned()
            ),
            "in parts: {in_parts}"
        );
        assert_eq!(runs.load(Ordering::SeqCst), 0);
        // The same caller on another connection (a replica, say) completes it.
        let hers = retry(
            &alice_again,
            "delete_note",
            json!({"id": 9}),
            &question,
            json!({}),
        );
        assert_eq!(
            text(&hers.await.unwrap()).0,
            "deleted note 9",
            "in parts: {in_parts}"
        );
        for client in [alice, bob, alice_again] {
            client.cancel().await.unwrap();
        }
    }
}

/// A `tools/call` line with `params` on stdio, and the JSON-RPC reply.
async fn on_stdio(params: &str) -> Value {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let (client, server) = tokio::io::duplex(64 * 1024);
    let (read, write) = tokio::io::split(server);
    tokio::spawn(async move {
        if let Ok(running) = McpServer::new(asking_tools().0)
            .serve(LineTransport::new(read, write))
            .await
        {
            let _ = running.waiting().await;
        }
    });
    let (read, mut write) = tokio::io::split(client);
    let line = format!(r#"{{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{params}}}"#);
    write
        .write_all(format!("{line}\n").as_bytes())
        .await
        .unwrap();
    let mut reply = String::new();
    BufReader::new(read).read_line(&mut reply).await.unwrap();
    serde_json::from_str(&reply).unwrap()
}

/// Retry fields of the wrong JSON type, and the words of the `-32602` each gets.
fn malformed() -> Vec<(String, &'static str)> {
    let state = "Invalid params: `requestState` must be a string, the one the server sent with its input request";
    let responses =
        "Invalid params: `inputResponses` must be an object of answers keyed by input request id";
    let mut cases: Vec<(String, &str)> = ["{}", "{\"a\":1}", "7", "[]", "[\"x\"]", "true", "false"]
        .iter()
        .map(|bad| {
            (
                format!(r#"{{"name":"delete_note","arguments":{{"id":1}},"requestState":{bad}}}"#),
                state,
            )
        })
        .collect();
    for bad in ["[]", "[{}]", "\"x\"", "3", "true", "null"] {
        cases.push((
            format!(
                r#"{{"name":"delete_note","arguments":{{"id":1}},"requestState":"s","inputResponses":{bad}}}"#
            ),
            responses,
        ));
    }
    // Without a `requestState` too, as the conformance suite sends them: `null` is not
    // "absent", and each answer is the client's result object.
    cases.push((
        r#"{"name":"delete_note","arguments":{"id":1},"inputResponses":null}"#.to_owned(),
        responses,
    ));
    for bad in ["12345", "null", "\"yes\"", "[]"] {
        cases.push((
            format!(r#"{{"name":"delete_note","arguments":{{"id":1}},"inputResponses":{{"ok":{{}},"user_name":{bad}}}}}"#),
            "Invalid params: `inputResponses.user_name` must be an object, the client's result for that input request",
        ));
    }
    cases
}

#[tokio::test]
async fn retry_fields_of_the_wrong_json_type_are_invalid_params() {
    for (params, message) in malformed() {
        let reply = on_stdio(&params).await;
        assert_eq!(
            reply,
            json!({"jsonrpc": "2.0", "id": 4, "error": {"code": -32602, "message": message}}),
            "{params}"
        );
    }
    #[cfg(feature = "mcp-http")]
    for stateless in [false, true] {
        use toolnexus::mcp::HttpOptions;
        let running =
            mcp_raw::start(asking_tools().0, HttpOptions::new().stateless(stateless)).await;
        let mut client = mcp_raw::Client::new(&running);
        client.initialize().await;
        for (params, message) in malformed() {
            let reply = client
                .post(format!(
                    r#"{{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{params}}}"#
                ))
                .await;
            assert_eq!(reply.status, 400, "stateless {stateless}: {params}");
            assert_eq!(reply.message["error"]["code"], -32602, "{params}");
            assert_eq!(reply.message["error"]["message"], message, "{params}");
        }
        running.shut_down().await;
    }
}

/// Over HTTP, end to end: the identity `HttpOptions::verify_bearer` produced from the token
/// is a `CallerId`, and the state issued to one user does not open for another, who signs in
/// with their own token.
#[cfg(feature = "mcp-http")]
#[tokio::test]
async fn over_http_the_caller_id_verify_bearer_produced_binds_the_state() {
    use toolnexus::mcp::HttpOptions;

    let (toolkit, runs) = asking_tools();
    // Stands in for a JWT check: `token-<user>` was issued to `<user>`.
    let options = HttpOptions::new()
        .stateless(true)
        .verify_bearer(|token: String| async move {
            token
                .strip_prefix("token-")
                .map(|user| CallerId(user.to_owned()))
        });
    let running = mcp_raw::serve(McpServer::new(toolkit), options).await;
    let addr = running.addr;
    let http = reqwest::Client::new();
    let url = format!("http://{addr}/mcp");
    let call = |user: &'static str, id: u64, extra: Value| {
        let mut params = json!({"name": "delete_note", "arguments": {"id": 4}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}
        }});
        for (key, value) in extra.as_object().unwrap() {
            params[key] = value.clone();
        }
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
        let request = http
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", "delete_note")
            .bearer_auth(format!("token-{user}"))
            .body(body.to_string());
        async move {
            let reply = request.send().await.unwrap().text().await.unwrap();
            mcp_raw::message_in(&reply)
        }
    };
    let question = call("alice", 1, json!({})).await;
    let result = &question["result"];
    let state = result["requestState"].clone();
    let request_id = result["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    let retry = json!({
        "requestState": state,
        "inputResponses": {request_id: {"action": "accept", "content": {}}},
    });
    let stolen = call("bob", 2, retry.clone()).await;
    assert_eq!(stolen["error"]["code"], -32602, "{stolen}");
    assert_eq!(
        stolen["error"]["message"],
        "tool `delete_note` did not run: its requestState was issued to another caller",
        "{stolen}"
    );
    assert_eq!(runs.load(Ordering::SeqCst), 0);
    let hers = call("alice", 3, retry).await;
    assert_eq!(
        hers["result"]["content"][0]["text"], "deleted note 4",
        "{hers}"
    );
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    running.shut_down().await;
}

/// A shared store that cannot be reached.
struct Unreachable;

impl toolnexus::mcp::StateStore for Unreachable {
    fn first_use<'a>(
        &'a self,
        _: &'a str,
        _: std::time::SystemTime,
    ) -> toolnexus::BoxFuture<'a, Result<bool, toolnexus::mcp::StateStoreError>> {
        Box::pin(async { Err("the store is out of reach".into()) })
    }
}

/// A store that cannot tell whether a state was used refuses the retry: it fails closed.
#[tokio::test]
async fn a_store_that_cannot_tell_refuses_the_retry() {
    let revision = ProtocolVersion::V_2026_07_28;
    for over in transports(&revision) {
        let (toolkit, runs) = asking_tools();
        let server = McpServer::new(toolkit).with_state_store(Arc::new(Unreachable));
        let client = TestClient::new(revision.clone(), Modes::Form);
        let (client, _) = serve(server, client, over).await;
        let question = first_round(&client, "delete_note", json!({"id": 2})).await;
        let refused = retry(
            &client,
            "delete_note",
            json!({"id": 2}),
            &question,
            json!({}),
        );
        assert_eq!(
            text(&refused.await.unwrap()),
            (
                "tool `delete_note` did not run: its requestState could not be recorded as used: the store is out of reach; nothing ran",
                Some(true)
            ),
            "over {over:?}"
        );
        assert_eq!(runs.load(Ordering::SeqCst), 0);
        client.cancel().await.unwrap();
    }
}
