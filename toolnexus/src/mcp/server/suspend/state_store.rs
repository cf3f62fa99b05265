//! The record of used `requestState`s: a sealed state opens once (SPEC §10B).

use std::collections::{BTreeSet, HashMap};
use std::error::Error;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::tool::future::BoxFuture;

/// Why a [`StateStore`] could not record a use (a shared store out of reach, say): the
/// retry is refused and the tool does not run. Its text is quoted in the `isError` result
/// the client gets (``tool `NAME` did not run: its requestState could not be recorded as
/// used: ERROR; nothing ran``), so it should say nothing secret.
pub type StateStoreError = Box<dyn Error + Send + Sync>;

/// Where an [`McpServer`](super::super::McpServer) records which sealed `requestState`s
/// were used, so that an approved retry sent again — by a client or proxy retrying on a
/// network error, or by someone replaying it — runs the tool once.
///
/// Every state carries a random 128-bit id (32 hex digits) and an expiry; past the expiry
/// the state no longer opens, so a record needs to outlive it only by the clock skew
/// between replicas. By default every server in a process shares one
/// [`InMemoryStateStore`]: a state opens once per process. Replicas that each may receive
/// the retry (stateless HTTP behind a load balancer) need one shared record, or a replayed
/// retry may run again on another replica; [`McpServer::with_state_store`] sets it.
///
/// What a shared store needs: `first_use` is one atomic *insert if absent* visible to every
/// replica (Redis `SET id 1 NX PXAT <expires_at + skew>`, SQL `INSERT … ON CONFLICT DO
/// NOTHING` counting the rows inserted), and it answers `Err` rather than `Ok(true)` when
/// it cannot tell: an error refuses the retry.
///
/// ```
/// use std::time::SystemTime;
/// use toolnexus::BoxFuture;
/// use toolnexus::mcp::{InMemoryStateStore, StateStore, StateStoreError};
///
/// /// A store that forwards to another (a shared one would talk to Redis here).
/// struct Logged(InMemoryStateStore);
///
/// impl StateStore for Logged {
///     fn first_use<'a>(&'a self, id: &'a str, expires_at: SystemTime)
///         -> BoxFuture<'a, Result<bool, StateStoreError>> {
///         eprintln!("requestState {id} used");
///         self.0.first_use(id, expires_at)
///     }
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let store = Logged(InMemoryStateStore::new());
/// let later = SystemTime::now() + std::time::Duration::from_secs(60);
/// assert!(store.first_use("4f1c", later).await.unwrap());
/// assert!(!store.first_use("4f1c", later).await.unwrap());
/// # });
/// ```
///
/// [`McpServer::with_state_store`]: super::super::McpServer::with_state_store
pub trait StateStore: Send + Sync + 'static {
    /// Records a use of the state `id`, remembered at least until `expires_at`: `Ok(true)`
    /// the first time, `Ok(false)` every time after (the retry is then refused with
    /// ``tool `NAME` did not run: its requestState was already used``).
    fn first_use<'a>(
        &'a self,
        id: &'a str,
        expires_at: SystemTime,
    ) -> BoxFuture<'a, Result<bool, StateStoreError>>;
}

/// A [`StateStore`] in this process's memory, bounded by the states' expiry and by a cap.
///
/// A record (a state's 32-character id and its expiry) is dropped once its state expires: an
/// expired state does not open anyway. At most [`capacity`](Self::with_capacity) records are
/// kept ([`DEFAULT_CAPACITY`](Self::DEFAULT_CAPACITY), 100,000, unless said otherwise); past
/// it the record that expires first is dropped, and from then on every state that expires no
/// later than it is refused as used: a replay never runs, and only a retry older than the
/// states still remembered is refused.
#[derive(Debug)]
pub struct InMemoryStateStore {
    used: Mutex<Used>,
    capacity: usize,
}

#[derive(Debug, Default)]
struct Used {
    /// id → expiry (milliseconds since the Unix epoch).
    ids: HashMap<Box<str>, u64>,
    /// The same records in the order they expire.
    by_expiry: BTreeSet<(u64, Box<str>)>,
    /// The latest expiry among the records dropped for room: states expiring no later are
    /// refused, since whether they were used can no longer be told.
    floor: u64,
}

impl InMemoryStateStore {
    /// The records kept by [`new`](Self::new).
    pub const DEFAULT_CAPACITY: usize = 100_000;

