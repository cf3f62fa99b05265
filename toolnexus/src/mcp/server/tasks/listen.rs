//! `notifications/tasks` through `subscriptions/listen` (2026-07-28, the tasks extension): the
//! caller's tasks its filter names (`taskIds`), each change of them sent on the stream, from
//! whichever server sharing the store wrote it.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use rmcp::ErrorData;
use rmcp::model::{
    NotificationMetaObject, ServerNotification, TaskStatusNotification,
    TaskStatusNotificationParams,
};
use rmcp::service::SubscriptionContext;
use tokio::sync::mpsc;
use tokio::time::{Duration, Instant};

use super::clock::now_ms;
use super::{TaskRecord, TaskStoreError};
use crate::mcp::server::incoming::TASK_IDS;
use crate::mcp::server::{McpServer, suspend};
use crate::toolkit::spawn::TaskStatus;

/// Where the store's changes of a task go: the `subscriptions/listen` streams that name it.
#[derive(Default)]
pub(super) struct Watchers(Mutex<HashMap<String, Vec<mpsc::UnboundedSender<Box<TaskRecord>>>>>);

impl Watchers {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, Vec<mpsc::UnboundedSender<Box<TaskRecord>>>>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Hands `record` to every stream that names it.
    pub(super) fn changed(&self, record: &TaskRecord) {
        if let Some(streams) = self.lock().get(&record.id) {
            for stream in streams {
                // A stream that ended is removed by its own guard.
                let _ = stream.send(Box::new(record.clone()));
            }
        }
    }
}

/// How long a task the store could not be asked about waits to be asked again.
const RETRY_MS: u64 = 1_000;

/// What a stream has heard: whose tasks it tells of, what it told of each, and when to read
/// again each one still running (when its lease would lapse).
struct Heard {
    owner: String,
    told: HashMap<String, (TaskStatus, Option<String>)>,
    check_at: HashMap<String, u64>,
}

impl Heard {
    /// When the next task is due to be read again.
    fn next_check(&self) -> Option<Instant> {
        let at = *self.check_at.values().min()?;
        let wait = Duration::from_millis(at.saturating_sub(now_ms()));
        Some(Instant::now() + wait)
    }

    /// The tasks due to be read again at `now`.
    fn due(&self, now: u64) -> Vec<String> {
        let due = self.check_at.iter().filter(|(_, at)| **at <= now);
        due.map(|(id, _)| id.clone()).collect()
    }
}

/// Waits until `at`; for `None` (no task running), forever.
async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// Removes a stream's senders when it ends.
struct Watching<'a> {
    watchers: &'a Watchers,
    ids: &'a [String],
    sender: mpsc::UnboundedSender<Box<TaskRecord>>,
}

impl Drop for Watching<'_> {
    fn drop(&mut self) {
        let mut watchers = self.watchers.lock();
        for id in self.ids {
            if let Some(streams) = watchers.get_mut(id) {
                streams.retain(|stream| !stream.same_channel(&self.sender));
                if streams.is_empty() {
                    watchers.remove(id);
                }
            }
        }
    }
}

