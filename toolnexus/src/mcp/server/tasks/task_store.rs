//! Where the server keeps its tasks (SPEC §14): the [`TaskStore`] trait, the record it holds,
//! and [`InMemoryTaskStore`], the default.

use std::collections::{BTreeSet, HashMap};
use std::error::Error;
use std::sync::{Arc, Mutex, PoisonError};

use serde::{Deserialize, Serialize};

use super::clock::now_ms;
use crate::result::ToolResult;
use crate::result::suspend::{Answer, Request};
use crate::tool::future::BoxFuture;
use crate::toolkit::spawn::TaskStatus;

/// Why a [`TaskStore`] could not do what it was asked (a shared store out of reach, say).
/// The client gets a JSON-RPC error quoting it, so it should say nothing secret.
pub type TaskStoreError = Box<dyn Error + Send + Sync>;

/// One task as a [`TaskStore`] keeps it: plain data, serialisable (camelCase keys), so a
/// shared store can write it anywhere.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskRecord {
    /// The task id: 128 random bits as 32 hex digits.
    pub id: String,
    /// Who may see it: an opaque key of the caller that started it (a digest of the verified
    /// identity, else of the session or stdio connection). Any other caller is answered as
    /// for an id that never existed.
    pub owner: String,
    /// The tool it runs.
    pub tool: String,
    /// Its status.
    pub status: TaskStatus,
    /// The last progress message (MCP `statusMessage`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// The tool's result, once `completed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<ToolResult>,
    /// Why it failed, once `failed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The question it waits on, while `input_required`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<Request>,
    /// When it was created, in milliseconds since the Unix epoch.
    pub created_at_ms: u64,
    /// When it last changed, in milliseconds since the Unix epoch.
    pub updated_at_ms: u64,
    /// How long it is kept once it has ended, in milliseconds (MCP `ttlMs`).
    pub ttl_ms: u64,
    /// Who runs it and until when, while it runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lease: Option<Lease>,
}

/// The claim of the server running a task: renewed while it runs. A task still running whose
/// lease has expired lost its server, and the next server to read it reports it `failed`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Lease {
    /// An id of the server process holding it.
    pub holder: String,
    /// When it lapses unless renewed, in milliseconds since the Unix epoch.
    pub expires_at_ms: u64,
}

impl TaskRecord {
    /// A `working` task of `tool` for `owner`, created at `now_ms`, kept `ttl_ms` once it has
    /// ended, leased to `lease`.
    pub fn new(
        id: impl Into<String>,
        owner: impl Into<String>,
        tool: impl Into<String>,
        now_ms: u64,
        ttl_ms: u64,
        lease: Lease,
    ) -> Self {
        Self {
            id: id.into(),
            owner: owner.into(),
            tool: tool.into(),
            status: TaskStatus::Working,
            status_message: None,
            result: None,
            error: None,
            request: None,
            created_at_ms: now_ms,
            updated_at_ms: now_ms,
            ttl_ms,
            lease: Some(lease),
        }
    }

    /// When a store may forget it, in milliseconds since the Unix epoch: `ttl_ms` after it
    /// ended, or after its lease lapses while it has not (so a lost task is still found, and
    /// reported `failed`, for `ttl_ms`). A shared store sets this as the key's expiry.
    pub fn forget_at_ms(&self) -> u64 {
        let from = match (&self.lease, self.status.is_terminal()) {
            (Some(lease), false) => lease.expires_at_ms.max(self.updated_at_ms),
            _ => self.updated_at_ms,
        };
        from.saturating_add(self.ttl_ms)
    }

    /// Whether it has not ended but no live server holds it any more (its lease lapsed).
    pub fn is_lost(&self, now_ms: u64) -> bool {
        !self.status.is_terminal()
            && self
                .lease
                .as_ref()
                .is_none_or(|lease| lease.expires_at_ms <= now_ms)
    }
}

/// What a server asks of the one running a task: stop, or go on with this answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "signal", content = "answer")]
pub enum TaskSignal {
    /// `tasks/cancel`.
    Cancel,
    /// `tasks/update`: the answer to the task's question, already checked against it.
    Answer(Answer),
}

/// What a [`TaskStore`] tells its listeners: a record changed, or a signal was sent to a task.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum TaskEvent {
    /// A record was created or replaced: `subscriptions/listen` streams hear of it.
    Changed(Box<TaskRecord>),
    /// A signal for the task `id`; the server running it acts on it, the others ignore it.
    Signal {
        /// The task it is for.
        id: String,
        /// What to do.
        signal: TaskSignal,
    },
}

/// A listener of a [`TaskStore`]'s events; it should return quickly.
pub type TaskListener = Arc<dyn Fn(&TaskEvent) + Send + Sync>;

