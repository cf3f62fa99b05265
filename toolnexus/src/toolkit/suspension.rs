//! The suspension rule of one call (SPEC §10, §10B): asked and answered in the loop, or resumed
//! later with the answer a parked run brings back.

use std::future::{Future, poll_fn};
use std::pin::pin;
use std::task::Poll;

use serde_json::Value;

use crate::result::ToolResult;
use crate::result::suspend::{Answer, Request};
use crate::tool::cancel::CancelSignal;
use crate::tool::context::ToolContext;
use crate::toolkit::Toolkit;
use crate::toolkit::around::Arguments;
use crate::toolkit::deadline::Stop;

impl Toolkit {
    /// Runs `name` under the suspension loop rule (SPEC §10), with a default context.
    ///
    /// See [`call_with`](Self::call_with).
    ///
    /// ```
    /// use serde_json::{json, Value};
    /// use toolnexus::{define_tool, Answer, Request, ToolContext, ToolResult, Toolkit};
    ///
    /// let deploy = define_tool("deploy", "Deploy", json!({"type": "object", "properties": {}}))
    ///     .unwrap()
    ///     .sync(|_: Value, ctx: &ToolContext| match &ctx.answer {
    ///         Some(answer) if answer.ok => ToolResult::ok("deployed"),
    ///         _ => toolnexus::pending(Request::new("approval", "Deploy to production?")),
    ///     });
    /// let tk = Toolkit::new().with(deploy);
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let result = tk
    ///     .call("deploy", json!({}), |req: Request| async move {
    ///         Answer::approve(&req)
    ///     })
    ///     .await;
    /// assert_eq!(result.output, "deployed");
    /// # });
    /// ```
    pub async fn call<W, Fut>(&self, name: &str, args: Value, wait_for: W) -> ToolResult
    where
        W: FnOnce(Request) -> Fut,
        Fut: Future<Output = Answer>,
    {
        self.call_with(name, args, &ToolContext::default(), wait_for)
            .await
    }

    /// Runs `name` under the suspension loop rule (SPEC §10), keeping `ctx`'s timeout and
    /// cancel signal for both executions.
    ///
    /// The timeout covers each execution on its own, never the wait for a human: an approval
    /// may take hours. Cancellation covers everything — if `ctx.cancel` fires while
    /// `wait_for` runs, its future is dropped and the result is ``tool `NAME` was
    /// cancelled``.
    ///
    /// 1. Execute. If the result is not a suspension, return it.
    /// 2. Otherwise `wait_for(request)` gets the [`Answer`].
    /// 3. `ok` ⇒ execute once more with `ctx.answer` set and return that result — unless it
    ///    suspends again, which gives `is_error` with output `unresolved: <prompt>` (the
    ///    prompt that was answered, as every port prints it). The loop never asks twice.
    ///    Before that, an `ok` answer to a request whose `data.schema` states what it asks
    ///    for is checked against that schema like arguments (SPEC §10B): a refused one is
    ///    `is_error` ``answer to `NAME`: <why>``, and the tool does not run again.
    /// 4. Not `ok` ⇒ `is_error` with output literally `declined/expired: <prompt>`, whatever
    ///    the answer's [`Reason`](crate::Reason) (SPEC §10: every port prints exactly this; the
    ///    reason stays advisory, for the calling code).
    pub async fn call_with<W, Fut>(
        &self,
        name: &str,
        args: Value,
        ctx: &ToolContext,
        wait_for: W,
    ) -> ToolResult
    where
        W: FnOnce(Request) -> Fut,
        Fut: Future<Output = Answer>,
    {
        let first = self.execute(name, args.clone(), ctx).await;
        let Some(request) = first.pending() else {
            return first;
        };
        // Boxed: the wait for an answer and the second run take more room than the first
        // run, and a future is as large as its largest state; a call that does not suspend
        // (nearly every one, and a task for as long as it runs) keeps the small one.
        let call = Suspended {
            id: "",
            name,
            args: Arguments::Value(args),
        };
        Box::pin(self.wait_then_resume(call, ctx, request, wait_for)).await
    }

