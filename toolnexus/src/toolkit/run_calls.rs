//! [`Toolkit::run_calls`]: every call of a turn at once (SPEC §8B), on whatever executor
//! polls it — no async runtime, no spawned tasks.

use std::future::Future;
use std::iter::Enumerate;
use std::num::NonZeroUsize;
use std::pin::Pin;
use std::task::{Context, Poll};

use super::Toolkit;
use crate::provider::tool_call::ToolCall;
use crate::result::ToolResult;
use crate::tool::context::ToolContext;

impl Toolkit {
    /// Bounds [`run_calls`](Self::run_calls) to `n` calls at a time (by default there is no
    /// bound). `0` is read as `1`: a bound of nothing would never run a call.
    #[must_use]
    pub fn with_max_concurrency(mut self, n: usize) -> Self {
        self.max_concurrency = Some(NonZeroUsize::new(n).unwrap_or(NonZeroUsize::MIN));
        self
    }

    /// Runs every call of a turn concurrently and returns their results in call order.
    ///
    /// Each call goes through [`execute_json`](Self::execute_json) with its own deadline
    /// from `ctx.timeout` (counted from when that call starts) and `ctx.cancel`; a panic in
    /// one becomes its own error result and the others carry on. At most
    /// [`with_max_concurrency`](Self::with_max_concurrency) calls run at once, the next
    /// starting as one finishes.
    ///
    /// The calls run interleaved in the task that awaits this, as `join` would run them: an
    /// async tool that waits (on I/O, a timer) lets the others run meanwhile, while a
    /// synchronous tool runs to its end inside one poll. A suspension comes back as it is
    /// ([`pending_of`](crate::pending_of) reads it); to answer it in place, run that call
    /// with [`call_with`](Self::call_with).
    ///
    /// ```
    /// use std::time::Duration;
    /// use toolnexus::serde_json::json;
    /// use toolnexus::{Api, ToolContext, Toolkit, tool, tool_calls, tools};
    ///
    /// /// Current weather for a city.
    /// #[tool]
    /// async fn weather(city: String) -> String {
    ///     tokio::time::sleep(Duration::from_millis(10)).await;
    ///     format!("{city}: sunny")
    /// }
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap().block_on(async {
    /// let toolkit = Toolkit::new().with_all(tools![weather]);
    /// let reply = json!({"output": [
    ///     {"type": "function_call", "call_id": "c1", "name": "weather", "arguments": "{\"city\":\"Oslo\"}"},
    ///     {"type": "function_call", "call_id": "c2", "name": "weather", "arguments": "{\"city\":\"Lima\"}"},
    /// ]});
    /// let calls = tool_calls(Api::OpenAiResponses, &reply).unwrap();
    /// let results = toolkit.run_calls(&calls, &ToolContext::default()).await;
    /// assert_eq!(results[0].output, "Oslo: sunny");
    /// assert_eq!(results[1].output, "Lima: sunny");
    /// # });
    /// ```
    pub async fn run_calls(&self, calls: &[ToolCall], ctx: &ToolContext) -> Vec<ToolResult> {
        self.join_calls(calls, ctx).await
    }

    /// [`run_calls`](Self::run_calls)' future, its type spelled out: the compiler cannot
    /// prove an `async fn` holding the guarded calls `Send` (their `Future` impls are bounded
    /// by a lifetime), and it can for this opaque type declared `Send`.
    pub(super) fn join_calls<'a>(
        &'a self,
        calls: &'a [ToolCall],
        ctx: &'a ToolContext,
    ) -> impl Future<Output = Vec<ToolResult>> + Send + 'a {
        let limit = self.max_concurrency.map_or(usize::MAX, NonZeroUsize::get);
        let futures = calls
            .iter()
            .map(move |call| self.guarded_json(&call.id, &call.name, &call.arguments, ctx));
        JoinOrdered {
            waiting: futures.enumerate(),
            limit,
            running: Vec::new(),
            done: Vec::new(),
        }
    }
}

/// The outputs of the futures `waiting` yields, in their order, running at most `limit` at a
/// time; each is made (so a call's deadline starts) only when there is room for it.
///
/// On every wake each running future is polled again: a turn has a handful of calls, so
/// that costs less than a waker per future would, and futures must tolerate spurious polls.
struct JoinOrdered<I, F: Future> {
    waiting: Enumerate<I>,
    limit: usize,
    running: Vec<(usize, F)>,
    done: Vec<(usize, F::Output)>,
}

impl<I, F> Future for JoinOrdered<I, F>
where
    I: Iterator<Item = F> + Unpin,
    F: Future + Unpin,
    F::Output: Unpin,
{
    type Output = Vec<F::Output>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        loop {
            while this.running.len() < this.limit {
                let Some(next) = this.waiting.next() else {
                    break;
                };
                this.running.push(next);
            }
            if this.running.is_empty() {
                let mut done = std::mem::take(&mut this.done);
                done.sort_unstable_by_key(|(at, _)| *at);
                return Poll::Ready(done.into_iter().map(|(_, output)| output).collect());
            }
            let before = this.running.len();
            let done = &mut this.done;
            this.running
                .retain_mut(|(at, future)| match Pin::new(future).poll(cx) {
                    Poll::Ready(output) => {
                        done.push((*at, output));
                        false
                    }
                    Poll::Pending => true,
                });
            if this.running.len() == before {
                return Poll::Pending;
            }
            // Something finished: start what now fits, and poll it for the first time.
        }
    }
}
