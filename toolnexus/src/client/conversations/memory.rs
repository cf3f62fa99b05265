//! [`InMemoryConversations`]: the conversations of one process, the default store.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use super::{Conversation, ConversationError, ConversationStore};
use crate::client::outcome::RunResult;
use crate::tool::future::BoxFuture;

/// The conversations of this process, behind one mutex: the default [`ConversationStore`].
///
/// A claim of a parked run takes it out under the lock, so of two tasks claiming it at the
/// same moment one gets it and the other is refused. Nothing expires and nothing outlives the
/// process; replicas share conversations through `RedisConversations` (feature `redis`).
///
/// ```
/// use toolnexus::client::{Conversation, ConversationStore, InMemoryConversations, Message};
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let store = InMemoryConversations::new();
/// let conversation = Conversation { messages: vec![Message::user("Hi")], parked: None };
/// store.save("c-1", &conversation).await.unwrap();
/// assert_eq!(store.get("c-1").await.unwrap(), Some(conversation));
/// assert_eq!(store.get("c-2").await.unwrap(), None);
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
        // A panic elsewhere while holding the lock leaves whole entries: each change below is
        // one assignment.
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
        self.with_entries(|entries| {
            // Without a new parked run, the record that the last one was claimed stays: a
            // late second resume still hears "already resumed".
            let resumed =
                conversation.parked.is_none() && entries.get(id).is_some_and(|entry| entry.resumed);
            let entry = Entry {
                conversation: conversation.clone(),
                resumed,
            };
            entries.insert(id.to_owned(), entry);
        });
        Box::pin(async move { Ok(()) })
    }

    fn claim_parked<'a>(
        &'a self,
        id: &'a str,
    ) -> BoxFuture<'a, Result<RunResult, ConversationError>> {
        let claimed = self.with_entries(|entries| {
            let Some(entry) = entries.get_mut(id) else {
                return Err(ConversationError::NotParked { id: id.to_owned() });
            };
            if let Some(parked) = entry.conversation.parked.take() {
                entry.resumed = true;
                Ok(parked)
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
            messages: Vec::new(),
            parked: Some(parked()),
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
