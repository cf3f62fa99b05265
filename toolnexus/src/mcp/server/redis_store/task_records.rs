//! [`TaskStore`] on Redis: each record a hash under its expiry, written by Lua scripts that
//! check and write in one step, every change and signal published on one channel.

use std::sync::{LazyLock, Mutex, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use redis::{PushInfo, Script};
use serde::{Deserialize, Serialize};

use super::{RedisStore, listeners_of, message};
use crate::mcp::server::tasks::{
    TaskEvent, TaskListener, TaskRecord, TaskSignal, TaskStore, TaskStoreError,
};
use crate::result::ToolResult;
use crate::tool::future::BoxFuture;
use crate::toolkit::spawn::TaskStatus;

/// Extends a key's expiry to `at` unless it already lasts longer.
const EXTEND: &str = r"
local function extend(key, at)
  if redis.call('PEXPIRETIME', key) < tonumber(at) then redis.call('PEXPIREAT', key, at) end
end
";

/// KEYS: task, owner, live. ARGV: id, record, ended, forget_at, lease_expires, max_live,
/// now, created_at, channel. 1 if created; 0 if the id is taken or the holder runs
/// `max_live` tasks whose leases have not lapsed.
static CREATE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(&format!(
        "{EXTEND}
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if ARGV[3] == '0' then
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[7])
  if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[6]) then return 0 end
  redis.call('ZADD', KEYS[3], ARGV[5], ARGV[1])
  extend(KEYS[3], ARGV[5])
end
redis.call('HSET', KEYS[1], 'ended', ARGV[3], 'live', KEYS[3], 'record', ARGV[2])
redis.call('PEXPIREAT', KEYS[1], ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[8], ARGV[1])
extend(KEYS[2], ARGV[4])
redis.call('PUBLISH', ARGV[9], '{{\"changed\":' .. ARGV[2] .. '}}')
return 1"
    ))
});

/// KEYS: task, owner. ARGV: id, record, ended, forget_at, lease_expires, channel. 1 if
/// replaced; 0 if the stored record has ended or is gone (the first end wins).
static PUT: LazyLock<Script> = LazyLock::new(|| {
    Script::new(&format!(
        "{EXTEND}
if redis.call('HGET', KEYS[1], 'ended') ~= '0' then return 0 end
local live = redis.call('HGET', KEYS[1], 'live')
redis.call('HSET', KEYS[1], 'ended', ARGV[3], 'record', ARGV[2])
redis.call('PEXPIREAT', KEYS[1], ARGV[4])
if ARGV[3] == '1' then
  redis.call('ZREM', live, ARGV[1])
else
  redis.call('ZADD', live, ARGV[5], ARGV[1])
  extend(live, ARGV[5])
end
extend(KEYS[2], ARGV[4])
redis.call('PUBLISH', ARGV[6], '{{\"changed\":' .. ARGV[2] .. '}}')
return 1"
    ))
});

/// How often a record that could not be written is tried again.
const RETRY: Duration = Duration::from_millis(250);

/// What the events channel carries.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
enum Wire {
    Changed(Box<TaskRecord>),
    Signal { id: String, signal: TaskSignal },
}

/// The events channel under `prefix`.
pub(super) fn channel(prefix: &str) -> String {
    format!("{prefix}events")
}

/// Tells `listeners` of an event heard on the channel; anything else is not for them.
pub(super) fn hear(listeners: &Mutex<Vec<TaskListener>>, push: &PushInfo) {
    let Some(wire) = message(push).and_then(|payload| serde_json::from_slice(payload).ok()) else {
        return;
    };
    let event = match wire {
        Wire::Changed(record) => TaskEvent::Changed(record),
        Wire::Signal { id, signal } => TaskEvent::Signal { id, signal },
    };
    for listener in listeners_of(listeners) {
        listener(&event);
    }
}

/// `time` in milliseconds since the Unix epoch (0 before it).
pub(super) fn millis(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH).map_or(0, |since| {
        u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
    })
}

impl RedisStore {
    /// `record` as the JSON kept: one over the size limit becomes a completed task whose
    /// error result says so (a result is never truncated).
    fn encode(&self, record: &TaskRecord) -> Result<(String, bool), TaskStoreError> {
        let json = serde_json::to_string(record)?;
        if json.len() <= self.max_record_bytes {
            return Ok((json, record.status.is_terminal()));
        }
        let refused = TaskRecord {
            status: TaskStatus::Completed,
            result: Some(ToolResult::error(format!(
                "tool `{}` ended, but its task record is {} bytes, over the {} bytes this \
                 server's task store keeps (RedisStore::with_max_record_bytes); its result \
                 was not kept",
                record.tool,
                json.len(),
                self.max_record_bytes
            ))),
            request: None,
            lease: None,
            ..record.clone()
        };
        Ok((serde_json::to_string(&refused)?, true))
    }

    async fn write(&self, record: &TaskRecord) -> Result<bool, TaskStoreError> {
        let (json, ended) = self.encode(record)?;
        let mut put = PUT.prepare_invoke();
        put.key(self.key("task", &record.id))
            .key(self.key("owner", &record.owner))
            .arg(&record.id)
            .arg(json)
            .arg(u8::from(ended))
            .arg(record.forget_at_ms())
            .arg(lease_expires(record))
            .arg(channel(&self.prefix));
        let put = &put;
        let replaced: i64 = self
            .run(|mut connection| async move { put.invoke_async(&mut connection).await })
            .await?;
        Ok(replaced == 1)
    }

