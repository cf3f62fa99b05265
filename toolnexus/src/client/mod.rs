//! The run (SPEC §16): the loop that calls a model, runs the tool calls it makes and feeds
//! their results back, until the model answers — on any [`Model`], with the four HTTP APIs
//! behind the feature `client`.
//!
//! ```
//! use toolnexus::client::{Client, Model, ModelError, ModelRequest, Reply, Status};
//! use toolnexus::{Api, BoxFuture, ToolCall, Toolkit, tool, tools};
//!
//! /// Adds two numbers.
//! #[tool]
//! fn add(a: i64, b: i64) -> i64 { a + b }
//!
//! /// A stand-in model: calls `add` once, then answers with what it read.
//! struct Scripted;
//!
//! impl Model for Scripted {
//!     fn api(&self) -> Api { Api::OpenAiChat }
//!     fn name(&self) -> &str { "scripted" }
//!     fn reply<'a>(&'a self, request: ModelRequest<'a>) -> BoxFuture<'a, Result<Reply, ModelError>> {
//!         let reply = match request.messages.last() {
//!             Some(toolnexus::client::Message::Tool { results }) => Reply {
//!                 text: format!("2 + 2 = {}", results[0].result.output),
//!                 ..Reply::default()
//!             },
//!             _ => Reply {
//!                 tool_calls: vec![ToolCall { id: "c1".into(), name: "add".into(), arguments: r#"{"a":2,"b":2}"#.into() }],
//!                 ..Reply::default()
//!             },
//!         };
//!         Box::pin(async move { Ok(reply) })
//!     }
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let toolkit = Toolkit::new().with_all(tools![add]);
//! let result = Client::with_model(Scripted).run("What is 2 + 2?", &toolkit).await.unwrap();
//! assert_eq!(result.status, Status::Done);
//! assert_eq!(result.text, "2 + 2 = 4");
//! assert_eq!((result.turns, result.tool_call_count), (2, 1));
//! # });
//! ```

mod compact;
mod conversations;
mod estimate;
mod hooks;
#[cfg(feature = "client")]
mod http;
mod limits;
pub(crate) mod message;
pub(crate) mod model;
mod outcome;
mod park;
mod retry;
mod run;
mod stream;
#[cfg(feature = "tracing")]
mod trace;
mod turn;
mod typed;

pub use crate::provider::transcript::request_body_for;
/// Each API's wire for a run: the request body rendered from the transcript, and the reply
/// read back whole or from its server-sent events (what an HTTP transport, or a user's own,
/// sends and reads).
pub use crate::provider::transcript::{
    ReplyStream, SseDecoder, SseEvent, read_reply, request_body,
};
pub use compact::{Compactor, Summarize};
#[cfg(feature = "redis")]
pub use conversations::RedisConversations;
pub use conversations::{
    ClaimedRun, Conversation, ConversationError, ConversationRun, ConversationRunError,
    ConversationStore, InMemoryConversations,
};
pub use estimate::{Estimate, TokenCounter, estimate_tokens};
pub use hooks::ToolDecision;
#[cfg(feature = "client")]
pub use http::{HttpModel, MissingApiKey};
pub use message::{Echo, Message, ToolReturn, Usage};
pub use model::AnswerSchema;
pub use model::{BoxStream, Model, ModelError, ModelEvent, ModelRequest, Reply};
pub use outcome::{Event, Limit, ParkedTurn, RunError, RunResult, Status, ToolCallRecord};
pub use typed::Typed;

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::tool::cancel::CancelSignal;
use crate::tool::context::ToolContext;

/// Runs the tool-calling loop (SPEC §16) on a [`Model`]: built once, used for any number of
/// runs ([`run`](Self::run), [`stream`](Self::stream), [`resume`](Self::resume)). Cheap to
/// clone.
///
/// Defaults: no system prompt, `max_turns` 10, no limit on tool calls, tokens or time,
/// 2 retries of a failed model call from 500 ms; a suspension parks the run.
#[derive(Clone)]
pub struct Client {
    model: Arc<dyn Model>,
    system: Option<String>,
    budgets: Budgets,
    tool_context: ToolContext,
    hooks: hooks::Hooks,
    /// The HTTP model `model` is, for [`Client::new`]'s settings (`base_url`, `api_key`, …)
    /// to change; `None` for [`Client::with_model`]'s.
    #[cfg(feature = "client")]
    http: Option<HttpModel>,
    conversations: Arc<dyn ConversationStore>,
}

/// The limits of one run.
#[derive(Clone, Debug)]
struct Budgets {
    max_turns: u32,
    max_tool_calls: Option<usize>,
    max_tokens: Option<u64>,
    timeout: Option<Duration>,
    cancel: Option<CancelSignal>,
    retries: u32,
    retry_backoff: Duration,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("api", &self.model.api())
            .field("model", &self.model.name())
            .field("system", &self.system)
            .field("budgets", &self.budgets)
            .finish_non_exhaustive()
    }
}

