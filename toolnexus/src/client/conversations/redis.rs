//! [`RedisConversations`]: conversations on the Redis replicas share (feature `redis`), on
//! [`RedisStore`]'s connection.

use std::sync::LazyLock;
use std::time::Duration;

use redis::Script;

use super::{ClaimedRun, Conversation, ConversationError, ConversationStore};
use crate::client::message::Message;
use crate::client::outcome::RunResult;
use crate::mcp::RedisStore;
use crate::tool::future::BoxFuture;

/// Writes the transcript and the parked run (or removes it), every key with its expiry, if
/// the stored version is still the one the conversation was read at (`ARGV[4]`; none stored
/// counts as `0`, whatever an expired conversation left in its version key): `1`, or `0` and
/// nothing written. A new parked run can be claimed again; without one, the record that the
/// last was claimed stays (a late second resume still hears "already resumed").
static SAVE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local stored = '0'
if redis.call('EXISTS', KEYS[1]) == 1 then
  stored = redis.call('GET', KEYS[4]) or '0'
end
if stored ~= ARGV[4] then
  return 0
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
redis.call('SET', KEYS[4], ARGV[5], 'PX', ARGV[3])
if ARGV[2] == '' then
  redis.call('DEL', KEYS[2])
  redis.call('PEXPIRE', KEYS[3], ARGV[3])
else
  redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
  redis.call('DEL', KEYS[3])
end
return 1
",
    )
});

/// Takes the parked run out, records that it was claimed and moves the version on, in one
/// step, every key's expiry renewed: `{1, run, version}`, or `{2, '', 0}` when it was
/// claimed before, or `{0, '', 0}` when there is none.
static CLAIM: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local parked = redis.call('GET', KEYS[1])
if parked then
  redis.call('DEL', KEYS[1])
  redis.call('SET', KEYS[2], '1', 'PX', ARGV[1])
  local version = redis.call('INCR', KEYS[4])
  redis.call('PEXPIRE', KEYS[4], ARGV[1])
  redis.call('PEXPIRE', KEYS[3], ARGV[1])
  return {1, parked, version}
end
if redis.call('EXISTS', KEYS[2]) == 1 then
  return {2, '', 0}
end
return {0, '', 0}
",
    )
});

/// Conversations on a Redis every replica shares (feature `redis`): a conversation saved by
/// one replica continues on any other, and a parked run is resumed once across all of them —
/// its claim is one Lua script on the server, so of two replicas claiming it at the same
/// moment one gets it and the other is refused
/// ([`AlreadyResumed`](ConversationError::AlreadyResumed)). A save is one Lua script too,
/// comparing the stored version with the one the conversation was read at before it writes:
/// of two replicas saving over the same version, the second is refused
/// ([`Changed`](ConversationError::Changed)) and writes nothing.
///
/// It runs on a [`RedisStore`]'s connection (one `ConnectionManager`, reconnecting by itself;
/// keys under the store's prefix). While Redis is out of reach every call is refused with
/// [`Unavailable`](ConversationError::Unavailable) within a few seconds and nothing is
/// claimed: the parked run is still there, and the next claim after Redis is back gets it.
/// The one exception is a claim Redis applied whose reply did not arrive (the connection
/// dropped in between, or the reply took longer than the store's 2 s): the run counts as
/// claimed and was not resumed — resumed at most once, as [`ConversationStore`] says, with
/// what is left to do then. The record of a claim lives as long as the conversation, so a
/// replay later than the TTL finds no parked run
/// ([`NotParked`](ConversationError::NotParked)) rather than "already resumed"; it still
/// runs nothing.
///
/// | key | holds |
/// |---|---|
/// | `conversation:ID` | the transcript (JSON) |
/// | `parked:ID` | the parked [`RunResult`] (JSON), until it is claimed |
/// | `resumed:ID` | `1`: the last parked run was claimed |
/// | `version:ID` | the [version](Conversation::version); none (read as 0) if stored before versions |
///
/// Each expires [`ttl`](Self::with_ttl) after the conversation was last saved or its parked
/// run claimed (default [`DEFAULT_TTL`](Self::DEFAULT_TTL), 7 days).
///
/// ```no_run
/// use toolnexus::client::RedisConversations;
/// use toolnexus::mcp::RedisStore;
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
/// let store = RedisStore::connect("redis://127.0.0.1:6379/").await?;
/// let conversations = RedisConversations::new(&store);
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct RedisConversations {
    store: RedisStore,
    ttl: Duration,
}

impl RedisConversations {
    /// How long a conversation is kept after it was last saved, unless
    /// [`with_ttl`](Self::with_ttl) says otherwise: 7 days.
    pub const DEFAULT_TTL: Duration = Duration::from_secs(7 * 24 * 60 * 60);

