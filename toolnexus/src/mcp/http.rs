//! MCP over streamable HTTP (feature `mcp-http`): rmcp's server transport behind a small
//! hyper HTTP/1.1 server that adds what a served endpoint needs — an `Origin` allow-list, an
//! optional bearer token, graceful shutdown and a stateless mode.

use std::convert::Infallible;
use std::fmt;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use http_body_util::combinators::{BoxBody, UnsyncBoxBody};
use http_body_util::{BodyExt, Full};
use hyper::body::{Body, Bytes, Frame, Incoming};
use hyper::header::{AUTHORIZATION, HeaderValue, ORIGIN, WWW_AUTHENTICATE};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::{TcpListener, ToSocketAddrs};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::McpServer;
use crate::toolkit::Toolkit;

mod origin;

use origin::AllowedOrigins;

/// The one path the server answers on; anything else is 404.
pub const MCP_PATH: &str = "/mcp";

/// How long [`HttpServer::run`] lets requests in flight finish after a shutdown signal,
/// unless [`HttpOptions::shutdown_grace`] says otherwise.
const DEFAULT_SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// Pause after a failed `accept` (e.g. out of file descriptors) before trying again, so the
/// loop does not spin.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

/// How [`HttpServer`] serves: who may call it and how it keeps state.
///
/// ```
/// use toolnexus::mcp::HttpOptions;
///
/// let options = HttpOptions::new()
///     .allow_origins(["https://app.example.com"])
///     .bearer_token("s3cret")
///     .stateless(true);
/// assert!(format!("{options:?}").contains("bearer_token: Some(\"<redacted>\")"));
/// ```
#[derive(Clone, Default)]
pub struct HttpOptions {
    origins: Option<Vec<String>>,
    hosts: Option<Vec<String>>,
    bearer_token: Option<String>,
    stateless: bool,
    shutdown_grace: Option<Duration>,
}

impl HttpOptions {
    /// The defaults: stateful, no token, the origin and host policy described on
    /// [`allow_origins`](Self::allow_origins) and [`allow_hosts`](Self::allow_hosts).
    pub fn new() -> Self {
        Self::default()
    }

    /// The browser origins allowed to call the server; a request whose `Origin` header is
    /// anything else gets `403 Forbidden` (DNS-rebinding protection, as the MCP transport
    /// requires). Requests without `Origin` — every non-browser client — are allowed.
    ///
    /// Each entry is `scheme://host[:port]`, `scheme://host:*` for any port, or `null`. An
    /// entry without a port means the scheme's default port (80, 443). Without this call a
    /// server bound to a loopback address allows `http` and `https` origins on `localhost`,
    /// `127.0.0.1` and `[::1]` at any port, and a server bound anywhere else allows none.
    /// The list replaces that default; an empty list refuses every request with an `Origin`.
    #[must_use]
    pub fn allow_origins(mut self, origins: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.origins = Some(origins.into_iter().map(Into::into).collect());
        self
    }

    /// The `Host` header values accepted (`name` or `name:port`); others get `403
    /// Forbidden`. Without this call a server bound to a loopback address accepts only
    /// `localhost`, `127.0.0.1` and `::1` (so a DNS-rebound name cannot reach it), and a server
    /// bound anywhere else accepts any host, because behind a load balancer it is reached by
    /// names it cannot know.
    #[must_use]
    pub fn allow_hosts(mut self, hosts: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.hosts = Some(hosts.into_iter().map(Into::into).collect());
        self
    }

