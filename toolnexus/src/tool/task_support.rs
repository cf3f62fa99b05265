//! [`TaskSupport`]: whether a tool may run as a long-lived task (SPEC §14).

use std::fmt;

/// Whether a tool may run as a task (SPEC §14): set with `#[tool(task)]`,
/// `#[tool(task = "required")]` or [`ToolDef::task`](crate::ToolDef::task). The MCP wire
/// names are those of 2025-11-25's `execution.taskSupport`.
///
/// Over MCP a `Forbidden` tool always answers inline; an `Optional` one becomes a task when
/// the client can follow one and the call outlasts the server's `task_after`; a `Required`
/// one only ever runs as a task, and a client that cannot follow one is refused (`-32021`).
/// `Toolkit::spawn` (feature `tasks`) runs any tool as a task, whatever it says.
///
/// ```
/// use toolnexus::{Tool, tool};
/// use toolnexus::task::TaskSupport;
///
/// /// Builds the quarterly report (takes minutes).
/// #[tool(task)]
/// async fn quarterly_report(quarter: u8) -> String {
///     format!("report for Q{quarter}")
/// }
///
/// assert_eq!(QuarterlyReportTool.task_support(), TaskSupport::Optional);
/// assert_eq!(TaskSupport::Required.as_str(), "required");
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum TaskSupport {
    /// Runs inline only (the default).
    #[default]
    Forbidden,
    /// May run as a task.
    Optional,
    /// Runs only as a task.
    Required,
}

impl TaskSupport {
    /// The MCP wire name: `"forbidden"`, `"optional"` or `"required"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Forbidden => "forbidden",
            Self::Optional => "optional",
            Self::Required => "required",
        }
    }
}

impl fmt::Display for TaskSupport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
