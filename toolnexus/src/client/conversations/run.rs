//! `client.conversation(id)`: runs that continue a stored conversation, and the once-only
//! resume of its parked run (SPEC §16B).

use std::fmt;
use std::sync::Arc;

use super::{Conversation, ConversationError, ConversationStore};
use crate::client::message::Message;
use crate::client::outcome::{RunError, RunResult, Status};
use crate::result::suspend::Answer;
use crate::toolkit::Toolkit;

use super::super::Client;

impl Client {
    /// Keeps conversations in `store` (default: an [`InMemoryConversations`](super::InMemoryConversations)
    /// of this client and its clones); a `RedisConversations` (feature `redis`) shares them
    /// between processes and replicas.
    #[must_use]
    pub fn conversations(mut self, store: Arc<dyn ConversationStore>) -> Self {
        self.conversations = store;
        self
    }

    /// The conversation `id` in this client's store: [`run`](ConversationRun::run) continues
    /// it, [`resume`](ConversationRun::resume) resumes its parked run, once.
    pub fn conversation(&self, id: impl Into<String>) -> ConversationRun<'_> {
        ConversationRun {
            client: self,
            id: id.into(),
        }
    }
}

/// One stored conversation, on one [`Client`]: see [`Client::conversation`].
///
/// ```
/// use toolnexus::Toolkit;
/// use toolnexus::client::{Client, Model, ModelError, ModelRequest, Reply};
/// use toolnexus::{Api, BoxFuture};
///
/// /// Answers with how many user messages it was sent.
/// struct Counting;
/// impl Model for Counting {
///     fn api(&self) -> Api { Api::OpenAiChat }
///     fn name(&self) -> &str { "counting" }
///     fn reply<'a>(&'a self, request: ModelRequest<'a>) -> BoxFuture<'a, Result<Reply, ModelError>> {
///         let users = request.messages.iter()
///             .filter(|m| matches!(m, toolnexus::client::Message::User { .. }))
///             .count();
///         Box::pin(async move { Ok(Reply { text: users.to_string(), ..Reply::default() }) })
///     }
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let client = Client::with_model(Counting).system("Count.");
/// let toolkit = Toolkit::new();
/// assert_eq!(client.conversation("c-1").run("one", &toolkit).await.unwrap().text, "1");
/// assert_eq!(client.conversation("c-1").run("two", &toolkit).await.unwrap().text, "2");
/// assert_eq!(client.conversation("c-2").run("one", &toolkit).await.unwrap().text, "1");
/// # });
/// ```
#[derive(Debug)]
pub struct ConversationRun<'c> {
    client: &'c Client,
    id: String,
}