    /// Requires `Authorization: Bearer <token>` on every request; without it, or with another
    /// token, the answer is `401 Unauthorized`. Compared in constant time.
    #[must_use]
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        self.bearer_token = Some(token.into());
        self
    }

    /// Serves without sessions: every request stands alone and gets a plain JSON answer, no
    /// `Mcp-Session-Id`, no server-sent-event stream to resume. Several replicas can then sit
    /// behind an ordinary load balancer without session affinity. The price: the server
    /// cannot send notifications between requests, and a client cancels a call by closing
    /// its request rather than with `notifications/cancelled`.
    #[must_use]
    pub fn stateless(mut self, stateless: bool) -> Self {
        self.stateless = stateless;
        self
    }

    /// How long requests in flight may still finish after a shutdown signal (default 10 s);
    /// whatever still runs then is dropped.
    #[must_use]
    pub fn shutdown_grace(mut self, grace: Duration) -> Self {
        self.shutdown_grace = Some(grace);
        self
    }
}

impl fmt::Debug for HttpOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpOptions")
            .field("origins", &self.origins)
            .field("hosts", &self.hosts)
            .field(
                "bearer_token",
                &self.bearer_token.as_ref().map(|_| "<redacted>"),
            )
            .field("stateless", &self.stateless)
            .field("shutdown_grace", &self.shutdown_grace)
            .finish()
    }
}

/// An MCP server bound to a TCP address, serving streamable HTTP at [`MCP_PATH`] (`/mcp`).
///
/// [`bind`](Self::bind) it, read [`local_addr`](Self::local_addr) (useful after binding
/// port 0), then [`run`](Self::run) it until Ctrl-C or SIGTERM, or
/// [`run_until`](Self::run_until) a future of your own. Needs a Tokio runtime.
///
/// ```no_run
/// use toolnexus::Toolkit;
/// use toolnexus::mcp::{HttpOptions, HttpServer, McpServer};
///
/// # async fn run() -> std::io::Result<()> {
/// let server = McpServer::new(Toolkit::new());
/// let http = HttpServer::bind("127.0.0.1:8765", server, HttpOptions::new().stateless(true)).await?;
/// eprintln!("MCP at http://{}/mcp", http.local_addr());
/// http.run().await;
/// # Ok(())
/// # }
/// ```
pub struct HttpServer {
    listener: TcpListener,
    local_addr: SocketAddr,
    shared: Arc<Shared>,
    /// rmcp's token: cancelling it closes every session and stream, the last step of a
    /// shutdown.
    sessions: CancellationToken,
    /// Tells the standalone event streams to end, so they do not hold a shutdown open.
    end_streams: watch::Sender<bool>,
    grace: Duration,
}

impl fmt::Debug for HttpServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpServer")
            .field("local_addr", &self.local_addr)
            .finish_non_exhaustive()
    }
}

/// What every connection shares.
struct Shared {
    endpoint: Endpoint,
    origins: AllowedOrigins,
    bearer_token: Option<Vec<u8>>,
    streams_end: watch::Receiver<bool>,
}

/// rmcp's transport, with sessions or without.
enum Endpoint {
    Stateful(StreamableHttpService<McpServer, LocalSessionManager>),
    Stateless(StreamableHttpService<McpServer, NeverSessionManager>),
}

impl Endpoint {
    async fn handle(&self, request: Request<Incoming>) -> Response<BoxBody<Bytes, Infallible>> {
        match self {
            Self::Stateful(service) => service.handle(request).await,
            Self::Stateless(service) => service.handle(request).await,
        }
    }
}

