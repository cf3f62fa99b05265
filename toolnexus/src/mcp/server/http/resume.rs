//! SSE polling ([`HttpOptions::poll_after`](super::HttpOptions::poll_after)): a call in a
//! session that has not answered within the time gets an event stream that the server closes
//! after its priming event (`id`, `retry`), and the client comes back with a `GET` carrying
//! `Last-Event-ID`: it is sent what the call sent meanwhile, then the rest, to its answer. The
//! events wait here rather than in rmcp, which forgets a request's stream once its answer is
//! sent — an answer that came while the client was away would be lost there.

use std::collections::HashMap;
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::{Body, Bytes, Frame};
use hyper::header::{CACHE_CONTROL, CONTENT_TYPE, HeaderMap, HeaderValue};
use hyper::{Response, StatusCode};
use serde_json::Value;
use tokio::sync::{mpsc, watch};

use super::ResponseBody;
use super::sse::{data_of, find, is_answer};

/// When a call in a session that has not answered gets its stream closed, to be resumed
/// ([`HttpOptions::poll_after`](super::HttpOptions::poll_after)).
pub(super) struct Polling<'a> {
    pub(super) after: Duration,
    pub(super) session: Arc<str>,
    pub(super) streams: &'a Arc<Resumable>,
}

/// How long a closed stream's events wait for the client to come back.
const KEPT: Duration = Duration::from_secs(10 * 60);

/// The most closed streams kept at once; past it a call's stream stays open as before.
const MOST_STREAMS: usize = 1_000;

/// What the priming event tells the client to wait before it comes back, in milliseconds.
const RETRY_MS: u64 = 1_000;

/// The closed streams of a server, by stream id.
#[derive(Default)]
pub(super) struct Resumable(Mutex<HashMap<String, Arc<Closed>>>);

/// One call's events, kept for the client to come back for.
struct Closed {
    session: Arc<str>,
    events: Mutex<Vec<Bytes>>,
    /// How many events there are, and whether the answer is among them.
    count: watch::Sender<(usize, bool)>,
}

impl Resumable {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, Arc<Closed>>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Room for one more closed stream of `session`, unless as many as are kept are kept.
    pub(super) fn reserve(self: &Arc<Self>, session: Arc<str>) -> Option<Reserved> {
        let stream = crate::toolkit::spawn::task_id();
        let closed = Arc::new(Closed {
            session,
            events: Mutex::default(),
            count: watch::channel((0, false)).0,
        });
        let mut streams = self.lock();
        if streams.len() >= MOST_STREAMS {
            return None;
        }
        streams.insert(stream.clone(), Arc::clone(&closed));
        Some(Reserved {
            streams: Arc::clone(self),
            stream,
            closed,
        })
    }
}

/// A closed stream's place, kept.
pub(super) struct Reserved {
    streams: Arc<Resumable>,
    stream: String,
    closed: Arc<Closed>,
}

impl Reserved {
    /// Closes the stream of the call `id` after its priming event, and keeps reading rmcp's
    /// `body` here; `read` is what was read of it so far.
    pub(super) fn close(
        self,
        mut parts: hyper::http::response::Parts,
        body: ResponseBody,
        read: Vec<u8>,
        id: Value,
    ) -> Response<ResponseBody> {
        let Self {
            streams,
            stream,
            closed,
        } = self;
        let kept = stream.clone();
        tokio::spawn(async move {
            let reading = read_on(&closed, body, read, &id);
            // Forgotten after `KEPT` whatever became of it: a client that never comes back
            // does not hold the events for longer.
            let _ = tokio::time::timeout(KEPT, reading).await;
            tokio::time::sleep(KEPT).await;
            streams.lock().remove(&kept);
        });
        let priming = format!("id: {stream}-0\nretry: {RETRY_MS}\ndata:\n\n");
        parts.headers.remove(hyper::header::CONTENT_LENGTH);
        Response::from_parts(parts, Full::new(Bytes::from(priming)).boxed_unsync())
    }
}

impl Resumable {
    /// The answer to a `GET` with `Last-Event-ID` naming a stream kept here for `session`:
    /// what came after that event, then the rest as it comes, to the answer. `None` for an id
    /// this server did not give (rmcp's own, or none).
    pub(super) fn resume(
        &self,
        headers: &HeaderMap,
        session: Option<&str>,
    ) -> Option<Response<ResponseBody>> {
        let last = headers.get("last-event-id")?.to_str().ok()?;
        let (stream, seen) = last.rsplit_once('-')?;
        let seen: usize = seen.parse().ok()?;
        let closed = self.lock().get(stream).cloned()?;
        if Some(&*closed.session) != session {
            return None;
        }
        let (sender, receiver) = mpsc::channel(16);
        let stream = stream.to_owned();
        tokio::spawn(async move {
            let mut count = closed.count.subscribe();
            let mut next = seen;
            loop {
                let (known, answered) = *count.borrow_and_update();
                while next < known {
                    let data =
                        closed.events.lock().unwrap_or_else(PoisonError::into_inner)[next].clone();
                    next += 1;
                    let event = format!("id: {stream}-{next}\ndata: ");
                    let event = [event.as_bytes(), &data, b"\n\n"].concat();
                    if sender.send(Bytes::from(event)).await.is_err() {
                        return;
                    }
                }
                if answered || count.changed().await.is_err() {
                    return;
                }
            }
        });
        let mut response = Response::new(Events(receiver).boxed_unsync());
        *response.status_mut() = StatusCode::OK;
        let headers = response.headers_mut();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
        headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
        Some(response)
    }
}

/// Reads the rest of rmcp's stream for call `id` into `closed`, to its answer.
async fn read_on(closed: &Closed, mut body: ResponseBody, read: Vec<u8>, id: &Value) {
    let mut pending = read;
    loop {
        while let Some(end) = find(&pending, b"\n\n") {
            let event: Vec<u8> = pending.drain(..end + 2).collect();
            let data = data_of(&event);
            if data.is_empty() {
                continue;
            }
            let answered = is_answer(&data, id);
            let count = {
                let mut events = closed.events.lock().unwrap_or_else(PoisonError::into_inner);
                events.push(Bytes::from(data));
                events.len()
            };
            closed.count.send_replace((count, answered));
            if answered {
                return;
            }
        }
        match body.frame().await {
            Some(Ok(frame)) => {
                if let Ok(data) = frame.into_data() {
                    pending.extend_from_slice(&data);
                }
            }
            // rmcp ended the stream without an answer: the client is told so by its end.
            _ => {
                closed.count.send_modify(|(_, answered)| *answered = true);
                return;
            }
        }
    }
}

/// The events a resumed stream is sent.
struct Events(mpsc::Receiver<Bytes>);

impl Body for Events {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        self.0
            .poll_recv(cx)
            .map(|event| event.map(|event| Ok(Frame::data(event))))
    }
}
