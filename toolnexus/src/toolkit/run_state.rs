//! One agent run's state (SPEC §15, §15B): the deferred tools a search has loaded and each
//! tool's retries in a row, kept by [`Toolkit::run_calls_in`].

use std::collections::{BTreeMap, BTreeSet};

use super::Toolkit;
use crate::provider::tool_call::ToolCall;
use crate::result::ToolResult;
use crate::result::retry::Retry;
use crate::tool::context::ToolContext;

/// The budget of a tool that sets none, unless [`Toolkit::retries`] says otherwise.
pub(crate) const DEFAULT_RETRIES: u32 = 2;

/// What one agent run has learnt: the deferred tools a search loaded (so
/// [`Toolkit::definitions`] sends them) and how many calls of each tool in a row asked the
/// model to try again (so a run stops instead of spinning). One per run; `Default` is a fresh
/// run. Serde data, so a parked run ([`RunResult`](crate::client::RunResult)) keeps it.
///
/// ```
/// use toolnexus::{RunState, Retry, ToolCall, ToolContext, Toolkit, tool, tools};
///
/// /// Books a meeting room.
/// #[tool(retries = 1)]
/// fn book(room: u32) -> Result<String, Retry> {
///     Err(Retry::new(format!("room {room} does not exist; rooms are 1 to 9")))
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let toolkit = Toolkit::new().with_all(tools![book]);
/// let mut run = RunState::default();
/// let call = ToolCall { id: "c1".into(), name: "book".into(), arguments: r#"{"room": 12}"#.into() };
/// let first = toolkit.run_calls_in(&mut run, &[call.clone()], &ToolContext::default()).await;
/// assert_eq!(first[0].output, "room 12 does not exist; rooms are 1 to 9");
/// assert_eq!(run.exhausted(), None);
///
/// let second = toolkit.run_calls_in(&mut run, &[call], &ToolContext::default()).await;
/// assert_eq!(second[0].output, "tool `book` failed 2 times in a row: room 12 does not exist; rooms are 1 to 9");
/// assert_eq!(run.exhausted(), Some("book"));
/// # });
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct RunState {
    #[serde(skip_serializing_if = "BTreeSet::is_empty")]
    loaded: BTreeSet<String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    retries: BTreeMap<String, u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    exhausted: Option<String>,
}

impl RunState {
    /// The first tool that failed past its retry budget in this run, if any: the loop should
    /// stop and report it rather than ask the model again.
    pub fn exhausted(&self) -> Option<&str> {
        self.exhausted.as_deref()
    }

    /// How many calls of `tool` in a row asked the model to try again (0 after a success).
    pub fn retries_of(&self, tool: &str) -> u32 {
        self.retries.get(tool).copied().unwrap_or(0)
    }

    /// The deferred tools a search has loaded in this run, by name, sorted.
    pub fn loaded(&self) -> impl Iterator<Item = &str> {
        self.loaded.iter().map(String::as_str)
    }

    /// Whether a search in this run has loaded `tool`.
    pub fn is_loaded(&self, tool: &str) -> bool {
        self.loaded.contains(tool)
    }

    /// Loads `tool` as a search would, e.g. to restore a run or to offer a tool the
    /// conversation already used.
    pub fn load(&mut self, tool: impl Into<String>) {
        self.loaded.insert(tool.into());
    }

    /// Counts `result` of a call to `name` against the tool's `budget` (looked up only for a
    /// retry, so a turn of successes pays no lookup): a retry adds one
    /// (past the budget the result becomes the §15B message), a success resets the count, and
    /// any other error leaves it.
    fn count(&mut self, name: &str, budget: impl FnOnce() -> u32, result: &mut ToolResult) {
        if Retry::is_retry(result) {
            let budget = budget();
            let count = self.retries.entry(name.to_owned()).or_insert(0);
            *count = count.saturating_add(1);
            if *count > budget {
                *result = ToolResult::error(format!(
                    "tool `{name}` failed {count} times in a row: {}",
                    result.output
                ));
                self.exhausted.get_or_insert_with(|| name.to_owned());
            }
        } else if !result.is_error && !self.retries.is_empty() {
            self.retries.remove(name);
        }
    }
}

