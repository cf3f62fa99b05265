//! Long-running tools as tasks on 2026-07-28 (SPEC §14, the `io.modelcontextprotocol/tasks`
//! extension): the per-call decision, `tasks/get`, `tasks/update`, `tasks/cancel`, the
//! caller binding, the limits and a lost lease; every message the server sends checked
//! against the revision's schema and the extension's.

use crate::common::mcp_client;
use crate::common::tasks::{self, Client, Dropped, call, get, input_key, started, until};

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::model::{
    CallToolResponse, CancelTaskParams, ErrorCode, GetTaskParams, GetTaskResult, ProtocolVersion,
    TaskPayload, TaskStatus, UpdateTaskParams,
};
use rmcp::service::ServiceError;
use serde_json::json;
use tokio::sync::Notify;
use toolnexus::mcp::{InMemoryTaskStore, LineTransport, McpServer, TaskStore};
use toolnexus::{Request, State, ToolContext, ToolResult, Toolkit, pending, tool, tools};

use mcp_client::{Log, Modes, TestClient, accept_every, check_log, connect_over};

/// Opens when the test says so.
struct Gate(Arc<Notify>);

/// Waits for the gate, reporting its step.
#[tool(task)]
async fn slow(gate: State<Gate>, ctx: &ToolContext) -> String {
    ctx.report_progress(1.0, Some(2.0), Some("waiting for the gate"));
    gate.0.0.notified().await;
    "through the gate".to_owned()
}

/// Asks to go on (and, told to, asks again once answered), then waits for the gate.
#[tool(task)]
async fn ask_then_wait(again: bool, gate: State<Gate>, ctx: &ToolContext) -> ToolResult {
    if ctx.answer.is_none() || again {
        return pending(Request::new("approval", "Go on?"));
    }
    gate.0.0.notified().await;
    ToolResult::ok("went on")
}

/// Answers at once.
#[tool(task)]
async fn quick(n: u32) -> String {
    format!("quick {n}")
}

pub(crate) fn toolkit() -> Toolkit {
    with_handles().0
}

/// The toolkit, its gate and the flag set when `stuck` is dropped.
pub(crate) fn with_handles() -> (Toolkit, Arc<Notify>, Arc<AtomicBool>) {
    let gate = Arc::new(Notify::new());
    let dropped = Arc::new(AtomicBool::new(false));
    let toolkit = Toolkit::new()
        .with_state(Gate(Arc::clone(&gate)))
        .with_state(Dropped(Arc::clone(&dropped)))
        .with_all(tools![
            slow,
            quick,
            ask_then_wait,
            plain_tool,
            tasks::publish_report,
            tasks::stuck
        ]);
    (toolkit, gate, dropped)
}

/// `server` over a stdio connection of its own, and a 2026-07-28 client on it.
pub(crate) async fn connect(server: McpServer, tasks: bool) -> (Client, Log) {
    connect_at(server, ProtocolVersion::V_2026_07_28, tasks).await
}

/// `server` over a stdio connection of its own, and a client speaking `revision` on it.
async fn connect_at(server: McpServer, revision: ProtocolVersion, tasks: bool) -> (Client, Log) {
    let (server_end, client_end) = tokio::io::duplex(64 * 1024);
    let (read, write) = tokio::io::split(server_end);
    tokio::spawn(async move {
        let running = server.serve(LineTransport::new(read, write)).await.unwrap();
        let _ = running.waiting().await;
    });
    let mut client = TestClient::new(revision, Modes::Both);
    client.tasks = tasks;
    let log = Log::default();
    let (read, write) = tokio::io::split(client_end);
    let transport = rmcp::transport::async_rw::AsyncRwTransport::new_client(read, write);
    (connect_over(client, transport, &log).await, log)
}

