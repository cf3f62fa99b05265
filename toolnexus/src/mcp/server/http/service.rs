//! [`HttpService`]: the MCP endpoint as a tower `Service`, every per-request check included,
//! for a router of the user's own or for [`HttpServer`](super::HttpServer)'s accept loop.

use std::convert::Infallible;
use std::fmt;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use http_body_util::BodyExt;
use hyper::body::{Body, Bytes};
use hyper::header::{
    AUTHORIZATION, CONTENT_TYPE, HeaderName, HeaderValue, RETRY_AFTER, WWW_AUTHENTICATE,
};
use hyper::{Method, Request, Response, StatusCode};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::sync::{Mutex, watch};
use tower_http::cors::{AllowOrigin, Cors, CorsLayer};
use tower_layer::Layer;

use super::auth::{Guard, Metadata};
use super::body::{Answer, BoxError, Extras, RequestBody};
use super::endpoint::{Endpoint, Sessions, Shared};
use super::options::HttpOptions;
use super::origin::AllowedOrigins;
use super::plain;
use super::route::{authorized, refused};
use super::{McpServer, ResponseBody};

/// The MCP endpoint as a tower [`Service`](tower_service::Service), to mount in a router of
/// your own (axum's `Router::route_service`, or any tower stack) beside your other routes and
/// behind your own layers.
///
/// It performs every check [`HttpServer`](super::HttpServer) performs on a request — the
/// `Origin` allow-list and CORS, the `Host` allow-list, the token, the body's size and read
/// deadline, the screening of messages rmcp cannot read, the session cap — so a mounted
/// endpoint is exactly as safe; `HttpServer` is this service behind its accept loop, which
/// adds what belongs to connections (their cap, `TCP_NODELAY`, graceful shutdown).
///
/// **Defaults when mounted:** the service never learns the address it is served at, so
/// without [`allow_origins`](HttpOptions::allow_origins) and
/// [`allow_hosts`](HttpOptions::allow_hosts) it behaves as a server bound to a non-loopback
/// address: no browser `Origin` is allowed, and any `Host` is. Say which origins and hosts
/// you serve when the app is reachable from a browser on the same machine.
///
/// It answers wherever it is routed (it does not look at the path). Clones share one set
/// of sessions. Needs a Tokio runtime.
///
/// ```no_run
/// use toolnexus::Toolkit;
/// use toolnexus::mcp::{HttpOptions, HttpService, McpServer};
///
/// # async fn run() -> std::io::Result<()> {
/// let mcp = HttpService::new(McpServer::new(Toolkit::new()), HttpOptions::new())?;
/// let app = axum::Router::new()
///     .route("/health", axum::routing::get(|| async { "ok" }))
///     .route_service("/mcp", mcp);
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8765").await?;
/// axum::serve(listener, app).await
/// # }
/// ```
#[derive(Clone)]
pub struct HttpService {
    pub(super) shared: Arc<Shared>,
    /// tower-http's CORS layer around the rest: preflights from allowed origins answered
    /// before the token is asked for, and every answer to one readable by its page.
    inner: Cors<Inner>,
}

/// What a request meets past CORS.
#[derive(Clone)]
struct Inner(Arc<Shared>);

impl fmt::Debug for HttpService {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpService")
            .field("stateless", &self.shared.sessions.is_none())
            .finish_non_exhaustive()
    }
}

impl HttpService {
    /// The endpoint serving `server` with `options`, with the defaults of a server bound to a
    /// non-loopback address (see the type's documentation).
    ///
    /// Fails with `InvalidInput` if the toolkit lacks state a tool needs (the error names each
    /// tool and type, as [`MissingState`](super::super::MissingState) does), or `options`
    /// name an allowed origin not of the form [`HttpOptions::allow_origins`] describes (the
    /// error names it), an empty bearer token (which would let anyone in who sends `Bearer `)
    /// or a protected resource that is not an absolute `http`/`https` URL.
    pub fn new(server: McpServer, options: HttpOptions) -> io::Result<Self> {
        Self::build(server, options, false, None)
    }

