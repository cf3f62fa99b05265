//! Long-running calls as MCP tasks (SPEC §14): the server's settings and running tasks, the
//! `tools/call` that becomes a task (`call`), `tasks/*` of the 2026-07-28 extension (`methods`,
//! `listen`) and of 2025-11-25's core tasks (`core_methods`), and where tasks are kept.

mod call;
pub(crate) mod clock;
mod core_methods;
mod listen;
mod methods;

pub(crate) use core_methods::with_core_tasks_capability;
pub(crate) use methods::unread_request;
pub(crate) mod task_store;

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

pub use task_store::{
    InMemoryTaskStore, Lease, TaskEvent, TaskListener, TaskRecord, TaskSignal, TaskStore,
    TaskStoreError,
};

use super::McpServer;
use crate::toolkit::spawn::TaskHandle;

/// How long a server running a task may go without renewing its lease before another one
/// reports the task `failed`, unless `McpServer::task_lease` says otherwise; renewed every
/// third of it.
const LEASE: Duration = Duration::from_secs(30);

/// The `pollIntervalMs` clients are asked to keep between two `tasks/get`.
const POLL_INTERVAL: Duration = Duration::from_millis(500);

/// A server's tasks: its settings, where the records are kept, and the ones it runs itself.
#[derive(Clone)]
pub(crate) struct Tasks {
    pub(crate) after: Duration,
    pub(crate) ttl: Duration,
    pub(crate) max: usize,
    pub(crate) lease: Duration,
    store: Arc<dyn TaskStore>,
    /// Tasks this process runs, by id: where the store's signals for them are acted on.
    running: Arc<Running>,
    /// The `subscriptions/listen` streams of this process, by the task ids they name.
    watchers: Arc<listen::Watchers>,
    /// This process's lease holder id.
    holder: Arc<str>,
}

#[derive(Default)]
struct Running(Mutex<HashMap<String, TaskHandle>>);

impl Running {
    fn insert(&self, handle: TaskHandle) {
        self.lock().insert(handle.id().to_owned(), handle);
    }

    fn remove(&self, id: &str) {
        self.lock().remove(id);
    }

    fn get(&self, id: &str) -> Option<TaskHandle> {
        self.lock().get(id).cloned()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, TaskHandle>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl fmt::Debug for Tasks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tasks")
            .field("after", &self.after)
            .field("ttl", &self.ttl)
            .field("max", &self.max)
            .finish_non_exhaustive()
    }
}

impl Tasks {
    pub(crate) fn new() -> Self {
        let running = Arc::new(Running::default());
        let watchers = Arc::new(listen::Watchers::default());
        Self {
            after: Duration::from_secs(1),
            ttl: Duration::from_secs(60 * 60),
            max: 10_000,
            lease: LEASE,
            store: listened(Arc::new(InMemoryTaskStore::new()), &running, &watchers),
            running,
            watchers,
            holder: crate::toolkit::spawn::task_id().into(),
        }
    }
}

/// `store`, with this server's listener: signals for the tasks it runs reach them, and
/// changes reach the `subscriptions/listen` streams that name them.
fn listened(
    store: Arc<dyn TaskStore>,
    running: &Arc<Running>,
    watchers: &Arc<listen::Watchers>,
) -> Arc<dyn TaskStore> {
    let running: Weak<Running> = Arc::downgrade(running);
    let watchers: Weak<listen::Watchers> = Arc::downgrade(watchers);
    store.subscribe(Arc::new(move |event: &TaskEvent| {
        let (id, signal) = match event {
            TaskEvent::Changed(record) => {
                if let Some(watchers) = watchers.upgrade() {
                    watchers.changed(record);
                }
                return;
            }
            TaskEvent::Signal { id, signal } => (id, signal),
        };
        let Some(handle) = running.upgrade().and_then(|running| running.get(id)) else {
            return;
        };
        match signal {
            TaskSignal::Cancel => handle.cancel(),
            // Refused when it no longer asks (answered already, ended): used once.
            TaskSignal::Answer(answer) => drop(handle.answer(answer.clone())),
        }
    }));
    store
}

impl McpServer {
    /// How long a call to a task-capable tool (`#[tool(task)]`) may run before the server
    /// answers with a task instead of waiting for its result (SPEC §14, default 1 s): a call
    /// that ends sooner is answered inline, as if the tool were not a task. A call that asks
    /// a question sooner (SPEC §10) is asked inline too, with an `InputRequiredResult`, and
    /// the retry that answers it runs under the same rule: it becomes the task if it outlasts
    /// `after` (SEP-2663's input rounds, then a task). Only clients that declared the tasks
    /// extension in a 2026-07-28 session get tasks; a `task = "required"` tool always runs as
    /// one.
    ///
    /// ```
    /// use std::time::Duration;
    /// use toolnexus::{Toolkit, mcp::McpServer};
    ///
    /// let server = McpServer::new(Toolkit::new()).task_after(Duration::from_secs(2));
    /// ```
    #[must_use]
    pub fn task_after(mut self, after: Duration) -> Self {
        self.tasks.after = after;
        self
    }

    /// How long a task's result is kept once it has ended (`ttlMs`; default 1 hour); after
    /// it, `tasks/get` answers as for an id that never existed. Also caps the `ttl` a
    /// 2025-11-25 client asks for.
    #[must_use]
    pub fn task_ttl(mut self, ttl: Duration) -> Self {
        self.tasks.ttl = ttl;
        self
    }

    /// How many tasks may run at once (default 10,000); past it a call that must become a
    /// task is refused with an `isError` result saying so and does not run, and a call that
    /// may become one goes on inline.
    #[must_use]
    pub fn max_tasks(mut self, max: usize) -> Self {
        self.tasks.max = max;
        self
    }

    /// How long this server's lease on a task it runs lasts (default 30 s; renewed every third
    /// of it): a replica that reads a task whose lease lapsed reports it `failed`. Shorter
    /// finds a lost task sooner, at one store write per task per third of it.
    #[must_use]
    pub fn task_lease(mut self, lease: Duration) -> Self {
        self.tasks.lease = lease.max(Duration::from_millis(3));
        self
    }

    /// Keeps the tasks' records in `store` instead of this server's own
    /// [`InMemoryTaskStore`]: replicas that share one answer `tasks/*` for each other's
    /// tasks, and report `failed` a task whose replica went away (its lease lapsed).
    #[must_use]
    pub fn with_task_store(mut self, store: Arc<dyn TaskStore>) -> Self {
        self.tasks.store = listened(store, &self.tasks.running, &self.tasks.watchers);
        self
    }
}