    /// Conversations on `store`'s connection, under its prefix.
    pub fn new(store: &RedisStore) -> Self {
        Self {
            store: store.clone(),
            ttl: Self::DEFAULT_TTL,
        }
    }

    /// Keeps each conversation `ttl` after it was last saved (at least a millisecond).
    #[must_use]
    pub fn with_ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl.max(Duration::from_millis(1));
        self
    }

    fn ttl_ms(&self) -> u64 {
        u64::try_from(self.ttl.as_millis()).unwrap_or(u64::MAX)
    }

    fn unavailable(id: &str, error: &dyn std::error::Error) -> ConversationError {
        ConversationError::Unavailable {
            id: id.to_owned(),
            reason: error.to_string(),
        }
    }
}

fn unreadable(id: &str, what: &str, error: &serde_json::Error) -> ConversationError {
    ConversationError::Unreadable {
        id: id.to_owned(),
        reason: format!("its {what} is not valid JSON of one: {error}"),
    }
}

impl ConversationStore for RedisConversations {
    fn get<'a>(
        &'a self,
        id: &'a str,
    ) -> BoxFuture<'a, Result<Option<Conversation>, ConversationError>> {
        Box::pin(async move {
            let mut mget = redis::cmd("MGET");
            mget.arg(self.store.key("conversation", id))
                .arg(self.store.key("parked", id))
                .arg(self.store.key("version", id));
            let (messages, parked, version): (Option<String>, Option<String>, Option<String>) =
                self.store
                    .query(&mget)
                    .await
                    .map_err(|error| Self::unavailable(id, &*error))?;
            let Some(messages) = messages else {
                return Ok(None);
            };
            let messages: Vec<Message> = serde_json::from_str(&messages)
                .map_err(|error| unreadable(id, "transcript", &error))?;
            let parked = parked
                .map(|parked| serde_json::from_str::<RunResult>(&parked))
                .transpose()
                .map_err(|error| unreadable(id, "parked run", &error))?;
            let version = match version {
                Some(version) => {
                    version
                        .parse()
                        .map_err(|error| ConversationError::Unreadable {
                            id: id.to_owned(),
                            reason: format!("its version `{version}` is not a count: {error}"),
                        })?
                }
                None => 0,
            };
            Ok(Some(Conversation {
                messages,
                parked,
                version,
            }))
        })
    }

    fn save<'a>(
        &'a self,
        id: &'a str,
        conversation: &'a Conversation,
    ) -> BoxFuture<'a, Result<(), ConversationError>> {
        Box::pin(async move {
            let messages = serde_json::to_string(&conversation.messages)
                .map_err(|error| unreadable(id, "transcript", &error))?;
            let parked = match &conversation.parked {
                Some(parked) => serde_json::to_string(parked)
                    .map_err(|error| unreadable(id, "parked run", &error))?,
                None => String::new(),
            };
            let mut save = SAVE.prepare_invoke();
            save.key(self.store.key("conversation", id))
                .key(self.store.key("parked", id))
                .key(self.store.key("resumed", id))
                .key(self.store.key("version", id))
                .arg(messages)
                .arg(parked)
                .arg(self.ttl_ms())
                .arg(conversation.version.to_string())
                .arg(conversation.version.saturating_add(1).to_string());
            let save = &save;
            let saved: i64 = self
                .store
                .run(|mut connection| async move { save.invoke_async(&mut connection).await })
                .await
                .map_err(|error| Self::unavailable(id, &*error))?;
            if saved == 1 {
                Ok(())
            } else {
                Err(ConversationError::Changed { id: id.to_owned() })
            }
        })
    }

    fn claim_parked<'a>(
        &'a self,
        id: &'a str,
    ) -> BoxFuture<'a, Result<ClaimedRun, ConversationError>> {
        Box::pin(async move {
            let mut claim = CLAIM.prepare_invoke();
            claim
                .key(self.store.key("parked", id))
                .key(self.store.key("resumed", id))
                .key(self.store.key("conversation", id))
                .key(self.store.key("version", id))
                .arg(self.ttl_ms());
            let claim = &claim;
            let (found, parked, version): (i64, String, u64) = self
                .store
                .run(|mut connection| async move { claim.invoke_async(&mut connection).await })
                .await
                .map_err(|error| Self::unavailable(id, &*error))?;
            match found {
                1 => serde_json::from_str(&parked)
                    .map(|run| ClaimedRun { run, version })
                    .map_err(|error| unreadable(id, "parked run", &error)),
                2 => Err(ConversationError::AlreadyResumed { id: id.to_owned() }),
                _ => Err(ConversationError::NotParked { id: id.to_owned() }),
            }
        })
    }
}
