//! Suspensions that reach the human over MCP (SPEC §8C), driven by rmcp's client for each
//! protocol generation over an in-process pipe (rmcp's transport, and the `LineTransport`
//! stdio runs on) and over HTTP (with sessions, and stateless where the generation can be
//! asked without one): MRTR (`InputRequiredResult`, sealed
//! `requestState`) on 2026-07-28, `elicitation/create` on 2025-06-18 and 2025-11-25, and
//! today's `isError` result for a client that cannot be asked. Every message is checked
//! against the revision's schema.
#![cfg(feature = "mcp")]

use crate::common::mcp_client;
use crate::common::mcp_tools;

use std::sync::atomic::Ordering;
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ElicitationAction,
    InputRequiredResult, ProtocolVersion,
};
use rmcp::service::{RoleClient, RunningService};
use serde_json::{Value, json};
use toolnexus::mcp::{LineTransport, McpServer};

use mcp_client::{Log, Modes, REVISIONS, TestClient, accept_every, check_log, connect_pipe};
use mcp_tools::{asking_tools, env_schema};

type Client = RunningService<RoleClient, TestClient>;

/// What a retry whose state does not verify gets, naming the likely causes.
const UNVERIFIED: &str = "tool `delete_note` did not run: its requestState does not verify under this server's key: it was tampered with, or issued by another server instance (or by this one before a restart); replicas must share the key (`McpServer::with_state_key`)";

fn params(name: &str, arguments: Value) -> CallToolRequestParams {
    CallToolRequestParams::new(name.to_owned())
        .with_arguments(arguments.as_object().unwrap().clone())
}

async fn call(client: &Client, name: &str, arguments: Value) -> CallToolResult {
    client
        .call_tool(params(name, arguments))
        .await
        .unwrap_or_else(|error| panic!("tools/call {name}: {error}"))
}

fn text(result: &CallToolResult) -> (&str, Option<bool>) {
    (
        result.content[0].as_text().unwrap().text.as_str(),
        result.is_error,
    )
}

/// The revisions whose clients can be asked.
fn asking_revisions() -> [ProtocolVersion; 3] {
    [
        ProtocolVersion::V_2025_06_18,
        ProtocolVersion::V_2025_11_25,
        ProtocolVersion::V_2026_07_28,
    ]
}

/// How the client reaches the server.
#[derive(Clone, Copy, Debug)]
enum Transport {
    Pipe,
    /// What `serve_stdio` runs on: [`LineTransport`], over an in-process pipe.
    Stdio,
    #[cfg(feature = "mcp-http")]
    Http {
        stateless: bool,
    },
}

/// Every transport a client of `revision` can be asked over: a stateless HTTP server cannot
/// send a 2025-* client a request (that client gets today's result, `mcp_http_revisions.rs`).
fn transports(revision: &ProtocolVersion) -> Vec<Transport> {
    let mut transports = vec![Transport::Pipe, Transport::Stdio];
    #[cfg(feature = "mcp-http")]
    {
        transports.push(Transport::Http { stateless: false });
        if *revision == ProtocolVersion::V_2026_07_28 {
            transports.push(Transport::Http { stateless: true });
        }
    }
    let _ = revision;
    transports
}

/// `server` served to `client` over `transport`; an HTTP server lives until the test's
/// runtime ends.
async fn serve(server: McpServer, client: TestClient, transport: Transport) -> (Client, Log) {
    match transport {
        Transport::Pipe => connect_pipe(server, client).await,
        Transport::Stdio => {
            let (server_end, client_end) = tokio::io::duplex(64 * 1024);
            let (read, write) = tokio::io::split(server_end);
            tokio::spawn(async move {
                let running = server.serve(LineTransport::new(read, write)).await;
                running.expect("server starts").waiting().await.unwrap();
            });
            let log = Log::default();
            let (read, write) = tokio::io::split(client_end);
            let transport = rmcp::transport::async_rw::AsyncRwTransport::new_client(read, write);
            let running = mcp_client::connect_over(client, transport, &log).await;
            (running, log)
        }
        #[cfg(feature = "mcp-http")]
        Transport::Http { stateless } => {
            use toolnexus::mcp::{HttpOptions, HttpServer};
            let options = HttpOptions::new().stateless(stateless);
            let http = HttpServer::bind("127.0.0.1:0", server, options)
                .await
                .expect("binds a loopback port");
            let url = format!("http://{}/mcp", http.local_addr());
            tokio::spawn(http.run_until(std::future::pending::<()>()));
            mcp_client::connect_http(&url, client).await
        }
    }
}

