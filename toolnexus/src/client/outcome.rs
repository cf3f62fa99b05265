//! What a run ends with (SPEC §16): [`RunResult`] and its [`Status`], the budget that ended it
//! ([`Limit`]), the [`Event`]s of a streamed run, and [`RunError`].

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::client::message::{Message, Usage};
use crate::provider::tool_call::{Api, ToolCall};
use crate::result::ToolResult;
use crate::result::suspend::Request;
use crate::toolkit::run_state::RunState;

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Status {
    /// The model answered without calling a tool: [`RunResult::text`] is that answer.
    Done,
    /// A tool is waiting for a human: [`RunResult::pending`] says what it asks, and
    /// [`Client::resume`](crate::client::Client::resume) continues the run with the answer.
    Pending,
    /// A budget ended the run: [`RunResult::limit`] names which.
    Incomplete,
}

/// The budget that ended an [`Incomplete`](Status::Incomplete) run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Limit {
    /// As many model calls as `max_turns` allows (default 10) were made.
    MaxTurns,
    /// The model asked for more tool calls than `max_tool_calls` allows.
    MaxToolCalls,
    /// The tokens used, summed over the turns, reached `max_tokens`.
    MaxTokens,
    /// The whole run took longer than its `timeout`.
    Timeout,
    /// The run's cancel signal fired.
    Cancelled,
    /// A tool failed past its retry budget (SPEC §15B, [`RunState::exhausted`]).
    Retries,
}

/// One tool call a run made, in the order run: what the other ports report as `toolCalls`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallRecord {
    /// The tool's name.
    pub name: String,
    /// The arguments the model sent (a string when they were not JSON).
    pub args: Value,
    /// What the model read.
    pub output: String,
    /// Whether the call failed.
    pub is_error: bool,
    /// The result's metadata, when it had any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
}

/// The turn a [`Pending`](Status::Pending) run stopped in: what
/// [`Client::resume`](crate::client::Client::resume) needs to finish it without running again
/// what already ran.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ParkedTurn {
    /// The turn's tool calls, in call order.
    pub calls: Vec<ToolCall>,
    /// Their results so far, in call order: a suspended call's result is its suspension.
    pub results: Vec<ToolResult>,
    /// The run's state (retry counts, deferred tools a search loaded).
    pub run_state: RunState,
}

/// What a run returns: serde data in the shape the other ports return (camelCase), so a
/// parked run can be written to a file or a database and resumed in another process.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunResult {
    /// The final reply's text ([`Status::Done`]), else the last text the model wrote.
    pub text: String,
    /// The whole transcript, system prompt first.
    pub messages: Vec<Message>,
    /// Every tool call run, in the order run.
    pub tool_calls: Vec<ToolCallRecord>,
    /// How many tool calls ran.
    pub tool_call_count: usize,
    /// How many times the model was called.
    pub turns: u32,
    /// Tokens used, summed over the turns.
    pub usage: Usage,
    /// The model's name.
    pub model: String,
    /// How the run ended.
    pub status: Status,
    /// What the waiting tool asks, when [`Status::Pending`]: the first suspension in call
    /// order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending: Option<Request>,
    /// The budget that ended the run, when [`Status::Incomplete`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<Limit>,
    /// The turn a pending run stopped in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parked: Option<ParkedTurn>,
}

/// What a streamed run yields ([`Client::stream`](crate::client::Client::stream)).
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// A piece of the model's text.
    Text(String),
    /// A tool call, once its arguments are complete.
    ToolCall(ToolCall),
    /// A tool's result, by the call's id.
    ToolResult(String, ToolResult),
    /// The tokens one turn used.
    Usage(Usage),
    /// The run parks on this request.
    Pending(crate::result::suspend::Request),
    /// The run's end: the same [`RunResult`] [`Client::run`](crate::client::Client::run)
    /// returns for the same replies.
    Done(Box<RunResult>),
    /// The run failed; the last event.
    Error(Box<RunError>),
}

/// A run that could not go on: which API, the HTTP status and the provider's own message —
/// and everything the run had done, so nothing that ran is lost and the run can be retried
/// from there.
///
/// Never carries an API key.
#[derive(Clone, Debug, PartialEq)]
pub struct RunError {
    /// The API the failing call went to.
    pub api: Api,
    /// The HTTP status, when the provider answered with one.
    pub status: Option<u16>,
    /// The provider's own message, or what went wrong.
    pub message: String,
    /// The run up to the failure: its transcript and the tool calls that ran.
    pub so_far: Box<RunResult>,
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.status {
            Some(status) => write!(f, "{} answered HTTP {status}: {}", self.api, self.message),
            None => write!(f, "{}: {}", self.api, self.message),
        }
    }
}

impl std::error::Error for RunError {}
