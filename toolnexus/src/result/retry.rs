//! [`Retry`]: an error the model should fix and try again (SPEC §15B), counted against the
//! tool's retry budget by a run's [`RunState`](crate::RunState).

use crate::result::ToolResult;
use crate::result::lower::IntoToolError;

/// The `metadata` key that marks a result as a [`Retry`]. Code reads it; the model never sees
/// it (no provider's wire carries `metadata`).
pub(crate) const RETRY_KEY: &str = "retry";

/// "Try again, differently": a tool returns `Err(Retry::new(msg))` when the model can fix the
/// call (a date in the past, an id that does not exist) rather than when the tool failed.
///
/// The result is `is_error` with `msg` as its output, like any error, and carries
/// `"retry": true` in its `metadata` (for code, never sent to the model). A
/// [`RunState`](crate::RunState) counts such results, with invalid arguments, against the
/// tool's retry budget ([`Toolkit::retries`](crate::Toolkit::retries)); without one nothing is
/// counted. In an error enum deriving [`ToolOutput`](derive@crate::ToolOutput), a variant
/// `#[output(retry)] Again(Retry)` lowers the same way and gives the enum `From<Retry>`, so `?`
/// works.
///
/// `Retry` is deliberately not `Display`: a `Display` error lowers as a plain error, which a
/// budget cannot tell from a failure of the tool itself.
///
/// ```
/// use toolnexus::{IntoToolResult, Retry};
///
/// fn book(day: u32) -> Result<String, Retry> {
///     if day > 31 {
///         return Err(Retry::new(format!("day {day} does not exist; pick 1 to 31")));
///     }
///     Ok(format!("booked on day {day}"))
/// }
///
/// let result = book(40).into_tool_result();
/// assert!(result.is_error);
/// assert_eq!(result.output, "day 40 does not exist; pick 1 to 31");
/// assert_eq!(result.metadata["retry"], true);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Retry {
    message: String,
}

impl Retry {
    /// A retry telling the model `message`: what was wrong and what to send instead.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }

    /// What the model is told.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Whether `result` asks the model to try again: a [`Retry`], or arguments the tool
    /// refused (``invalid arguments for `NAME`: …``). What a retry budget counts.
    ///
    /// ```
    /// use toolnexus::{Retry, ToolResult};
    ///
    /// assert!(Retry::is_retry(&ToolResult::error("invalid arguments for `add`: missing field `b`")));
    /// assert!(!Retry::is_retry(&ToolResult::error("disk full")));
    /// ```
    pub fn is_retry(result: &ToolResult) -> bool {
        result.is_error
            && (result.metadata.get(RETRY_KEY) == Some(&true.into())
                || result.output.starts_with("invalid arguments for `"))
    }
}

impl IntoToolError for Retry {
    fn into_tool_error(self) -> ToolResult {
        ToolResult::error(self.message).with_metadata(RETRY_KEY, true)
    }
}