/// Each of `revisions` with each transport its client can be asked over.
fn cases(
    revisions: impl IntoIterator<Item = ProtocolVersion>,
) -> Vec<(ProtocolVersion, Transport)> {
    revisions
        .into_iter()
        .flat_map(|revision| {
            transports(&revision)
                .into_iter()
                .map(move |over| (revision.clone(), over))
        })
        .collect()
}

async fn connect(
    revision: &ProtocolVersion,
    modes: Modes,
    transport: Transport,
) -> (Client, TestClient, Log) {
    let client = TestClient::new(revision.clone(), modes);
    let script = client.clone();
    let (running, log) = serve(McpServer::new(asking_tools().0), client, transport).await;
    (running, script, log)
}

async fn finish(client: Client, revision: &ProtocolVersion, log: &Log) {
    client.cancel().await.unwrap();
    check_log(revision, log);
}

#[tokio::test]
async fn an_approval_asks_and_runs_once_approved() {
    for (revision, over) in cases(asking_revisions()) {
        let (client, script, log) = connect(&revision, Modes::Both, over).await;
        script.answer(ElicitationAction::Accept, Some(json!({})));
        let done = call(&client, "delete_note", json!({"id": 1})).await;
        assert_eq!(
            text(&done),
            ("deleted note 1", Some(false)),
            "{revision} over {over:?}"
        );
        let asked = script.asked();
        assert_eq!(asked.len(), 1, "{revision} over {over:?}");
        assert_eq!(
            asked[0],
            json!({"mode": "form", "message": "Delete note 1?", "requestedSchema": {"type": "object", "properties": {}}}),
            "{revision} over {over:?}"
        );
        finish(client, &revision, &log).await;
    }
}

/// Decline and cancel are not `ok`: the destructive tool never runs.
#[tokio::test]
async fn a_declined_or_cancelled_approval_never_runs_the_tool() {
    for action in [ElicitationAction::Decline, ElicitationAction::Cancel] {
        for (revision, over) in cases(asking_revisions()) {
            let client = TestClient::new(revision.clone(), Modes::Form);
            client.answer(action.clone(), None);
            let (toolkit, runs) = asking_tools();
            let (running, log) = serve(McpServer::new(toolkit), client.clone(), over).await;
            let declined = call(&running, "delete_note", json!({"id": 1})).await;
            let case = format!("{action:?} on {revision} over {over:?}");
            assert_eq!(
                text(&declined),
                ("declined/expired: Delete note 1?", Some(true)),
                "{case}"
            );
            assert_eq!(client.asked().len(), 1, "{case}");
            assert_eq!(runs.load(Ordering::SeqCst), 0, "{case}");
            finish(running, &revision, &log).await;
        }
    }
}

#[tokio::test]
async fn a_login_is_a_url_elicitation() {
    let login_result = (
        "needs authorization input, which this client cannot ask for: \
         Authorization required to continue\nhttps://auth.example.com/login",
        Some(true),
    );
    // 2025-06-18 has no URL mode: its client gets today's result.
    for (revision, over) in cases([ProtocolVersion::V_2025_06_18]) {
        let (client, script, log) = connect(&revision, Modes::Both, over).await;
        assert_eq!(text(&call(&client, "login", json!({})).await), login_result);
        assert!(script.asked().is_empty());
        finish(client, &revision, &log).await;
    }

    for (revision, over) in cases([ProtocolVersion::V_2025_11_25, ProtocolVersion::V_2026_07_28]) {
        let (client, script, log) = connect(&revision, Modes::Both, over).await;
        script.answer(ElicitationAction::Accept, None);
        let done = call(&client, "login", json!({})).await;
        assert_eq!(
            text(&done),
            ("logged in", Some(false)),
            "{revision} over {over:?}"
        );
        let asked = &script.asked()[0];
        assert_eq!(asked["mode"], "url", "{revision} over {over:?}");
        assert_eq!(asked["url"], "https://auth.example.com/login");
        assert_eq!(asked["message"], "Authorization required to continue");
        finish(client, &revision, &log).await;

        // Never a form for credentials: a client without URL mode gets today's result.
        let (client, script, log) = connect(&revision, Modes::Form, over).await;
        let refused = call(&client, "login", json!({})).await;
        assert_eq!(text(&refused), login_result, "{revision} over {over:?}");
        assert!(script.asked().is_empty());
        finish(client, &revision, &log).await;
    }
}

