//! [`RedisStore`]: the used `requestState`s and the tasks of replicas that share one Redis
//! (SPEC §14B).

mod task_records;

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{IntoConnectionInfo, ProtocolVersion, PushInfo, PushKind};

use super::suspend::{StateStore, StateStoreError};
use super::tasks::TaskListener;
use crate::tool::future::BoxFuture;

/// How long a used state's record outlives the state's own expiry: the clock skew tolerated
/// between replicas (a state opens until its expiry by the clock of the replica it reaches).
const SKEW: Duration = Duration::from_secs(60);

/// The replicas' shared store on Redis: the record of used `requestState`s
/// ([`StateStore`], SPEC §10B) and the tasks' records ([`TaskStore`](super::TaskStore),
/// SPEC §14), so that behind a load balancer an approved retry runs once across all
/// replicas and any replica answers `tasks/get`, `tasks/update` and `tasks/cancel` for any
/// task.
///
/// One [`ConnectionManager`] of the `redis` crate (RESP3) carries the commands and the
/// subscription to the store's event channel; it reconnects by itself, so a call after
/// Redis came back succeeds without a restart. While Redis is out of reach, a retry whose
/// use cannot be recorded is refused (``tool `NAME` did not run: its requestState could not
/// be recorded as used: <why>; nothing ran``), and a task record that cannot be written is
/// written again, as `failed` with the reason, once Redis answers (a result that has ended is
/// written as it is).
///
/// What it keeps, every key under the prefix ([`DEFAULT_PREFIX`](Self::DEFAULT_PREFIX),
/// `toolnexus:`) and with an expiry:
///
/// | key | holds | expires |
/// |---|---|---|
/// | `state:ID` | `1`: the state `ID` was used | 60 s after the state does |
/// | `task:ID` | the task's record (JSON) and who runs it | the record's [`forget_at_ms`](super::TaskRecord::forget_at_ms) |
/// | `owner:OWNER` | the ids of a caller's tasks (`tasks/list`) | with its last task |
/// | `live:HOLDER` | the tasks a replica runs, by lease expiry (`max_tasks`) | with the last lease |
///
/// and publishes every record change and signal on the channel `events`. Redis pub/sub does
/// not keep messages: a `tasks/update` or `tasks/cancel` sent while the replica running the
/// task is cut off from Redis does not reach it, and the task stays as it was (still asking,
/// still running) for the client to send it again. A record is at
/// most [`max_record_bytes`](Self::max_record_bytes) (4 MiB by default): a task whose result
/// is larger completes with an error result saying so, rather than be truncated. It needs
/// Redis 7 or later (RESP3, `PEXPIRETIME`), standalone or a primary (its scripts name keys
/// they compute, which Redis Cluster refuses).
///
/// ```no_run
/// use std::sync::Arc;
/// use toolnexus::Toolkit;
/// use toolnexus::mcp::{McpServer, RedisStore};
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
/// let store = Arc::new(RedisStore::connect("redis://127.0.0.1:6379/").await?);
/// let server = McpServer::new(Toolkit::new())
///     .with_state_store(store.clone())
///     .with_task_store(store);
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct RedisStore {
    connection: ConnectionManager,
    prefix: Arc<str>,
    /// The url without credentials, for messages.
    shown: Arc<str>,
    listeners: Arc<Mutex<Vec<TaskListener>>>,
    max_record_bytes: usize,
}

impl fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisStore")
            .field("url", &self.shown)
            .field("prefix", &self.prefix)
            .field("max_record_bytes", &self.max_record_bytes)
            .finish_non_exhaustive()
    }
}

impl RedisStore {
    /// The prefix of every key, unless [`with_prefix`](Self::with_prefix) says otherwise.
    pub const DEFAULT_PREFIX: &str = "toolnexus:";

    /// The largest task record kept by default: 4 MiB.
    pub const DEFAULT_MAX_RECORD_BYTES: usize = 4 << 20;

