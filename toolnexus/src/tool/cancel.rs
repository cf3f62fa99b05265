//! [`CancelSignal`]: a cancellation flag that can also wake the futures waiting on it, so a
//! call resolves the moment it is cancelled without any async runtime in between.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};

/// A cheap, clonable cancellation signal shared between the caller and a running tool.
///
/// Clones share one signal. [`cancel`](Self::cancel) sets it for good and wakes every task
/// waiting in [`cancelled`](Self::cancelled); [`Toolkit::execute`](crate::Toolkit::execute)
/// waits there, so a call through a toolkit resolves as soon as its context's signal fires.
/// A tool can poll [`is_cancelled`](Self::is_cancelled) at its own checkpoints, or await
/// `cancelled()`. It needs no async runtime: the waker of whichever executor polls is called
/// directly.
///
/// ```
/// let signal = toolnexus::context::CancelSignal::default();
/// let seen_by_tool = signal.clone();
/// signal.cancel();
/// assert!(seen_by_tool.is_cancelled());
/// ```
#[derive(Clone, Default)]
pub struct CancelSignal(Arc<Shared>);

#[derive(Default)]
struct Shared {
    cancelled: AtomicBool,
    waiters: Mutex<Waiters>,
}

/// The tasks waiting in [`CancelSignal::cancelled`]; a `Vec` because a signal rarely has
/// more than a couple (the toolkit's call and maybe the tool itself).
#[derive(Default)]
struct Waiters {
    next_key: u64,
    wakers: Vec<(u64, Waker)>,
}

impl CancelSignal {
    /// Asks every holder of this signal to stop, and wakes every task awaiting
    /// [`cancelled`](Self::cancelled). Calling it again does nothing.
    pub fn cancel(&self) {
        if self.0.cancelled.swap(true, Ordering::AcqRel) {
            return;
        }
        // Set the flag before taking the list: a waiter registers under the lock and checks
        // the flag there, so it either sees the flag or is in the list taken here.
        let wakers = std::mem::take(&mut self.0.waiters().wakers);
        for (_, waker) in wakers {
            waker.wake();
        }
    }

    /// Whether [`cancel`](Self::cancel) was called on this signal or a clone of it.
    #[inline] // every poll of every toolkit call asks, and the answer is one load
    pub fn is_cancelled(&self) -> bool {
        self.0.cancelled.load(Ordering::Acquire)
    }

    /// A future that completes once this signal is cancelled (at once if it already is).
    ///
    /// ```
    /// use std::pin::pin;
    /// use std::task::{Context, Poll, Waker};
    ///
    /// let signal = toolnexus::context::CancelSignal::default();
    /// let mut cancelled = pin!(signal.cancelled());
    /// let mut cx = Context::from_waker(Waker::noop());
    /// assert!(cancelled.as_mut().poll(&mut cx).is_pending());
    /// signal.clone().cancel();
    /// assert!(cancelled.as_mut().poll(&mut cx).is_ready());
    /// ```
    pub fn cancelled(&self) -> Cancelled<'_> {
        Cancelled {
            signal: self,
            registered: None,
        }
    }
}

impl Shared {
    fn waiters(&self) -> MutexGuard<'_, Waiters> {
        // The lock only guards a list of wakers; a panic elsewhere cannot leave it half-done.
        self.waiters.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl fmt::Debug for CancelSignal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CancelSignal")
            .field("cancelled", &self.is_cancelled())
            .finish()
    }
}

/// The future returned by [`CancelSignal::cancelled`]. Dropping it stops waiting.
#[must_use = "futures do nothing unless polled"]
pub struct Cancelled<'a> {
    signal: &'a CancelSignal,
    /// The key this task's waker is stored under, and the waker stored, so a poll with the
    /// same waker does not take the lock.
    registered: Option<(u64, Waker)>,
}

impl Future for Cancelled<'_> {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.signal.is_cancelled() {
            return Poll::Ready(());
        }
        if let Some((_, waker)) = &self.registered {
            if waker.will_wake(cx.waker()) {
                return Poll::Pending;
            }
        }
        let shared = &self.signal.0;
        let mut waiters = shared.waiters();
        if shared.cancelled.load(Ordering::Acquire) {
            return Poll::Ready(());
        }
        let key = match &self.registered {
            Some((key, _)) => *key,
            None => {
                let key = waiters.next_key;
                waiters.next_key += 1;
                key
            }
        };
        let waker = cx.waker().clone();
        match waiters.wakers.iter_mut().find(|(k, _)| *k == key) {
            Some((_, stored)) => stored.clone_from(&waker),
            None => waiters.wakers.push((key, waker.clone())),
        }
        drop(waiters);
        self.registered = Some((key, waker));
        Poll::Pending
    }
}

impl Drop for Cancelled<'_> {
    fn drop(&mut self) {
        if let Some((key, _)) = self.registered.take() {
            let mut waiters = self.signal.0.waiters();
            if let Some(at) = waiters.wakers.iter().position(|(k, _)| *k == key) {
                waiters.wakers.swap_remove(at);
            }
        }
    }
}

impl fmt::Debug for Cancelled<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cancelled")
            .field("signal", self.signal)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use std::pin::pin;
    use std::sync::atomic::AtomicUsize;
    use std::task::Wake;

    use crate::tool::cancel::*;

    struct CountingWaker(AtomicUsize);

    impl Wake for CountingWaker {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn cancel_wakes_every_waiting_task_once() {
        let signal = CancelSignal::default();
        let counter = Arc::new(CountingWaker(AtomicUsize::new(0)));
        let waker = Waker::from(Arc::clone(&counter));
        let mut cx = Context::from_waker(&waker);
        let mut first = pin!(signal.cancelled());
        let mut second = pin!(signal.cancelled());
        assert!(first.as_mut().poll(&mut cx).is_pending());
        assert!(second.as_mut().poll(&mut cx).is_pending());
        // A second poll with the same waker registers nothing new.
        assert!(first.as_mut().poll(&mut cx).is_pending());
        assert_eq!(signal.0.waiters().wakers.len(), 2);

        signal.clone().cancel();
        signal.cancel();
        assert_eq!(counter.0.load(Ordering::SeqCst), 2);
        assert!(first.as_mut().poll(&mut cx).is_ready());
        assert!(second.as_mut().poll(&mut cx).is_ready());
    }

    #[test]
    fn a_dropped_wait_leaves_no_waker_behind() {
        let signal = CancelSignal::default();
        let mut cx = Context::from_waker(Waker::noop());
        {
            let mut waiting = pin!(signal.cancelled());
            assert!(waiting.as_mut().poll(&mut cx).is_pending());
            assert_eq!(signal.0.waiters().wakers.len(), 1);
        }
        assert!(signal.0.waiters().wakers.is_empty());
    }

    #[test]
    fn an_already_cancelled_signal_is_ready_without_registering() {
        let signal = CancelSignal::default();
        signal.cancel();
        let mut cx = Context::from_waker(Waker::noop());
        assert!(pin!(signal.cancelled()).poll(&mut cx).is_ready());
        assert!(signal.0.waiters().wakers.is_empty());
        assert_eq!(format!("{signal:?}"), "CancelSignal { cancelled: true }");
    }
}