impl Toolkit {
    /// Sets the retry budget of every tool that sets none itself (`#[tool(retries = N)]`,
    /// [`ToolDef::retries`](crate::ToolDef::retries)): how many calls in a row may ask the
    /// model to try again ([`Retry`], invalid arguments) before
    /// [`run_calls_in`](Self::run_calls_in) gives up on the tool. Default 2, as pydantic-ai's.
    #[must_use]
    pub fn retries(mut self, retries: u32) -> Self {
        self.catalog.retries = Some(retries);
        self
    }

    /// Counts `result`, a call of `name` that ran outside [`run_calls_in`](Self::run_calls_in)
    /// (a suspended call's second run), in `run` as that would have.
    pub(crate) fn count_in(&self, run: &mut RunState, name: &str, result: &mut ToolResult) {
        run.count(name, || self.budget(name), result);
    }

    /// The retry budget of `tool`: its own, else the toolkit's.
    fn budget(&self, name: &str) -> u32 {
        self.get(name)
            .and_then(|tool| tool.retries())
            .or(self.catalog.retries)
            .unwrap_or(DEFAULT_RETRIES)
    }

    /// [`run_calls`](Self::run_calls) within a run: the same results, in call order, counted
    /// in `run`.
    ///
    /// - **Retry budgets (SPEC §15B).** A result that asks the model to try again — a
    ///   [`Retry`], or invalid arguments — counts one for its tool; a success resets the
    ///   count; other errors leave it. The call that goes past the tool's budget (see
    ///   [`retries`](Self::retries)) is answered ``tool `NAME` failed N times in a row: <last
    ///   message>`` and [`RunState::exhausted`] names the tool. A turn with several calls of
    ///   one tool counts them in call order.
    ///
    /// - **Searches (SPEC §15).** The model's search — a `search_tools` call, or OpenAI
    ///   Responses' client-executed `tool_search` — is answered from the toolkit's index
    ///   ([`search`](Self::search)) with each tool found as `name: first line of its
    ///   description` (`metadata.tools` lists the names), and the tools found are loaded
    ///   into `run`, so [`definitions`](Self::definitions) sends them from now on.
    ///   [`tool_results`](crate::tool_results) writes the answer as the API wants it.
    ///
    /// Without a `RunState` ([`run_calls`](Self::run_calls)) nothing is counted, no search
    /// is answered (it is an unknown tool there), and every result is as the tool gave it.
    pub async fn run_calls_in(
        &self,
        run: &mut RunState,
        calls: &[ToolCall],
        ctx: &ToolContext,
    ) -> Vec<ToolResult> {
        let mut results = if calls.iter().any(|call| self.is_search(call)) {
            self.run_with_searches(run, calls, ctx).await
        } else {
            self.join_calls(calls, ctx).await
        };
        // A turn of successes with no count running (the common turn) has nothing to count.
        if run.retries.is_empty() && results.iter().all(|result| !result.is_error) {
            return results;
        }
        for (call, result) in calls.iter().zip(&mut results) {
            run.count(&call.name, || self.budget(&call.name), result);
        }
        results
    }

    /// A turn with searches in it: each search answered here (loading what it found into
    /// `run`), the other calls run together as [`run_calls`](Self::run_calls) runs them.
    async fn run_with_searches(
        &self,
        run: &mut RunState,
        calls: &[ToolCall],
        ctx: &ToolContext,
    ) -> Vec<ToolResult> {
        let others: Vec<ToolCall> = calls
            .iter()
            .filter(|call| !self.is_search(call))
            .cloned()
            .collect();
        let mut ran = self.join_calls(&others, ctx).await.into_iter();
        calls
            .iter()
            .map(|call| match self.is_search(call) {
                true => self.answer_search(call, run),
                // `join_calls` gives one result per call it ran.
                false => ran.next().unwrap_or_default(),
            })
            .collect()
    }
}