    /// Connects to the Redis at `url` (`redis://[user:password@]host:port/db`) and subscribes
    /// to the store's events. An error names the url (without its password) and why: a
    /// server given one fails to start rather than run without its shared record.
    pub async fn connect(url: &str) -> Result<Self, StateStoreError> {
        let info = url
            .into_connection_info()
            .map_err(|error| format!("Redis url `{}` is not valid: {error}", redact(url)))?;
        let shown: Arc<str> =
            format!("redis://{}/{}", info.addr(), info.redis_settings().db()).into();
        let settings = info
            .redis_settings()
            .clone()
            .set_protocol(ProtocolVersion::RESP3);
        let client = redis::Client::open(info.set_redis_settings(settings))
            .map_err(|error| format!("Redis at {shown}: {error}"))?;
        let listeners: Arc<Mutex<Vec<TaskListener>>> = Arc::default();
        let heard = Arc::clone(&listeners);
        // Bounded waits: a Redis out of reach fails a call within a second or two, and the
        // manager keeps trying in the background, so the next call after it is back succeeds.
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(Duration::from_secs(1)))
            .set_response_timeout(Some(Duration::from_secs(2)))
            .set_number_of_retries(2)
            .set_min_delay(Duration::from_millis(50))
            .set_max_delay(Duration::from_millis(500))
            .set_automatic_resubscription()
            .set_push_sender(move |push: PushInfo| {
                task_records::hear(&heard, &push);
                Ok::<(), std::convert::Infallible>(())
            });
        let mut connection = client
            .get_connection_manager_with_config(config)
            .await
            .map_err(|error| format!("Redis at {shown} could not be reached: {error}"))?;
        let prefix: Arc<str> = Self::DEFAULT_PREFIX.into();
        connection
            .subscribe(task_records::channel(&prefix))
            .await
            .map_err(|error| format!("Redis at {shown} refused the subscription: {error}"))?;
        Ok(Self {
            connection,
            prefix,
            shown,
            listeners,
            max_record_bytes: Self::DEFAULT_MAX_RECORD_BYTES,
        })
    }

    /// The same store with every key under `prefix` instead (one Redis shared by several
    /// applications, or tests). Its events channel is under it too, so this subscribes to it.
    pub async fn with_prefix(mut self, prefix: &str) -> Result<Self, StateStoreError> {
        let old = task_records::channel(&self.prefix);
        self.prefix = prefix.into();
        let new = task_records::channel(&self.prefix);
        self.connection
            .subscribe(&new)
            .await
            .map_err(|error| self.failed(&error))?;
        self.connection
            .unsubscribe(&old)
            .await
            .map_err(|error| self.failed(&error))?;
        Ok(self)
    }

    /// The same store keeping task records of up to `bytes` (their JSON, result included);
    /// a task whose record is larger completes with an error result saying so.
    #[must_use]
    pub fn with_max_record_bytes(mut self, bytes: usize) -> Self {
        self.max_record_bytes = bytes;
        self
    }

    /// The largest task record kept, in bytes.
    pub fn max_record_bytes(&self) -> usize {
        self.max_record_bytes
    }

    pub(crate) fn key(&self, kind: &str, id: &str) -> String {
        format!("{}{kind}:{id}", self.prefix)
    }

    /// Runs `command`, once more if the connection was refused. The manager reconnects after
    /// such an error, but the first command after Redis came back would otherwise fail on the
    /// reconnection that failed while it was down; a refused command was never sent, so the
    /// second try cannot apply it twice.
    pub(crate) async fn run<T, Fut>(
        &self,
        command: impl Fn(ConnectionManager) -> Fut,
    ) -> Result<T, StateStoreError>
    where
        Fut: Future<Output = redis::RedisResult<T>>,
    {
        match command(self.connection.clone()).await {
            Err(error) if error.is_connection_refusal() => command(self.connection.clone()).await,
            done => done,
        }
        .map_err(|error| self.failed(&error))
    }

    /// One command, as [`run`](Self::run) runs it.
    pub(crate) async fn query<T: redis::FromRedisValue>(
        &self,
        command: &redis::Cmd,
    ) -> Result<T, StateStoreError> {
        self.run(|mut connection| async move { command.query_async(&mut connection).await })
            .await
    }

    /// A Redis error as the message a client or caller gets.
    fn failed(&self, error: &redis::RedisError) -> StateStoreError {
        format!("Redis at {} did not answer ({error})", self.shown).into()
    }
}

/// `url` with its password, if any, hidden.
fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            format!("{}***{}", &url[..scheme + 3], &url[at..])
        }
        _ => url.to_owned(),
    }
}

impl StateStore for RedisStore {
    /// One `SET PREFIXstate:ID 1 NX PXAT <expires_at + 60 s>`: set ⇒ the first use.
    fn first_use<'a>(
        &'a self,
        id: &'a str,
        expires_at: SystemTime,
    ) -> BoxFuture<'a, Result<bool, StateStoreError>> {
        Box::pin(async move {
            let at = task_records::millis(expires_at + SKEW);
            let mut set = redis::cmd("SET");
            set.arg(self.key("state", id))
                .arg(1)
                .arg("NX")
                .arg("PXAT")
                .arg(at);
            let set: Option<String> = self.query(&set).await?;
            Ok(set.is_some())
        })
    }
}

/// A message on the events channel: `[channel, payload]`.
fn message(push: &PushInfo) -> Option<&[u8]> {
    match (&push.kind, push.data.as_slice()) {
        (PushKind::Message, [_, redis::Value::BulkString(payload)]) => Some(payload),
        _ => None,
    }
}

fn listeners_of(listeners: &Mutex<Vec<TaskListener>>) -> Vec<TaskListener> {
    listeners
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone()
}
