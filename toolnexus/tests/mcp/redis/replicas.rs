//! Two stateless HTTP replicas in one process sharing one Redis: an approved retry runs once
//! across both, either answers `tasks/*` for a task the other runs, and a task whose replica
//! went away ends `failed` once its lease lapses.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, CallToolResponse, CancelTaskParams, ProtocolVersion};
use serde_json::{Value, json};
use tokio::runtime::Runtime;
use toolnexus::mcp::{HttpOptions, McpServer};
use toolnexus::{State, Toolkit, tool, tools};

use super::redis_server::{prefix, shared_url, store_on};
use crate::common::mcp_client::{
    Modes, TestClient, accept_every, check_log, connect_http, valid_as_task_shape,
};
use crate::common::mcp_raw::{self, Events, Running, post_2026};
use crate::common::tasks::{self, Client, Dropped, accept_input, call, get, started, until};

pub const KEY: &str = "the key every replica is given, 32 bytes or more";

/// Counts the runs of `delete_note`, on any replica.
pub struct Runs(pub Arc<AtomicUsize>);

/// Deletes a note.
#[tool(approval = "Delete note {id}?")]
async fn delete_note(id: u32, runs: State<Runs>) -> String {
    runs.0.0.fetch_add(1, Ordering::SeqCst);
    format!("deleted note {id}")
}

pub fn toolkit(runs: &Arc<AtomicUsize>, dropped: &Arc<AtomicBool>) -> Toolkit {
    Toolkit::new()
        .with_state(Runs(Arc::clone(runs)))
        .with_state(Dropped(Arc::clone(dropped)))
        .with_all(tools![delete_note, tasks::publish_report, tasks::stuck])
}

/// `server` with both stores on the Redis at `url` under `prefix`, stateless on a loopback port.
pub async fn replica(server: McpServer, url: &str, prefix: &str) -> Running {
    let store = Arc::new(store_on(url, prefix).await);
    let server = server
        .with_state_key(KEY)
        .unwrap()
        .with_state_store(store.clone())
        .with_task_store(store)
        .task_after(Duration::from_millis(20));
    mcp_raw::serve(server, HttpOptions::new().stateless(true)).await
}

pub async fn client_of(running: &Running) -> Client {
    let mut client = TestClient::new(ProtocolVersion::V_2026_07_28, Modes::Form);
    client.tasks = true;
    let (client, log) = connect_http(&running.url(), client).await;
    check_log(&ProtocolVersion::V_2026_07_28, &log);
    client
}

/// What a task whose replica went away is told, as `notifications/tasks` and `tasks/get` say it.
pub const LOST: &str = "tool `stuck` stopped: the server running it went away";

/// A lease short enough for a test to wait out.
pub const SHORT_LEASE: Duration = Duration::from_millis(300);

/// A runtime of one worker: one per replica in the tests that stop a replica.
pub fn one_worker() -> Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap()
}

/// Replica `a`, on a runtime of its own and with a short lease, so that [`kill`] can stop it
/// mid-task as a killed process would be stopped.
pub fn doomed(runtime: &Runtime, toolkit: Toolkit, url: &str, prefix: &str) -> Running {
    let server = McpServer::new(toolkit).task_lease(SHORT_LEASE);
    runtime.block_on(replica(server, url, prefix))
}

/// Everything replica `a` runs stops here: its server, its store, its lease renewals.
pub fn kill(runtime: Runtime, a: Running) {
    runtime.shutdown_background();
    drop(a);
}

/// A `subscriptions/listen` on `url` for task `id`, once acknowledged with that id.
pub async fn listen(url: &str, id: &str) -> Events {
    let filter = json!({"notifications": {"taskIds": [id]}});
    let mut events = Events::of(post_2026(url, 1, "subscriptions/listen", filter).await);
    let acknowledged = events.next().await;
    assert_eq!(
        acknowledged["params"]["notifications"]["taskIds"],
        json!([id])
    );
    events
}