/// Where an [`McpServer`](super::super::McpServer) keeps its tasks' records (SPEC §14).
///
/// The server running a task writes each change of it ([`put`](Self::put)) and renews its
/// lease; any server sharing the store answers `tasks/get`, `tasks/list`, `tasks/update` and
/// `tasks/cancel` from the records, and sends [`signal`](Self::signal)s that reach the server
/// running the task through [`subscribe`](Self::subscribe). [`InMemoryTaskStore`] serves
/// one process; replicas share one that every replica reaches (Redis, a database).
///
/// What a shared store needs: `create` refuses past `max_live` tasks not yet ended; `put`
/// never replaces a record that has ended (the first end wins: a task cancelled while it
/// completed stays as whichever was written first); every record expires at
/// [`TaskRecord::forget_at_ms`]; every `Changed` and `Signal` reaches every subscriber, on
/// every replica. An error is reported to the client, never swallowed.
pub trait TaskStore: Send + Sync + 'static {
    /// Adds `record`: `Ok(false)`, adding nothing, when `max_live` tasks that have not ended
    /// are held already. Once it returns, [`get`](Self::get) finds the record.
    fn create<'a>(
        &'a self,
        record: &'a TaskRecord,
        max_live: usize,
    ) -> BoxFuture<'a, Result<bool, TaskStoreError>>;

    /// The record of `id`, unless it never existed or was forgotten.
    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>>;

    /// Replaces the record of `record.id` and tells subscribers: `Ok(false)`, changing
    /// nothing, when the stored one has ended already or is gone.
    fn put<'a>(&'a self, record: &'a TaskRecord) -> BoxFuture<'a, Result<bool, TaskStoreError>>;

    /// Every record of `owner` still kept, oldest first (`tasks/list`).
    fn list<'a>(&'a self, owner: &'a str)
    -> BoxFuture<'a, Result<Vec<TaskRecord>, TaskStoreError>>;

    /// Sends `signal` to the server running task `id` (every subscriber hears it).
    fn signal<'a>(
        &'a self,
        id: &'a str,
        signal: TaskSignal,
    ) -> BoxFuture<'a, Result<(), TaskStoreError>>;

    /// Calls `listener` with every event from now on, from any server sharing the store.
    fn subscribe(&self, listener: TaskListener);
}

/// A [`TaskStore`] in this process's memory, bounded.
///
/// At most `max_live` tasks that have not ended (the server's `max_tasks`), and at most
/// [`capacity`](Self::with_capacity) records of ended tasks
/// ([`DEFAULT_CAPACITY`](Self::DEFAULT_CAPACITY), 10,000): past it the one forgotten
/// soonest anyway is forgotten now. Records go once [`TaskRecord::forget_at_ms`] passes.
///
/// ```
/// use toolnexus::mcp::{InMemoryTaskStore, Lease, TaskRecord, TaskStore};
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let store = InMemoryTaskStore::new();
/// let lease = Lease { holder: "server-1".into(), expires_at_ms: u64::MAX };
/// let task = TaskRecord::new("4f1c", "alice", "report", 0, 60_000, lease);
/// assert!(store.create(&task, 1).await.unwrap());
/// let second = TaskRecord { id: "9a0b".into(), ..task.clone() };
/// assert!(!store.create(&second, 1).await.unwrap(), "one live task at most");
/// assert_eq!(store.get("4f1c").await.unwrap(), Some(task));
/// # });
/// ```
pub struct InMemoryTaskStore {
    held: Mutex<Held>,
    listeners: Mutex<Vec<TaskListener>>,
    capacity: usize,
}

#[derive(Default)]
struct Held {
    /// Boxed: a record is about 500 bytes and a table keeps a share of its buckets empty,
    /// each the size of an entry (10,000 live tasks: 3 MB less than records inline).
    records: HashMap<String, Box<TaskRecord>>,
    /// `(forget_at_ms, id)` of every record, soonest first.
    by_expiry: BTreeSet<(u64, String)>,
    live: usize,
    ended: usize,
}

impl Held {
    fn remove(&mut self, id: &str) -> Option<Box<TaskRecord>> {
        let record = self.records.remove(id)?;
        self.by_expiry
            .remove(&(record.forget_at_ms(), record.id.clone()));
        if record.status.is_terminal() {
            self.ended -= 1;
        } else {
            self.live -= 1;
        }
        Some(record)
    }

    fn insert(&mut self, record: TaskRecord) {
        self.by_expiry
            .insert((record.forget_at_ms(), record.id.clone()));
        if record.status.is_terminal() {
            self.ended += 1;
        } else {
            self.live += 1;
        }
        self.records.insert(record.id.clone(), Box::new(record));
    }

