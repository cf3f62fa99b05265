//! [`InMemoryConversations`]: the conversations of one process, the default store.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use super::{ClaimedRun, Conversation, ConversationError, ConversationStore};
use crate::tool::future::BoxFuture;

/// The conversations of this process, behind one mutex: the default [`ConversationStore`].
///
/// A save compares versions and a claim takes a parked run out under the lock, so of two
/// tasks saving over the same version, or claiming the same parked run, at the same moment
/// one succeeds and the other is refused. Nothing expires and nothing outlives the process;
/// replicas share conversations through `RedisConversations` (feature `redis`).
///
/// ```
/// use toolnexus::client::{
///     Conversation, ConversationError, ConversationStore, InMemoryConversations, Message,
/// };
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let store = InMemoryConversations::new();
/// let hi = Conversation { messages: vec![Message::user("Hi")], ..Conversation::default() };
/// store.save("c-1", &hi).await.unwrap();
/// let stored = store.get("c-1").await.unwrap().unwrap();
/// assert_eq!((stored.messages.len(), stored.version), (1, 1));
/// assert_eq!(store.get("c-2").await.unwrap(), None);
///
/// // A second save over version 0 would overwrite the first: it is refused.
/// let hello = Conversation { messages: vec![Message::user("Hello")], ..Conversation::default() };
/// let refused = store.save("c-1", &hello).await.unwrap_err();
/// assert_eq!(refused, ConversationError::Changed { id: "c-1".into() });
/// assert_eq!(store.get("c-1").await.unwrap(), Some(stored));
/// # });
/// ```
#[derive(Debug, Default)]
pub struct InMemoryConversations {
    entries: Mutex<HashMap<String, Entry>>,
}

/// A conversation, and whether its last parked run was claimed.
#[derive(Debug)]
struct Entry {
    conversation: Conversation,
    resumed: bool,
}

impl InMemoryConversations {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn with_entries<T>(&self, act: impl FnOnce(&mut HashMap<String, Entry>) -> T) -> T {
        // A panic elsewhere while holding the lock leaves whole entries: no change below can
        // panic halfway (a version only grows by one per write, so it never overflows).
        act(&mut self.entries.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

impl ConversationStore for InMemoryConversations {
    fn get<'a>(
        &'a self,
        id: &'a str,
    ) -> BoxFuture<'a, Result<Option<Conversation>, ConversationError>> {
        let found = self.with_entries(|entries| entries.get(id).map(|e| e.conversation.clone()));
        Box::pin(async move { Ok(found) })
    }

    fn save<'a>(
        &'a self,
        id: &'a str,
        conversation: &'a Conversation,
    ) -> BoxFuture<'a, Result<(), ConversationError>> {
        let saved = self.with_entries(|entries| {
            let stored = entries.get(id);
            if stored.map_or(0, |entry| entry.conversation.version) != conversation.version {
                return Err(ConversationError::Changed { id: id.to_owned() });
            }
            // Without a new parked run, the record that the last one was claimed stays: a
            // late second resume still hears "already resumed".
            let resumed =
                conversation.parked.is_none() && stored.is_some_and(|entry| entry.resumed);
            let entry = Entry {
                conversation: Conversation {
                    version: conversation.version + 1,
                    ..conversation.clone()
                },
                resumed,
            };
            entries.insert(id.to_owned(), entry);
            Ok(())
        });
        Box::pin(async move { saved })
    }

    fn claim_parked<'a>(
        &'a self,
        id: &'a str,
    ) -> BoxFuture<'a, Result<ClaimedRun, ConversationError>> {
        let claimed = self.with_entries(|entries| {
            let Some(entry) = entries.get_mut(id) else {
                return Err(ConversationError::NotParked { id: id.to_owned() });
            };
            if let Some(run) = entry.conversation.parked.take() {
                entry.resumed = true;
                entry.conversation.version += 1;
                Ok(ClaimedRun {
                    run,
                    version: entry.conversation.version,
                })
            } else if entry.resumed {
                Err(ConversationError::AlreadyResumed { id: id.to_owned() })
            } else {
                Err(ConversationError::NotParked { id: id.to_owned() })
            }
        });
        Box::pin(async move { claimed })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::client::outcome::RunResult;

    fn parked() -> RunResult {
        serde_json::from_value(serde_json::json!({
            "text": "", "messages": [], "toolCalls": [], "toolCallCount": 0, "turns": 1,
            "usage": {"inputTokens": 0, "outputTokens": 0}, "model": "m", "status": "pending"
        }))
        .unwrap()
    }

    #[test]
    fn of_many_claims_at_once_exactly_one_gets_the_parked_run() {
        let store = Arc::new(InMemoryConversations::new());
        let conversation = Conversation {
            parked: Some(parked()),
            ..Conversation::default()
        };
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        runtime.block_on(store.save("c", &conversation)).unwrap();
        let claims: Vec<_> = (0..8)
            .map(|_| {
                let store = Arc::clone(&store);
                std::thread::spawn(move || {
                    let runtime = tokio::runtime::Builder::new_current_thread()
                        .build()
                        .unwrap();
                    runtime.block_on(store.claim_parked("c"))
                })
            })
            .collect::<Vec<_>>()
            .into_iter()
            .map(|claim| claim.join().unwrap())
            .collect();
        assert_eq!(claims.iter().filter(|claim| claim.is_ok()).count(), 1);
        for refused in claims.iter().filter_map(|claim| claim.as_ref().err()) {
            assert_eq!(
                refused.to_string(),
                "conversation `c` did not resume: its parked run was already resumed"
            );
        }
        let none = runtime.block_on(store.claim_parked("other")).unwrap_err();
        assert_eq!(none, ConversationError::NotParked { id: "other".into() });
    }
}
