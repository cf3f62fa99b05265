//! The compaction of a transcript over its token budget (SPEC §16B): [`Compactor`] keeps the
//! system prompt, a summary of the older messages and a tail that starts at a user message.

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use crate::client::estimate::{Estimate, TokenCounter};
use crate::client::message::{Message, ToolReturn};
use crate::result::part::{ContentPart, describe_part};
use crate::tool::future::BoxFuture;

use super::Client;

/// The summarizer [`Compactor::summarize`] takes: an `async fn(&[Message]) -> String` (or a
/// closure of that shape) whose future is `Send`. Implemented for every such function; not
/// meant to be implemented by hand.
pub trait Summarize<'a>: Send + Sync {
    /// The summary's future.
    type Future: Future<Output = String> + Send + 'a;
    /// The summary of `older`.
    fn call(&self, older: &'a [Message]) -> Self::Future;
}

impl<'a, F, Fut> Summarize<'a> for F
where
    F: Fn(&'a [Message]) -> Fut + Send + Sync,
    Fut: Future<Output = String> + Send + 'a,
{
    type Future = Fut;

    fn call(&self, older: &'a [Message]) -> Fut {
        self(older)
    }
}

type Summarizer = dyn for<'a> Fn(&'a [Message]) -> BoxFuture<'a, String> + Send + Sync;

/// Keeps a run's requests within a token budget (SPEC §16B): at or below `max_tokens` the
/// messages go out unchanged (the same request, byte for byte); above it, the request is the
/// system prompt verbatim, then one system message with the summary of the older messages,
/// then the tail.
///
/// - **The tail** is the longest run of last messages within [`keep_tail`](Self::keep_tail)
///   tokens (default half the budget) that starts at a user message. A user message carries
///   no tool result (those are [`Message::Tool`]), so every tool result in the tail follows
///   the assistant message with its call, and every call in it has its results, on any API.
///   When even the tail from the last user message is over `keep_tail`, that tail is kept
///   whole (it cannot be cut without separating a result from its call) and the request is
///   over the budget by what it is over.
/// - **The summary** is what [`summarize`](Self::summarize) writes, the user's own function
///   (it may call the same [`Client`](crate::client::Client)): compaction never calls a model
///   by itself. It sees the older messages with each image, file or audio part as its
///   [`describe_part`] text, never its bytes. Without a summarizer the older messages are
///   dropped and no summary message is added.
/// - **Nothing to compact:** when no user message follows the system prompt and the older
///   messages, the messages go out unchanged.
/// - **The system prompt** is every system message before the first other message.
///
/// Tokens are counted with [`estimate_tokens`](crate::client::estimate_tokens) unless
/// [`counter`](Self::counter) says otherwise. A `Compactor` is cheap to clone (it shares its
/// summarizer).
///
/// ```
/// use toolnexus::client::{Compactor, Message, estimate_tokens};
///
/// async fn summarize(older: &[Message]) -> String {
///     format!("{} earlier messages about the weather.", older.len())
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let compactor = Compactor::new(60).summarize(summarize);
/// let mut messages = vec![Message::system("You are a weather assistant.")];
/// for day in 0..10 {
///     messages.push(Message::user(format!("Weather on day {day}?")));
///     messages.push(Message::Assistant { text: "Sunny.".into(), tool_calls: vec![], echo: None });
/// }
/// let sent = compactor.compact(messages.clone()).await;
/// assert_eq!(sent[0], messages[0]);
/// assert_eq!(sent[1], Message::system("18 earlier messages about the weather."));
/// assert_eq!(sent[2..], messages[19..]);
/// assert!(estimate_tokens(&sent) <= 60);
///
/// let short = vec![Message::system("Be brief."), Message::user("Hi")];
/// assert_eq!(compactor.compact(short.clone()).await, short);
/// # });
/// ```
#[derive(Clone)]
pub struct Compactor {
    max_tokens: usize,
    keep_tail: Option<usize>,
    summarize: Option<Arc<Summarizer>>,
    counter: Arc<dyn TokenCounter>,
}

impl fmt::Debug for Compactor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Compactor")
            .field("max_tokens", &self.max_tokens)
            .field("keep_tail", &self.tail_budget())
            .field("summarize", &self.summarize.is_some())
            .finish_non_exhaustive()
    }
}