    /// Forgets what expired by `now_ms`, then ended records beyond `capacity`.
    fn sweep(&mut self, now_ms: u64, capacity: usize) {
        while let Some((at, id)) = self.by_expiry.first().cloned() {
            if at > now_ms {
                break;
            }
            self.remove(&id);
        }
        if self.ended <= capacity {
            return;
        }
        let oldest: Vec<String> = self
            .by_expiry
            .iter()
            .filter(|(_, id)| self.records[id].status.is_terminal())
            .take(self.ended - capacity)
            .map(|(_, id)| id.clone())
            .collect();
        for id in oldest {
            self.remove(&id);
        }
    }
}

impl InMemoryTaskStore {
    /// The ended tasks kept by [`new`](Self::new).
    pub const DEFAULT_CAPACITY: usize = 10_000;

    /// An empty store keeping up to [`DEFAULT_CAPACITY`](Self::DEFAULT_CAPACITY) ended tasks.
    pub fn new() -> Self {
        Self::with_capacity(Self::DEFAULT_CAPACITY)
    }

    /// An empty store keeping up to `capacity` ended tasks (at least one).
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            held: Mutex::new(Held::default()),
            listeners: Mutex::new(Vec::new()),
            capacity: capacity.max(1),
        }
    }

    /// How many records are kept now.
    pub fn len(&self) -> usize {
        self.held().records.len()
    }

    /// Whether no record is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn held(&self) -> std::sync::MutexGuard<'_, Held> {
        // Every step under the lock leaves the maps consistent; a poisoned lock is used as is.
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn tell(&self, event: &TaskEvent) {
        let listeners = self
            .listeners
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        for listener in listeners {
            listener(event);
        }
    }

    fn create_now(&self, record: &TaskRecord, max_live: usize) -> bool {
        let mut held = self.held();
        held.sweep(now_ms(), self.capacity);
        if held.live >= max_live || held.records.contains_key(&record.id) {
            return false;
        }
        held.insert(record.clone());
        true
    }

    fn put_now(&self, record: &TaskRecord) -> bool {
        let mut held = self.held();
        held.sweep(now_ms(), self.capacity);
        if held
            .records
            .get(&record.id)
            .is_none_or(|stored| stored.status.is_terminal())
        {
            return false;
        }
        held.remove(&record.id);
        held.insert(record.clone());
        held.sweep(now_ms(), self.capacity);
        true
    }
}

impl Default for InMemoryTaskStore {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for InMemoryTaskStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InMemoryTaskStore")
            .field("records", &self.len())
            .field("capacity", &self.capacity)
            .finish()
    }
}

impl TaskStore for InMemoryTaskStore {
    fn create<'a>(
        &'a self,
        record: &'a TaskRecord,
        max_live: usize,
    ) -> BoxFuture<'a, Result<bool, TaskStoreError>> {
        let created = self.create_now(record, max_live);
        if created {
            self.tell(&TaskEvent::Changed(Box::new(record.clone())));
        }
        Box::pin(std::future::ready(Ok(created)))
    }

    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        let mut held = self.held();
        held.sweep(now_ms(), self.capacity);
        let found = held.records.get(id).map(|record| TaskRecord::clone(record));
        Box::pin(std::future::ready(Ok(found)))
    }

    fn put<'a>(&'a self, record: &'a TaskRecord) -> BoxFuture<'a, Result<bool, TaskStoreError>> {
        let replaced = self.put_now(record);
        if replaced {
            self.tell(&TaskEvent::Changed(Box::new(record.clone())));
        }
        Box::pin(std::future::ready(Ok(replaced)))
    }

    fn list<'a>(
        &'a self,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<Vec<TaskRecord>, TaskStoreError>> {
        let mut held = self.held();
        held.sweep(now_ms(), self.capacity);
        let mut mine: Vec<TaskRecord> = held
            .records
            .values()
            .filter(|record| record.owner == owner)
            .map(|record| TaskRecord::clone(record))
            .collect();
        mine.sort_by(|a, b| (a.created_at_ms, &a.id).cmp(&(b.created_at_ms, &b.id)));
        Box::pin(std::future::ready(Ok(mine)))
    }

    fn signal<'a>(
        &'a self,
        id: &'a str,
        signal: TaskSignal,
    ) -> BoxFuture<'a, Result<(), TaskStoreError>> {
        self.tell(&TaskEvent::Signal {
            id: id.to_owned(),
            signal,
        });
        Box::pin(std::future::ready(Ok(())))
    }

    fn subscribe(&self, listener: TaskListener) {
        self.listeners
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(listener);
    }
}
