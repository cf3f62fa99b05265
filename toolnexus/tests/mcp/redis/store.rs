//! `RedisStore` as a store: the single-use record, task records, events, limits, expiry.

use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use toolnexus::mcp::{Lease, RedisStore, StateStore, TaskEvent, TaskRecord, TaskSignal, TaskStore};
use toolnexus::task::TaskStatus;
use toolnexus::{Answer, Request, ToolResult};

use super::redis_server::{prefix, shared_url, store_on, ttls};

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

fn record(id: &str, holder: &str) -> TaskRecord {
    let lease = Lease {
        holder: holder.into(),
        expires_at_ms: now_ms() + 60_000,
    };
    TaskRecord::new(id, "alice", "report", now_ms(), 60_000, lease)
}

#[tokio::test]
async fn a_state_is_used_once_across_replicas_and_its_record_expires() {
    let Some(url) = shared_url() else { return };
    let prefix = prefix();
    let (a, b) = (store_on(&url, &prefix).await, store_on(&url, &prefix).await);
    let expires = SystemTime::now() + Duration::from_secs(120);
    assert!(a.first_use("4f1c", expires).await.unwrap());
    assert!(!b.first_use("4f1c", expires).await.unwrap());
    assert!(!a.first_use("4f1c", expires).await.unwrap());
    assert!(b.first_use("9a0b", expires).await.unwrap());
    let kept = ttls(&url, &prefix);
    assert_eq!(kept.len(), 2, "{kept:?}");
    for (key, ttl) in kept {
        assert!(key.starts_with(&format!("{prefix}state:")), "{key}");
        // The state's 120 s and 60 s of clock skew.
        assert!((120_000..=180_000).contains(&ttl), "{key}: {ttl}");
    }
}

#[tokio::test]
async fn an_unreachable_redis_is_an_error_naming_the_url_without_its_password() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let error = RedisStore::connect(&format!("redis://user:secret@127.0.0.1:{port}/2"))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with(&format!(
            "Redis at redis://127.0.0.1:{port}/2 could not be reached: "
        )),
        "{error}"
    );
    assert!(!error.contains("secret"), "{error}");
    let error = RedisStore::connect("http://user:secret@nowhere/")
        .await
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with("Redis url `http://***@nowhere/` is not valid: "),
        "{error}"
    );
}

#[tokio::test]
async fn records_are_shared_bounded_per_replica_and_the_first_end_wins() {
    let Some(url) = shared_url() else { return };
    let prefix = prefix();
    let (a, b) = (store_on(&url, &prefix).await, store_on(&url, &prefix).await);
    let first = record("t1", "replica-a");
    assert!(a.create(&first, 1).await.unwrap());
    assert_eq!(b.get("t1").await.unwrap(), Some(first.clone()));
    assert!(!a.create(&first, 5).await.unwrap(), "an id is created once");
    assert!(
        !b.create(&record("t2", "replica-a"), 1).await.unwrap(),
        "replica-a already runs its one task"
    );
    assert!(b.create(&record("t3", "replica-b"), 1).await.unwrap());

    let mut completed = first.clone();
    completed.status = TaskStatus::Completed;
    completed.result = Some(ToolResult::ok("done"));
    completed.lease = None;
    assert!(a.put(&completed).await.unwrap());
    let mut cancelled = first.clone();
    cancelled.status = TaskStatus::Cancelled;
    assert!(!b.put(&cancelled).await.unwrap(), "the first end wins");
    assert_eq!(b.get("t1").await.unwrap(), Some(completed.clone()));
    assert!(!b.put(&record("never", "replica-a")).await.unwrap());
    // Its task ended, replica-a has room again.
    assert!(a.create(&record("t4", "replica-a"), 1).await.unwrap());

    let listed: Vec<String> = b
        .list("alice")
        .await
        .unwrap()
        .into_iter()
        .map(|record| record.id)
        .collect();
    assert_eq!(listed, ["t1", "t3", "t4"]);
    assert!(b.list("bob").await.unwrap().is_empty());

    let kept = ttls(&url, &prefix);
    assert!(kept.len() >= 5, "{kept:?}");
    assert!(
        kept.iter().all(|(_, ttl)| *ttl > 0),
        "every key expires: {kept:?}"
    );
}

#[tokio::test]
async fn changes_and_signals_reach_every_replica() {
    let Some(url) = shared_url() else { return };
    let prefix = prefix();
    let (a, b) = (store_on(&url, &prefix).await, store_on(&url, &prefix).await);
    let heard: Arc<Mutex<Vec<TaskEvent>>> = Arc::default();
    let into = Arc::clone(&heard);
    b.subscribe(Arc::new(move |event: &TaskEvent| {
        into.lock().unwrap().push(event.clone());
    }));
    let task = record("t1", "replica-a");
    assert!(a.create(&task, 10).await.unwrap());
    a.signal("t1", TaskSignal::Cancel).await.unwrap();
    let answer = Answer::approve(&Request::new("approval", "Deploy?").with_id("pnd-1"));
    a.signal("t1", TaskSignal::Answer(answer.clone()))
        .await
        .unwrap();
    for _ in 0..500 {
        if heard.lock().unwrap().len() >= 3 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let heard = heard.lock().unwrap().clone();
    assert_eq!(
        heard,
        [
            TaskEvent::Changed(Box::new(task)),
            TaskEvent::Signal {
                id: "t1".into(),
                signal: TaskSignal::Cancel
            },
            TaskEvent::Signal {
                id: "t1".into(),
                signal: TaskSignal::Answer(answer)
            },
        ]
    );
}

#[tokio::test]
async fn a_record_over_the_size_limit_is_refused_with_a_message_not_truncated() {
    let Some(url) = shared_url() else { return };
    let prefix = prefix();
    let store = store_on(&url, &prefix).await.with_max_record_bytes(1024);
    assert_eq!(store.max_record_bytes(), 1024);
    let task = record("big", "replica-a");
    assert!(store.create(&task, 10).await.unwrap());
    let mut done = task.clone();
    done.status = TaskStatus::Completed;
    done.result = Some(ToolResult::ok("x".repeat(4000)));
    done.lease = None;
    assert!(store.put(&done).await.unwrap());
    let kept = store.get("big").await.unwrap().unwrap();
    assert_eq!(kept.status, TaskStatus::Completed);
    let result = kept.result.unwrap();
    assert!(result.is_error);
    assert!(
        result
            .output
            .starts_with("tool `report` ended, but its task record is "),
        "{}",
        result.output
    );
    assert!(
        result
            .output
            .contains("over the 1024 bytes this server's task store keeps"),
        "{}",
        result.output
    );
}
