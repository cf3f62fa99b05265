//! Progress reports (SPEC §8C): [`ToolContext::report_progress`](crate::ToolContext::report_progress)
//! hands them to whoever listens — a callback set with
//! [`ToolContext::on_progress`](crate::ToolContext::on_progress), or the MCP server's
//! `notifications/progress` — and drops every value that does not increase.

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

/// The callback a [`Progress`] calls: `(progress, total, message)`.
type Callback = dyn Fn(f64, Option<f64>, Option<&str>) + Send + Sync;

/// Where a tool's progress reports go: nowhere by default, so reporting costs one branch.
///
/// Set it with [`ToolContext::on_progress`](crate::ToolContext::on_progress); the MCP server
/// sets it when a request carries a `progressToken`. Clones share one listener and one
/// record of the last value passed on, so a call executed twice (the §10 loop rule) keeps
/// its values increasing across both executions.
#[derive(Clone, Default)]
pub struct Progress {
    sink: Option<Arc<Sink>>,
}

struct Sink {
    /// The last value passed on (`-inf` before the first). Held while the callback runs, so
    /// reports from several threads reach it in increasing order.
    last: Mutex<f64>,
    callback: Box<Callback>,
}

impl Progress {
    /// Passes each increasing report to `callback`.
    pub fn new(callback: impl Fn(f64, Option<f64>, Option<&str>) + Send + Sync + 'static) -> Self {
        Self {
            sink: Some(Arc::new(Sink {
                last: Mutex::new(f64::NEG_INFINITY),
                callback: Box::new(callback),
            })),
        }
    }

    /// Whether anyone listens.
    pub fn is_set(&self) -> bool {
        self.sink.is_some()
    }

    /// Hands `progress` on unless it is not greater than the last value handed on (or NaN).
    pub(crate) fn report(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        let Some(sink) = &self.sink else {
            return;
        };
        // A callback that panicked once leaves the record as it was; it stays usable.
        let mut last = sink.last.lock().unwrap_or_else(PoisonError::into_inner);
        // NaN compares as nothing, so it is dropped with every value that does not increase.
        if progress.partial_cmp(&*last) != Some(std::cmp::Ordering::Greater) {
            return;
        }
        *last = progress;
        (sink.callback)(progress, total, message);
    }
}

impl fmt::Debug for Progress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Progress")
            .field("set", &self.is_set())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use crate::tool::progress::*;

    #[test]
    fn only_increasing_values_are_passed_on() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let record = Arc::clone(&seen);
        let progress = Progress::new(move |value, total, message| {
            record
                .lock()
                .unwrap()
                .push((value, total, message.map(str::to_owned)));
        });
        let twin = progress.clone();
        progress.report(0.0, Some(10.0), None);
        progress.report(0.0, Some(10.0), Some("again"));
        twin.report(5.0, None, Some("half"));
        progress.report(f64::NAN, None, None);
        progress.report(4.0, None, None);
        twin.report(10.0, Some(10.0), Some("done"));
        assert_eq!(
            *seen.lock().unwrap(),
            [
                (0.0, Some(10.0), None),
                (5.0, None, Some("half".to_owned())),
                (10.0, Some(10.0), Some("done".to_owned())),
            ]
        );
    }

    #[test]
    fn an_unset_progress_ignores_reports() {
        let progress = Progress::default();
        assert!(!progress.is_set());
        progress.report(1.0, None, None);
        assert_eq!(format!("{progress:?}"), "Progress { set: false }");
    }
}
