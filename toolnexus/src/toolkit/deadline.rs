//! The limits a toolkit call is held to besides its own completion — the caller's
//! [`CancelSignal`](crate::context::CancelSignal) and its timeout — and the timer behind deadlines.
//!
//! Deadlines need no async runtime: one process-wide timer thread wakes the tasks whose
//! deadline has passed, whatever executor polls them.
//!
//! The thread (named `toolnexus-timer`) starts the first time a call with a timeout has to
//! wait, then sleeps on a condition variable until the earliest deadline; it costs nothing
//! to calls without a timeout. A tokio, async-std or hand-rolled executor all see the same
//! thing: their waker is called when the deadline passes.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Condvar, Mutex, MutexGuard, Once, PoisonError};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use crate::result::ToolResult;
use crate::tool::cancel::Cancelled;
use crate::tool::context::ToolContext;

/// Why a call stopped before its tool finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    Cancelled,
    TimedOut(Duration),
}

impl Stop {
    /// The call's result: ``tool `NAME` was cancelled`` or
    /// ``tool `NAME` timed out after <duration>`` (see [`millis`]).
    pub(crate) fn result(self, tool_name: &str) -> ToolResult {
        match self {
            Self::Cancelled => ToolResult::error(format!("tool `{tool_name}` was cancelled")),
            Self::TimedOut(timeout) => ToolResult::error(format!(
                "tool `{tool_name}` timed out after {}",
                millis(timeout)
            )),
        }
    }
}

/// A call's cancel signal and deadline, as its future watches them.
///
/// [`reached`](Self::reached) is what every poll pays: one atomic load, plus a clock read
/// when there is a timeout. Wakers are registered only by [`wait`](Self::wait), once the
/// tool has returned `Pending`, in a box made then: a tool that finishes in its first poll
/// never touches a lock or the timer, and its call carries and drops only a null pointer.
pub(crate) struct Limits<'a> {
    ctx: &'a ToolContext,
    /// When the call times out; `None` without a timeout, or one too long to represent.
    deadline: Option<Instant>,
    waiting: Option<Box<Waiting<'a>>>,
}

/// The registrations of a call that is waiting.
struct Waiting<'a> {
    cancelled: Cancelled<'a>,
    deadline: Option<Deadline>,
}

impl<'a> Limits<'a> {
    /// `ctx`'s limits, the deadline counted from now.
    pub(crate) fn new(ctx: &'a ToolContext) -> Self {
        Self {
            ctx,
            deadline: ctx
                .timeout
                .and_then(|timeout| Instant::now().checked_add(timeout)),
            waiting: None,
        }
    }

    /// The context whose limits these are.
    pub(crate) fn ctx(&self) -> &'a ToolContext {
        self.ctx
    }

    /// Whether the call must stop now; cancellation first. Inlined: every poll asks.
    #[inline]
    pub(crate) fn reached(&self) -> Option<Stop> {
        if self.ctx.cancel.is_cancelled() {
            return Some(Stop::Cancelled);
        }
        match self.deadline {
            Some(at) if Instant::now() >= at => Some(self.timed_out()),
            _ => None,
        }
    }

    /// Arranges for `cx` to be woken when a limit is reached; `Some` if one already is.
    pub(crate) fn wait(&mut self, cx: &mut Context<'_>) -> Option<Stop> {
        let waiting = self.waiting.get_or_insert_with(|| {
            Box::new(Waiting {
                cancelled: self.ctx.cancel.cancelled(),
                deadline: self.deadline.map(Deadline::at),
            })
        });
        if Pin::new(&mut waiting.cancelled).poll(cx).is_ready() {
            return Some(Stop::Cancelled);
        }
        let deadline = waiting.deadline.as_mut()?;
        deadline.poll(cx).is_ready().then(|| self.timed_out())
    }

    fn timed_out(&self) -> Stop {
        Stop::TimedOut(self.ctx.timeout.unwrap_or_default())
    }
}

/// A call that never waited drops only a null pointer: the check is inlined into the caller,
/// and the deregistrations stay out of its way.
impl Drop for Limits<'_> {
    #[inline]
    fn drop(&mut self) {
        #[cold]
        fn deregister(waiting: Box<Waiting<'_>>) {
            drop(waiting);
        }
        if let Some(waiting) = self.waiting.take() {
            deregister(waiting);
        }
    }
}

