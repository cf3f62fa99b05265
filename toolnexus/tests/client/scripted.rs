//! A scripted model: answers each turn with the next of its replies (or errors), records what
//! it was sent, and streams a reply in chunks of a chosen size.

use std::collections::VecDeque;
use std::future::poll_fn;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use futures_core::Stream;
use serde_json::{Value, json};
use toolnexus::client::{
    BoxStream, Message, Model, ModelError, ModelEvent, ModelRequest, Reply, Usage,
};
use toolnexus::context::CancelSignal;
use toolnexus::{Api, BoxFuture, ToolCall, ToolContext, ToolResult, define_tool};

/// What the model does on one turn.
pub enum Turn {
    Reply(Reply),
    Fail(ModelError),
    /// Never answers.
    Hang,
    /// Streams `yielded` text then fails (unstreamed: fails).
    BreakAfterText(String, ModelError),
}

/// The messages and tools of each request, in order.
type Requests = Arc<Mutex<Vec<(Vec<Message>, Value)>>>;

#[derive(Clone)]
pub struct Scripted {
    turns: Arc<Mutex<VecDeque<Turn>>>,
    /// The messages and tools of each request, in order.
    pub seen: Requests,
    /// Text chunk size when streaming.
    pub chunk: usize,
}

impl Scripted {
    pub fn new(turns: impl IntoIterator<Item = Turn>) -> Self {
        Self {
            turns: Arc::new(Mutex::new(turns.into_iter().collect())),
            seen: Arc::default(),
            chunk: 3,
        }
    }

    pub fn calls(&self) -> usize {
        self.seen.lock().unwrap().len()
    }

    fn next(&self, request: &ModelRequest<'_>) -> Turn {
        self.seen
            .lock()
            .unwrap()
            .push((request.messages.to_vec(), request.tools.clone()));
        let next = self.turns.lock().unwrap().pop_front();
        next.unwrap_or_else(|| Turn::Fail(ModelError::fatal("the script ran out")))
    }
}

impl Model for Scripted {
    fn api(&self) -> Api {
        Api::OpenAiChat
    }

    fn name(&self) -> &str {
        "scripted-1"
    }

    fn reply<'a>(&'a self, request: ModelRequest<'a>) -> BoxFuture<'a, Result<Reply, ModelError>> {
        let turn = self.next(&request);
        Box::pin(async move {
            match turn {
                Turn::Reply(reply) => Ok(reply),
                Turn::Fail(error) | Turn::BreakAfterText(_, error) => Err(error),
                Turn::Hang => std::future::pending().await,
            }
        })
    }

    fn stream<'a>(
        &'a self,
        request: ModelRequest<'a>,
    ) -> BoxStream<'a, Result<ModelEvent, ModelError>> {
        let events: Vec<Result<ModelEvent, ModelError>> = match self.next(&request) {
            Turn::Reply(reply) => {
                let chars: Vec<char> = reply.text.chars().collect();
                let mut events: Vec<_> = chars
                    .chunks(self.chunk.max(1))
                    .map(|piece| Ok(ModelEvent::Text(piece.iter().collect())))
                    .collect();
                events.extend(
                    reply
                        .tool_calls
                        .iter()
                        .cloned()
                        .map(|call| Ok(ModelEvent::ToolCall(call))),
                );
                events.push(Ok(ModelEvent::Done(reply)));
                events
            }
            Turn::Fail(error) => vec![Err(error)],
            Turn::BreakAfterText(text, error) => vec![Ok(ModelEvent::Text(text)), Err(error)],
            Turn::Hang => return Box::pin(Hanging),
        };
        Box::pin(Events(events.into()))
    }
}

struct Events(VecDeque<Result<ModelEvent, ModelError>>);

impl Stream for Events {
    type Item = Result<ModelEvent, ModelError>;
    fn poll_next(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        Poll::Ready(self.0.pop_front())
    }
}

struct Hanging;

impl Stream for Hanging {
    type Item = Result<ModelEvent, ModelError>;
    fn poll_next(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        Poll::Pending
    }
}

pub fn call(id: &str, name: &str, arguments: Value) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: arguments.to_string(),
    }
}

/// A reply that calls `calls`, using 10 input and 5 output tokens.
pub fn calling(calls: Vec<ToolCall>) -> Turn {
    Turn::Reply(Reply {
        tool_calls: calls,
        usage: Usage {
            input_tokens: 10,
            output_tokens: 5,
        },
        finish_reason: Some("tool_calls".into()),
        ..Reply::default()
    })
}

/// A final reply with `text`, using 20 input and 7 output tokens.
pub fn answering(text: &str) -> Turn {
    Turn::Reply(Reply {
        text: text.into(),
        usage: Usage {
            input_tokens: 20,
            output_tokens: 7,
        },
        finish_reason: Some("stop".into()),
        ..Reply::default()
    })
}

/// A tool `name` that answers `name(args)` and counts its runs.
pub fn counting(name: &'static str) -> (Arc<AtomicUsize>, impl toolnexus::Tool + 'static) {
    let runs = Arc::new(AtomicUsize::new(0));
    let counter = runs.clone();
    let schema = json!({"type": "object"});
    let tool = define_tool(name, "Counts its runs", schema).unwrap().sync(
        move |args: Value, _: &ToolContext| {
            counter.fetch_add(1, Ordering::SeqCst);
            format!("{name}({args})")
        },
    );
    (runs, tool)
}

/// A tool `name` that asks for approval (`prompt`) and, approved, answers `done`; counts its runs.
pub fn approval(
    name: &'static str,
    prompt: &'static str,
) -> (Arc<AtomicUsize>, impl toolnexus::Tool + 'static) {
    let runs = Arc::new(AtomicUsize::new(0));
    let counter = runs.clone();
    let schema = json!({"type": "object"});
    let tool = define_tool(name, "Waits for approval", schema)
        .unwrap()
        .sync(move |_: Value, ctx: &ToolContext| {
            counter.fetch_add(1, Ordering::SeqCst);
            match &ctx.answer {
                Some(answer) if answer.ok => ToolResult::ok(format!("{name} done")),
                _ => toolnexus::pending(toolnexus::Request::new("approval", prompt)),
            }
        });
    (runs, tool)
}

/// A tool that never finishes until cancelled.
pub fn stuck(name: &'static str) -> impl toolnexus::Tool + 'static {
    define_tool(name, "Never answers", json!({"type": "object"}))
        .unwrap()
        .run(|_: Value, _: ToolContext| std::future::pending::<String>())
}

/// Every event of a stream, polled to its end.
pub async fn collect<S: Stream + Unpin>(mut stream: S) -> Vec<S::Item> {
    let mut items = Vec::new();
    while let Some(item) = poll_fn(|cx| Pin::new(&mut stream).poll_next(cx)).await {
        items.push(item);
    }
    items
}

/// A signal already cancelled.
pub fn cancelled() -> CancelSignal {
    let signal = CancelSignal::default();
    signal.cancel();
    signal
}

pub fn runs(counter: &AtomicUsize) -> usize {
    counter.load(Ordering::SeqCst)
}
