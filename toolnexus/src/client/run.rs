//! The turn loop (SPEC §16): the transcript's start, each model call with its retries, the
//! budgets checked between turns, and how a run ends — done, incomplete or failed.

use std::collections::{BTreeSet, VecDeque};
use std::future::{Future, poll_fn};
use std::sync::{Arc, Mutex, PoisonError};

use crate::client::Client;
use crate::client::limits::{Watch, sleep};
use crate::client::message::{Message, Usage};
use crate::client::model::{AnswerSchema, ModelError, ModelEvent, ModelRequest, Reply};
use crate::client::outcome::{Event, Limit, RunError, RunResult, Status};
use crate::client::retry::wait_before_retry;
use crate::tool::cancel::CancelSignal;
use crate::tool::context::ToolContext;
use crate::toolkit::Toolkit;
use crate::toolkit::run_state::RunState;

/// Where a streamed run's events wait for the stream to yield them.
pub(crate) type Events = Arc<Mutex<VecDeque<Event>>>;

/// One run in progress: the client and toolkit it runs with and everything it has done.
pub(crate) struct Run<'a> {
    pub(crate) client: &'a Client,
    pub(crate) toolkit: &'a Toolkit,
    /// What the run returns, filled as it goes.
    pub(crate) result: RunResult,
    pub(crate) state: RunState,
    /// The tools' context; its cancel signal is the run's own, fired by the run's limits.
    pub(crate) ctx: ToolContext,
    pub(crate) watch: Watch,
    /// A limit reached while tools ran: the run ends after the turn.
    pub(crate) stopped: Option<Limit>,
    /// What a typed run asks for; `None` for any other run.
    pub(crate) asked: Option<Asked<'a>>,
    events: Option<Events>,
}

/// What a typed run asks the model for (SPEC §16B, `typed.rs`): the schema every request
/// carries, and the check a candidate answer's JSON text must pass (`Err` says what is wrong).
#[derive(Clone, Copy)]
pub(crate) struct Asked<'a> {
    pub(crate) schema: &'a AnswerSchema,
    pub(crate) check: &'a (dyn Fn(&str) -> Result<(), String> + Sync),
}

/// What a typed run makes of a reply (`typed.rs`).
pub(crate) enum Judged {
    /// Tool calls to run, as in any run.
    Calls(Reply),
    /// The answer fits: the run is done.
    Taken,
    /// The answer was refused and the refusal appended: ask again.
    Refused,
    /// Refused past the retry budget: the run fails with this message.
    Exhausted(String),
}

/// Why a model call gave no reply.
enum Halt {
    Limit(Limit),
    Failed(ModelError),
}

/// How a turn's tool stage ended.
pub(crate) enum TurnEnd {
    /// Every call has its result: ask the model again.
    Next,
    /// A call waits for a human: the run is parked.
    Parked,
    /// A budget ended the run after this turn.
    Stop(Limit),
}

impl<'a> Run<'a> {
    /// A run of `client` over `messages`, with `state` carried from an earlier part of it.
    pub(crate) fn new(
        client: &'a Client,
        toolkit: &'a Toolkit,
        result: RunResult,
        state: RunState,
        events: Option<Events>,
    ) -> Self {
        let ctx = ToolContext {
            cancel: CancelSignal::default(),
            ..client.tool_context.clone()
        };
        Self {
            client,
            toolkit,
            result,
            state,
            ctx,
            watch: Watch::new(client.budgets.timeout, client.budgets.cancel.clone()),
            stopped: None,
            asked: None,
            events,
        }
    }

    /// A fresh run of `prompt` after `history`: the system prompt first, nothing carried from
    /// an earlier run.
    pub(crate) fn fresh(
        client: &'a Client,
        toolkit: &'a Toolkit,
        history: Vec<Message>,
        prompt: String,
        events: Option<Events>,
    ) -> Self {
        let messages = client.opening(history, prompt);
        let result = Self::start(client, messages);
        Self::new(client, toolkit, result, RunState::default(), events)
    }

    /// The empty result a fresh run over `messages` starts from.
    pub(crate) fn start(client: &Client, messages: Vec<Message>) -> RunResult {
        RunResult {
            text: String::new(),
            messages,
            tool_calls: Vec::new(),
            tool_call_count: 0,
            turns: 0,
            usage: Usage::default(),
            model: client.model.name().to_owned(),
            status: Status::Incomplete,
            pending: None,
            limit: None,
            parked: None,
        }
    }