impl Compactor {
    /// A compactor keeping requests within `max_tokens`.
    pub fn new(max_tokens: usize) -> Self {
        Self {
            max_tokens,
            keep_tail: None,
            summarize: None,
            counter: Arc::new(Estimate),
        }
    }

    /// Keeps the last messages within `tokens` (default half the budget) when it compacts.
    #[must_use]
    pub fn keep_tail(mut self, tokens: usize) -> Self {
        self.keep_tail = Some(tokens);
        self
    }

    /// Writes the summary of the older messages: an `async fn(&[Message]) -> String`.
    #[must_use]
    pub fn summarize<F>(mut self, summarize: F) -> Self
    where
        F: for<'a> Summarize<'a> + 'static,
    {
        self.summarize = Some(Arc::new(move |older| Box::pin(summarize.call(older))));
        self
    }

    /// Counts tokens with `counter` (a real tokenizer) instead of the estimate.
    #[must_use]
    pub fn counter(mut self, counter: impl TokenCounter + 'static) -> Self {
        self.counter = Arc::new(counter);
        self
    }

    fn tail_budget(&self) -> usize {
        self.keep_tail.unwrap_or(self.max_tokens / 2)
    }

    /// The messages to send instead of `messages`: `messages` themselves at or below the
    /// budget, else the system prompt, the summary and the tail (see [`Compactor`]).
    pub async fn compact(&self, messages: Vec<Message>) -> Vec<Message> {
        if self.counter.count(&messages) <= self.max_tokens {
            return messages;
        }
        let head = messages
            .iter()
            .position(|message| !matches!(message, Message::System { .. }))
            .unwrap_or(messages.len());
        let Some(start) = self.tail_start(&messages[head..]).map(|at| head + at) else {
            return messages;
        };
        let mut messages = messages;
        let tail = messages.split_off(start);
        let older = messages.split_off(head);
        if let Some(summarize) = &self.summarize {
            let older = described(older);
            messages.push(Message::system(summarize(&older).await));
        }
        messages.extend(tail);
        messages
    }

    /// Where in `body` (the messages after the system prompt) the tail starts: the earliest
    /// user message from which the rest is within the tail budget, else the last user
    /// message; `None` when no user message but the first could start it (nothing older to
    /// drop).
    fn tail_start(&self, body: &[Message]) -> Option<usize> {
        let starts: Vec<usize> = body
            .iter()
            .enumerate()
            .filter(|(_, message)| matches!(message, Message::User { .. }))
            .map(|(at, _)| at)
            .filter(|&at| at > 0)
            .collect();
        // The tail's cost falls as its start moves later: the first start within the budget
        // is found by bisection, a count of the tail at each step.
        let budget = self.tail_budget();
        let fits = starts.partition_point(|&at| self.counter.count(&body[at..]) > budget);
        starts.get(fits).or(starts.last()).copied()
    }
}

/// The older messages as `summarize` sees them: each non-text part as its description.
fn described(mut older: Vec<Message>) -> Vec<Message> {
    for message in &mut older {
        match message {
            Message::User { parts, .. } => describe_parts(parts),
            Message::Tool { results } => {
                for ToolReturn { result, .. } in results {
                    describe_parts(&mut result.parts);
                }
            }
            Message::System { .. } | Message::Assistant { .. } => {}
        }
    }
    older
}

fn describe_parts(parts: &mut [ContentPart]) {
    for part in parts {
        if part.media().is_some() {
            *part = ContentPart::text(describe_part(part));
        }
    }
}

impl Client {
    /// Sends each model call through `compactor` (SPEC §16B): a
    /// [`before_model`](Self::before_model) hook, so the run's own transcript
    /// ([`RunResult::messages`](crate::client::RunResult::messages)) stays whole while each
    /// request stays within the budget.
    ///
    /// ```
    /// use toolnexus::client::{Client, Compactor, Message};
    ///
    /// async fn summarize(older: &[Message]) -> String {
    ///     format!("The user and the assistant exchanged {} messages.", older.len())
    /// }
    /// # fn with(client: Client) -> Client {
    /// client.compactor(Compactor::new(8_000).summarize(summarize))
    /// # }
    /// ```
    #[must_use]
    pub fn compactor(self, compactor: Compactor) -> Self {
        self.before_model(move |messages, tools| {
            let compactor = compactor.clone();
            async move { (compactor.compact(messages).await, tools) }
        })
    }
}
