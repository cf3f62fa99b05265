//! What every request to the endpoint shares: rmcp's transport (with sessions or without),
//! the checks made before it, and the limits a request is held to.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::BodyExt;
use hyper::body::Body;
use hyper::header::HeaderValue;
use hyper::{Request, Response};
use rmcp::transport::streamable_http_server::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use tokio::sync::{Mutex, watch};
use tokio_util::sync::CancellationToken;

use super::auth::Guard;
use super::origin::AllowedOrigins;
use super::{McpServer, ResponseBody};

/// What every request shares.
pub(super) struct Shared {
    pub(super) endpoint: Endpoint,
    pub(super) origins: AllowedOrigins,
    /// The token check and the protected resource's metadata.
    pub(super) guard: Guard,
    /// Ends the standalone event streams when the turnkey server shuts down.
    pub(super) streams_end: Option<watch::Receiver<bool>>,
    pub(super) max_body_bytes: usize,
    pub(super) body_read_timeout: Duration,
    /// Stateful mode's sessions, counted against their cap.
    pub(super) sessions: Option<Sessions>,
    /// rmcp's token: cancelling it closes every session and stream.
    pub(super) cancel_sessions: CancellationToken,
    /// How long a call in a session may go without answering before its stream is closed to
    /// be resumed, and the streams so closed.
    pub(super) poll_after: Option<Duration>,
    pub(super) resumable: Arc<super::resume::Resumable>,
}

pub(super) struct Sessions {
    pub(super) manager: Arc<LocalSessionManager>,
    pub(super) max: usize,
    /// Held while an `initialize` opens its session, so the count checked is the count kept.
    pub(super) opening: Mutex<()>,
    pub(super) retry_after: HeaderValue,
}

/// rmcp's transport, with sessions or without.
pub(super) enum Endpoint {
    Stateful(StreamableHttpService<McpServer, LocalSessionManager>),
    Stateless(StreamableHttpService<McpServer, NeverSessionManager>),
}

impl Endpoint {
    pub(super) async fn handle<B>(&self, request: Request<B>) -> Response<ResponseBody>
    where
        B: Body + Send + 'static,
        B::Error: fmt::Display,
    {
        match self {
            Self::Stateful(service) => service.handle(request).await,
            Self::Stateless(service) => service.handle(request).await,
        }
        .map(BodyExt::boxed_unsync)
    }
}
