//! Request bodies read within a size and a time, and the answer body that tells the server
//! what became of a request: when it ends, when the server shuts down, when the client left.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Collected, LengthLimitError, Limited};
use hyper::body::{Body, Bytes, Frame};
use hyper::header::{CONNECTION, HeaderValue};
use hyper::{Response, StatusCode};
use rmcp::transport::streamable_http_server::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use serde_json::{Value, json};

use super::{ResponseBody, plain};

pub(super) type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Request bodies, boxed once so one service stack serves every body type.
pub(super) type RequestBody = UnsyncBoxBody<Bytes, BoxError>;

/// Reads `body` whole, if it is at most `max` bytes and arrives within `timeout`; otherwise
/// the answer that says which (the connection is closed after it: the rest of the body is
/// not read).
///
/// Not tower-http's `RequestBodyLimitLayer` and `RequestBodyTimeoutLayer`: the first answers
/// 413 from `Content-Length` before the token is checked (a 401 is due first) with a text of
/// its own, and the second times each frame, so a body dribbled a byte at a time never ends.
pub(super) async fn read(
    body: RequestBody,
    max: usize,
    timeout: Duration,
) -> Result<Bytes, Response<ResponseBody>> {
    // http-body-util's `Limited` counts the bytes (frames, chunks, whatever the length header
    // claims) and fails at the first one past `max`.
    let collect = async {
        match limited(body, max).await {
            Ok(collected) => Ok(collected.to_bytes()),
            Err(error) if error.is::<LengthLimitError>() => Err(closing(plain(
                StatusCode::PAYLOAD_TOO_LARGE,
                "Payload Too Large: the body is over the server's limit",
            ))),
            Err(_) => Err(closing(plain(
                StatusCode::BAD_REQUEST,
                "Bad Request: the body could not be read",
            ))),
        }
    };
    match tokio::time::timeout(timeout, collect).await {
        Ok(read) => read,
        Err(_) => Err(closing(plain(
            StatusCode::REQUEST_TIMEOUT,
            "Request Timeout: the body did not arrive in time",
        ))),
    }
}

type Collecting = Pin<Box<dyn Future<Output = Result<Collected<Bytes>, BoxError>> + Send>>;

/// `body` collected by http-body-util's `Limited`: its bytes, or an error at the first byte
/// past `max`. (Boxed outside the `async fn`, where the compiler can prove it `Send`.)
fn limited(body: RequestBody, max: usize) -> Collecting {
    Box::pin(Limited::new(body, max).collect())
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

/// A call in a session, cancelled in it when dropped before [`finished`](Self::finished) —
/// the client's connection went away while the call was waited for or its answer sent — so
/// the tool does not run on for nobody until the session expires.
pub(super) struct CancelInSession {
    pub(super) sessions: Arc<LocalSessionManager>,
    pub(super) session: Arc<str>,
    /// The call's JSON-RPC id; `None` once it has been answered.
    pub(super) request: Option<Value>,
}

impl CancelInSession {
    /// The call has been answered: nothing to cancel.
    pub(super) fn finished(mut self) {
        self.request = None;
    }
}

impl Drop for CancelInSession {
    fn drop(&mut self) {
        let Some(request) = self.request.take() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let cancelled = json!({
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": request, "reason": "the client's connection closed"},
        });
        let Ok(cancelled) = serde_json::from_value(cancelled) else {
            return;
        };
        let sessions = Arc::clone(&self.sessions);
        let session = Arc::clone(&self.session);
        runtime.spawn(async move {
            // A session that has ended has nothing left to cancel.
            let _ = sessions.accept_message(&session, cancelled).await;
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

/// An answer's body with what it carries beyond its bytes.
pub(super) struct Answer {
    body: ResponseBody,
    extras: Extras,
}

impl Answer {
    pub(super) fn new(body: ResponseBody, extras: Extras) -> Self {
        Self { body, extras }
    }
}

/// An answer's body, holding its request as served (by the turnkey server's connection) until
/// it is sent or dropped.
pub(super) struct Served {
    pub(super) body: ResponseBody,
    pub(super) _serving: Serving,
}

impl Body for Served {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
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
        // The server stops polling once the body says it has ended, so that counts too.
        let ended = match &polled {
            Poll::Ready(None) => true,
            Poll::Ready(Some(_)) => self.body.is_end_stream(),
            Poll::Pending => false,
        };
        if ended {
            if let Some(cancel) = self.extras.cancel.take() {
                cancel.finished();
            }
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }
}
