//! [`Guarded`]: one tool call through a toolkit, with its panics caught and its context's
//! cancellation and deadline enforced.

use std::any::Any;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::result::ToolResult;
use crate::tool::Tool;
use crate::tool::context::ToolContext;
use crate::tool::future::{BoxFuture, ToolFuture};
use crate::toolkit::deadline::{Limits, Stop};

/// A tool call that turns a panic — in the synchronous call that builds the tool's future or
/// in any poll of it — into an error result, and stops the call when its context is
/// cancelled or its timeout passes.
///
/// Nothing runs until the first poll, as with any future: `start` (the tool's `execute_value`
/// or `execute_json`) is called then with the tool and the context, under the same guard and
/// limits as a poll. A synchronous `#[tool]` fn runs inside `start` and its result comes back
/// ready ([`ToolFuture::ready`]): it is returned from that first poll without a future on the
/// heap.
///
/// A hand-written future rather than an `async fn`: it is on every call's path, and this
/// keeps it to one `catch_unwind` per step and two cheap checks ([`Limits::reached`]) with
/// nothing else in between, in a value small enough to move cheaply (no `ToolResult` inside).
/// `start` is handed the tool and context rather than capturing them, so the future holds
/// each once: moved whole by every executor, it stays small enough to copy inline. Every field
/// is `Unpin` (the closure holds the arguments), so it needs no pin projection and no `unsafe`.
pub(super) struct Guarded<'a, F> {
    limits: Limits<'a>,
    step: Step<'a, F>,
}

enum Step<'a, F> {
    Start(&'a dyn Tool, F),
    Running(&'a dyn Tool, BoxFuture<'a, ToolResult>),
    /// No tool of the name asked for; the result's text.
    Unknown(String),
    Done,
}

impl<'a, F> Guarded<'a, F> {
    /// The call of `start`, its limits (the deadline counted from now) in force from the
    /// first poll on.
    pub(super) fn new(tool: &'a dyn Tool, ctx: &'a ToolContext, start: F) -> Self
    where
        F: FnOnce(&'a dyn Tool, &'a ToolContext) -> ToolFuture<'a>,
    {
        Self {
            limits: Limits::new(ctx),
            step: Step::Start(tool, start),
        }
    }

    /// A call whose future is made already (a toolkit's layers, SPEC §12): polled under the
    /// same guard and limits, and never if the call is cancelled or late before its first poll.
    pub(super) fn running(
        tool: &'a dyn Tool,
        ctx: &'a ToolContext,
        future: BoxFuture<'a, ToolResult>,
    ) -> Self {
        Self {
            limits: Limits::new(ctx),
            step: Step::Running(tool, future),
        }
    }

    /// A call that resolves as ``Unknown tool: NAME``.
    pub(super) fn unknown(name: &str, ctx: &'a ToolContext) -> Self {
        Self {
            limits: Limits::new(ctx),
            step: Step::Unknown(format!("Unknown tool: {name}")),
        }
    }
}

/// Drops the tool's `future` now (a panic in its `drop` is swallowed: the call's outcome is
/// already decided, and the panic hook has reported it) and resolves with `stop`.
fn stopped(tool: &dyn Tool, future: BoxFuture<'_, ToolResult>, stop: Stop) -> Poll<ToolResult> {
    let _ = catch_unwind(AssertUnwindSafe(move || drop(future)));
    Poll::Ready(stop.result(tool.name()))
}

impl<'a, F> Future for Guarded<'a, F>
where
    F: FnOnce(&'a dyn Tool, &'a ToolContext) -> ToolFuture<'a> + Unpin,
{
    type Output = ToolResult;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ToolResult> {
        let this = &mut *self;
        // The step is taken out (and put back only while the tool is pending), so each arm
        // owns what it holds and a call that resolves is left `Done`.
        let (tool, mut future) = match std::mem::replace(&mut this.step, Step::Done) {
            Step::Start(tool, start) => {
                // A call cancelled (or with a zero timeout) before it starts never runs the tool.
                if let Some(stop) = this.limits.reached() {
                    return Poll::Ready(stop.result(tool.name()));
                }
                // `AssertUnwindSafe` is sound here: after a panic the tool's future is dropped,
                // never polled again, and all we keep is the panic message.
                let ctx = this.limits.ctx();
                match catch_unwind(AssertUnwindSafe(|| start(tool, ctx).into_ready())) {
                    // Ready in the step that began in time: that is its result.
                    Ok(Ok(result)) => return Poll::Ready(result),
                    Ok(Err(future)) => (tool, future),
                    Err(payload) => return Poll::Ready(panicked(tool, payload.as_ref())),
                }
            }
            Step::Running(tool, future) => (tool, future),
            Step::Unknown(message) => return Poll::Ready(ToolResult::error(message)),
            Step::Done => panic!("a tool call future polled after it completed"),
        };
        // The tool is polled only while the call is neither cancelled nor late; what it
        // returns from a poll that began in time is its result.
        if let Some(stop) = this.limits.reached() {
            return stopped(tool, future, stop);
        }
        match catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx))) {
            Ok(Poll::Pending) => match this.limits.wait(cx) {
                Some(stop) => stopped(tool, future, stop),
                None => {
                    this.step = Step::Running(tool, future);
                    Poll::Pending
                }
            },
            Ok(Poll::Ready(result)) => Poll::Ready(result),
            Err(payload) => Poll::Ready(panicked(tool, payload.as_ref())),
        }
    }
}

fn panicked(tool: &dyn Tool, payload: &(dyn Any + Send)) -> ToolResult {
    ToolResult::error(format!(
        "tool `{}` panicked: {}",
        tool.name(),
        panic_message(payload)
    ))
}

fn panic_message(payload: &(dyn Any + Send)) -> &str {
    if let Some(message) = payload.downcast_ref::<&'static str>() {
        message
    } else if let Some(message) = payload.downcast_ref::<String>() {
        message
    } else {
        "the panic payload is not a string"
    }
}