impl HttpServer {
    /// Binds `addr` and prepares to serve `server` with `options`.
    ///
    /// Fails if the address cannot be bound; with `InvalidInput` if `options` name an
    /// allowed origin not of the form [`HttpOptions::allow_origins`] describes (the error
    /// names it) or an empty bearer token (which would let anyone in who sends `Bearer `).
    pub async fn bind(
        addr: impl ToSocketAddrs,
        server: McpServer,
        options: HttpOptions,
    ) -> io::Result<Self> {
        if options.bearer_token.as_deref() == Some("") {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "the bearer token is empty; give a secret, or no token at all",
            ));
        }
        let listener = TcpListener::bind(addr).await?;
        let local_addr = listener.local_addr()?;
        let loopback = local_addr.ip().is_loopback();
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
        let sessions = config.cancellation_token.clone();
        let factory = move || Ok(server.clone());
        let endpoint = if options.stateless {
            Endpoint::Stateless(StreamableHttpService::new(
                factory,
                Arc::new(NeverSessionManager::default()),
                config,
            ))
        } else {
            Endpoint::Stateful(StreamableHttpService::new(
                factory,
                Arc::new(LocalSessionManager::default()),
                config,
            ))
        };
        let (end_streams, streams_end) = watch::channel(false);
        Ok(Self {
            listener,
            local_addr,
            shared: Arc::new(Shared {
                endpoint,
                origins,
                bearer_token: options.bearer_token.map(String::into_bytes),
                streams_end,
            }),
            sessions,
            end_streams,
            grace: options.shutdown_grace.unwrap_or(DEFAULT_SHUTDOWN_GRACE),
        })
    }

    /// The address the server is bound to (with the real port when bound to port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// Serves until Ctrl-C or (on Unix) SIGTERM, then shuts down gracefully as
    /// [`run_until`](Self::run_until) describes.
    pub async fn run(self) {
        self.run_until(shutdown_signal()).await;
    }

    /// Serves until `shutdown` completes, then shuts down gracefully: stops accepting
    /// connections, ends the standalone event streams, lets requests in flight finish for
    /// up to the [grace period](HttpOptions::shutdown_grace), then closes every session.
    pub async fn run_until(self, shutdown: impl Future<Output = ()>) {
        let graceful = GracefulShutdown::new();
        let mut shutdown = pin!(shutdown);
        loop {
            let accepted = tokio::select! {
                () = &mut shutdown => break,
                accepted = self.listener.accept() => accepted,
            };
            let Ok((stream, _)) = accepted else {
                tokio::time::sleep(ACCEPT_BACKOFF).await;
                continue;
            };
            let shared = Arc::clone(&self.shared);
            let service = hyper::service::service_fn(move |request| {
                let shared = Arc::clone(&shared);
                async move { Ok::<_, Infallible>(route(&shared, request).await) }
            });
            let connection = hyper::server::conn::http1::Builder::new()
                // Needed for hyper's header-read timeout, which stops a client that never
                // finishes its headers from holding a connection forever.
                .timer(TokioTimer::new())
                .serve_connection(TokioIo::new(stream), service);
            let connection = graceful.watch(connection);
            tokio::spawn(async move {
                // A connection error concerns that client only.
                let _ = connection.await;
            });
        }
        drop(self.listener);
        let _ = self.end_streams.send(true);
        tokio::select! {
            () = graceful.shutdown() => {}
            () = tokio::time::sleep(self.grace) => {}
        }
        self.sessions.cancel();
    }
}

/// Serves `toolkit` over MCP streamable HTTP at `http://ADDR/mcp` until Ctrl-C or SIGTERM,
/// with the default [`HttpOptions`]: stateful, no token, loopback origins only when bound to
/// a loopback address. Needs a Tokio runtime.
///
/// For a token, other origins or the stateless mode, use [`HttpServer`].
///
/// ```no_run
/// # async fn run() -> std::io::Result<()> {
/// toolnexus::mcp::serve_http(toolnexus::Toolkit::new(), "127.0.0.1:8765").await
/// # }
/// ```
pub async fn serve_http(
    toolkit: impl Into<Arc<Toolkit>>,
    addr: impl ToSocketAddrs,
) -> io::Result<()> {
    HttpServer::bind(addr, McpServer::new(toolkit), HttpOptions::default())
        .await?
        .run()
        .await;
    Ok(())
}

type ResponseBody = UnsyncBoxBody<Bytes, Infallible>;

