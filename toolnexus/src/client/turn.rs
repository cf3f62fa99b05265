//! A turn's tool stage (SPEC §16): the `before_tool` decisions, the calls past
//! `max_tool_calls` answered without running, and the rest run concurrently in call order
//! through the run's [`RunState`](crate::RunState).

use crate::client::hooks::ToolDecision;
use crate::client::run::{Run, TurnEnd};
use crate::provider::tool_call::ToolCall;
use crate::result::ToolResult;

impl Run<'_> {
    /// Runs the calls of one reply and settles their results (suspensions, records, the
    /// transcript).
    pub(crate) async fn tools(&mut self, calls: Vec<ToolCall>) -> TurnEnd {
        let room = match self.client.budgets.max_tool_calls {
            Some(max) => max.saturating_sub(self.result.tool_call_count),
            None => usize::MAX,
        };
        let mut results: Vec<Option<ToolResult>> = vec![None; calls.len()];
        let mut as_run = calls;
        let mut to_run = Vec::with_capacity(as_run.len());
        for (at, call) in as_run.iter_mut().enumerate() {
            if at >= room {
                results[at] = Some(self.refusal());
                continue;
            }
            let decision = match &self.client.hooks.before_tool {
                Some(hook) => hook(call.clone()).await,
                None => ToolDecision::Run,
            };
            match decision {
                ToolDecision::Run => to_run.push(at),
                ToolDecision::Rewrite(args) => {
                    call.arguments = args.to_string();
                    to_run.push(at);
                }
                ToolDecision::Skip(result) => results[at] = Some(result),
            }
        }
        let running: Vec<ToolCall> = to_run.iter().map(|&at| as_run[at].clone()).collect();
        let work = self
            .toolkit
            .run_calls_in(&mut self.state, &running, &self.ctx);
        let (ran, limit) = self.watch.finish(work, &self.ctx.cancel).await;
        self.stopped = self.stopped.or(limit);
        for (at, result) in to_run.into_iter().zip(ran) {
            results[at] = Some(result);
        }
        let results = results.into_iter().map(Option::unwrap_or_default).collect();
        self.settle(as_run, results, 0).await
    }

    /// The answer to a call past `max_tool_calls`.
    pub(crate) fn refusal(&self) -> ToolResult {
        let max = self.client.budgets.max_tool_calls.unwrap_or_default();
        ToolResult::error(format!(
            "not run: the run's limit of {max} tool calls was reached"
        ))
    }
}