#[tokio::test]
async fn an_input_with_a_schema_is_a_form_and_its_content_the_answer() {
    for (revision, over) in cases(asking_revisions()) {
        let (client, script, log) = connect(&revision, Modes::Form, over).await;
        script.answer(
            ElicitationAction::Accept,
            Some(json!({"env": "production"})),
        );
        let done = call(&client, "pick_env", json!({})).await;
        assert_eq!(
            text(&done),
            ("deploying to production", Some(false)),
            "{revision} over {over:?}"
        );
        let asked = &script.asked()[0];
        assert_eq!(asked["message"], "Which environment?");
        assert_eq!(
            asked["requestedSchema"],
            env_schema(),
            "{revision} over {over:?}"
        );
        finish(client, &revision, &log).await;
    }
}

#[tokio::test]
async fn a_tool_that_suspends_twice_is_unresolved() {
    for (revision, over) in cases(asking_revisions()) {
        let (client, script, log) = connect(&revision, Modes::Both, over).await;
        script
            .answer(ElicitationAction::Accept, Some(json!({})))
            .answer(ElicitationAction::Accept, Some(json!({})));
        let result = call(&client, "twice", json!({})).await;
        assert_eq!(
            text(&result),
            ("unresolved: Again?", Some(true)),
            "{revision} over {over:?}"
        );
        // Asked once: the loop never asks twice.
        assert_eq!(script.asked().len(), 1, "{revision} over {over:?}");
        finish(client, &revision, &log).await;
    }
}

