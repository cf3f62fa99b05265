//! MCP over streamable HTTP (feature `mcp-http`): rmcp's server transport behind a small
//! hyper HTTP/1.1 server that adds what a served endpoint needs — an `Origin` allow-list and
//! CORS, an optional bearer token, bounded sessions, connections and bodies, JSON-RPC errors
//! for what rmcp cannot read, graceful shutdown and a stateless mode.

use std::convert::Infallible;
use std::fmt;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::pin;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::header::HeaderValue;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::{TcpListener, ToSocketAddrs};
use tokio::sync::{Semaphore, watch};
use tower_service::Service;

use super::McpServer;
use crate::toolkit::Toolkit;

mod acknowledged;
mod auth;
mod body;
mod endpoint;
mod json;
mod options;
mod origin;
mod resume;
mod route;
mod service;
mod sse;

use body::{InFlight, Served};
pub use options::HttpOptions;
pub use service::{HttpService, MetadataService};

/// The one path the server answers on; anything else is 404.
pub const MCP_PATH: &str = "/mcp";

/// Pause after a failed `accept` (e.g. out of file descriptors) before trying again, so the
/// loop does not spin.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

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
    service: HttpService,
    /// Tells the standalone event streams to end, so they do not hold a shutdown open.
    end_streams: watch::Sender<bool>,
    grace: Duration,
    connections: Arc<Semaphore>,
}

impl fmt::Debug for HttpServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpServer")
            .field("local_addr", &self.local_addr)
            .finish_non_exhaustive()
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
        let listener = TcpListener::bind(addr).await?;
        let local_addr = listener.local_addr()?;
        let (end_streams, streams_end) = watch::channel(false);
        let grace = options.shutdown_grace;
        let connections = Arc::new(Semaphore::new(options.max_connections));
        let service = HttpService::build(
            server,
            options,
            local_addr.ip().is_loopback(),
            Some(streams_end),
        )?;
        Ok(Self {
            listener,
            local_addr,
            service,
            end_streams,
            grace,
            connections,
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
            // At the connection limit, wait for a connection to close before accepting: the
            // newcomers wait in the listen queue instead of taking file descriptors.
            let permit = tokio::select! {
                () = &mut shutdown => break,
                permit = Arc::clone(&self.connections).acquire_owned() => permit,
            };
            let Ok(permit) = permit else { break };
            let accepted = tokio::select! {
                () = &mut shutdown => break,
                accepted = self.listener.accept() => accepted,
            };
            let Ok((stream, _)) = accepted else {
                tokio::time::sleep(ACCEPT_BACKOFF).await;
                continue;
            };
            // An event stream's answer goes out in small writes; without this, Nagle's
            // algorithm and the client's delayed ACK hold each call for ~40 ms.
            let _ = stream.set_nodelay(true);
            let in_flight = InFlight::default();
            let mcp = self.service.clone();
            let counted = in_flight.clone();
            let service = hyper::service::service_fn(move |request: Request<Incoming>| {
                let mut mcp = mcp.clone();
                let serving = counted.start();
                async move {
                    let path = request.uri().path();
                    let response = if path == MCP_PATH {
                        let Ok(response) = mcp.call(request).await;
                        response
                    } else if mcp.serves_metadata_at(path) {
                        mcp.metadata_service().answer()
                    } else {
                        mcp.not_found(path)
                    };
                    Ok::<_, Infallible>(response.map(|body| Served {
                        body,
                        _serving: serving,
                    }))
                }
            });
            let connection = hyper::server::conn::http1::Builder::new()
                // Needed for hyper's header-read timeout, which stops a client that never
                // finishes its headers from holding a connection forever.
                .timer(TokioTimer::new())
                .serve_connection(TokioIo::new(stream), service);
            let connection = graceful.watch(connection);
            let mut shutting_down = self.end_streams.subscribe();
            tokio::spawn(async move {
                let _permit = permit;
                tokio::select! {
                    // A connection error concerns that client only.
                    _ = connection => {}
                    // A connection serving no request (idle, or still sending headers) has
                    // nothing to finish: it is closed at once rather than waited for.
                    () = async {
                        let _ = shutting_down.wait_for(|ended| *ended).await;
                        if !in_flight.idle() {
                            std::future::pending::<()>().await;
                        }
                    } => {}
                }
            });
        }
        drop(self.listener);
        let _ = self.end_streams.send(true);
        tokio::select! {
            () = graceful.shutdown() => {}
            () = tokio::time::sleep(self.grace) => {}
        }
        self.service.shared.cancel_sessions.cancel();
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

fn plain(status: StatusCode, text: &'static str) -> Response<ResponseBody> {
    let mut response = Response::new(Full::new(Bytes::from_static(text.as_bytes())).boxed_unsync());
    *response.status_mut() = status;
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
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
