//! Suspensions (SPEC §10, §16): each answered in the loop by the client's `wait_for`, or the
//! run parked on the first one; [`Client::resume`] continues a parked run — in this process
//! or another — without running again what already ran.

use crate::client::Client;
use crate::client::message::{Message, ToolReturn};
use crate::client::outcome::{
    Event, Limit, ParkedTurn, RunError, RunResult, Status, ToolCallRecord,
};
use crate::client::run::{Run, TurnEnd};
use crate::provider::tool_call::ToolCall;
use crate::result::ToolResult;
use crate::result::suspend::{Answer, Request};
use crate::toolkit::Toolkit;

impl Run<'_> {
    /// Settles a turn's results: the calls in `fresh` (their results new) that finished go
    /// through `after_tool` and are recorded, in call order; then each suspension of the turn
    /// is answered with `wait_for` (and recorded), or the run parks on the first. Once every
    /// call has its result they are appended to the transcript.
    pub(crate) async fn settle(
        &mut self,
        calls: Vec<ToolCall>,
        mut results: Vec<ToolResult>,
        fresh: impl IntoIterator<Item = usize>,
    ) -> TurnEnd {
        let refusal = self.client.budgets.max_tool_calls.map(|_| self.refusal());
        for at in fresh {
            if !results[at].is_pending() && refusal.as_ref() != Some(&results[at]) {
                self.record(&calls[at], &mut results[at]).await;
            }
        }
        let Some(wait_for) = self.client.hooks.wait_for.clone() else {
            let first = results.iter().find_map(ToolResult::pending);
            if let Some(request) = first {
                return self.park(calls, results, request);
            }
            return self.append(calls, results, refusal);
        };
        for at in 0..calls.len() {
            let Some(request) = results[at].pending() else {
                continue;
            };
            let wait_for = wait_for.clone();
            let answering =
                self.toolkit
                    .answer_call(&calls[at], &self.ctx, request, move |request| {
                        wait_for(request)
                    });
            let (answered, limit) = self.watch.finish(answering, &self.ctx.cancel).await;
            self.stopped = self.stopped.or(limit);
            results[at] = self.counted(&calls[at], answered);
            self.record(&calls[at], &mut results[at]).await;
        }
        self.append(calls, results, refusal)
    }

    /// Appends a settled turn's results to the transcript; what ends the run after it, if
    /// anything does.
    fn append(
        &mut self,
        calls: Vec<ToolCall>,
        results: Vec<ToolResult>,
        refusal: Option<ToolResult>,
    ) -> TurnEnd {
        let refused = refusal.is_some_and(|refusal| results.contains(&refusal));
        let results = calls
            .into_iter()
            .zip(results)
            .map(|(call, result)| ToolReturn {
                call_id: call.id,
                name: call.name,
                result,
            })
            .collect();
        self.result.messages.push(Message::Tool { results });
        if let Some(limit) = self.stopped {
            TurnEnd::Stop(limit)
        } else if self.state.exhausted().is_some() {
            TurnEnd::Stop(Limit::Retries)
        } else if refused {
            TurnEnd::Stop(Limit::MaxToolCalls)
        } else {
            TurnEnd::Next
        }
    }

    /// `result` of a suspended call's second run, counted against its retry budget.
    fn counted(&mut self, call: &ToolCall, mut result: ToolResult) -> ToolResult {
        self.toolkit
            .count_in(&mut self.state, &call.name, &mut result);
        result
    }

    /// A finished call: through `after_tool`, then recorded and handed to the stream.
    async fn record(&mut self, call: &ToolCall, result: &mut ToolResult) {
        if let Some(hook) = &self.client.hooks.after_tool {
            *result = hook(call.clone(), std::mem::take(result)).await;
        }
        let args = serde_json::from_str(&call.arguments)
            .unwrap_or_else(|_| serde_json::Value::String(call.arguments.clone()));
        self.result.tool_calls.push(ToolCallRecord {
            name: call.name.clone(),
            args,
            output: result.output.clone(),
            is_error: result.is_error,
            metadata: (!result.metadata.is_empty()).then(|| result.metadata.clone()),
        });
        self.result.tool_call_count += 1;
        self.emit(|| Event::ToolResult(call.id.clone(), result.clone()));
    }

    /// Parks the run on `request`: the turn's calls and results so far and the run's state
    /// go into the result, for [`Client::resume`].
    fn park(
        &mut self,
        calls: Vec<ToolCall>,
        results: Vec<ToolResult>,
        request: Request,
    ) -> TurnEnd {
        self.emit(|| Event::Pending(request.clone()));
        self.result.pending = Some(request);
        self.result.parked = Some(ParkedTurn {
            calls,
            results,
            run_state: self.state.clone(),
        });
        TurnEnd::Parked
    }

    /// The rest of a parked run: the pending call run once more with `answer` and recorded,
    /// the turn's other suspensions answered or parked on, then the turns.
    pub(crate) async fn resume(
        mut self,
        turn: ParkedTurn,
        at: usize,
        request: Request,
        answer: Answer,
    ) -> Result<RunResult, RunError> {
        let ParkedTurn {
            calls, mut results, ..
        } = turn;
        let resuming = self
            .toolkit
            .resume_call(&calls[at], &self.ctx, &request, answer);
        let (resumed, limit) = self.watch.finish(resuming, &self.ctx.cancel).await;
        self.stopped = limit;
        results[at] = self.counted(&calls[at], resumed);
        match self.settle(calls, results, [at]).await {
            TurnEnd::Next => self.turns().await,
            TurnEnd::Parked => Ok(self.end(Status::Pending, None)),
            TurnEnd::Stop(limit) => Ok(self.end(Status::Incomplete, Some(limit))),
        }
    }
}