    /// Hands `event` to the stream, when the run is streamed.
    pub(crate) fn emit(&self, event: impl FnOnce() -> Event) {
        if let Some(events) = &self.events {
            let mut queue = events.lock().unwrap_or_else(PoisonError::into_inner);
            queue.push_back(event());
        }
    }

    /// Turns until the model answers, a budget ends the run, or a call parks it.
    pub(crate) async fn turns(mut self) -> Result<RunResult, RunError> {
        loop {
            if let Some(limit) = self.budget_reached() {
                return Ok(self.end(Status::Incomplete, Some(limit)));
            }
            let reply = match self.ask_model().await {
                Ok(reply) => reply,
                Err(Halt::Limit(limit)) => return Ok(self.end(Status::Incomplete, Some(limit))),
                Err(Halt::Failed(error)) => return Err(self.fail(error)),
            };
            self.result.turns += 1;
            self.result.usage += reply.usage;
            self.emit(|| Event::Usage(reply.usage));
            if let Some(hook) = &self.client.hooks.after_model {
                hook(reply.clone()).await;
            }
            let reply = match self.asked {
                None => reply,
                Some(asked) => match self.judge_answer(asked, reply) {
                    Judged::Calls(reply) => reply,
                    Judged::Taken => return Ok(self.end(Status::Done, None)),
                    Judged::Refused => continue,
                    Judged::Exhausted(message) => return Err(self.fail(ModelError::fatal(message))),
                },
            };
            if !reply.text.is_empty() || reply.tool_calls.is_empty() {
                self.result.text.clone_from(&reply.text);
            }
            let calls = reply.tool_calls;
            self.result.messages.push(Message::Assistant {
                text: reply.text,
                tool_calls: calls.clone(),
                echo: reply.echo,
            });
            if calls.is_empty() {
                return Ok(self.end(Status::Done, None));
            }
            match self.tools(calls).await {
                TurnEnd::Next => {}
                TurnEnd::Parked => return Ok(self.end(Status::Pending, None)),
                TurnEnd::Stop(limit) => return Ok(self.end(Status::Incomplete, Some(limit))),
            }
        }
    }

    /// The budget that forbids another model call, if one does.
    fn budget_reached(&self) -> Option<Limit> {
        let budgets = &self.client.budgets;
        if let Some(limit) = self.watch.reached() {
            return Some(limit);
        }
        if self.result.turns >= budgets.max_turns {
            return Some(Limit::MaxTurns);
        }
        match budgets.max_tokens {
            Some(max) if self.result.usage.total() >= max => Some(Limit::MaxTokens),
            _ => None,
        }
    }

    /// One model call, made again on retryable failures within the client's retries.
    async fn ask_model(&mut self) -> Result<Reply, Halt> {
        let api = self.client.model.api();
        let tools = self.toolkit.definitions(api, &self.state);
        let hooked;
        let (messages, tools) = match &self.client.hooks.before_model {
            Some(hook) => {
                let hooked_call = hook(self.result.messages.clone(), tools);
                hooked = self.watch.race(hooked_call).await.map_err(Halt::Limit)?;
                (&hooked.0, &hooked.1)
            }
            None => {
                hooked = (Vec::new(), tools);
                (&self.result.messages, &hooked.1)
            }
        };
        let budgets = &self.client.budgets;
        let mut attempt = 0;
        loop {
            let mut request = ModelRequest::new(messages, tools);
            request.answer = self.asked.map(|asked| asked.schema);
            let call = self.call_model(request);
            #[cfg(feature = "tracing")]
            let call = crate::client::trace::chat(self.client.model.name(), call);
            let failure = match self.watch.race(call).await.map_err(Halt::Limit)? {
                Ok(reply) => return Ok(reply),
                Err(failure) => failure,
            };
            let Failure { error, retry } = failure;
            if !(retry && error.retryable && attempt < budgets.retries) {
                return Err(Halt::Failed(error));
            }
            let wait = wait_before_retry(budgets.retry_backoff, attempt, &error);
            self.watch.race(sleep(wait)).await.map_err(Halt::Limit)?;
            attempt += 1;
        }
    }

