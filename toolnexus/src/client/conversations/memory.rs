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
        let entry = Entry {
            conversation: conversation.clone(),
            resumed: false,
        };
        self.with_entries(|entries| entries.insert(id.to_owned(), entry));
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
