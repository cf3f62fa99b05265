//! The whole run's limits — its timeout and its cancel signal — and the runtime-free sleep
//! the retries wait with: both on the toolkit's timer thread, so no async runtime is needed.

use std::future::{Future, poll_fn};
use std::pin::pin;
use std::task::Poll;
use std::time::{Duration, Instant};

use crate::client::outcome::Limit;
use crate::tool::cancel::CancelSignal;
use crate::toolkit::deadline::Deadline;

/// Waits `duration` on the toolkit's timer thread (`toolnexus-timer`), on any executor.
pub(crate) async fn sleep(duration: Duration) {
    let Some(at) = Instant::now().checked_add(duration) else {
        return std::future::pending().await;
    };
    let mut deadline = Deadline::at(at);
    poll_fn(|cx| deadline.poll(cx)).await;
}

/// A run's timeout (counted from its start) and the caller's cancel signal.
pub(crate) struct Watch {
    deadline: Option<Instant>,
    cancel: Option<CancelSignal>,
}

impl Watch {
    pub(crate) fn new(timeout: Option<Duration>, cancel: Option<CancelSignal>) -> Self {
        Self {
            deadline: timeout.and_then(|timeout| Instant::now().checked_add(timeout)),
            cancel,
        }
    }

    /// The limit reached now, if any; cancellation first.
    pub(crate) fn reached(&self) -> Option<Limit> {
        if self.cancel.as_ref().is_some_and(CancelSignal::is_cancelled) {
            return Some(Limit::Cancelled);
        }
        match self.deadline {
            Some(at) if Instant::now() >= at => Some(Limit::Timeout),
            _ => None,
        }
    }

    /// `work`'s output, or the limit reached first (and `work` dropped): for a model call and
    /// a retry's wait, which leave nothing behind.
    pub(crate) async fn race<T>(&self, work: impl Future<Output = T>) -> Result<T, Limit> {
        let mut work = pin!(work);
        self.until(
            |cx| work.as_mut().poll(cx).map(Ok),
            |limit| Poll::Ready(Err(limit)),
        )
        .await
    }

    /// `work` run to its end even past a limit: when one is reached, `stop` is cancelled (the
    /// tools see it and end as cancelled) and `work` still finishes, so every call has its
    /// result. For a turn's tool calls.
    pub(crate) async fn finish<T>(
        &self,
        work: impl Future<Output = T>,
        stop: &CancelSignal,
    ) -> (T, Option<Limit>) {
        let mut work = pin!(work);
        let mut reached = None;
        let output = self
            .until(
                |cx| work.as_mut().poll(cx),
                |limit| {
                    reached.get_or_insert(limit);
                    stop.cancel();
                    Poll::Pending
                },
            )
            .await;
        // After the stop the work may finish in the same poll, before the limit is seen.
        (output, reached.or_else(|| self.reached()))
    }

    /// Polls `work`; when a limit is reached, `on_limit` says what to do (it may keep going).
    async fn until<T>(
        &self,
        mut work: impl FnMut(&mut std::task::Context<'_>) -> Poll<T>,
        mut on_limit: impl FnMut(Limit) -> Poll<T>,
    ) -> T {
        let mut deadline = self.deadline.map(Deadline::at);
        let mut cancelled = self
            .cancel
            .as_ref()
            .map(|cancel| Box::pin(cancel.cancelled()));
        let mut seen = false;
        poll_fn(|cx| {
            if let Poll::Ready(output) = work(cx) {
                return Poll::Ready(output);
            }
            if seen {
                return Poll::Pending;
            }
            let limit = if cancelled
                .as_mut()
                .is_some_and(|c| c.as_mut().poll(cx).is_ready())
            {
                Some(Limit::Cancelled)
            } else if deadline.as_mut().is_some_and(|d| d.poll(cx).is_ready()) {
                Some(Limit::Timeout)
            } else {
                None
            };
            let Some(limit) = limit else {
                return Poll::Pending;
            };
            seen = true;
            match on_limit(limit) {
                Poll::Ready(output) => Poll::Ready(output),
                // The stop was signalled: the work is woken by it, poll it once more now.
                Poll::Pending => work(cx),
            }
        })
        .await
    }
}