/// One request: the path, then the origin (403 comes before 401, as the MCP transport
/// requires for a bad `Origin`), then the token, then rmcp.
async fn route(shared: &Shared, request: Request<Incoming>) -> Response<ResponseBody> {
    if request.uri().path() != MCP_PATH {
        return plain(StatusCode::NOT_FOUND, "Not Found: the MCP endpoint is /mcp");
    }
    let origins_allowed = request
        .headers()
        .get_all(ORIGIN)
        .iter()
        .all(|origin| shared.origins.allows(origin));
    if !origins_allowed {
        return plain(StatusCode::FORBIDDEN, "Forbidden: Origin not allowed");
    }
    if let Some(token) = &shared.bearer_token {
        if !bearer_matches(request.headers().get(AUTHORIZATION), token) {
            let mut response = plain(
                StatusCode::UNAUTHORIZED,
                "Unauthorized: send Authorization: Bearer <token>",
            );
            response
                .headers_mut()
                .insert(WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            return response;
        }
    }
    let standalone_stream = request.method() == Method::GET;
    let response = shared.endpoint.handle(request).await;
    if standalone_stream {
        // A GET is the session's event stream, open until the client leaves; on shutdown it
        // ends, so it does not hold the server up for the whole grace period.
        let mut streams_end = shared.streams_end.clone();
        let ended = Box::pin(async move {
            let _ = streams_end.wait_for(|ended| *ended).await;
        });
        response.map(|body| UntilShutdown { body, ended }.boxed_unsync())
    } else {
        response.map(BodyExt::boxed_unsync)
    }
}

fn plain(status: StatusCode, text: &'static str) -> Response<ResponseBody> {
    let mut response = Response::new(Full::new(Bytes::from_static(text.as_bytes())).boxed_unsync());
    *response.status_mut() = status;
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

/// Whether `header` is `Bearer <token>` (scheme case-insensitive), compared in constant time
/// so the answer's timing does not reveal how much of a guess was right.
fn bearer_matches(header: Option<&HeaderValue>, token: &[u8]) -> bool {
    let Some((scheme, given)) = header.and_then(|value| {
        let value = value.as_bytes();
        let space = value.iter().position(|&byte| byte == b' ')?;
        Some((&value[..space], &value[space + 1..]))
    }) else {
        return false;
    };
    scheme.eq_ignore_ascii_case(b"bearer") && constant_time_eq(given.trim_ascii_start(), token)
}

/// Compares every byte whatever the first difference; only the length can leave early, and
/// the length of a token is no secret worth keeping.
fn constant_time_eq(given: &[u8], expected: &[u8]) -> bool {
    if given.len() != expected.len() {
        return false;
    }
    let difference = given
        .iter()
        .zip(expected)
        .fold(0_u8, |difference, (a, b)| difference | (a ^ b));
    std::hint::black_box(difference) == 0
}

/// A response body that ends when the server shuts down.
struct UntilShutdown {
    body: BoxBody<Bytes, Infallible>,
    ended: Pin<Box<dyn Future<Output = ()> + Send>>,
}

impl Body for UntilShutdown {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        if self.ended.as_mut().poll(cx).is_ready() {
            return Poll::Ready(None);
        }
        Pin::new(&mut self.body).poll_frame(cx)
    }
}

/// Ctrl-C, or on Unix SIGTERM (what container runtimes send); a signal that cannot be
/// listened for is simply never received.
async fn shutdown_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut terminate) => {
                terminate.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = terminate => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_exact_bearer_token_matches() {
        let token = b"s3cret";
        let header = |text: &'static str| HeaderValue::from_static(text);
        assert!(bearer_matches(Some(&header("Bearer s3cret")), token));
        assert!(bearer_matches(Some(&header("bearer s3cret")), token));
        assert!(!bearer_matches(Some(&header("Bearer s3cre")), token));
        assert!(!bearer_matches(Some(&header("Bearer s3cretx")), token));
        assert!(!bearer_matches(Some(&header("Basic s3cret")), token));
        assert!(!bearer_matches(Some(&header("s3cret")), token));
        assert!(!bearer_matches(None, token));
    }
}
