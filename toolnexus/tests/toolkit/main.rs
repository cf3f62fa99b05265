//! The toolkit: registration, `execute`/`execute_json` and their panic guard, `#[tool]` tools
//! through a toolkit, `run_calls`, the §10 loop rule, deadlines and cancellation, progress,
//! retry budgets, the tool search's recall, and `Toolkit::spawn`'s tasks.

#[path = "../common/mod.rs"]
mod common;

mod deadlines;
mod loop_rule;
mod progress;
mod retry_budgets;
mod run_calls;
mod search_recall;
#[cfg(feature = "tasks")]
mod spawn;
mod toolkit;
mod toolkit_of_macro_tools;