/// Asks `client` to call `name`, and builds the approved retry of the question it gets.
pub async fn approved_retry(
    client: &Client,
    name: &str,
    arguments: Value,
) -> CallToolRequestParams {
    let asked = client
        .call_tool_once(call(name, arguments.clone()))
        .await
        .unwrap();
    let CallToolResponse::InputRequired(question) = asked else {
        panic!("expected input_required, got {asked:?}");
    };
    let responses = accept_every(&question);
    call(name, arguments)
        .with_input_responses(responses)
        .with_request_state(question.request_state.clone().unwrap())
}

/// The text of a completed call, and whether it is an error.
pub async fn text_of(client: &Client, call: CallToolRequestParams) -> (String, bool) {
    match client.call_tool_once(call).await.unwrap() {
        CallToolResponse::Complete(done) => (
            done.content[0].as_text().unwrap().text.clone(),
            done.is_error == Some(true),
        ),
        other => panic!("expected a result, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replayed_approval_runs_once_across_replicas() {
    let Some(url) = shared_url() else { return };
    let prefix = prefix();
    let (runs, dropped) = (Arc::default(), Arc::default());
    let a = replica(McpServer::new(toolkit(&runs, &dropped)), &url, &prefix).await;
    let b = replica(McpServer::new(toolkit(&runs, &dropped)), &url, &prefix).await;
    let (client_a, client_b) = (client_of(&a).await, client_of(&b).await);
    let retry = approved_retry(&client_a, "delete_note", json!({"id": 7})).await;
    assert_eq!(
        text_of(&client_b, retry.clone()).await,
        ("deleted note 7".to_owned(), false)
    );
    for client in [&client_a, &client_b, &client_a] {
        match client.call_tool_once(retry.clone()).await {
            Err(rmcp::service::ServiceError::McpError(refused)) => {
                assert_eq!(refused.code, rmcp::model::ErrorCode::INVALID_PARAMS);
                assert_eq!(
                    refused.message,
                    "tool `delete_note` did not run: its requestState was already used"
                );
            }
            other => panic!("a replay is refused with -32602: {other:?}"),
        }
    }
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_started_on_one_replica_is_answered_and_cancelled_by_the_other() {
    let Some(url) = shared_url() else { return };
    let prefix = prefix();
    let (runs, dropped) = (Arc::default(), Arc::<AtomicBool>::default());
    let a = replica(McpServer::new(toolkit(&runs, &dropped)), &url, &prefix).await;
    let b = replica(McpServer::new(toolkit(&runs, &dropped)), &url, &prefix).await;
    let (client_a, client_b) = (client_of(&a).await, client_of(&b).await);

    let id = started(&client_a, "publish_report", json!({"name": "q3"}))
        .await
        .task
        .task_id;
    let asking = until(&client_b, &id, "input_required").await;
    accept_input(&client_b, &id, &asking).await;
    let done = until(&client_a, &id, "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "published q3");
    assert_eq!(get(&client_b, &id).await, done);

    let stuck = started(&client_a, "stuck", json!({})).await.task.task_id;
    assert_eq!(get(&client_b, &stuck).await["status"], "working");
    client_b
        .cancel_task(CancelTaskParams::new(&stuck))
        .await
        .unwrap();
    until(&client_a, &stuck, "cancelled").await;
    assert!(
        dropped.load(Ordering::SeqCst),
        "the tool's future was dropped on replica a"
    );
}

/// A `subscriptions/listen` on one replica hears of a task the other runs: the store's
/// changes reach every replica.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listen_on_one_replica_hears_of_a_task_the_other_runs() {
    let Some(url) = shared_url() else { return };
    let prefix = prefix();
    let (runs, dropped) = (Arc::default(), Arc::<AtomicBool>::default());
    let a = replica(McpServer::new(toolkit(&runs, &dropped)), &url, &prefix).await;
    let b = replica(McpServer::new(toolkit(&runs, &dropped)), &url, &prefix).await;
    let client_a = client_of(&a).await;
    let id = started(&client_a, "publish_report", json!({"name": "q5"}))
        .await
        .task
        .task_id;
    let mut events = listen(&b.url(), &id).await;
    let mut statuses = Vec::new();
    while statuses.last() != Some(&json!("completed")) {
        let told = events.next().await;
        assert_eq!(told["method"], "notifications/tasks", "{told}");
        let status = told["params"]["status"].clone();
        if status == "input_required" {
            accept_input(&client_a, &id, &told["params"]).await;
        }
        if statuses.last() != Some(&status) {
            statuses.push(status);
        }
    }
    assert_eq!(statuses.last(), Some(&json!("completed")));
    assert!(statuses.contains(&json!("input_required")), "{statuses:?}");
}

/// Replica `a` runs on a runtime of its own, shut down mid-task as a killed process would be.
#[test]
fn a_task_whose_replica_went_away_ends_failed_on_the_other_within_the_lease() {
    let Some(url) = shared_url() else { return };
    let prefix = prefix();
    let (runs, dropped) = (Arc::default(), Arc::default());
    let (runtime_a, runtime_b) = (one_worker(), one_worker());
    let a = doomed(&runtime_a, toolkit(&runs, &dropped), &url, &prefix);
    runtime_b.block_on(async {
        let b = replica(McpServer::new(toolkit(&runs, &dropped)), &url, &prefix).await;
        let (client_a, client_b) = (client_of(&a).await, client_of(&b).await);
        let id = started(&client_a, "stuck", json!({})).await.task.task_id;
        assert_eq!(get(&client_b, &id).await["status"], "working");
        drop(client_a);
        kill(runtime_a, a);
        let failed = until(&client_b, &id, "failed").await;
        assert_eq!(failed["error"]["message"], LOST);
    });
}

/// The same, heard on a `subscriptions/listen` of the other replica while nobody polls: the
/// stream itself notices the lease lapse. A task named by a listen begun only after its
/// replica went away is told `failed` at once, never `working`.
#[test]
fn a_listen_on_the_other_replica_is_told_failed_when_the_task_s_replica_goes_away() {
    let Some(url) = shared_url() else { return };
    let prefix = prefix();
    let (runs, dropped) = (Arc::default(), Arc::default());
    let (runtime_a, runtime_b) = (one_worker(), one_worker());
    let a = doomed(&runtime_a, toolkit(&runs, &dropped), &url, &prefix);
    runtime_b.block_on(async {
        let b = replica(McpServer::new(toolkit(&runs, &dropped)), &url, &prefix).await;
        let client_a = client_of(&a).await;
        let listened = started(&client_a, "stuck", json!({})).await.task.task_id;
        let unheard = started(&client_a, "stuck", json!({})).await.task.task_id;
        let mut events = listen(&b.url(), &listened).await;
        assert_eq!(events.next().await["params"]["status"], "working");
        drop(client_a);
        kill(runtime_a, a);
        let lost = json!({"code": -32603, "message": LOST});
        let told = tokio::time::timeout(SHORT_LEASE * 10, events.next())
            .await
            .expect("told within the lease, with nobody polling");
        assert_eq!(told["method"], "notifications/tasks");
        valid_as_task_shape("TaskStatusNotification", &told).unwrap();
        assert_eq!(told["params"]["taskId"], json!(listened));
        assert_eq!(told["params"]["status"], "failed");
        assert_eq!(told["params"]["error"], lost);

        tokio::time::sleep(SHORT_LEASE).await;
        let told = listen(&b.url(), &unheard).await.next().await;
        valid_as_task_shape("TaskStatusNotification", &told).unwrap();
        assert_eq!(told["params"]["status"], "failed", "{told}");
        assert_eq!(told["params"]["error"], lost);
    });
}
