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

use super::TaskRecord;
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
    /// the client ends the stream. A task of another caller is never heard of, as for an id
    /// that never existed.
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
        let owner = suspend::owner_of(context);
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
        let mut told: HashMap<String, (TaskStatus, Option<String>)> = HashMap::new();
        for id in &ids {
            let now = self.tasks.store.get(id).await;
            if let Ok(Some(record)) = now {
                self.tell(&subscription, &owner, &mut told, &record).await?;
            }
        }
        loop {
            tokio::select! {
                change = changes.recv() => match change {
                    Some(record) => self.tell(&subscription, &owner, &mut told, &record).await?,
                    None => return Ok(()),
                },
                () = subscription.cancelled() => return Ok(()),
            }
        }
    }

    /// Sends `record` on the stream if it is the caller's and its status or message is not the
    /// one last told.
    async fn tell(
        &self,
        subscription: &SubscriptionContext,
        owner: &str,
        told: &mut HashMap<String, (TaskStatus, Option<String>)>,
        record: &TaskRecord,
    ) -> Result<(), ErrorData> {
        let now = (record.status, record.status_message.clone());
        if record.owner != owner || told.get(&record.id) == Some(&now) {
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