#[tokio::test]
async fn a_client_that_cannot_be_asked_is_told_so() {
    for (revision, over) in cases(REVISIONS) {
        let (client, script, log) = connect(&revision, Modes::None, over).await;
        let (toolkit, _) = asking_tools();
        let direct = toolkit
            .execute(
                "delete_note",
                json!({"id": 1}),
                &toolnexus::ToolContext::default(),
            )
            .await;
        let result = call(&client, "delete_note", json!({"id": 1})).await;
        assert_eq!(
            text(&result),
            (
                "needs approval, which this client cannot ask for: Delete note 1?",
                Some(true)
            ),
            "{revision} over {over:?}"
        );
        // In process the suspension is as it was (SPEC §10); only its text over MCP says more.
        assert_eq!(direct.output, "Delete note 1?");
        assert!(direct.is_pending());
        assert!(script.asked().is_empty());
        finish(client, &revision, &log).await;
    }
    // 2025-03-26 had no elicitation: a client claiming it is not asked either.
    let (client, script, log) = connect(&REVISIONS[0], Modes::Both, Transport::Pipe).await;
    let result = call(&client, "delete_note", json!({"id": 1})).await;
    assert_eq!(
        text(&result),
        (
            "needs approval, which this client cannot ask for: Delete note 1?",
            Some(true)
        )
    );
    assert!(script.asked().is_empty());
    finish(client, &REVISIONS[0], &log).await;
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

/// Retries `name` with `arguments`, `state`, and an accepting answer to every request: its
/// result, or the message of the `-32602` error that refused it (SPEC §8C).
async fn retry(
    client: &Client,
    name: &str,
    arguments: Value,
    question: &InputRequiredResult,
    state: &str,
) -> Result<CallToolResult, String> {
    let responses = accept_every(question);
    let params = params(name, arguments)
        .with_input_responses(responses)
        .with_request_state(state.to_owned());
    match client.call_tool_once(params).await {
        Ok(CallToolResponse::Complete(result)) => Ok(result),
        Err(rmcp::service::ServiceError::McpError(error)) => {
            assert_eq!(
                error.code,
                rmcp::model::ErrorCode::INVALID_PARAMS,
                "{error:?}"
            );
            Err(error.message.into_owned())
        }
        other => panic!("expected a result or an error, got {other:?}"),
    }
}

#[tokio::test]
async fn a_2026_state_that_was_tampered_with_expired_or_is_for_other_arguments_runs_nothing() {
    for (revision, over) in cases([ProtocolVersion::V_2026_07_28]) {
        state_attacks(revision, over).await;
    }
}

async fn state_attacks(revision: ProtocolVersion, over: Transport) {
    let client = TestClient::new(revision.clone(), Modes::Both);
    let (toolkit, runs) = asking_tools();
    let server = McpServer::new(toolkit).with_state_expiry(Duration::from_millis(300));
    let (client, log) = serve(server, client, over).await;
    let args = json!({"id": 1});

    let question = first_round(&client, "delete_note", args.clone()).await;
    let state = question.request_state.clone().unwrap();
    assert_eq!(question.input_requests.as_ref().unwrap().len(), 1);

    // One byte changed.
    let mut tampered = state.clone().into_bytes();
    let last = tampered.len() - 1;
    tampered[last] = if tampered[last] == b'A' { b'B' } else { b'A' };
    let tampered = String::from_utf8(tampered).unwrap();
    let refused = retry(&client, "delete_note", args.clone(), &question, &tampered).await;
    assert_eq!(refused.unwrap_err(), UNVERIFIED);
    // Replayed with other arguments, or for another tool.
    let other = retry(&client, "delete_note", json!({"id": 2}), &question, &state).await;
    assert_eq!(
        other.unwrap_err(),
        "tool `delete_note` did not run: its requestState was issued for other arguments"
    );
    let elsewhere = retry(&client, "twice", json!({"id": 1}), &question, &state).await;
    assert_eq!(
        elsewhere.unwrap_err(),
        "tool `twice` did not run: its requestState was issued for tool `delete_note`"
    );
    // The untouched state with the same arguments completes the call.
    let done = retry(&client, "delete_note", args.clone(), &question, &state).await;
    assert_eq!(text(&done.unwrap()), ("deleted note 1", Some(false)));
    assert_eq!(runs.load(Ordering::SeqCst), 1);

    // Expired.
    tokio::time::sleep(Duration::from_millis(400)).await;
    let expired = retry(&client, "delete_note", args, &question, &state).await;
    assert_eq!(
        expired.unwrap_err(),
        "tool `delete_note` did not run: its requestState has expired; call the tool again"
    );
    assert_eq!(
        runs.load(Ordering::SeqCst),
        1,
        "no refused retry ran the tool"
    );
    finish(client, &revision, &log).await;
}

#[tokio::test]
async fn a_call_suspended_on_one_server_completes_on_another_with_the_same_key() {
    let revision = ProtocolVersion::V_2026_07_28;
    let key = b"a key both replicas were given, 32+ bytes".to_vec();
    let (toolkit, runs) = asking_tools();
    let first = McpServer::new(toolkit.clone())
        .with_state_key(key.clone())
        .unwrap();
    let second = McpServer::new(toolkit.clone()).with_state_key(key).unwrap();
    let stranger = McpServer::new(toolkit);
    let (one, log_one) = connect_pipe(first, TestClient::new(revision.clone(), Modes::Both)).await;
    let (two, log_two) = connect_pipe(second, TestClient::new(revision.clone(), Modes::Both)).await;
    let (three, _) = connect_pipe(stranger, TestClient::new(revision.clone(), Modes::Both)).await;

    let args = json!({"id": 7});
    let question = first_round(&one, "delete_note", args.clone()).await;
    let state = question.request_state.clone().unwrap();
    let done = retry(&two, "delete_note", args.clone(), &question, &state).await;
    assert_eq!(text(&done.unwrap()), ("deleted note 7", Some(false)));
    // A server with its own key cannot open it.
    let refused = retry(&three, "delete_note", args, &question, &state).await;
    assert_eq!(refused.unwrap_err(), UNVERIFIED);
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    finish(one, &revision, &log_one).await;
    finish(two, &revision, &log_two).await;
    three.cancel().await.unwrap();
}

#[tokio::test]
async fn an_unanswered_elicitation_ends_at_the_call_deadline() {
    let revision = ProtocolVersion::V_2025_11_25;
    let mut client = TestClient::new(revision.clone(), Modes::Form);
    client.stall = true;
    let (toolkit, runs) = asking_tools();
    let server = McpServer::new(toolkit).with_call_timeout(Duration::from_millis(200));
    let (running, log) = connect_pipe(server, client).await;
    let result = call(&running, "delete_note", json!({"id": 1})).await;
    assert_eq!(
        text(&result),
        ("declined/expired: Delete note 1?", Some(true))
    );
    assert_eq!(runs.load(Ordering::SeqCst), 0);
    finish(running, &revision, &log).await;
}
