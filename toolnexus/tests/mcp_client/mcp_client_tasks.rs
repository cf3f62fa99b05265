//! `McpTools` against our own server's tasks (SPEC §14): a remote long-running tool is one
//! `execute` that takes long — the client declares the extension, follows the task to its
//! result, answers a task's question with `tasks/update`, and sends `tasks/cancel` when the
//! call's deadline passes or it is cancelled; a dropped connection resumes polling.
#![cfg(all(feature = "mcp-client", feature = "mcp-http"))]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::json;
use tokio::sync::Notify;
use toolnexus::mcp::{HttpOptions, HttpServer, InMemoryTaskStore, McpServer, McpTools, TaskStore};
use toolnexus::task::TaskStatus;
use toolnexus::{Answer, Request, State, ToolContext, Toolkit, tool, tools};

use crate::common::tasks::{self, Dropped};

/// Opens when the test says so.
struct Gate(Arc<Notify>);

/// Waits for the gate.
#[tool(task = "required")]
async fn slow(gate: State<Gate>) -> String {
    gate.0.0.notified().await;
    "through the gate".to_owned()
}

struct Served {
    server: McpServer,
    store: Arc<InMemoryTaskStore>,
    gate: Arc<Notify>,
    dropped: Arc<AtomicBool>,
}

fn served() -> Served {
    let gate = Arc::new(Notify::new());
    let dropped = Arc::new(AtomicBool::new(false));
    let toolkit = Toolkit::new()
        .with_state(Gate(Arc::clone(&gate)))
        .with_state(Dropped(Arc::clone(&dropped)))
        .with_all(tools![slow, tasks::publish_report, tasks::stuck]);
    let store = Arc::new(InMemoryTaskStore::new());
    let server = McpServer::new(toolkit).with_task_store(Arc::clone(&store) as Arc<dyn TaskStore>);
    Served {
        server,
        store,
        gate,
        dropped,
    }
}

/// `server` over HTTP at `addr` until the returned switch is dropped.
async fn run(
    server: McpServer,
    addr: &str,
    stateless: bool,
) -> (String, tokio::sync::oneshot::Sender<()>) {
    let options = HttpOptions::new().stateless(stateless);
    let http = HttpServer::bind(addr, server, options).await.unwrap();
    let addr = http.local_addr().to_string();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(http.run_until(async {
        let _ = stopped.await;
    }));
    (addr, stop)
}

async fn client(addr: &str) -> Toolkit {
    let remote = McpTools::http(format!("http://{addr}/mcp"))
        .name("reports")
        .connect()
        .await
        .expect("connects");
    Toolkit::new().with_all(remote.tools())
}

/// Waits (a bounded number of turns) until `done` holds.
async fn eventually(what: &str, done: impl Fn() -> bool) {
    for _ in 0..2000 {
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("never: {what}");
}

/// The one task the store holds, once it holds one with `status`.
async fn task_in(store: &InMemoryTaskStore, status: TaskStatus) -> String {
    for _ in 0..2000 {
        let tasks = store.list(":").await.unwrap();
        if let Some(task) = tasks.iter().find(|task| task.status == status) {
            return task.id.clone();
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("no task became {status}");
}

#[tokio::test]
async fn a_remote_task_is_one_execute_that_takes_long() {
    for stateless in [false, true] {
        let Served {
            server,
            store,
            gate,
            ..
        } = served();
        let (addr, _stop) = run(server, "127.0.0.1:0", stateless).await;
        let toolkit = client(&addr).await;
        let opener = tokio::spawn(async move {
            task_in(&store, TaskStatus::Working).await;
            gate.notify_one();
        });
        let result = toolkit
            .execute("slow", json!({}), &ToolContext::default())
            .await;
        assert_eq!(result.output, "through the gate", "stateless: {stateless}");
        assert!(!result.is_error);
        opener.await.unwrap();
    }
}

#[tokio::test]
async fn a_tasks_question_is_a_suspension_answered_with_tasks_update() {
    let Served { server, .. } = served();
    let (addr, _stop) = run(server, "127.0.0.1:0", true).await;
    let toolkit = client(&addr).await;
    let approve = |request: Request| async move {
        assert_eq!(request.prompt, "Publish report q3?");
        Answer::approve(&request)
    };
    let result = toolkit
        .call("publish_report", json!({"name": "q3"}), approve)
        .await;
    assert_eq!(result.output, "published q3");
    let declined = toolkit
        .call("publish_report", json!({"name": "q4"}), |request: Request| async move {
            Answer::decline(&request, toolnexus::Reason::Declined)
        })
        .await;
    assert_eq!(declined.output, "declined/expired: Publish report q4?");
}

#[tokio::test]
async fn cancelling_or_a_deadline_sends_tasks_cancel() {
    let Served {
        server,
        store,
        dropped,
        ..
    } = served();
    let (addr, _stop) = run(server, "127.0.0.1:0", true).await;
    let toolkit = client(&addr).await;

    let ctx = ToolContext::default();
    let cancel = ctx.cancel.clone();
    let watcher = tokio::spawn({
        let store = Arc::clone(&store);
        async move {
            task_in(&store, TaskStatus::Working).await;
            // Past the create result's arrival: the call follows the task by now (a
            // cancellation before it arrives cancels the `tools/call` request instead).
            tokio::time::sleep(Duration::from_millis(100)).await;
            cancel.cancel();
        }
    });
    let result = toolkit.execute("stuck", json!({}), &ctx).await;
    assert_eq!(result.output, "tool `stuck` was cancelled");
    watcher.await.unwrap();
    let first = task_in(&store, TaskStatus::Cancelled).await;
    eventually("the tool's future is dropped", || {
        dropped.load(Ordering::SeqCst)
    })
    .await;

    dropped.store(false, Ordering::SeqCst);
    let late = ToolContext {
        timeout: Some(Duration::from_millis(200)),
        ..Default::default()
    };
    let result = toolkit.execute("stuck", json!({}), &late).await;
    assert_eq!(result.output, "tool `stuck` timed out after 200ms");
    eventually("the second task's future is dropped", || {
        dropped.load(Ordering::SeqCst)
    })
    .await;
    let tasks = store.list(":").await.unwrap();
    let second = tasks
        .iter()
        .find(|task| task.id != first)
        .expect("a second task");
    assert_eq!(second.status, TaskStatus::Cancelled);
}

#[tokio::test]
async fn polling_resumes_on_the_same_task_after_the_connection_drops() {
    let Served {
        server,
        store,
        gate,
        ..
    } = served();
    let (addr, stop) = run(server.clone(), "127.0.0.1:0", true).await;
    let toolkit = client(&addr).await;
    let call = tokio::spawn(async move {
        toolkit
            .execute("slow", json!({}), &ToolContext::default())
            .await
    });
    let id = task_in(&store, TaskStatus::Working).await;
    // The server goes away and comes back on the same address; the task ran on meanwhile.
    drop(stop);
    tokio::time::sleep(Duration::from_millis(50)).await;
    let (again, _stop) = run(server, &addr, true).await;
    assert_eq!(again, addr);
    gate.notify_one();
    let result = call.await.unwrap();
    assert_eq!(result.output, "through the gate");
    assert_eq!(
        store.get(&id).await.unwrap().unwrap().status,
        TaskStatus::Completed
    );
}