/// A point in time a task waits for; the timer wakes it once `Instant::now()` reaches it.
///
/// Registered on the first [`poll`](Self::poll) that finds it in the future, deregistered on
/// drop.
#[derive(Debug)]
pub(crate) struct Deadline {
    at: Instant,
    /// The key this task's waker is stored under, and the waker stored.
    registered: Option<(u64, Waker)>,
}

impl Deadline {
    pub(crate) fn at(at: Instant) -> Self {
        Self {
            at,
            registered: None,
        }
    }

    /// Ready once the deadline has passed; otherwise makes sure the timer will wake `cx`'s
    /// waker when it does.
    pub(crate) fn poll(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        if Instant::now() >= self.at {
            return Poll::Ready(());
        }
        if let Some((_, waker)) = &self.registered {
            if waker.will_wake(cx.waker()) {
                return Poll::Pending;
            }
        }
        let waker = cx.waker().clone();
        let key = TIMER.register(self.at, self.registered.as_ref().map(|(k, _)| *k), &waker);
        self.registered = Some((key, waker));
        Poll::Pending
    }
}

impl Drop for Deadline {
    fn drop(&mut self) {
        if let Some((key, _)) = self.registered.take() {
            TIMER.lock().wakers.remove(&(self.at, key));
        }
    }
}

/// The process-wide timer: wakers keyed by (deadline, registration number), so the earliest
/// is first and two tasks with the same deadline never collide.
struct Timer {
    state: Mutex<TimerState>,
    /// Signalled when a new earliest deadline arrives, so the thread shortens its sleep.
    earlier: Condvar,
    started: Once,
}

struct TimerState {
    next_key: u64,
    wakers: BTreeMap<(Instant, u64), Waker>,
}

static TIMER: Timer = Timer {
    state: Mutex::new(TimerState {
        next_key: 0,
        wakers: BTreeMap::new(),
    }),
    earlier: Condvar::new(),
    started: Once::new(),
};

impl Timer {
    fn lock(&self) -> MutexGuard<'_, TimerState> {
        // The state is a map of wakers; a panic elsewhere cannot leave it half-updated.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Stores `waker` for `at` (replacing the one under `key` if there is one) and returns
    /// its key.
    fn register(&'static self, at: Instant, key: Option<u64>, waker: &Waker) -> u64 {
        self.started.call_once(|| {
            // If the OS refuses a thread, deadlines are still checked whenever the tool's own
            // future wakes the call; they just cannot interrupt a tool that never wakes.
            let _ = std::thread::Builder::new()
                .name("toolnexus-timer".to_owned())
                .spawn(|| TIMER.run());
        });
        let mut state = self.lock();
        let key = key.unwrap_or_else(|| {
            let key = state.next_key;
            state.next_key += 1;
            key
        });
        state.wakers.insert((at, key), waker.clone());
        let earliest = state.wakers.keys().next() == Some(&(at, key));
        drop(state);
        if earliest {
            self.earlier.notify_one();
        }
        key
    }

    /// The timer thread: wake what is due, then sleep until the next deadline.
    fn run(&self) {
        let mut state = self.lock();
        loop {
            let now = Instant::now();
            let mut due = Vec::new();
            while let Some(entry) = state.wakers.first_entry() {
                if entry.key().0 > now {
                    break;
                }
                due.push(entry.remove());
            }
            if !due.is_empty() {
                // Wake outside the lock: a waker may poll, and that poll may register again.
                // A waker that panics (an executor's bug) must not end the one timer thread
                // every deadline in the process depends on.
                drop(state);
                for waker in due {
                    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| waker.wake()));
                }
                state = self.lock();
                continue;
            }
            state = match state.wakers.keys().next() {
                Some(&(at, _)) => {
                    self.earlier
                        .wait_timeout(state, at - now)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0
                }
                None => self
                    .earlier
                    .wait(state)
                    .unwrap_or_else(PoisonError::into_inner),
            };
        }
    }
}

