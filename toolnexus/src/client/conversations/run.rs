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
    /// the stored conversation as it was.
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
        self.keep(&result).await?;
        Ok(result)
    }

    /// Resumes the conversation's parked run with `answer`, once across every process that
    /// shares the store: the parked run is claimed
    /// ([`ConversationStore::claim_parked`]) before anything runs, so a second resume — here
    /// or on another replica — is refused ([`ConversationError::AlreadyResumed`]) and the
    /// suspended tool does not run again. A store that does not answer refuses the resume
    /// and keeps the parked run for the next try; so does an answer the run refuses (its
    /// `id` is not the pending request's): the parked run is put back, nothing ran.
    pub async fn resume(
        &self,
        answer: Answer,
        toolkit: &Toolkit,
    ) -> Result<RunResult, ConversationRunError> {
        let store = &self.client.conversations;
        let parked = store.claim_parked(&self.id).await?;
        let result = match self.client.resume(parked, answer, toolkit).await {
            Ok(result) => result,
            // Refused before anything ran: the parked run comes back unchanged.
            Err(refused) if refused.so_far.parked.is_some() => {
                self.keep(&refused.so_far).await?;
                return Err(ConversationRunError::Run(Box::new(refused)));
            }
            Err(error) => return Err(ConversationRunError::Run(Box::new(error))),
        };
        self.keep(&result).await?;
        Ok(result)
    }

    /// Saves `result`'s transcript, and `result` itself when it is parked.
    async fn keep(&self, result: &RunResult) -> Result<(), ConversationError> {
        let conversation = Conversation {
            messages: result.messages.clone(),
            parked: (result.status == Status::Pending).then(|| result.clone()),
        };
        self.client
            .conversations
            .save(&self.id, &conversation)
            .await
    }
}

/// Why [`ConversationRun::run`] or [`ConversationRun::resume`] did not give a result.
#[derive(Debug)]
#[non_exhaustive]
pub enum ConversationRunError {
    /// The store refused: not answering, a parked run already resumed, none to resume.
    Store(ConversationError),
    /// The conversation waits on a parked run: [`resume`](ConversationRun::resume) it
    /// before running another prompt.
    Parked {
        /// The conversation's id.
        id: String,
        /// The id of the request it waits on.
        request: Option<String>,
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
            Self::Store(error) => error.fmt(f),
            Self::Parked { id, request } => write!(
                f,
                "conversation `{id}` waits on request `{}`: resume it before running another prompt",
                request.as_deref().unwrap_or("?")
            ),
            Self::Run(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for ConversationRunError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Store(error) => Some(error),
            Self::Parked { .. } => None,
            Self::Run(error) => Some(error.as_ref()),
        }
    }
}
