//! Redis stopped mid-run and started again, on a `redis-server` of the test's own: nothing
//! runs that cannot be recorded, nothing written is lost, and no restart is needed.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use std::time::{Duration, SystemTime};

use serde_json::json;
use tokio::sync::Semaphore;
use toolnexus::mcp::{
    HttpOptions, McpServer, RedisStore, StateStore, TaskListener, TaskRecord, TaskSignal,
    TaskStore, TaskStoreError,
};
use toolnexus::{BoxFuture, State, ToolContext, Toolkit, tool, tools};

use super::redis_server::{OwnRedis, prefix, shared_url, store_on};
use super::replicas::{
    LOST, SHORT_LEASE, approved_retry, client_of, doomed, kill, listen, one_worker, replica,
    text_of, toolkit,
};
use crate::common::mcp_raw;
use crate::common::tasks::{get, started, until};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_stopped_refuses_an_approved_retry_and_redis_back_lets_the_next_one_run() {
    if shared_url().is_none() {
        return;
    }
    let mut redis = OwnRedis::start();
    let runs = Arc::new(AtomicUsize::new(0));
    let server = McpServer::new(toolkit(&runs, &Arc::default()));
    let running = replica(server, &redis.url(), &prefix()).await;
    let client = client_of(&running).await;

    let retry = approved_retry(&client, "delete_note", json!({"id": 1})).await;
    redis.stop();
    let (refused, is_error) = text_of(&client, retry.clone()).await;
    assert!(is_error);
    let start = format!(
        "tool `delete_note` did not run: its requestState could not be recorded as used: \
         Redis at redis://{}/0 did not answer (",
        redis
            .url()
            .trim_start_matches("redis://")
            .trim_end_matches('/')
    );
    assert!(refused.starts_with(&start), "{refused}");
    assert!(refused.ends_with("); nothing ran"), "{refused}");
    assert_eq!(runs.load(Ordering::SeqCst), 0, "nothing ran");

    redis.start_again();
    // The same server, no restart: the connection manager has reconnected.
    let next = approved_retry(&client, "delete_note", json!({"id": 2})).await;
    assert_eq!(
        text_of(&client, next).await,
        ("deleted note 2".to_owned(), false)
    );
    // The refused retry was not used up, and now runs once.
    assert_eq!(
        text_of(&client, retry.clone()).await,
        ("deleted note 1".to_owned(), false)
    );
    // Then it is used: a replay is refused, `-32602` (SPEC §10B).
    match client.call_tool_once(retry).await {
        Err(rmcp::service::ServiceError::McpError(refused)) => {
            assert_eq!(refused.code, rmcp::model::ErrorCode::INVALID_PARAMS);
            assert!(refused.message.ends_with("was already used"), "{refused:?}");
        }
        other => panic!("a replay is refused: {other:?}"),
    }
    assert_eq!(runs.load(Ordering::SeqCst), 2);
}

/// Once the connection manager has given up reconnecting (Redis down longer than its retries),
/// the first call after Redis is back succeeds: it is not answered with the failed
/// reconnection's error.
#[tokio::test]
async fn after_a_long_outage_the_first_call_once_redis_is_back_succeeds() {
    if shared_url().is_none() {
        return;
    }
    let mut redis = OwnRedis::start();
    let store = store_on(&redis.url(), &prefix()).await;
    let later = SystemTime::now() + Duration::from_secs(60);
    assert!(store.first_use("before", later).await.unwrap());
    redis.stop();
    let mut refused = false;
    for _ in 0..50 {
        let error = store
            .first_use("during", later)
            .await
            .unwrap_err()
            .to_string();
        if error.contains("Connection refused") {
            refused = true;
            break;
        }
    }
    assert!(refused, "the reconnection is refused while Redis is down");
    // Longer than the manager's whole reconnection budget (two retries, 500 ms at most):
    // it has given up by then.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    redis.start_again();
    assert!(store.first_use("after", later).await.unwrap());
    assert!(
        store.first_use("during", later).await.unwrap(),
        "nothing was recorded then"
    );
}

/// Opens when the test says so.
struct Gate(Arc<Semaphore>);

/// The store, counting the writes it failed (each one reported to the server as `Err`).
struct Counting {
    store: RedisStore,
    failed: Arc<AtomicUsize>,
}

