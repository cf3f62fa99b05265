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

/// One stored conversation: its transcript, the run parked on a human, if one is, and the
/// version it was read at.
///
/// Serde data (`{"messages": […], "parked": {…}, "version": 3}`, camelCase as [`RunResult`]
/// is). `version` defaults to 0, so a conversation serialized before it existed reads as
/// version 0, which is also what a store holding nothing under the id counts as.
///
/// **Versions.** [`ConversationStore::get`] gives the stored version;
/// [`save`](ConversationStore::save) writes only over that same version and stores the next
/// one, so a conversation read, changed and saved back never overwrites what another run
/// saved in between: that save is refused ([`ConversationError::Changed`]). A new
/// conversation starts from [`Conversation::default`] (version 0).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Conversation {
    /// The transcript so far, system prompt first.
    pub messages: Vec<Message>,
    /// The run that stopped [`Pending`](crate::client::Status::Pending), until it is claimed
    /// ([`ConversationStore::claim_parked`]) to be resumed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parked: Option<RunResult>,
    /// The stored version this conversation was read at (0: none stored); a save succeeds
    /// only while the store still holds this version, and stores `version + 1`.
    #[serde(default)]
    pub version: u64,
}

/// A parked run taken out of the store by [`ConversationStore::claim_parked`], and the
/// version the claim left the conversation at.
#[derive(Clone, Debug, PartialEq)]
pub struct ClaimedRun {
    /// The parked run, to be resumed.
    pub run: RunResult,
    /// The conversation's version after the claim: what resuming the run saves over (or
    /// putting it back, unchanged, as a parked run again). Any save made since the claim —
    /// by another run, or of a copy read before the claim — moved it on, so the resumed run's
    /// save is refused rather than overwriting it.
    pub version: u64,
}

/// Where conversations are kept by id, so that a conversation continues in a later run, in
/// another process or on another replica (SPEC §16B).
///
/// Object safe: a client holds an `Arc<dyn ConversationStore>`. [`InMemoryConversations`]
/// keeps them in this process; `RedisConversations` (feature `redis`) on a Redis every
/// replica shares.
///
/// **No save is lost to another.** Each stored conversation has a version
/// ([`Conversation::version`]): [`save`](Self::save) compares it with the version the
/// conversation was read at and writes in the same atomic step, so of two runs that read the
/// same version, the first to save wins and the other is refused
/// ([`ConversationError::Changed`]) with nothing written — in particular a run that parked on
/// a human in the meantime stays parked. [`claim_parked`](Self::claim_parked) moves the
/// version on too, so a copy read before a claim cannot put the claimed run back.
///
/// **Once only.** A parked run is resumed once: [`claim_parked`](Self::claim_parked) takes it
/// out of the store in one atomic step, so of two claims of the same parked run at the same
/// moment — two tasks, or two processes on one Redis — exactly one gets it and the other is
/// refused with [`ConversationError::AlreadyResumed`]. A claim the store cannot answer is
/// refused ([`ConversationError::Unavailable`]) and leaves the parked run where it was, for
/// the next try.
///
/// **Once means at most once.** The claim comes before the suspended tool runs, and the
/// result is saved after it; nothing makes the two one step. If the process resuming dies
/// between them (or loses the store before the save, or Redis applied the claim but its
/// reply was lost, which is reported as [`Unavailable`](ConversationError::Unavailable)),
/// the tool ran once or not at all, and the store cannot tell which: it keeps the
/// transcript as it was when the run parked (ending with the call that has no result), no
/// parked run, and the record that it was claimed — so every later resume is refused, and
/// every run too ([`ConversationRunError::Resuming`]), and nothing runs twice, but nothing
/// resumes it by itself either. What is left to the user:
/// find out from the tool's own record whether it ran (a tool worth an approval should keep
/// one, e.g. keyed by the request's id, `ctx.answer.id`); if it did not, [`save`](Self::save)
/// the parked run again (the [`RunResult`] the parking `run` returned, or one from a
/// [`get`](Self::get) made before the claim, at the version a [`get`](Self::get) gives now)
/// and resume it; if it did, save the transcript with the tool's result appended (a
/// [`Message::Tool`]) and go on with a new run. A process that stays alive is not left so: a
/// result it cannot save is handed back ([`ConversationRunError::NotSaved`]), and a resumed
/// run that fails afterwards saves what ran (see [`ConversationRun::resume`]).
pub trait ConversationStore: Send + Sync {
    /// The conversation `id` at its stored version, or `None` when there is none (never
    /// saved, or expired).
    fn get<'a>(
        &'a self,
        id: &'a str,
    ) -> BoxFuture<'a, Result<Option<Conversation>, ConversationError>>;

    /// Saves `conversation` as `id` if the store still holds
    /// [`conversation.version`](Conversation::version) (nothing stored counts as 0), as
    /// version `conversation.version + 1`; otherwise refuses with
    /// [`ConversationError::Changed`] and writes nothing. The comparison and the write are one
    /// atomic step. A parked run in it can be claimed once from then on.
    fn save<'a>(
        &'a self,
        id: &'a str,
        conversation: &'a Conversation,
    ) -> BoxFuture<'a, Result<(), ConversationError>>;

    /// Takes the parked run of conversation `id` out of the store, once, moving the
    /// conversation's version on by one: the first claim gets it, every later one is refused
    /// ([`ConversationError::AlreadyResumed`]) until a run is parked there again by
    /// [`save`](Self::save).
    fn claim_parked<'a>(
        &'a self,
        id: &'a str,
    ) -> BoxFuture<'a, Result<ClaimedRun, ConversationError>>;
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
    /// The save was refused: the stored conversation is no longer the version it was read
    /// at (another run saved it, or a parked run was claimed, or it expired). Nothing was
    /// written; what is stored — a parked run in it too — is as the other change left it.
    Changed {
        /// The conversation's id.
        id: String,
    },
    /// The store did not answer (Redis out of reach): nothing was claimed or written, and a
    /// parked run is still there for the next try — unless the store applied the command and
    /// only its reply was lost (see "at most once" on [`ConversationStore`]).
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
            Self::Changed { id } => write!(
                f,
                "conversation `{id}` changed since it was read (another run saved or resumed it): nothing was stored"
            ),
            Self::Unavailable { id, reason } => write!(f, "conversation `{id}`: {reason}"),
            Self::Unreadable { id, reason } => {
                write!(f, "conversation `{id}` could not be read: {reason}")
            }
        }
    }
}

impl std::error::Error for ConversationError {}