    /// Writes `record` once Redis answers again, so that it is not lost: as it is if it has
    /// ended, else as `failed` with `why` (its server stops running it). Gives up when the
    /// record would have been forgotten anyway.
    fn rescue(&self, record: &TaskRecord, why: &TaskStoreError) {
        let mut record = record.clone();
        if !record.status.is_terminal() {
            record.status = TaskStatus::Failed;
            record.error = Some(format!(
                "tool `{}` stopped: its task record could not be written ({why})",
                record.tool
            ));
            record.request = None;
            record.lease = None;
        }
        let store = self.clone();
        tokio::spawn(async move {
            while millis(SystemTime::now()) < record.forget_at_ms() {
                tokio::time::sleep(RETRY).await;
                if store.write(&record).await.is_ok() {
                    return;
                }
            }
        });
    }
}

/// When the record's lease lapses (now, for one without).
fn lease_expires(record: &TaskRecord) -> u64 {
    record
        .lease
        .as_ref()
        .map_or_else(|| millis(SystemTime::now()), |lease| lease.expires_at_ms)
}

fn decode(id: &str, json: &str) -> Result<TaskRecord, TaskStoreError> {
    serde_json::from_str(json).map_err(|error| {
        format!("the record of task `{id}` in Redis could not be read ({error})").into()
    })
}

impl TaskStore for RedisStore {
    fn create<'a>(
        &'a self,
        record: &'a TaskRecord,
        max_live: usize,
    ) -> BoxFuture<'a, Result<bool, TaskStoreError>> {
        Box::pin(async move {
            let (json, ended) = self.encode(record)?;
            let holder = record.lease.as_ref().map_or("", |lease| &lease.holder);
            let mut create = CREATE.prepare_invoke();
            create
                .key(self.key("task", &record.id))
                .key(self.key("owner", &record.owner))
                .key(self.key("live", holder))
                .arg(&record.id)
                .arg(json)
                .arg(u8::from(ended))
                .arg(record.forget_at_ms())
                .arg(lease_expires(record))
                .arg(max_live)
                .arg(millis(SystemTime::now()))
                .arg(record.created_at_ms)
                .arg(channel(&self.prefix));
            let create = &create;
            let created: i64 = self
                .run(|mut connection| async move { create.invoke_async(&mut connection).await })
                .await?;
            Ok(created == 1)
        })
    }

    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        Box::pin(async move {
            let mut get = redis::cmd("HGET");
            get.arg(self.key("task", id)).arg("record");
            let json: Option<String> = self.query(&get).await?;
            json.map(|json| decode(id, &json)).transpose()
        })
    }

    /// Replaces the record in one script (the first end wins); a write that fails is
    /// reported (`Err`) and tried again in the background until Redis answers, so the task
    /// is not left `working` with no word of why.
    fn put<'a>(&'a self, record: &'a TaskRecord) -> BoxFuture<'a, Result<bool, TaskStoreError>> {
        Box::pin(async move {
            let written = self.write(record).await;
            if let Err(error) = &written {
                self.rescue(record, error);
            }
            written
        })
    }

    fn list<'a>(
        &'a self,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<Vec<TaskRecord>, TaskStoreError>> {
        Box::pin(async move {
            let owner_key = self.key("owner", owner);
            let mut range = redis::cmd("ZRANGE");
            range.arg(&owner_key).arg(0).arg(-1);
            let ids: Vec<String> = self.query(&range).await?;
            if ids.is_empty() {
                return Ok(Vec::new());
            }
            let mut fetch = redis::pipe();
            for id in &ids {
                fetch.cmd("HGET").arg(self.key("task", id)).arg("record");
            }
            let fetch = &fetch;
            let found: Vec<Option<String>> = self
                .run(|mut connection| async move { fetch.query_async(&mut connection).await })
                .await?;
            let mut records = Vec::with_capacity(ids.len());
            let mut gone = Vec::new();
            for (id, json) in ids.iter().zip(found) {
                match json {
                    Some(json) => records.push(decode(id, &json)?),
                    None => gone.push(id),
                }
            }
            if !gone.is_empty() {
                let mut forget = redis::cmd("ZREM");
                forget.arg(&owner_key).arg(gone);
                let _: i64 = self.query(&forget).await?;
            }
            Ok(records)
        })
    }

    /// Published on the channel: every replica hears it, the one running the task acts.
    fn signal<'a>(
        &'a self,
        id: &'a str,
        signal: TaskSignal,
    ) -> BoxFuture<'a, Result<(), TaskStoreError>> {
        Box::pin(async move {
            let wire = serde_json::to_string(&Wire::Signal {
                id: id.to_owned(),
                signal,
            })?;
            let mut publish = redis::cmd("PUBLISH");
            publish.arg(channel(&self.prefix)).arg(wire);
            let _: i64 = self.query(&publish).await?;
            Ok(())
        })
    }

    fn subscribe(&self, listener: TaskListener) {
        self.listeners
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(listener);
    }
}
