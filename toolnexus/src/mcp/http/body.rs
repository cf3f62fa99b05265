//! Request bodies read within a size and a time, and the answer body that tells the server
//! what became of a request: when it ends, when the server shuts down, when the client left.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use http_body_util::BodyExt;
use hyper::body::{Body, Bytes, Frame, Incoming};
use hyper::header::{CONNECTION, HeaderValue};
use hyper::{Response, StatusCode};
use rmcp::transport::streamable_http_server::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use serde_json::{Value, json};

use super::{ResponseBody, plain};

/// Reads `body` whole, if it is at most `max` bytes and arrives within `timeout`; otherwise
/// the answer that says which (the connection is closed after it: the rest of the body is
/// not read).
pub(super) async fn read(
    body: Incoming,
    max: usize,
    timeout: Duration,
) -> Result<Bytes, Response<ResponseBody>> {
    let collect = async {
        let mut body = std::pin::pin!(body);
        let mut collected = Vec::new();
        while let Some(frame) = body.frame().await {
            let Ok(frame) = frame else {
                return Err(closing(plain(
                    StatusCode::BAD_REQUEST,
                    "Bad Request: the body could not be read",
                )));
            };
            if let Ok(data) = frame.into_data() {
                if data.len() > max.saturating_sub(collected.len()) {
                    return Err(closing(plain(
                        StatusCode::PAYLOAD_TOO_LARGE,
                        "Payload Too Large: the body is over the server's limit",
                    )));
                }
                collected.extend_from_slice(&data);
            }
        }
        Ok(Bytes::from(collected))
    };
    match tokio::time::timeout(timeout, collect).await {
        Ok(read) => read,
        Err(_) => Err(closing(plain(
            StatusCode::REQUEST_TIMEOUT,
            "Request Timeout: the body did not arrive in time",
        ))),
    }
}

/// `response`, after which the connection closes.
fn closing(mut response: Response<ResponseBody>) -> Response<ResponseBody> {
    response
        .headers_mut()
        .insert(CONNECTION, HeaderValue::from_static("close"));
    response
}

/// How many requests a connection is serving: one from the moment its headers are in until
/// its answer has been sent or dropped. A connection serving none is closed at once on
/// shutdown.
#[derive(Clone, Default)]
pub(super) struct InFlight(Arc<AtomicUsize>);

impl InFlight {
    pub(super) fn start(&self) -> Serving {
        self.0.fetch_add(1, Ordering::SeqCst);
        Serving(Arc::clone(&self.0))
    }

    pub(super) fn idle(&self) -> bool {
        self.0.load(Ordering::SeqCst) == 0
    }
}

/// One request being served, until dropped.
pub(super) struct Serving(Arc<AtomicUsize>);

impl Drop for Serving {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A call in a session, cancelled in it when its answer is dropped unfinished — the client's
/// connection went away — so the tool does not run on for nobody until the session expires.
pub(super) struct CancelInSession {
    pub(super) sessions: Arc<LocalSessionManager>,
    pub(super) session: Arc<str>,
    pub(super) request: Value,
}

impl CancelInSession {
    fn cancel(self) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let cancelled = json!({
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": self.request, "reason": "the client's connection closed"},
        });
        let Ok(cancelled) = serde_json::from_value(cancelled) else {
            return;
        };
        runtime.spawn(async move {
            // A session that has ended has nothing left to cancel.
            let _ = self.sessions.accept_message(&self.session, cancelled).await;
        });
    }
}

/// What an answer's body carries beyond its bytes.
#[derive(Default)]
pub(super) struct Extras {
    /// Ends the body when ready (the server shutting down), for event streams that would
    /// otherwise stay open as long as the client does.
    pub(super) ends: Option<Pin<Box<dyn Future<Output = ()> + Send>>>,
    /// Fired if the body is dropped before its end.
    pub(super) cancel: Option<CancelInSession>,
}

/// An answer's body, holding its request as served until it is sent or dropped.
pub(super) struct Answer {
    body: ResponseBody,
    extras: Extras,
    _serving: Serving,
}

impl Answer {
    pub(super) fn new(body: ResponseBody, extras: Extras, serving: Serving) -> Self {
        Self {
            body,
            extras,
            _serving: serving,
        }
    }
}

impl Body for Answer {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        if let Some(ends) = self.extras.ends.as_mut() {
            if ends.as_mut().poll(cx).is_ready() {
                return Poll::Ready(None);
            }
        }
        let polled = Pin::new(&mut self.body).poll_frame(cx);
        if let Poll::Ready(None) = polled {
            self.extras.cancel = None;
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }
}

impl Drop for Answer {
    fn drop(&mut self) {
        if let Some(cancel) = self.extras.cancel.take() {
            cancel.cancel();
        }
    }
}