impl McpServer {
    /// A `subscriptions/listen` stream: for each task its `taskIds` name that belongs to its
    /// caller, the task as it is now, then each change of its status or status message, until
    /// the client ends the stream. A task whose server stops renewing its lease is told
    /// `failed` once the lease lapses, whether or not anyone polls it. A task of another
    /// caller is never heard of, as for an id that never existed.
    pub(crate) async fn listen_to_tasks(
        &self,
        subscription: SubscriptionContext,
    ) -> Result<(), ErrorData> {
        let context = subscription.request_context();
        let ids: Vec<String> = context
            .meta
            .get(TASK_IDS)
            .and_then(|ids| serde_json::from_value(ids.clone()).ok())
            .unwrap_or_default();
        if ids.is_empty() {
            subscription.cancelled().await;
            return Ok(());
        }
        let (sender, mut changes) = mpsc::unbounded_channel();
        // Watched before the tasks are read, so that no change between the two goes unheard.
        {
            let mut watchers = self.tasks.watchers.lock();
            for id in &ids {
                watchers.entry(id.clone()).or_default().push(sender.clone());
            }
        }
        let _watching = Watching {
            watchers: &self.tasks.watchers,
            ids: &ids,
            sender,
        };
        let mut heard = Heard {
            owner: suspend::owner_of(context),
            told: HashMap::new(),
            check_at: HashMap::new(),
        };
        for id in &ids {
            self.check(&subscription, &mut heard, id).await?;
        }
        loop {
            let lapse = heard.next_check();
            tokio::select! {
                change = changes.recv() => match change {
                    // An event late enough to look lost may be older than the lease the
                    // store holds now: the store decides.
                    Some(record) if record.is_lost(now_ms()) => {
                        self.check(&subscription, &mut heard, &record.id).await?;
                    }
                    Some(record) => {
                        let id = record.id.clone();
                        self.hear(&subscription, &mut heard, &id, Ok(Some(*record))).await?;
                    }
                    None => return Ok(()),
                },
                () = sleep_until(lapse) => {
                    let due = heard.due(now_ms());
                    for id in &due {
                        self.check(&subscription, &mut heard, id).await?;
                    }
                }
                () = subscription.cancelled() => return Ok(()),
            }
        }
    }

    /// Reads task `id` from the store and hears it.
    async fn check(
        &self,
        subscription: &SubscriptionContext,
        heard: &mut Heard,
        id: &str,
    ) -> Result<(), ErrorData> {
        let found = self.tasks.store.get(id).await;
        self.hear(subscription, heard, id, found).await
    }

    /// What the store or its events say of task `id`: a task of another caller is ignored;
    /// one whose lease lapsed is settled `failed` (SPEC §14: no task stays `working` because
    /// its server went away, even when nobody polls it); one still running is read again
    /// when its lease would lapse, so that a server that stops renewing it is noticed. If
    /// the store cannot answer, the task is read again a second later: the stream goes on,
    /// and nothing the store holds goes untold.
    async fn hear(
        &self,
        subscription: &SubscriptionContext,
        heard: &mut Heard,
        id: &str,
        found: Result<Option<TaskRecord>, TaskStoreError>,
    ) -> Result<(), ErrorData> {
        let settled = match found {
            Ok(Some(record)) if record.owner != heard.owner => return Ok(()),
            Ok(Some(record)) => self.settled(record).await,
            other => other,
        };
        let record = match settled {
            Ok(Some(record)) => record,
            Ok(None) => {
                heard.check_at.remove(id);
                return Ok(());
            }
            Err(_) => {
                heard.check_at.insert(id.to_owned(), now_ms() + RETRY_MS);
                return Ok(());
            }
        };
        match &record.lease {
            Some(lease) if !record.status.is_terminal() => {
                heard.check_at.insert(id.to_owned(), lease.expires_at_ms);
            }
            _ => {
                heard.check_at.remove(id);
            }
        }
        self.tell(subscription, &mut heard.told, &record).await
    }

    /// Sends `record` on the stream if its status or message is not the one last told.
    async fn tell(
        &self,
        subscription: &SubscriptionContext,
        told: &mut HashMap<String, (TaskStatus, Option<String>)>,
        record: &TaskRecord,
    ) -> Result<(), ErrorData> {
        let now = (record.status, record.status_message.clone());
        if told.get(&record.id) == Some(&now) {
            return Ok(());
        }
        told.insert(record.id.clone(), now);
        let context = subscription.request_context();
        let params = TaskStatusNotificationParams::new(self.detailed(record));
        let mut notification = TaskStatusNotification::new(params);
        let mut meta = NotificationMetaObject::new();
        meta.set_subscription_id(context.id.clone());
        notification.extensions.insert(meta);
        // rmcp's subscription sink has no `taskIds` to check this notification against, so
        // it is sent as the sink sends the others: on the peer, with the subscription's id.
        context
            .peer
            .send_notification(ServerNotification::TaskStatusNotification(notification))
            .await
            .map_err(|error| {
                ErrorData::internal_error(format!("the subscription's stream ended: {error}"), None)
            })
    }
}