    /// The Protected Resource Metadata document (RFC 9728) of the resource named by
    /// [`HttpOptions::protected_resource`], as a service answering every request with it,
    /// for your router to serve at the well-known paths beside the endpoint:
    ///
    /// ```no_run
    /// use toolnexus::Toolkit;
    /// use toolnexus::mcp::{HttpOptions, HttpService, McpServer};
    ///
    /// # fn app() -> std::io::Result<axum::Router> {
    /// let options = HttpOptions::new()
    ///     .protected_resource("https://api.example.com/mcp", ["https://auth.example.com"])
    ///     .verify_bearer(|token: String| async move { (token == "let-me-in").then_some(()) });
    /// let mcp = HttpService::new(McpServer::new(Toolkit::new()), options)?;
    /// let metadata = mcp.metadata_service();
    /// Ok(axum::Router::new()
    ///     .route_service("/mcp", mcp)
    ///     .route_service("/.well-known/oauth-protected-resource", metadata.clone())
    ///     .route_service("/.well-known/oauth-protected-resource/mcp", metadata))
    /// # }
    /// ```
    ///
    /// Without a protected resource it answers `404 Not Found`.
    pub fn metadata_service(&self) -> MetadataService {
        MetadataService(self.shared.guard.metadata().cloned())
    }

    /// Whether `path` is one of the well-known paths of the metadata document (the turnkey
    /// server's routing).
    pub(super) fn serves_metadata_at(&self, path: &str) -> bool {
        self.shared.guard.metadata().is_some_and(|metadata| {
            path == super::auth::WELL_KNOWN || path == metadata.suffixed_path
        })
    }

    /// The turnkey server's `404` for a path other than the endpoint's. An OAuth client that
    /// got a `401` probes the well-known metadata paths and then registers at the origin's
    /// `/register` (the MCP Inspector shows that last answer); when this endpoint wants a token
    /// but names no protected resource, those probes are told that no sign-in exists here and
    /// which header to send instead.
    pub(super) fn not_found(&self, path: &str) -> Response<ResponseBody> {
        let probes_oauth = ["/.well-known/oauth-", "/.well-known/openid-configuration"]
            .iter()
            .any(|prefix| path.starts_with(prefix))
            || ["/register", "/authorize", "/token"].contains(&path);
        if probes_oauth && self.shared.guard.wants_static_token() {
            plain(
                StatusCode::NOT_FOUND,
                "Not Found: this MCP server offers no OAuth sign-in; send its bearer token as \
                 Authorization: Bearer <token>",
            )
        } else {
            plain(StatusCode::NOT_FOUND, "Not Found: the MCP endpoint is /mcp")
        }
    }

    /// The service behind [`HttpServer`](super::HttpServer): `loopback` picks the defaults of
    /// a server bound to a loopback address, `streams_end` ends its event streams on shutdown.
    pub(super) fn build(
        server: McpServer,
        options: HttpOptions,
        loopback: bool,
        streams_end: Option<watch::Receiver<bool>>,
    ) -> io::Result<Self> {
        super::super::MissingState::check(server.toolkit())
            .map_err(|missing| io::Error::new(io::ErrorKind::InvalidInput, missing))?;
        let guard = Guard::new(options.auth, options.protected_resource.as_ref())?;
        let origins = match &options.origins {
            Some(origins) => AllowedOrigins::parse(origins)?,
            None if loopback => AllowedOrigins::loopback(),
            None => AllowedOrigins::none(),
        };
        let mut config = StreamableHttpServerConfig::default()
            // Origins are checked before the token (see `route`), so rmcp need not.
            .disable_allowed_origins()
            .with_legacy_session_mode(!options.stateless)
            .with_json_response(options.stateless);
        config = match (&options.hosts, loopback) {
            (Some(hosts), _) => config.with_allowed_hosts(hosts.clone()),
            // rmcp's default: the loopback names only.
            (None, true) => config,
            (None, false) => config.disable_allowed_hosts(),
        };
        // The body limit is enforced once, by `body::read` (its 413 and 408, the connection
        // closed), before rmcp sees the body; rmcp's own (4 MiB by default) would also count a
        // `tools/call` that screening grew by escaping its arguments into `_meta`.
        let config = config.with_max_request_body_bytes(usize::MAX);
        let cancel_sessions = config.cancellation_token.clone();
        let factory = move || Ok(server.clone());
        let (endpoint, sessions) = if options.stateless {
            let endpoint = Endpoint::Stateless(StreamableHttpService::new(
                factory,
                Arc::new(NeverSessionManager::default()),
                config,
            ));
            (endpoint, None)
        } else {
            let mut manager = LocalSessionManager::default();
            manager.session_config.keep_alive = Some(options.session_idle_timeout);
            let manager = Arc::new(manager);
            let endpoint = Endpoint::Stateful(StreamableHttpService::new(
                factory,
                Arc::clone(&manager),
                config,
            ));
            let retry_after = options.session_idle_timeout.as_secs().max(1);
            let sessions = Sessions {
                manager,
                max: options.max_sessions,
                opening: Mutex::new(()),
                retry_after: HeaderValue::from(retry_after),
            };
            (endpoint, Some(sessions))
        };
        let shared = Arc::new(Shared {
            endpoint,
            origins,
            guard,
            streams_end,
            max_body_bytes: options.max_body_bytes,
            body_read_timeout: options.body_read_timeout,
            sessions,
            cancel_sessions,
            poll_after: options.poll_after,
            resumable: Arc::default(),
        });
        Ok(Self {
            inner: cors().layer(Inner(Arc::clone(&shared))),
            shared,
        })
    }
}