impl Client {
    /// Continues a [`Pending`](Status::Pending) run with the `answer` to its
    /// [`pending`](RunResult::pending) request: the suspended call runs once more with it
    /// (the rule and checks of [`Toolkit::call_with`]), the calls of that turn that had
    /// finished are not run again, and the loop goes on. If another call of the turn is
    /// suspended too, the run parks again on it.
    ///
    /// `parked` is plain serde data: it can be written to a file or a database and resumed
    /// by another `Client` and `Toolkit`, in another process. The resumed run's budgets are
    /// this client's; its turns and tool calls count on from the parked run's.
    ///
    /// An answer whose `id` is not the pending request's is refused with a [`RunError`]
    /// (carrying `parked` unchanged) and nothing runs; so is a run that is not pending.
    ///
    /// ```
    /// # use toolnexus::client::{Client, RunResult, RunError};
    /// # use toolnexus::{Answer, Toolkit};
    /// # async fn later(client: Client, toolkit: Toolkit) -> Result<(), Box<dyn std::error::Error>> {
    /// let stored = std::fs::read_to_string("parked.json")?;
    /// let parked: RunResult = toolnexus::serde_json::from_str(&stored)?;
    /// let request = parked.pending.clone().expect("a parked run waits on a request");
    /// let result = client.resume(parked, Answer::approve(&request), &toolkit).await?;
    /// # Ok(()) }
    /// ```
    pub async fn resume(
        &self,
        parked: RunResult,
        answer: Answer,
        toolkit: &Toolkit,
    ) -> Result<RunResult, RunError> {
        let (mut result, turn, at, request) = self.unpark(parked, &answer)?;
        result.status = Status::Incomplete;
        let state = turn.run_state.clone();
        let run = Run::new(self, toolkit, result, state, None);
        self.drive(run.resume(turn, at, request, answer)).await
    }

    /// The parked turn of `parked` and the position of the call `answer` answers; or the
    /// refusal, nothing run.
    pub(crate) fn unpark(
        &self,
        mut parked: RunResult,
        answer: &Answer,
    ) -> Result<(RunResult, ParkedTurn, usize, Request), RunError> {
        let refuse = |parked: RunResult, message: String| RunError {
            api: self.model.api(),
            status: None,
            message,
            so_far: Box::new(parked),
        };
        let (Status::Pending, Some(request), Some(turn)) =
            (parked.status, parked.pending.clone(), parked.parked.clone())
        else {
            let message = "the run is not pending: there is nothing to resume".to_owned();
            return Err(refuse(parked, message));
        };
        if answer.id != request.id {
            let message = format!(
                "the answer is to request `{}`, but the run waits on request `{}`; nothing ran",
                answer.id, request.id
            );
            return Err(refuse(parked, message));
        }
        if turn.results.len() != turn.calls.len() {
            let message = format!(
                "the parked turn is malformed: {} calls but {} results; nothing ran",
                turn.calls.len(),
                turn.results.len()
            );
            return Err(refuse(parked, message));
        }
        let waiting = |result: &ToolResult| result.pending().is_some_and(|r| r.id == request.id);
        let Some(at) = turn.results.iter().position(waiting) else {
            let message = format!(
                "the parked turn has no call waiting on request `{}`; nothing ran",
                request.id
            );
            return Err(refuse(parked, message));
        };
        parked.pending = None;
        parked.parked = None;
        Ok((parked, turn, at, request))
    }
}
