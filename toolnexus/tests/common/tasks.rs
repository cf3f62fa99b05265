//! What the tests of tasks (SPEC §14) share across binaries: a task that asks for approval, one
//! that never ends, and a 2026-07-28 client's `tasks/*` calls and polling.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CreateTaskResult, GetTaskParams, GetTaskResult,
    UpdateTaskParams,
};
use rmcp::service::{RoleClient, RunningService};
use serde_json::{Value, json};
use toolnexus::{State, tool};

use super::mcp_client::TestClient;

/// The test client, connected.
pub type Client = RunningService<RoleClient, TestClient>;

/// Set when [`stuck`]'s future is dropped.
pub struct Dropped(pub Arc<AtomicBool>);

struct OnDrop(Arc<AtomicBool>);

impl Drop for OnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// Publishes a report.
#[tool(task = "required", approval = "Publish report {name}?")]
pub async fn publish_report(name: String) -> String {
    format!("published {name}")
}

/// Never ends.
#[tool(task = "required")]
pub async fn stuck(dropped: State<Dropped>) -> String {
    let _guard = OnDrop(Arc::clone(&dropped.0.0));
    std::future::pending::<String>().await
}

/// The `_meta` every request of a 2026-07-28 client that declared the tasks extension carries.
pub fn client_meta_2026() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities":
            {"extensions": {"io.modelcontextprotocol/tasks": {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
    })
}

/// The `tools/call` params calling `name` with `arguments` (an object).
pub fn call(name: &str, arguments: Value) -> CallToolRequestParams {
    CallToolRequestParams::new(name.to_owned())
        .with_arguments(arguments.as_object().unwrap().clone())
}

/// Calls `name` and expects a task to be created for it.
pub async fn started(client: &Client, name: &str, arguments: Value) -> CreateTaskResult {
    match client.call_tool_once(call(name, arguments)).await.unwrap() {
        CallToolResponse::Task(created) => created,
        other => panic!("expected a task, got {other:?}"),
    }
}

/// `tasks/get` of `id`, as JSON.
pub async fn get(client: &Client, id: &str) -> Value {
    let task: GetTaskResult = client.get_task(GetTaskParams::new(id)).await.unwrap();
    serde_json::to_value(task).unwrap()
}

/// Polls until the task's status is `status` (a bounded number of polls, not a deadline).
pub async fn until(client: &Client, id: &str, status: &str) -> Value {
    for _ in 0..2000 {
        let task = get(client, id).await;
        if task["status"] == status {
            return task;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("task {id} never became {status}: {}", get(client, id).await);
}

/// The key of the one request an `input_required` task (`asking`, from `tasks/get`) waits on.
pub fn input_key(asking: &Value) -> String {
    let requests = asking["inputRequests"].as_object().unwrap();
    assert_eq!(requests.len(), 1, "{asking}");
    requests.keys().next().unwrap().clone()
}

/// Accepts, with `tasks/update`, the one request the `input_required` task `id` waits on.
pub async fn accept_input(client: &Client, id: &str, asking: &Value) {
    let accept = [(
        input_key(asking),
        json!({"action": "accept", "content": {}}),
    )]
    .into();
    client
        .update_task(UpdateTaskParams::new(id, accept))
        .await
        .unwrap();
}