    /// [`call_with`](Self::call_with)'s rule for the call `id` of a turn (its raw arguments
    /// `args`) that suspended on `request`: `wait_for` asked, then the answer's checks and the
    /// second run. What the run's loop does with each suspension when it has a `wait_for`.
    pub(crate) async fn answer_call<W, Fut>(
        &self,
        call: &crate::provider::tool_call::ToolCall,
        ctx: &ToolContext,
        request: Request,
        wait_for: W,
    ) -> ToolResult
    where
        W: FnOnce(Request) -> Fut,
        Fut: Future<Output = Answer>,
    {
        let call = Suspended::of(call);
        Box::pin(self.wait_then_resume(call, ctx, request, wait_for)).await
    }

    /// The second run of a call of a turn that suspended on `request`, with `answer` (SPEC
    /// §10 steps 3-4, §10B): what resuming a parked run does with its pending call.
    pub(crate) async fn resume_call(
        &self,
        call: &crate::provider::tool_call::ToolCall,
        ctx: &ToolContext,
        request: &Request,
        answer: Answer,
    ) -> ToolResult {
        let asked = crate::decode::answers::asked_schema(request);
        Box::pin(self.resume(Suspended::of(call), ctx, &request.prompt, asked, answer)).await
    }

    /// The wait for an answer (cancelled with `ctx.cancel`), then [`resume`](Self::resume).
    async fn wait_then_resume<W, Fut>(
        &self,
        call: Suspended<'_>,
        ctx: &ToolContext,
        request: Request,
        wait_for: W,
    ) -> ToolResult
    where
        W: FnOnce(Request) -> Fut,
        Fut: Future<Output = Answer>,
    {
        let prompt = request.prompt.clone();
        let asked = crate::decode::answers::asked_schema(&request).cloned();
        let Some(answer) = until_cancelled(&ctx.cancel, wait_for(request)).await else {
            return Stop::Cancelled.result(call.name);
        };
        self.resume(call, ctx, &prompt, asked.as_ref(), answer)
            .await
    }

    /// SPEC §10 steps 3-4 once `answer` came: declined, refused by the §10B check, or the
    /// second run, whose own suspension is `unresolved: <prompt>`.
    async fn resume(
        &self,
        call: Suspended<'_>,
        ctx: &ToolContext,
        prompt: &str,
        asked: Option<&serde_json::Map<String, Value>>,
        answer: Answer,
    ) -> ToolResult {
        if !answer.ok {
            // Every port prints exactly this, whatever the reason: the reason is advisory.
            return ToolResult::error(format!("declined/expired: {prompt}"));
        }
        // SPEC §10B: the answer is checked like arguments before the tool sees it.
        if let Err(refused) = crate::decode::answers::check_answer(call.name, asked, &answer) {
            return refused;
        }
        let resumed = ToolContext {
            answer: Some(answer),
            ..ctx.clone()
        };
        let second = match call.args {
            Arguments::Value(args) => self.execute_as(call.id, call.name, args, &resumed).await,
            Arguments::Text(args) => self.guarded_json(call.id, call.name, args, &resumed).await,
        };
        // The first request's prompt, as every port prints it: the loop never asks twice.
        if second.is_pending() {
            return ToolResult::error(format!("unresolved: {prompt}"));
        }
        second
    }
}

/// A call that suspended: what its second run needs.
struct Suspended<'a> {
    id: &'a str,
    name: &'a str,
    args: Arguments<'a>,
}

impl<'a> Suspended<'a> {
    fn of(call: &'a crate::provider::tool_call::ToolCall) -> Self {
        Self {
            id: &call.id,
            name: &call.name,
            args: Arguments::Text(&call.arguments),
        }
    }
}

/// `work`'s output, or `None` as soon as `signal` is cancelled (and `work` is dropped).
async fn until_cancelled<T>(signal: &CancelSignal, work: impl Future<Output = T>) -> Option<T> {
    let mut work = pin!(work);
    let mut cancelled = pin!(signal.cancelled());
    poll_fn(|cx| {
        if let Poll::Ready(output) = work.as_mut().poll(cx) {
            return Poll::Ready(Some(output));
        }
        cancelled.as_mut().poll(cx).map(|()| None)
    })
    .await
}
