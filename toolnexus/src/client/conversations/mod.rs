//! Conversations kept across runs and processes (SPEC §16B): the [`ConversationStore`] trait,
//! its stored [`Conversation`], and the once-only claim of a parked run.

mod memory;
#[cfg(feature = "redis")]
mod redis;
mod run;

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::client::message::Message;
use crate::client::outcome::RunResult;
use crate::tool::future::BoxFuture;

pub use memory::InMemoryConversations;
#[cfg(feature = "redis")]
pub use redis::RedisConversations;
pub use run::{ConversationRun, ConversationRunError};

/// One stored conversation: its transcript, and the run parked on a human, if one is.
///
/// Serde data (`{"messages": […], "parked": {…}}`, camelCase as [`RunResult`] is).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Conversation {
    /// The transcript so far, system prompt first.
    pub messages: Vec<Message>,
    /// The run that stopped [`Pending`](crate::client::Status::Pending), until it is claimed
    /// ([`ConversationStore::claim_parked`]) to be resumed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parked: Option<RunResult>,
}

/// Where conversations are kept by id, so that a conversation continues in a later run, in
/// another process or on another replica (SPEC §16B).
///
/// Object safe: a client holds an `Arc<dyn ConversationStore>`. [`InMemoryConversations`]
/// keeps them in this process; `RedisConversations` (feature `redis`) on a Redis every
/// replica shares.
///
/// **Once only.** A parked run is resumed once: [`claim_parked`](Self::claim_parked) takes it
/// out of the store in one atomic step, so of two claims of the same parked run at the same
/// moment — two tasks, or two processes on one Redis — exactly one gets it and the other is
/// refused with [`ConversationError::AlreadyResumed`]. A claim the store cannot answer is
/// refused ([`ConversationError::Unavailable`]) and leaves the parked run where it was, for
/// the next try.
pub trait ConversationStore: Send + Sync {
    /// The conversation `id`, or `None` when there is none (never saved, or expired).
    fn get<'a>(
        &'a self,
        id: &'a str,
    ) -> BoxFuture<'a, Result<Option<Conversation>, ConversationError>>;

    /// Saves `conversation` as `id`, replacing what was there; a parked run in it can be
    /// claimed once from then on.
    fn save<'a>(
        &'a self,
        id: &'a str,
        conversation: &'a Conversation,
    ) -> BoxFuture<'a, Result<(), ConversationError>>;

    /// Takes the parked run of conversation `id` out of the store, once: the first claim
    /// gets it, every later one is refused ([`ConversationError::AlreadyResumed`]) until a
    /// run is parked there again by [`save`](Self::save).
    fn claim_parked<'a>(
        &'a self,
        id: &'a str,
    ) -> BoxFuture<'a, Result<RunResult, ConversationError>>;
}

/// Why a [`ConversationStore`] refused.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConversationError {
    /// The parked run was claimed before: it is resumed once (as a used `requestState` is,
    /// SPEC §10B).
    AlreadyResumed {
        /// The conversation's id.
        id: String,
    },
    /// The conversation has no parked run (none was saved, or it expired).
    NotParked {
        /// The conversation's id.
        id: String,
    },
    /// The store did not answer (Redis out of reach): nothing was claimed or written, and a
    /// parked run is still there for the next try.
    Unavailable {
        /// The conversation's id.
        id: String,
        /// What the store said.
        reason: String,
    },
    /// What is stored under the id is not a conversation this crate wrote.
    Unreadable {
        /// The conversation's id.
        id: String,
        /// Why it could not be read.
        reason: String,
    },
}

impl fmt::Display for ConversationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::AlreadyResumed { id } => write!(
                f,
                "conversation `{id}` did not resume: its parked run was already resumed"
            ),
            Self::NotParked { id } => {
                write!(
                    f,
                    "conversation `{id}` did not resume: it has no parked run"
                )
            }
            Self::Unavailable { id, reason } => write!(
                f,
                "conversation `{id}`: the store did not answer ({reason}); nothing was resumed \
                 or written, and a parked run is kept for the next try"
            ),
            Self::Unreadable { id, reason } => {
                write!(f, "conversation `{id}` could not be read: {reason}")
            }
        }
    }
}

impl std::error::Error for ConversationError {}
