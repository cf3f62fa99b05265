//! `TaskStore` and `InMemoryTaskStore`: bounds, the first end wins, expiry, events.

use std::sync::{Arc, Mutex};

use toolnexus::mcp::{InMemoryTaskStore, Lease, TaskEvent, TaskRecord, TaskSignal, TaskStore};
use toolnexus::serde_json::{self, json};
use toolnexus::task::TaskStatus;
use toolnexus::{Answer, Request, ToolResult};

fn now_ms() -> u64 {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap();
    u64::try_from(since.as_millis()).unwrap()
}

fn leased(id: &str, owner: &str) -> TaskRecord {
    let lease = Lease {
        holder: "server-1".into(),
        expires_at_ms: now_ms() + 60_000,
    };
    TaskRecord::new(id, owner, "report", now_ms(), 60_000, lease)
}

fn ended(mut record: TaskRecord, status: TaskStatus) -> TaskRecord {
    record.status = status;
    record.lease = None;
    record.result = Some(ToolResult::ok("done"));
    record
}

#[tokio::test]
async fn live_tasks_are_bounded_and_ended_ones_do_not_count() {
    let store = InMemoryTaskStore::new();
    assert!(store.create(&leased("a", "alice"), 2).await.unwrap());
    assert!(store.create(&leased("b", "alice"), 2).await.unwrap());
    assert!(
        !store.create(&leased("c", "alice"), 2).await.unwrap(),
        "past max_live"
    );
    assert_eq!(
        store.get("c").await.unwrap(),
        None,
        "a refused task is not kept"
    );
    assert!(
        !store.create(&leased("a", "bob"), 10).await.unwrap(),
        "an id is never reused"
    );
    assert!(
        store
            .put(&ended(leased("a", "alice"), TaskStatus::Completed))
            .await
            .unwrap()
    );
    assert!(
        store.create(&leased("c", "alice"), 2).await.unwrap(),
        "room again"
    );
    assert_eq!(store.len(), 3);
}

#[tokio::test]
async fn the_first_end_wins_and_unknown_records_are_not_created_by_put() {
    let store = InMemoryTaskStore::new();
    let task = leased("a", "alice");
    assert!(!store.put(&task).await.unwrap(), "put creates nothing");
    store.create(&task, 10).await.unwrap();
    let mut progressed = task.clone();
    progressed.status_message = Some("2 of 4".into());
    assert!(store.put(&progressed).await.unwrap());
    assert!(
        store
            .put(&ended(task.clone(), TaskStatus::Cancelled))
            .await
            .unwrap()
    );
    assert!(
        !store
            .put(&ended(task.clone(), TaskStatus::Completed))
            .await
            .unwrap()
    );
    assert_eq!(
        store.get("a").await.unwrap().unwrap().status,
        TaskStatus::Cancelled
    );
}

#[tokio::test]
async fn ended_tasks_are_forgotten_after_their_ttl_and_past_the_capacity() {
    let store = InMemoryTaskStore::with_capacity(2);
    for id in ["a", "b", "c"] {
        store.create(&leased(id, "alice"), 10).await.unwrap();
        store
            .put(&ended(leased(id, "alice"), TaskStatus::Completed))
            .await
            .unwrap();
    }
    // Three ended, room for two: the one forgotten soonest anyway goes first.
    assert_eq!(store.len(), 2);
    let mut expired = ended(leased("d", "alice"), TaskStatus::Completed);
    expired.ttl_ms = 0;
    store.create(&leased("d", "alice"), 10).await.unwrap();
    store.put(&expired).await.unwrap();
    assert_eq!(
        store.get("d").await.unwrap(),
        None,
        "kept for ttl_ms after it ended: 0"
    );
}

#[tokio::test]
async fn a_lapsed_lease_marks_a_lost_task_which_is_still_found_for_its_ttl() {
    let mut task = leased("a", "alice");
    assert!(!task.is_lost(now_ms()));
    task.lease = Some(Lease {
        holder: "gone".into(),
        expires_at_ms: now_ms() - 1,
    });
    assert!(task.is_lost(now_ms()));
    assert!(
        task.forget_at_ms() > now_ms(),
        "kept ttl_ms past the lapse, to be reported failed"
    );
    let store = InMemoryTaskStore::new();
    store.create(&task, 10).await.unwrap();
    assert!(store.get("a").await.unwrap().unwrap().is_lost(now_ms()));
    assert!(
        !ended(task, TaskStatus::Completed).is_lost(now_ms()),
        "an ended task is not lost"
    );
}

#[tokio::test]
async fn list_gives_one_owners_tasks_oldest_first() {
    let store = InMemoryTaskStore::new();
    for (id, owner, at) in [("b", "alice", 2), ("x", "bob", 1), ("a", "alice", 3)] {
        let mut task = leased(id, owner);
        task.created_at_ms = now_ms() - 1000 + at;
        store.create(&task, 10).await.unwrap();
    }
    let ids: Vec<String> = store
        .list("alice")
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.id)
        .collect();
    assert_eq!(ids, ["b", "a"]);
    assert!(store.list("carol").await.unwrap().is_empty());
}

#[tokio::test]
async fn subscribers_hear_every_change_and_signal() {
    let store = InMemoryTaskStore::new();
    let heard = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&heard);
    store.subscribe(Arc::new(move |event: &TaskEvent| {
        record.lock().unwrap().push(event.clone())
    }));
    let task = leased("a", "alice");
    store.create(&task, 10).await.unwrap();
    let done = ended(task.clone(), TaskStatus::Completed);
    store.put(&done).await.unwrap();
    store.put(&done).await.unwrap(); // refused: not told
    let answer = Answer::approve(&Request::new("approval", "Go?"));
    store
        .signal("a", TaskSignal::Answer(answer.clone()))
        .await
        .unwrap();
    store.signal("a", TaskSignal::Cancel).await.unwrap();
    assert_eq!(
        *heard.lock().unwrap(),
        [
            TaskEvent::Changed(Box::new(task)),
            TaskEvent::Changed(Box::new(done)),
            TaskEvent::Signal {
                id: "a".into(),
                signal: TaskSignal::Answer(answer)
            },
            TaskEvent::Signal {
                id: "a".into(),
                signal: TaskSignal::Cancel
            },
        ]
    );
}

#[test]
fn records_and_signals_are_plain_serialisable_data() {
    let mut task = TaskRecord::new(
        "a",
        "alice",
        "report",
        5,
        60_000,
        Lease {
            holder: "server-1".into(),
            expires_at_ms: 9,
        },
    );
    task.status_message = Some("1 of 2".into());
    let wire = serde_json::to_value(&task).unwrap();
    assert_eq!(
        wire,
        json!({"id": "a", "owner": "alice", "tool": "report", "status": "working",
               "statusMessage": "1 of 2", "createdAtMs": 5, "updatedAtMs": 5, "ttlMs": 60000,
               "lease": {"holder": "server-1", "expiresAtMs": 9}})
    );
    assert_eq!(serde_json::from_value::<TaskRecord>(wire).unwrap(), task);
    let done = ended(task, TaskStatus::Completed);
    let back: TaskRecord = serde_json::from_str(&serde_json::to_string(&done).unwrap()).unwrap();
    assert_eq!(back, done);
    for signal in [
        TaskSignal::Cancel,
        TaskSignal::Answer(Answer::approve(&Request::new("approval", "Go?"))),
    ] {
        let text = serde_json::to_string(&signal).unwrap();
        assert_eq!(serde_json::from_str::<TaskSignal>(&text).unwrap(), signal);
    }
}