    /// An empty store keeping up to [`DEFAULT_CAPACITY`](Self::DEFAULT_CAPACITY) records.
    pub fn new() -> Self {
        Self::with_capacity(Self::DEFAULT_CAPACITY)
    }

    /// An empty store keeping up to `capacity` records (at least one).
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            used: Mutex::new(Used::default()),
            capacity: capacity.max(1),
        }
    }

    /// How many records are kept now.
    pub fn len(&self) -> usize {
        self.lock().ids.len()
    }

    /// Whether no record is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Used> {
        // A panic while holding the lock leaves the maps consistent (every step below is
        // one insert or remove), so a poisoned lock is used as it is.
        self.used
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn record(&self, id: &str, expires_at: SystemTime) -> bool {
        let now = millis(SystemTime::now());
        let expires = millis(expires_at);
        let mut used = self.lock();
        // Forget what expired: those states no longer open.
        while let Some(first) = used.by_expiry.first() {
            if first.0 > now {
                break;
            }
            let (_, gone) = used.by_expiry.pop_first().expect("just seen");
            used.ids.remove(&gone);
        }
        if expires <= used.floor || used.ids.contains_key(id) {
            return false;
        }
        while used.ids.len() >= self.capacity {
            let Some(&(expiry, _)) = used.by_expiry.first() else {
                break;
            };
            // Refused once room is made: refused now, without forgetting a record for it.
            if expires <= expiry {
                return false;
            }
            let (_, dropped) = used.by_expiry.pop_first().expect("just seen");
            used.ids.remove(&dropped);
            used.floor = used.floor.max(expiry);
        }
        used.ids.insert(id.into(), expires);
        used.by_expiry.insert((expires, id.into()));
        true
    }
}

impl Default for InMemoryStateStore {
    fn default() -> Self {
        Self::new()
    }
}

impl StateStore for InMemoryStateStore {
    fn first_use<'a>(
        &'a self,
        id: &'a str,
        expires_at: SystemTime,
    ) -> BoxFuture<'a, Result<bool, StateStoreError>> {
        let first = self.record(id, expires_at);
        Box::pin(std::future::ready(Ok(first)))
    }
}

/// The store every server in this process shares unless given its own.
pub(super) fn process_store() -> Arc<dyn StateStore> {
    static STORE: OnceLock<Arc<InMemoryStateStore>> = OnceLock::new();
    let store = STORE.get_or_init(|| Arc::new(InMemoryStateStore::new()));
    Arc::clone(store) as Arc<dyn StateStore>
}

/// `time` in milliseconds since the Unix epoch (0 before it).
pub(super) fn millis(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH).map_or(0, |since| {
        u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
    })
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use crate::mcp::server::suspend::state_store::*;

    #[test]
    fn a_state_is_used_once_and_forgotten_when_it_expires() {
        let store = InMemoryStateStore::new();
        let later = SystemTime::now() + Duration::from_secs(60);
        assert!(store.record("a", later));
        assert!(!store.record("a", later));
        assert!(store.record("b", later));
        // Expired records go at the next use; an expired state never gets this far.
        let store = InMemoryStateStore::new();
        assert!(store.record("old", SystemTime::now() - Duration::from_secs(1)));
        assert!(store.record("new", later));
        assert_eq!(store.len(), 1);
    }

    #[test]
    fn past_its_cap_the_store_refuses_what_it_can_no_longer_tell() {
        let store = InMemoryStateStore::with_capacity(2);
        // One instant: a replayed state carries the very expiry it was sealed with.
        let now = SystemTime::now();
        let at = |seconds| now + Duration::from_secs(seconds);
        assert!(store.record("a", at(10)));
        assert!(store.record("b", at(20)));
        // Full: `a` is dropped, and with it every state expiring no later than it.
        assert!(store.record("c", at(30)));
        assert_eq!(store.len(), 2);
        assert!(!store.record("a", at(10)), "a replay of a dropped record");
        assert!(!store.record("d", at(5)), "older than what is remembered");
        assert!(!store.record("b", at(20)), "still remembered");
        // Expiring before everything remembered: refused, and nothing is forgotten for it.
        assert!(!store.record("f", at(15)));
        assert_eq!(store.len(), 2);
        assert!(!store.record("b", at(20)), "still remembered");
        assert!(store.record("e", at(40)));
    }
}
