//! What a run sends a turn to (SPEC §16): the object-safe [`Model`] trait, the request it is
//! given ([`ModelRequest`]) and what it answers ([`Reply`], or [`ModelEvent`]s when streamed).

use std::pin::Pin;
use std::time::Duration;

use futures_core::Stream;
use serde_json::{Map, Value};

use crate::client::message::{Echo, Message, Usage};
use crate::provider::tool_call::{Api, ToolCall};
use crate::tool::future::BoxFuture;

/// A boxed stream that can move between threads: what [`Model::stream`] returns.
pub type BoxStream<'a, T> = Pin<Box<dyn Stream<Item = T> + Send + 'a>>;

/// One turn's request: the transcript so far and the tool definitions, in [`Model::api`]'s
/// shape (what [`Toolkit::definitions`](crate::Toolkit::definitions) returns for it), and in a
/// typed run the schema the final answer must fit.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct ModelRequest<'a> {
    /// The transcript, system prompt first.
    pub messages: &'a [Message],
    /// The tool definitions, in [`Model::api`]'s shape.
    pub tools: &'a Value,
    /// The schema of the final answer, in a [`run_typed`](crate::client::Client::run_typed)
    /// run; `None` otherwise. [`request_body_for`](crate::client::request_body_for) renders it
    /// by the API's own means.
    pub answer: Option<&'a AnswerSchema>,
}

impl<'a> ModelRequest<'a> {
    /// A request of `messages` and `tools`, asking for no particular answer.
    pub fn new(messages: &'a [Message], tools: &'a Value) -> Self {
        Self {
            messages,
            tools,
            answer: None,
        }
    }

    /// The request asking for a final answer in `answer`'s schema.
    #[must_use]
    pub fn with_answer(mut self, answer: &'a AnswerSchema) -> Self {
        self.answer = Some(answer);
        self
    }
}

/// The schema a typed run's final answer must fit (SPEC §16B), as one API is sent it: built
/// by [`AnswerSchema::of`] from a Rust type through that API's §11 profile.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct AnswerSchema {
    /// The answer's name, `[a-zA-Z0-9_-]`, at most 64 characters: the type's schema name
    /// (Chat's `json_schema.name`, Responses' `format.name`, Anthropic's answer tool).
    pub name: String,
    /// The schema, rewritten by the API's profile.
    pub schema: Map<String, Value>,
}

/// A model's whole answer to one turn.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reply {
    /// The text (empty when the model only called tools).
    pub text: String,
    /// The tool calls, in the order the model made them.
    pub tool_calls: Vec<ToolCall>,
    /// Tokens this turn used.
    pub usage: Usage,
    /// Why the model stopped, in the API's own words (`stop`, `tool_calls`, `end_turn`, …).
    pub finish_reason: Option<String>,
    /// What the API needs to see again on the next turn.
    pub echo: Option<Echo>,
}

/// What a streamed turn yields: text as it comes, each tool call once its arguments are
/// complete, then the whole [`Reply`], equal to what the same turn unstreamed returns.
#[derive(Clone, Debug, PartialEq)]
pub enum ModelEvent {
    /// A piece of the reply's text.
    Text(String),
    /// A tool call whose arguments are complete.
    ToolCall(ToolCall),
    /// The whole reply; the last event of a turn.
    Done(Reply),
}

/// Why a model call failed: the HTTP status when there was one, the provider's own message,
/// and whether trying again may help.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelError {
    /// The HTTP status, when the provider answered with one.
    pub status: Option<u16>,
    /// The provider's own message, or what went wrong on the way.
    pub message: String,
    /// Whether the same call may succeed if made again (429, 5xx, a dropped connection, a
    /// timeout).
    pub retryable: bool,
    /// How long the provider asked to wait before trying again (`Retry-After`).
    pub retry_after: Option<Duration>,
}

impl ModelError {
    /// A failure that trying again will not fix.
    pub fn fatal(message: impl Into<String>) -> Self {
        Self {
            status: None,
            message: message.into(),
            retryable: false,
            retry_after: None,
        }
    }

    /// A failure that may pass: the call is made again (within the client's retries).
    pub fn transient(message: impl Into<String>) -> Self {
        Self {
            retryable: true,
            ..Self::fatal(message)
        }
    }

    /// A provider's answer with HTTP `status`: retryable for 429 and 5xx, fatal otherwise.
    pub fn http(status: u16, message: impl Into<String>) -> Self {
        Self {
            status: Some(status),
            retryable: status == 429 || status >= 500,
            ..Self::fatal(message)
        }
    }

    /// Sets how long to wait before trying again.
    #[must_use]
    pub fn with_retry_after(mut self, wait: Duration) -> Self {
        self.retry_after = Some(wait);
        self
    }
}

/// What a run sends a turn to: one of the four HTTP APIs (feature `client`), a scripted
/// stand-in in a test, or an engine in process. Object safe: a [`Client`](crate::client::Client)
/// holds a `Box<dyn Model>`.
///
/// A model that cannot stream keeps the default [`stream`](Self::stream), which fails the
/// turn with an error saying so, never by faking a stream.
pub trait Model: Send + Sync {
    /// The API whose tool definitions this model is sent (and whose shapes it speaks).
    fn api(&self) -> Api;

    /// The model's name, as the run reports it ([`RunResult::model`](crate::client::RunResult::model)).
    fn name(&self) -> &str;

    /// Answers one turn.
    fn reply<'a>(&'a self, request: ModelRequest<'a>) -> BoxFuture<'a, Result<Reply, ModelError>>;

    /// Answers one turn as it is written: text pieces and complete tool calls, then
    /// [`ModelEvent::Done`] with the whole reply.
    fn stream<'a>(
        &'a self,
        request: ModelRequest<'a>,
    ) -> BoxStream<'a, Result<ModelEvent, ModelError>> {
        let _ = request;
        let refusal = ModelError::fatal(format!("model `{}` cannot stream", self.name()));
        Box::pin(Once(Some(Err(refusal))))
    }
}

/// A stream of one item.
struct Once<T>(Option<T>);

impl<T: Unpin> Stream for Once<T> {
    type Item = T;

    fn poll_next(
        mut self: Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<T>> {
        std::task::Poll::Ready(self.0.take())
    }
}