/// A duration as the timeout message prints it: whole milliseconds as every toolnexus port
/// prints them (`50ms`, `1500ms`), with a decimal fraction only when the duration is not a
/// whole number of milliseconds (`0.25ms`), so a nonzero timeout never reads `0ms`.
pub(crate) fn millis(duration: Duration) -> String {
    let whole = duration.as_millis();
    let below = duration.subsec_nanos() % 1_000_000;
    if below == 0 {
        format!("{whole}ms")
    } else {
        let fraction = format!("{below:06}");
        format!("{whole}.{}ms", fraction.trim_end_matches('0'))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::mpsc;
    use std::task::Wake;

    use crate::toolkit::deadline::*;

    struct Notify(Mutex<mpsc::Sender<()>>);

    impl Wake for Notify {
        fn wake(self: Arc<Self>) {
            let _ = self.0.lock().unwrap().send(());
        }
    }

    #[test]
    fn the_timer_wakes_a_task_once_its_deadline_passes() {
        let (sender, woken) = mpsc::channel();
        let waker = Waker::from(Arc::new(Notify(Mutex::new(sender))));
        let mut cx = Context::from_waker(&waker);
        let mut deadline = Deadline::at(Instant::now() + Duration::from_millis(20));
        assert!(deadline.poll(&mut cx).is_pending());
        // Generous: the machine may be loaded; what matters is that the wake comes by itself.
        woken.recv_timeout(Duration::from_secs(30)).expect("woken");
        assert!(deadline.poll(&mut cx).is_ready());
    }

    struct Panics;

    impl Wake for Panics {
        fn wake(self: Arc<Self>) {
            panic!("a broken executor's waker");
        }
    }

    #[test]
    fn a_waker_that_panics_does_not_stop_the_timer() {
        let at = Instant::now() + Duration::from_millis(10);
        let broken = Waker::from(Arc::new(Panics));
        let mut first = Deadline::at(at);
        assert!(first.poll(&mut Context::from_waker(&broken)).is_pending());
        let (sender, woken) = mpsc::channel();
        let waker = Waker::from(Arc::new(Notify(Mutex::new(sender))));
        let mut second = Deadline::at(at + Duration::from_millis(30));
        assert!(second.poll(&mut Context::from_waker(&waker)).is_pending());
        woken
            .recv_timeout(Duration::from_secs(30))
            .expect("woken after the panic");
    }

    #[test]
    fn a_dropped_deadline_leaves_no_waker_behind() {
        let mut cx = Context::from_waker(Waker::noop());
        let mut deadline = Deadline::at(Instant::now() + Duration::from_secs(3600));
        assert!(deadline.poll(&mut cx).is_pending());
        let key = (deadline.at, deadline.registered.as_ref().unwrap().0);
        assert!(TIMER.lock().wakers.contains_key(&key));
        drop(deadline);
        assert!(!TIMER.lock().wakers.contains_key(&key));
    }

    #[test]
    fn dropped_limits_that_waited_leave_no_waker_behind() {
        let ctx = ToolContext {
            timeout: Some(Duration::from_secs(3600)),
            ..ToolContext::default()
        };
        let (sender, woken) = mpsc::channel();
        let waker = Waker::from(Arc::new(Notify(Mutex::new(sender))));
        let mut limits = Limits::new(&ctx);
        assert!(limits.wait(&mut Context::from_waker(&waker)).is_none());
        let waiting = limits.waiting.as_ref().expect("registered");
        let deadline = waiting.deadline.as_ref().expect("a deadline");
        let key = (
            deadline.at,
            deadline.registered.as_ref().expect("on the timer").0,
        );
        assert!(TIMER.lock().wakers.contains_key(&key));
        drop(limits);
        assert!(!TIMER.lock().wakers.contains_key(&key));
        ctx.cancel.cancel();
        assert!(
            woken.try_recv().is_err(),
            "the cancel signal still held the waker"
        );
    }

    #[test]
    fn an_unrepresentable_timeout_is_no_deadline() {
        let ctx = ToolContext {
            timeout: Some(Duration::MAX),
            ..ToolContext::default()
        };
        assert!(Limits::new(&ctx).deadline.is_none());
    }

    #[test]
    fn millis_prints_whole_milliseconds_and_only_needed_fractions() {
        assert_eq!(millis(Duration::from_millis(50)), "50ms");
        assert_eq!(millis(Duration::from_secs(2)), "2000ms");
        assert_eq!(millis(Duration::from_micros(250)), "0.25ms");
        assert_eq!(millis(Duration::from_nanos(1_500_001)), "1.500001ms");
        assert_eq!(millis(Duration::ZERO), "0ms");
    }
}