fn error_of(result: Result<impl std::fmt::Debug, ServiceError>) -> rmcp::ErrorData {
    match result {
        Err(ServiceError::McpError(error)) => error,
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

#[tokio::test]
async fn the_extension_is_advertised_only_by_a_server_with_a_task_tool() {
    let (client, log) = connect(McpServer::new(toolkit()), true).await;
    let info = client.peer_info().unwrap();
    assert!(info.capabilities.supports_tasks());
    let plain = Toolkit::new().with_all(tools![plain_tool]);
    let (other, _) = connect(McpServer::new(plain), true).await;
    assert!(!other.peer_info().unwrap().capabilities.supports_tasks());
    check_log(&ProtocolVersion::V_2026_07_28, &log);
}

/// Not a task.
#[tool]
async fn plain_tool() -> String {
    String::new()
}

#[tokio::test]
async fn a_call_that_ends_within_task_after_is_answered_inline() {
    let (client, log) = connect(McpServer::new(toolkit()), true).await;
    let response = client
        .call_tool_once(call("quick", json!({"n": 7})))
        .await
        .unwrap();
    let CallToolResponse::Complete(result) = response else {
        panic!("answered inline: {response:?}");
    };
    assert_eq!(
        serde_json::to_value(&result).unwrap()["content"][0]["text"],
        "quick 7"
    );
    check_log(&ProtocolVersion::V_2026_07_28, &log);
}

#[tokio::test]
async fn a_call_that_outlasts_task_after_becomes_a_task_polled_to_its_result() {
    let (toolkit, gate, _) = with_handles();
    let server = McpServer::new(toolkit).task_after(Duration::from_millis(20));
    let (client, log) = connect(server, true).await;
    let created = started(&client, "slow", json!({})).await;
    let id = created.task.task_id.clone();
    assert_eq!(id.len(), 32, "128 random bits");
    assert_eq!(created.task.status, TaskStatus::Working);
    assert_eq!(
        created.task.status_message.as_deref(),
        Some("waiting for the gate")
    );
    assert_eq!(created.task.ttl_ms, Some(3_600_000));
    // The create result is sent once `tasks/get` finds the task.
    let working = get(&client, &id).await;
    assert_eq!(working["status"], "working");
    assert_eq!(working["resultType"], "complete");
    assert_eq!(working["statusMessage"], "waiting for the gate");
    gate.notify_one();
    let done = until(&client, &id, "completed").await;
    assert_eq!(
        done["result"]["content"],
        json!([{"type": "text", "text": "through the gate"}])
    );
    assert_eq!(done["result"]["isError"], false);
    // The record written at the end keeps what the task was created with.
    assert_eq!(done["createdAt"], working["createdAt"]);
    assert_eq!(done["ttlMs"], 3_600_000);
    assert!(check_log(&ProtocolVersion::V_2026_07_28, &log) >= 4);
}

/// SEP-2663's input rounds, then a task: a question asked within `task_after` is put inline,
/// and the retry that answers it becomes the task when it outlasts `task_after`; its state
/// opens once, and a second question is the loop rule's `unresolved`.
#[tokio::test]
async fn a_question_within_task_after_is_asked_inline_and_the_answered_retry_becomes_the_task() {
    let (toolkit, gate, _) = with_handles();
    let server = McpServer::new(toolkit).task_after(Duration::from_millis(20));
    let (client, log) = connect(server, true).await;
    let client = &client;
    let answered = |again: bool| async move {
        let args = json!({ "again": again });
        let question = match client
            .call_tool_once(call("ask_then_wait", args.clone()))
            .await
        {
            Ok(CallToolResponse::InputRequired(question)) => question,
            other => panic!("asked inline, not as a task: {other:?}"),
        };
        call("ask_then_wait", args)
            .with_input_responses(accept_every(&question))
            .with_request_state(question.request_state.unwrap())
    };
    let retry = answered(false).await;
    let created = match client.call_tool_once(retry.clone()).await.unwrap() {
        CallToolResponse::Task(created) => created,
        other => panic!("the answered retry outlasts task_after: {other:?}"),
    };
    gate.notify_one();
    let done = until(client, &created.task.task_id, "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "went on");
    let text = |response: CallToolResponse| match response {
        CallToolResponse::Complete(result) => {
            let result = serde_json::to_value(result).unwrap();
            (
                result["content"][0]["text"].clone(),
                result["isError"].clone(),
            )
        }
        other => panic!("expected a result, got {other:?}"),
    };
    // Used once: a replay is refused as SPEC §10B says, `-32602`.
    match client.call_tool_once(retry).await {
        Err(ServiceError::McpError(refused)) => {
            assert_eq!(refused.code, ErrorCode::INVALID_PARAMS);
            assert_eq!(
                refused.message,
                "tool `ask_then_wait` did not run: its requestState was already used"
            );
        }
        other => panic!("a replay is refused: {other:?}"),
    }
    let asks_again = text(client.call_tool_once(answered(true).await).await.unwrap());
    assert_eq!(asks_again, (json!("unresolved: Go on?"), json!(true)));
    check_log(&ProtocolVersion::V_2026_07_28, &log);
}

#[tokio::test]
async fn a_task_stays_its_callers_through_every_change() {
    let (toolkit, gate, _) = with_handles();
    let server = McpServer::new(toolkit).task_after(Duration::from_millis(20));
    let (owner, _) = connect(server.clone(), true).await;
    let (other, log) = connect(server, true).await;
    let id = started(&owner, "slow", json!({})).await.task.task_id;
    gate.notify_one();
    until(&owner, &id, "completed").await;
    // Written again at its end, the record is still bound to the caller that started it.
    let theirs = error_of(other.get_task(GetTaskParams::new(&id)).await);
    assert_eq!(theirs.code, ErrorCode::INVALID_PARAMS);
    check_log(&ProtocolVersion::V_2026_07_28, &log);
}

#[tokio::test]
async fn a_client_without_the_extension_gets_optional_tools_inline_and_required_ones_refused() {
    let (client, log) = connect(McpServer::new(toolkit()).task_after(Duration::ZERO), false).await;
    let inline = client
        .call_tool(call("quick", json!({"n": 1})))
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&inline).unwrap()["content"][0]["text"],
        "quick 1"
    );
    let refused = error_of(
        client
            .call_tool_once(call("publish_report", json!({"name": "q3"})))
            .await,
    );
    assert_eq!(refused.code, ErrorCode(-32021));
    assert_eq!(
        refused.data.unwrap()["requiredCapabilities"]["extensions"],
        json!({"io.modelcontextprotocol/tasks": {}})
    );
    check_log(&ProtocolVersion::V_2026_07_28, &log);
}

#[tokio::test]
async fn older_revisions_get_task_tools_inline_and_required_ones_refused() {
    // A client that lists the extension anyway still gets no task: its shapes are
    // 2026-07-28's, and would be invalid in an older session.
    let older = [ProtocolVersion::V_2025_11_25, ProtocolVersion::V_2025_06_18];
    for (revision, tasks) in older
        .into_iter()
        .flat_map(|r| [(r.clone(), false), (r, true)])
    {
        let server = McpServer::new(toolkit()).task_after(Duration::ZERO);
        let (client, log) = connect_at(server, revision.clone(), tasks).await;
        let inline = client
            .call_tool(call("quick", json!({"n": 2})))
            .await
            .unwrap();
        assert_eq!(
            serde_json::to_value(&inline).unwrap()["content"][0]["text"],
            "quick 2"
        );
        let refused = error_of(
            client
                .call_tool_once(call("publish_report", json!({"name": "q3"})))
                .await,
        );
        // 2025-11-25 has its own tasks, asked for with `task`, and its own error.
        let (code, message) = if revision == ProtocolVersion::V_2025_11_25 {
            (
                -32601,
                "tool `publish_report` runs only as a task: call it with `task` (2025-11-25's tasks)",
            )
        } else {
            (
                -32021,
                "tool `publish_report` runs only as a task: the client must declare the 2026-07-28 extension `io.modelcontextprotocol/tasks`",
            )
        };
        assert_eq!(
            (refused.code, refused.message.as_ref()),
            (ErrorCode(code), message)
        );
        check_log(&revision, &log);
    }
}

#[tokio::test]
async fn a_suspension_makes_the_task_input_required_and_tasks_update_answers_it_once() {
    let (client, log) = connect(McpServer::new(toolkit()), true).await;
    let created = started(&client, "publish_report", json!({"name": "q3"})).await;
    let id = created.task.task_id;
    let asking = until(&client, &id, "input_required").await;
    let requests = asking["inputRequests"].as_object().unwrap();
    assert_eq!(requests.len(), 1);
    let (key, request) = requests.iter().next().unwrap();
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(request["params"]["message"], "Publish report q3?");
    let accept = json!({"action": "accept", "content": {}});
    let responses = [(key.clone(), accept.clone())].into();
    client
        .update_task(UpdateTaskParams::new(&id, responses))
        .await
        .unwrap();
    let done = until(&client, &id, "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "published q3");
    // Used once: the task no longer asks.
    let again = error_of(
        client
            .update_task(UpdateTaskParams::new(&id, [(key.clone(), accept)].into()))
            .await,
    );
    assert_eq!(again.code, ErrorCode::INVALID_PARAMS);
    assert!(
        again.message.contains("not waiting for input"),
        "{}",
        again.message
    );
    check_log(&ProtocolVersion::V_2026_07_28, &log);
}

#[tokio::test]
async fn a_declined_or_malformed_answer_never_runs_the_tool() {
    let (client, log) = connect(McpServer::new(toolkit()), true).await;
    let id = started(&client, "publish_report", json!({"name": "q4"}))
        .await
        .task
        .task_id;
    let asking = until(&client, &id, "input_required").await;
    let key = input_key(&asking);
    let malformed = error_of(
        client
            .update_task(UpdateTaskParams::new(
                &id,
                [(key.clone(), json!({"action": 3}))].into(),
            ))
            .await,
    );
    assert_eq!(malformed.code, ErrorCode::INVALID_PARAMS);
    // A key that is not outstanding is ignored, as the extension says.
    let stray = [("pnd-nope".to_owned(), json!({"action": "accept"}))].into();
    client
        .update_task(UpdateTaskParams::new(&id, stray))
        .await
        .unwrap();
    assert_eq!(get(&client, &id).await["status"], "input_required");
    let decline = [(key, json!({"action": "decline"}))].into();
    client
        .update_task(UpdateTaskParams::new(&id, decline))
        .await
        .unwrap();
    let done = until(&client, &id, "completed").await;
    assert_eq!(done["result"]["isError"], true);
    assert_eq!(
        done["result"]["content"][0]["text"],
        "declined/expired: Publish report q4?"
    );
    check_log(&ProtocolVersion::V_2026_07_28, &log);
}

#[tokio::test]
async fn tasks_cancel_drops_the_tools_future() {
    let (toolkit, _, dropped) = with_handles();
    let (client, log) = connect(McpServer::new(toolkit), true).await;
    let id = started(&client, "stuck", json!({})).await.task.task_id;
    client
        .cancel_task(CancelTaskParams::new(&id))
        .await
        .unwrap();
    let cancelled = until(&client, &id, "cancelled").await;
    assert!(cancelled.get("result").is_none());
    assert!(dropped.load(Ordering::SeqCst));
    // Cancelling an ended task changes nothing.
    client
        .cancel_task(CancelTaskParams::new(&id))
        .await
        .unwrap();
    assert_eq!(get(&client, &id).await["status"], "cancelled");
    check_log(&ProtocolVersion::V_2026_07_28, &log);
}

#[tokio::test]
async fn another_caller_gets_what_an_unknown_id_gets() {
    let server = McpServer::new(toolkit());
    let (owner, _) = connect(server.clone(), true).await;
    let (other, log) = connect(server, true).await;
    let id = started(&owner, "stuck", json!({})).await.task.task_id;
    let theirs = error_of(other.get_task(GetTaskParams::new(&id)).await);
    let never = error_of(other.get_task(GetTaskParams::new("0".repeat(32))).await);
    assert_eq!(theirs.code, ErrorCode::INVALID_PARAMS);
    assert_eq!(
        theirs.message.replace(&id, "ID"),
        never.message.replace(&"0".repeat(32), "ID")
    );
    let cancel = error_of(other.cancel_task(CancelTaskParams::new(&id)).await);
    assert_eq!(cancel.code, ErrorCode::INVALID_PARAMS);
    assert_eq!(
        get(&owner, &id).await["status"],
        "working",
        "untouched by the other caller"
    );
    check_log(&ProtocolVersion::V_2026_07_28, &log);
}

#[tokio::test]
async fn past_max_tasks_a_required_task_is_refused_and_does_not_run() {
    let (client, log) = connect(McpServer::new(toolkit()).max_tasks(1), true).await;
    started(&client, "stuck", json!({})).await;
    let response = client
        .call_tool_once(call("publish_report", json!({"name": "q3"})))
        .await
        .unwrap();
    let CallToolResponse::Complete(refused) = response else {
        panic!("refused inline: {response:?}");
    };
    let refused = serde_json::to_value(refused).unwrap();
    assert_eq!(refused["isError"], true);
    assert_eq!(
        refused["content"][0]["text"],
        "tool `publish_report` did not run: this server already runs its limit of 1 tasks; try again once one has ended"
    );
    check_log(&ProtocolVersion::V_2026_07_28, &log);
}

#[tokio::test]
async fn past_max_tasks_a_call_that_may_be_a_task_goes_on_inline() {
    let (toolkit, gate, _) = with_handles();
    let server = McpServer::new(toolkit)
        .max_tasks(1)
        .task_after(Duration::from_millis(20));
    let (client, log) = connect(server, true).await;
    started(&client, "stuck", json!({})).await;
    // `slow` outlasts `task_after`, finds no room for a task, and is answered inline once
    // the gate opens.
    let opener = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        gate.notify_one();
    });
    let response = client
        .call_tool_once(call("slow", json!({})))
        .await
        .unwrap();
    let CallToolResponse::Complete(result) = response else {
        panic!("answered inline: {response:?}");
    };
    assert_eq!(
        serde_json::to_value(result).unwrap()["content"][0]["text"],
        "through the gate"
    );
    opener.await.unwrap();
    check_log(&ProtocolVersion::V_2026_07_28, &log);
}

#[tokio::test]
async fn a_task_whose_server_went_away_is_reported_failed() {
    let store = Arc::new(InMemoryTaskStore::new());
    let server =
        McpServer::new(toolkit()).with_task_store(Arc::clone(&store) as Arc<dyn TaskStore>);
    let (client, log) = connect(server, true).await;
    let id = started(&client, "stuck", json!({})).await.task.task_id;
    // As the store sees a replica that stopped renewing: its lease lapsed.
    let mut record = store.get(&id).await.unwrap().unwrap();
    record.lease.as_mut().unwrap().expires_at_ms = 1;
    assert!(store.put(&record).await.unwrap());
    let failed = get(&client, &id).await;
    assert_eq!(failed["status"], "failed");
    assert_eq!(
        failed["error"]["message"],
        "tool `stuck` stopped: the server running it went away"
    );
    let TaskPayload::Failed { .. } = serde_json::from_value::<GetTaskResult>(failed)
        .unwrap()
        .task
        .payload
    else {
        panic!("a failed payload");
    };
    check_log(&ProtocolVersion::V_2026_07_28, &log);
}