impl TaskStore for Counting {
    fn create<'a>(
        &'a self,
        record: &'a TaskRecord,
        max_live: usize,
    ) -> BoxFuture<'a, Result<bool, TaskStoreError>> {
        self.store.create(record, max_live)
    }

    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        self.store.get(id)
    }

    fn put<'a>(&'a self, record: &'a TaskRecord) -> BoxFuture<'a, Result<bool, TaskStoreError>> {
        Box::pin(async move {
            let written = self.store.put(record).await;
            if written.is_err() {
                self.failed.fetch_add(1, Ordering::SeqCst);
            }
            written
        })
    }

    fn list<'a>(
        &'a self,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<Vec<TaskRecord>, TaskStoreError>> {
        self.store.list(owner)
    }

    fn signal<'a>(
        &'a self,
        id: &'a str,
        signal: TaskSignal,
    ) -> BoxFuture<'a, Result<(), TaskStoreError>> {
        self.store.signal(id, signal)
    }

    fn subscribe(&self, listener: TaskListener) {
        self.store.subscribe(listener);
    }
}

/// Ends when the gate opens.
#[tool(task = "required")]
async fn slow(gate: State<Gate>) -> String {
    gate.0.0.acquire().await.unwrap().forget();
    "through the gate".to_owned()
}

/// Reports progress when the gate opens, then never ends.
#[tool(task = "required")]
async fn progressing(gate: State<Gate>, ctx: &ToolContext) -> String {
    gate.0.0.acquire().await.unwrap().forget();
    ctx.report_progress(1.0, Some(2.0), Some("half way"));
    std::future::pending::<String>().await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_change_whose_write_fails_is_written_once_redis_is_back() {
    if shared_url().is_none() {
        return;
    }
    let mut redis = OwnRedis::start();
    let gate = Arc::new(Semaphore::new(0));
    let toolkit = Toolkit::new()
        .with_state(Gate(Arc::clone(&gate)))
        .with_all(tools![slow, progressing]);
    let failed = Arc::new(AtomicUsize::new(0));
    let store = Counting {
        store: store_on(&redis.url(), &prefix()).await,
        failed: Arc::clone(&failed),
    };
    let server = McpServer::new(toolkit)
        .with_task_store(Arc::new(store))
        .task_after(Duration::from_millis(20));
    let running = mcp_raw::serve(server, HttpOptions::new().stateless(true)).await;
    let client = client_of(&running).await;
    let done = started(&client, "slow", json!({})).await.task.task_id;
    let stopped = started(&client, "progressing", json!({}))
        .await
        .task
        .task_id;
    assert_eq!(get(&client, &done).await["status"], "working");
    assert_eq!(get(&client, &stopped).await["status"], "working");

    redis.stop();
    // Both tools go on while Redis is down: one ends, the other reports progress.
    gate.add_permits(2);
    for _ in 0..2000 {
        if failed.load(Ordering::SeqCst) == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(
        failed.load(Ordering::SeqCst),
        2,
        "both writes were tried and failed"
    );
    redis.start_again();

    // The result is kept as it ended, not lost.
    let completed = until(&client, &done, "completed").await;
    assert_eq!(
        completed["result"]["content"][0]["text"],
        "through the gate"
    );
    // A change that could not be written stops the task, and says why.
    let failed = until(&client, &stopped, "failed").await;
    let message = failed["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with(
            "tool `progressing` stopped: its task record could not be written (Redis at "
        ),
        "{message}"
    );
}

/// A `subscriptions/listen` on one replica, the replica running its task gone, and Redis down
/// when the lease lapses: the stream stays open, asks again, and tells `failed` once Redis is
/// back, so the client is not left hearing `working` for ever.
#[test]
fn a_listen_whose_task_is_lost_while_redis_is_down_is_told_failed_once_it_is_back() {
    if shared_url().is_none() {
        return;
    }
    let mut redis = OwnRedis::start();
    let prefix = prefix();
    let (runs, dropped) = (Arc::default(), Arc::default());
    let (runtime_a, runtime_b) = (one_worker(), one_worker());
    let a = doomed(&runtime_a, toolkit(&runs, &dropped), &redis.url(), &prefix);
    runtime_b.block_on(async {
        let b = replica(
            McpServer::new(toolkit(&runs, &dropped)),
            &redis.url(),
            &prefix,
        )
        .await;
        let client_a = client_of(&a).await;
        let id = started(&client_a, "stuck", json!({})).await.task.task_id;
        let mut events = listen(&b.url(), &id).await;
        assert_eq!(events.next().await["params"]["status"], "working");
        drop(client_a);
        kill(runtime_a, a);
        redis.stop();
        // The lease lapses while nobody can write it `failed`.
        tokio::time::sleep(SHORT_LEASE * 3).await;
        redis.start_again();
        let told = tokio::time::timeout(Duration::from_secs(10), events.next())
            .await
            .expect("told once Redis is back");
        assert_eq!(told["params"]["taskId"], json!(id));
        assert_eq!(told["params"]["status"], "failed", "{told}");
        assert_eq!(told["params"]["error"]["message"], LOST);
    });
}