impl Client {
    /// A client that sends each turn to `model`: a scripted stand-in, an engine in process, or
    /// any transport of your own. Needs no feature, no HTTP and no TLS.
    pub fn with_model(model: impl Model + 'static) -> Self {
        Self {
            model: Arc::new(model),
            system: None,
            budgets: Budgets {
                max_turns: 10,
                max_tool_calls: None,
                max_tokens: None,
                timeout: None,
                cancel: None,
                retries: 2,
                retry_backoff: Duration::from_millis(500),
            },
            tool_context: ToolContext::default(),
            hooks: hooks::Hooks::default(),
            #[cfg(feature = "client")]
            http: None,
            conversations: Arc::new(InMemoryConversations::new()),
        }
    }

    /// The model this client sends its turns to.
    pub fn model(&self) -> &dyn Model {
        self.model.as_ref()
    }

    /// The system prompt: the first message of every run.
    #[must_use]
    pub fn system(mut self, text: impl Into<String>) -> Self {
        self.system = Some(text.into());
        self
    }

    /// How many times a run may call the model (default 10); a run that has made that many
    /// calls and is still given tool calls ends [`Incomplete`](Status::Incomplete) with
    /// [`Limit::MaxTurns`], the last turn's results in its transcript. Retries of one call are
    /// not counted as turns.
    #[must_use]
    pub fn max_turns(mut self, turns: u32) -> Self {
        self.budgets.max_turns = turns;
        self
    }

    /// How many tool calls a run may make (default: no limit). A turn that asks for more runs
    /// the calls that fit, in call order; each call past the limit is answered with an error
    /// result saying it was not run (so every call in the transcript has its result, as each
    /// API requires), is not a [`ToolCallRecord`], and the run ends
    /// [`Incomplete`](Status::Incomplete) with [`Limit::MaxToolCalls`] after that turn.
    #[must_use]
    pub fn max_tool_calls(mut self, calls: usize) -> Self {
        self.budgets.max_tool_calls = Some(calls);
        self
    }

    /// How many tokens a run may use, input and output summed over its turns (default: no
    /// limit). Once reached, the run ends [`Incomplete`](Status::Incomplete) with
    /// [`Limit::MaxTokens`] instead of calling the model again; a reply without tool calls
    /// still ends it [`Done`](Status::Done).
    #[must_use]
    pub fn max_tokens(mut self, tokens: u64) -> Self {
        self.budgets.max_tokens = Some(tokens);
        self
    }

    /// How long a whole run may take (default: no limit), counted from its start (a resumed
    /// run counts from the resume). A model call in flight is dropped; tool calls in flight
    /// are cancelled and their results kept; the run ends [`Incomplete`](Status::Incomplete)
    /// with [`Limit::Timeout`], everything that ran in its transcript. A hook, a
    /// `before_model` aside, runs to its end: the limit is seen once it returns.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.budgets.timeout = Some(timeout);
        self
    }

    /// A signal that ends the client's runs: cancelling it ends them as [`timeout`](Self::timeout)
    /// does, with [`Limit::Cancelled`].
    ///
    /// ```
    /// use toolnexus::client::Client;
    /// use toolnexus::context::CancelSignal;
    /// # fn with(client: Client) {
    /// let stop = CancelSignal::default();
    /// let client = client.cancel(stop.clone());
    /// stop.cancel(); // from anywhere: the next await of the run ends it
    /// # }
    /// ```
    #[must_use]
    pub fn cancel(mut self, signal: CancelSignal) -> Self {
        self.budgets.cancel = Some(signal);
        self
    }

    /// How many times a failed model call is made again when its error is
    /// [`retryable`](ModelError::retryable) (default 2). A streamed turn is retried only if it
    /// failed before yielding anything.
    #[must_use]
    pub fn retries(mut self, retries: u32) -> Self {
        self.budgets.retries = retries;
        self
    }

    /// The wait before the first retry (default 500 ms), doubled for each next one, with
    /// jitter (between half and all of it); a provider's
    /// [`retry_after`](ModelError::retry_after) is waited instead. Never more than 60 s.
    #[must_use]
    pub fn retry_backoff(mut self, wait: Duration) -> Self {
        self.budgets.retry_backoff = wait;
        self
    }

    /// The context each tool call runs with: its per-call `timeout`, `extensions`, `progress`
    /// (default: [`ToolContext::default`]). Its `cancel` is replaced by the run's own, which
    /// the run's [`cancel`](Self::cancel) signal and [`timeout`](Self::timeout) fire.
    #[must_use]
    pub fn tool_context(mut self, ctx: ToolContext) -> Self {
        self.tool_context = ctx;
        self
    }
}
