//! `notifications/progress` for a call whose request carries a `progressToken`.
//!
//! The tool reports synchronously, from inside its call; the notifications go out through
//! rmcp's (async) peer. Reports wait in a small queue that the call's own future drains
//! while the tool runs — in the handler's task, so over HTTP they travel on that request's
//! stream — and that is flushed before the result is returned, so every notification comes
//! before the response. When the client reads slower than the tool reports, the queue
//! coalesces: beyond [`QUEUED`] waiting reports the newest replaces the last one waiting, so
//! memory stays bounded and the latest value always arrives.

use std::collections::VecDeque;
use std::future::{Future, poll_fn};
use std::pin::{Pin, pin};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::Waker;

use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::service::{Peer, RoleServer};

use crate::tool::progress::Progress;

/// How many reports may wait for the transport before they coalesce.
const QUEUED: usize = 64;

/// Reports waiting to be sent, and the call's waker to rouse when one arrives.
#[derive(Default)]
struct Outbox {
    waiting: VecDeque<ProgressNotificationParam>,
    waker: Option<Waker>,
}

type Shared = Arc<Mutex<Outbox>>;

fn lock(outbox: &Shared) -> std::sync::MutexGuard<'_, Outbox> {
    outbox.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A [`Progress`] that queues a notification for `token`, and the queue it fills.
fn queued(token: ProgressToken) -> (Progress, Shared) {
    let outbox = Shared::default();
    let filled = Arc::clone(&outbox);
    let progress = Progress::new(move |value, total, message| {
        let mut param = ProgressNotificationParam::new(token.clone(), value);
        param.total = total;
        param.message = message.map(str::to_owned);
        let mut outbox = lock(&filled);
        if outbox.waiting.len() >= QUEUED {
            outbox.waiting.pop_back();
        }
        outbox.waiting.push_back(param);
        if let Some(waker) = outbox.waker.take() {
            waker.wake();
        }
    });
    (progress, outbox)
}

type Sending<'a> = Pin<Box<dyn Future<Output = ()> + Send + 'a>>;

fn send(peer: &Peer<RoleServer>, param: ProgressNotificationParam) -> Sending<'_> {
    Box::pin(async move {
        // A client that has gone away misses its progress; the call itself goes on.
        let _ = peer.notify_progress(param).await;
    })
}

/// Runs `work(progress)`, where `progress` sends `notifications/progress` for `token` to
/// `peer` (or, without a token, goes nowhere), and returns its output once every report has
/// been sent.
pub(super) async fn reporting<F: Future>(
    peer: &Peer<RoleServer>,
    token: Option<ProgressToken>,
    work: impl FnOnce(Progress) -> F,
) -> F::Output {
    // One `work` future whichever way, so the call's future holds it once.
    let (progress, outbox) = match token {
        Some(token) => {
            let (progress, outbox) = queued(token);
            (progress, Some(outbox))
        }
        None => (Progress::default(), None),
    };
    let mut work = pin!(work(progress));
    let Some(outbox) = outbox else {
        return work.await;
    };
    let mut sending: Option<Sending<'_>> = None;
    let output = poll_fn(|cx| {
        loop {
            if let Some(send) = sending.as_mut() {
                if send.as_mut().poll(cx).is_pending() {
                    break;
                }
                sending = None;
            }
            let mut waiting = lock(&outbox);
            match waiting.waiting.pop_front() {
                Some(param) => {
                    drop(waiting);
                    sending = Some(send(peer, param));
                }
                None => {
                    waiting.waker = Some(cx.waker().clone());
                    break;
                }
            }
        }
        work.as_mut().poll(cx)
    })
    .await;
    if let Some(send) = sending {
        send.await;
    }
    loop {
        let next = lock(&outbox).waiting.pop_front();
        match next {
            Some(param) => send(peer, param).await,
            None => return output,
        }
    }
}