/// tower-http's CORS for the origins let through (any other was refused `403` before): every
/// method and header of the streamable HTTP transport, and the answer headers a page needs.
fn cors() -> CorsLayer {
    CorsLayer::new()
        .allow_origin(AllowOrigin::mirror_request())
        .allow_methods([Method::GET, Method::POST, Method::DELETE, Method::OPTIONS])
        .allow_headers([
            CONTENT_TYPE,
            AUTHORIZATION,
            HeaderName::from_static("mcp-session-id"),
            HeaderName::from_static("mcp-protocol-version"),
            HeaderName::from_static("mcp-method"),
            HeaderName::from_static("mcp-name"),
            HeaderName::from_static("last-event-id"),
        ])
        .expose_headers([
            HeaderName::from_static("mcp-session-id"),
            HeaderName::from_static("mcp-protocol-version"),
            WWW_AUTHENTICATE,
            RETRY_AFTER,
        ])
        // How long a browser may cache a preflight (Chromium caps it at 2 hours).
        .max_age(Duration::from_secs(600))
}

impl tower_service::Service<Request<RequestBody>> for Inner {
    type Response = Response<ResponseBody>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<RequestBody>) -> Self::Future {
        let shared = Arc::clone(&self.0);
        #[cfg(feature = "tracing")]
        let span = crate::toolkit::trace::mcp_request(request.headers());
        let answer = async move {
            // Dropped with this future (the client left), the extras cancel the call.
            let mut extras = Extras::default();
            let response = authorized(&shared, request, &mut extras).await;
            Ok(response.map(|body| Answer::new(body, extras).boxed_unsync()))
        };
        #[cfg(feature = "tracing")]
        let answer = tracing::Instrument::instrument(answer, span);
        Box::pin(answer)
    }
}

impl<B> tower_service::Service<Request<B>> for HttpService
where
    B: Body<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    type Response = Response<ResponseBody>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        if let Some(refused) = refused(&self.shared, request.headers()) {
            return Box::pin(std::future::ready(Ok(refused)));
        }
        let request = request.map(|body| body.map_err(Into::into).boxed_unsync());
        let answer = self.inner.call(request);
        Box::pin(async move {
            let Ok(response) = answer.await;
            Ok(response)
        })
    }
}

/// The Protected Resource Metadata document as a tower [`Service`](tower_service::Service):
/// what [`HttpService::metadata_service`] returns. Answers every request with the document
/// (`404` when no protected resource is named).
#[derive(Clone)]
pub struct MetadataService(Option<Metadata>);

impl fmt::Debug for MetadataService {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("MetadataService")
            .field(&self.0.as_ref().map(|metadata| &metadata.document))
            .finish()
    }
}

impl MetadataService {
    pub(super) fn answer(&self) -> Response<ResponseBody> {
        match &self.0 {
            Some(metadata) => metadata.response(),
            None => super::plain(
                hyper::StatusCode::NOT_FOUND,
                "Not Found: no protected resource is named",
            ),
        }
    }
}

impl<B> tower_service::Service<Request<B>> for MetadataService {
    type Response = Response<ResponseBody>;
    type Error = Infallible;
    type Future = std::future::Ready<Result<Self::Response, Infallible>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, _: Request<B>) -> Self::Future {
        std::future::ready(Ok(self.answer()))
    }
}