impl ConversationRun<'_> {
    /// Runs `prompt` after the stored transcript (its system messages replaced by this
    /// client's system prompt), then saves the run's transcript — and the run itself when it
    /// parks, for [`resume`](Self::resume). A conversation waiting on a parked run is refused
    /// (resume it first), and so is a store that does not answer; a run that fails leaves
    /// the stored conversation as it was. A result the store could not save is
    /// [`ConversationRunError::NotSaved`], carrying it.
    ///
    /// **Two runs of one conversation at once** (two replicas, two tabs) both read the same
    /// [version](super::Conversation::version) and run; the first to save wins, and the other's
    /// save is refused: [`ConversationRunError::NotSaved`] with
    /// [`ConversationError::Changed`], carrying that run's [`RunResult`]. Nothing stored is
    /// overwritten — in particular not a run the other one parked on a human, which stays
    /// resumable, once. The refused turn is the caller's to show, retry on the new transcript
    /// or drop; nothing is lost silently. Serve one conversation from one place at a time (a
    /// per-id lock or queue) where refusals should not happen.
    pub async fn run(
        &self,
        prompt: impl Into<String>,
        toolkit: &Toolkit,
    ) -> Result<RunResult, ConversationRunError> {
        let store = &self.client.conversations;
        let stored = store.get(&self.id).await?.unwrap_or_default();
        if let Some(parked) = &stored.parked {
            return Err(ConversationRunError::Parked {
                id: self.id.clone(),
                request: parked.pending.as_ref().map(|r| r.id.clone()),
            });
        }
        // Calls without their results: a resume claimed the parked run and has not saved yet
        // (or died doing so). Every API refuses such a history, so the run is refused here.
        if matches!(
            stored.messages.last(),
            Some(Message::Assistant { tool_calls, .. }) if !tool_calls.is_empty()
        ) {
            return Err(ConversationRunError::Resuming {
                id: self.id.clone(),
            });
        }
        let history = stored
            .messages
            .into_iter()
            .skip_while(|message| matches!(message, Message::System { .. }))
            .collect();
        let result = self
            .client
            .run_with_history(history, prompt, toolkit)
            .await
            .map_err(|error| ConversationRunError::Run(Box::new(error)))?;
        self.keep(result, stored.version).await
    }

    /// Resumes the conversation's parked run with `answer`, once across every process that
    /// shares the store: the parked run is claimed
    /// ([`ConversationStore::claim_parked`]) before anything runs, so a second resume — here
    /// or on another replica — is refused ([`ConversationError::AlreadyResumed`]) and the
    /// suspended tool does not run again. A store that does not answer refuses the resume
    /// and keeps the parked run for the next try; so does an answer the run refuses (its
    /// `id` is not the pending request's): the parked run is put back, nothing ran.
    ///
    /// A resumed run that then fails (the model out of reach) is a
    /// [`ConversationRunError::Run`], and what ran is saved too — the transcript up to the
    /// failure, the tool's result in it — so the conversation goes on from there with
    /// [`run`](Self::run), and the tool is not run again. What "once" means when a process
    /// dies mid-resume is said on [`ConversationStore`].
    ///
    /// Each of these saves is made over the version the claim left
    /// ([`ClaimedRun::version`](super::ClaimedRun::version)): if anything was saved in
    /// between (a run that read the conversation after the claim and saved first), it is
    /// refused with [`ConversationError::Changed`] as [`ConversationRunError::NotSaved`],
    /// carrying the resumed run's result, and what was saved in between is kept.
    pub async fn resume(
        &self,
        answer: Answer,
        toolkit: &Toolkit,
    ) -> Result<RunResult, ConversationRunError> {
        let store = &self.client.conversations;
        let claimed = store.claim_parked(&self.id).await?;
        match self.client.resume(claimed.run, answer, toolkit).await {
            Ok(result) => self.keep(result, claimed.version).await,
            Err(error) => {
                // Refused before anything ran, the parked run comes back unchanged; failed
                // after the tool ran, the transcript so far is kept, so neither is lost.
                let so_far = (*error.so_far).clone();
                self.keep(so_far, claimed.version).await?;
                Err(ConversationRunError::Run(Box::new(error)))
            }
        }
    }

    /// Saves `result`'s transcript, and `result` itself when it is parked, over `version` (the
    /// one its run started from); gives it back, or carries it in the error when the store
    /// refused it.
    async fn keep(
        &self,
        result: RunResult,
        version: u64,
    ) -> Result<RunResult, ConversationRunError> {
        let conversation = Conversation {
            messages: result.messages.clone(),
            parked: (result.status == Status::Pending).then(|| result.clone()),
            version,
        };
        match self
            .client
            .conversations
            .save(&self.id, &conversation)
            .await
        {
            Ok(()) => Ok(result),
            Err(error) => Err(ConversationRunError::NotSaved {
                error,
                result: Box::new(result),
            }),
        }
    }
}

/// Why [`ConversationRun::run`] or [`ConversationRun::resume`] did not give a result.
#[derive(Debug)]
#[non_exhaustive]
pub enum ConversationRunError {
    /// The store refused before anything ran: not answering, a parked run already resumed,
    /// none to resume.
    Store(ConversationError),
    /// The run ended (or was refused and its parked run is to be put back) but the store
    /// did not save it — it did not answer, or another run saved the conversation first
    /// ([`ConversationError::Changed`]; what that run stored is kept): the result is here, for
    /// the caller to keep or [`save`](ConversationStore::save) again over the version a
    /// [`get`](ConversationStore::get) gives now — a parked run in it is resumable once saved.
    NotSaved {
        /// Why the store refused.
        error: ConversationError,
        /// What was to be saved.
        result: Box<RunResult>,
    },
    /// The conversation waits on a parked run: [`resume`](ConversationRun::resume) it
    /// before running another prompt.
    Parked {
        /// The conversation's id.
        id: String,
        /// The id of the request it waits on.
        request: Option<String>,
    },
    /// The conversation's parked run was claimed by a resume that has not saved its result
    /// yet: its calls have no results, which no API takes. Try again once the resume is done;
    /// if the process resuming it died, settle it as [`ConversationStore`] says.
    Resuming {
        /// The conversation's id.
        id: String,
    },
    /// The run failed (or refused the answer), as [`Client::run`] and [`Client::resume`] do.
    Run(Box<RunError>),
}

impl From<ConversationError> for ConversationRunError {
    fn from(error: ConversationError) -> Self {
        Self::Store(error)
    }
}

impl fmt::Display for ConversationRunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Store(error @ ConversationError::Unavailable { .. }) => write!(
                f,
                "{error}; nothing ran, and what was stored is kept for the next try"
            ),
            Self::Store(error) => write!(f, "{error}; nothing ran"),
            Self::NotSaved { error, .. } => write!(
                f,
                "{error}; the run's result was not saved: this error carries it"
            ),
            Self::Parked { id, request } => write!(
                f,
                "conversation `{id}` waits on request `{}`: resume it before running another prompt",
                request.as_deref().unwrap_or("?")
            ),
            Self::Resuming { id } => write!(
                f,
                "conversation `{id}` is being resumed (its calls have no results yet): try again \
                 once the resume is done; nothing ran"
            ),
            Self::Run(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for ConversationRunError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Store(error) | Self::NotSaved { error, .. } => Some(error),
            Self::Parked { .. } | Self::Resuming { .. } => None,
            Self::Run(error) => Some(error.as_ref()),
        }
    }
}