    /// One model call: unstreamed, or streamed with its text and calls handed on as they come.
    async fn call_model(&self, request: ModelRequest<'_>) -> Result<Reply, Failure> {
        if self.events.is_none() {
            return self
                .client
                .model
                .reply(request)
                .await
                .map_err(Failure::retry);
        }
        let mut stream = self.client.model.stream(request);
        let mut yielded = false;
        let mut announced = BTreeSet::new();
        while let Some(event) = poll_fn(|cx| stream.as_mut().poll_next(cx)).await {
            let event = event.map_err(|error| Failure {
                error,
                retry: !yielded,
            })?;
            yielded = true;
            match event {
                ModelEvent::Text(text) => self.emit(|| Event::Text(text)),
                ModelEvent::ToolCall(call) => {
                    announced.insert(call.id.clone());
                    self.emit(|| Event::ToolCall(call));
                }
                ModelEvent::Done(reply) => {
                    // A call the stream did not announce on its own is announced now.
                    for call in &reply.tool_calls {
                        if !announced.contains(&call.id) {
                            self.emit(|| Event::ToolCall(call.clone()));
                        }
                    }
                    return Ok(reply);
                }
            }
        }
        Err(Failure {
            error: ModelError::transient("the stream ended before the reply was complete"),
            retry: !yielded,
        })
    }

    /// The run's result as it ends with `status`.
    pub(crate) fn end(mut self, status: Status, limit: Option<Limit>) -> RunResult {
        self.result.status = status;
        self.result.limit = limit;
        self.result
    }

    /// The run's error: the API, the status and the message of `error`, and the run so far.
    pub(crate) fn fail(self, error: ModelError) -> RunError {
        RunError {
            api: self.client.model.api(),
            status: error.status,
            message: error.message,
            so_far: Box::new(self.end(Status::Incomplete, None)),
        }
    }
}

/// A failed model call, and whether it may be made again (a stream that already yielded
/// something may not: what it yielded was handed on).
struct Failure {
    error: ModelError,
    retry: bool,
}

impl AsRef<ModelError> for Failure {
    fn as_ref(&self) -> &ModelError {
        &self.error
    }
}

impl Failure {
    fn retry(error: ModelError) -> Self {
        Self { error, retry: true }
    }
}

impl Client {
    /// Runs `prompt` to its end: the system prompt, then the prompt; each turn the model is
    /// called with the toolkit's definitions ([`Toolkit::definitions`] of the run's
    /// [`RunState`], so deferred tools a search loaded are sent), its calls run concurrently
    /// in call order ([`Toolkit::run_calls_in`]), their results appended; until a reply has
    /// no tool call ([`Status::Done`]), a budget ends it ([`Status::Incomplete`]) or a call
    /// waits for a human ([`Status::Pending`], see [`resume`](Self::resume)).
    ///
    /// A model error that is not retryable, or retries used up, is a [`RunError`] naming the
    /// API, the status and the message, carrying the run so far (its transcript and tool
    /// calls, [`Status::Incomplete`] with no [`limit`](RunResult::limit)).
    ///
    /// The future is `Send`: it can be spawned on a multi-threaded runtime.
    pub async fn run(
        &self,
        prompt: impl Into<String>,
        toolkit: &Toolkit,
    ) -> Result<RunResult, RunError> {
        self.run_with_history(Vec::new(), prompt, toolkit).await
    }

    /// [`run`](Self::run) continuing a conversation: the system prompt, then `history` (e.g.
    /// an earlier run's [`RunResult::messages`] without its system prompt), then `prompt`.
    pub async fn run_with_history(
        &self,
        history: Vec<Message>,
        prompt: impl Into<String>,
        toolkit: &Toolkit,
    ) -> Result<RunResult, RunError> {
        let run = Run::fresh(self, toolkit, history, prompt.into(), None);
        self.drive(run.turns()).await
    }

    /// The first messages of a run.
    pub(crate) fn opening(&self, history: Vec<Message>, prompt: String) -> Vec<Message> {
        let mut messages = Vec::with_capacity(history.len() + 2);
        messages.extend(self.system.iter().map(Message::system));
        messages.extend(history);
        messages.push(Message::user(prompt));
        messages
    }

    /// Runs `turns`, inside the run's `invoke_agent` span with the `tracing` feature.
    pub(crate) async fn drive(
        &self,
        turns: impl Future<Output = Result<RunResult, RunError>>,
    ) -> Result<RunResult, RunError> {
        #[cfg(feature = "tracing")]
        let turns = crate::client::trace::invoke_agent(self.model.name(), turns);
        turns.await
    }
}
