//! [`HttpOptions`]: who may call the server, how it keeps state, and the limits that keep one
//! client from taking it over.

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use hyper::http::Extensions;

use super::auth::{Auth, ProtectedResource};

use crate::decode::MAX_ARGUMENT_BYTES;

/// How [`HttpServer`](super::HttpServer) and [`HttpService`](super::HttpService) serve: who may call it, how it keeps state, and
/// what it bounds.
///
/// The limits and their defaults (README "Running it on a network"):
///
/// | setting | default | past it |
/// |---|---|---|
/// | [`max_sessions`](Self::max_sessions) | 500 | `503` with `Retry-After` to a new `initialize` |
/// | [`session_idle_timeout`](Self::session_idle_timeout) | 5 min | the session ends; its id gets `404` |
/// | [`max_connections`](Self::max_connections) | 512 | new connections wait in the listen queue |
/// | [`body_read_timeout`](Self::body_read_timeout) | 30 s | `408`, connection closed |
/// | [`max_body_bytes`](Self::max_body_bytes) | 16 MiB + 64 KiB | `413` |
/// | headers ([hyper]'s) | 30 s | connection closed |
///
/// ```
/// use std::time::Duration;
/// use toolnexus::mcp::HttpOptions;
///
/// let options = HttpOptions::new()
///     .allow_origins(["https://app.example.com"])
///     .bearer_token("s3cret")
///     .max_sessions(100)
///     .session_idle_timeout(Duration::from_secs(60))
///     .stateless(true);
/// assert!(format!("{options:?}").contains("bearer_token: Some(<redacted>)"));
/// ```
#[derive(Clone)]
pub struct HttpOptions {
    pub(super) origins: Option<Vec<String>>,
    pub(super) hosts: Option<Vec<String>>,
    pub(super) auth: Option<Auth>,
    pub(super) protected_resource: Option<ProtectedResource>,
    pub(super) stateless: bool,
    pub(super) shutdown_grace: Duration,
    pub(super) max_sessions: usize,
    pub(super) session_idle_timeout: Duration,
    pub(super) max_connections: usize,
    pub(super) body_read_timeout: Duration,
    pub(super) max_body_bytes: usize,
    pub(super) poll_after: Option<Duration>,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            origins: None,
            hosts: None,
            auth: None,
            protected_resource: None,
            stateless: false,
            shutdown_grace: Duration::from_secs(10),
            // Under 80 KiB each (tests/mcp_flood.rs): a flood of `initialize`s stops
            // at ~28 MiB.
            max_sessions: 500,
            session_idle_timeout: Duration::from_secs(300),
            max_connections: 512,
            body_read_timeout: Duration::from_secs(30),
            max_body_bytes: MAX_ARGUMENT_BYTES + 64 * 1024,
            poll_after: None,
        }
    }
}

impl HttpOptions {
    /// The defaults: stateful, no token, the origin and host policy described on
    /// [`allow_origins`](Self::allow_origins) and [`allow_hosts`](Self::allow_hosts), and the
    /// limits in the table above.
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
    ///
    /// An allowed origin gets CORS answers, so a page there can call the server with
    /// `fetch`: preflights (`OPTIONS`) are answered before the token is asked for, and every
    /// answer carries `Access-Control-Allow-Origin` and exposes `Mcp-Session-Id`.
    #[must_use]
    pub fn allow_origins(mut self, origins: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.origins = Some(origins.into_iter().map(Into::into).collect());
        self
    }

    /// The `Host` header values accepted (`name` or `name:port`); others get `403
    /// Forbidden`, and a request with two `Host` headers gets `400`. Without this call a
    /// server bound to a loopback address accepts only `localhost`, `127.0.0.1` and `::1` (so
    /// a DNS-rebound name cannot reach it), and a server bound anywhere else accepts any
    /// host, because behind a load balancer it is reached by names it cannot know.
    #[must_use]
    pub fn allow_hosts(mut self, hosts: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.hosts = Some(hosts.into_iter().map(Into::into).collect());
        self
    }

    /// Requires `Authorization: Bearer <token>` on every request; without it, or with another
    /// token, the answer is `401 Unauthorized`. Compared in constant time. Replaces a
    /// [`verify_bearer`](Self::verify_bearer) set before (the later setting wins).
    #[must_use]
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        self.auth = Some(Auth::Token(token.into().into_bytes()));
        self
    }

    /// Checks each request's bearer token with your own validator — your JWT library, your
    /// introspection call — as an OAuth 2.1 resource server does (MCP authorization).
    ///
    /// `verify` gets the token of `Authorization: Bearer <token>`. `None` (or no token at all)
    /// ⇒ `401 Unauthorized` with `WWW-Authenticate: Bearer`, naming the metadata document
    /// when [`protected_resource`](Self::protected_resource) is set, so a client can find
    /// where to sign in. `Some(identity)` ⇒ the request goes on with `identity` in its HTTP
    /// request extensions, where the call's context receives every request extension (a tool
    /// asks for `Extension<T>`). Replaces a [`bearer_token`](Self::bearer_token) set before
    /// (the later setting wins).
    ///
    /// Return a [`CallerId`](crate::mcp::CallerId) as the identity (or insert one in a layer
    /// of your own) and a suspended call's `requestState` is bound to that caller: it does not
    /// open for anyone else (SPEC §10B).
    ///
    /// ```
    /// use toolnexus::mcp::HttpOptions;
    ///
    /// #[derive(Clone)]
    /// struct User {
    ///     id: String,
    /// }
    ///
    /// let options = HttpOptions::new()
    ///     .protected_resource("https://api.example.com/mcp", ["https://auth.example.com"])
    ///     .verify_bearer(|token: String| async move {
    ///         // Verify the token's signature, issuer, audience and expiry here.
    ///         token.strip_prefix("user-").map(|id| User { id: id.to_owned() })
    ///     });
    /// ```
    #[must_use]
    pub fn verify_bearer<F, Fut, T>(mut self, verify: F) -> Self
    where
        F: Fn(String) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Option<T>> + Send + 'static,
        T: Clone + Send + Sync + 'static,
    {
        self.auth = Some(Auth::Verify(Arc::new(move |token| {
            let verified = verify(token);
            Box::pin(async move {
                let identity = verified.await?;
                let mut extensions = Extensions::new();
                extensions.insert(identity);
                Some(extensions)
            })
        })));
        self
    }

    /// Names the resource this server is (`resource_uri`, the URL clients reach it at, e.g.
    /// `https://api.example.com/mcp`) and the OAuth 2.1 authorization servers that issue its
    /// tokens, as MCP authorization asks of a server (RFC 9728, Protected Resource Metadata).
    ///
    /// The metadata document — `{"resource", "authorization_servers",
    /// "bearer_methods_supported": ["header"]}` — is served at
    /// `/.well-known/oauth-protected-resource` and at its path-suffixed form
    /// (`/.well-known/oauth-protected-resource/mcp` for a resource at `/mcp`) by
    /// [`HttpServer`](super::HttpServer); a mounted [`HttpService`](super::HttpService) hands it
    /// out as [`metadata_service`](super::HttpService::metadata_service) for your router. A
    /// `401` then carries `WWW-Authenticate: Bearer resource_metadata="<that URL>"`.
    ///
    /// A `resource_uri` that is not an absolute `http`/`https` URL without a fragment makes
    /// `HttpServer::bind` and `HttpService::new` fail with `InvalidInput`.
    #[must_use]
    pub fn protected_resource(
        mut self,
        resource_uri: impl Into<String>,
        authorization_servers: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.protected_resource = Some(ProtectedResource {
            resource: resource_uri.into(),
            authorization_servers: authorization_servers.into_iter().map(Into::into).collect(),
        });
        self
    }

    /// Serves without sessions: every request stands alone and gets its own answer (JSON, or
    /// for a call that asked for progress an event stream of that call's progress and then its
    /// result), no `Mcp-Session-Id`, no server-sent-event stream to resume. Several replicas can then sit
    /// behind an ordinary load balancer without session affinity. The price: the server
    /// cannot send notifications between requests, and a client cancels a call by closing
    /// its request rather than with `notifications/cancelled`.
    #[must_use]
    pub fn stateless(mut self, stateless: bool) -> Self {
        self.stateless = stateless;
        self
    }

    /// How long requests in flight may still finish after a shutdown signal (default 10 s);
    /// whatever still runs then is dropped. A connection with no request in flight (idle, or
    /// still sending its headers) is closed at once.
    #[must_use]
    pub fn shutdown_grace(mut self, grace: Duration) -> Self {
        self.shutdown_grace = grace;
        self
    }

    /// The most sessions open at once (default 500, under 80 KiB each; stateful mode only).
    /// Past it, an `initialize` gets `503 Service Unavailable` with `Retry-After` (the idle
    /// timeout, in seconds) until a session ends: its client deletes it, or it stays idle for
    /// [`session_idle_timeout`](Self::session_idle_timeout).
    ///
    /// Why refuse the newcomer rather than evict the longest-idle session: eviction would let
    /// anyone who can send `initialize` end other clients' sessions — with their calls in
    /// flight and the server-to-client requests they wait on — by opening enough new ones.
    /// A refusal touches only the client that asked, tells it when to try again, and leaves
    /// every session that exists working; the idle timeout is what frees the slots a
    /// flood took.
    #[must_use]
    pub fn max_sessions(mut self, sessions: usize) -> Self {
        self.max_sessions = sessions;
        self
    }

    /// How long a session may go without a message before it ends and its memory is freed
    /// (default 5 minutes). A client that comes back after that gets `404` for its session id
    /// and, as MCP asks of it, starts a new session.
    #[must_use]
    pub fn session_idle_timeout(mut self, timeout: Duration) -> Self {
        self.session_idle_timeout = timeout;
        self
    }

    /// SSE polling for calls in a session (2025-03-26 to 2025-11-25): a `tools/call` that has
    /// sent nothing within `after` is answered with an event stream the server closes after its
    /// priming event (an `id`, and `retry: 1000`); the client comes back with a `GET`
    /// carrying `Last-Event-ID` (and the session) and is sent what the call sent meanwhile,
    /// then the rest, to its answer — kept here for ten minutes, so an answer that came while
    /// the client was away is not lost. For proxies that cut long requests. Off by default: a
    /// call that sends nothing is then answered as JSON, on a connection the client keeps.
    ///
    /// ```
    /// use std::time::Duration;
    /// use toolnexus::mcp::HttpOptions;
    ///
    /// let options = HttpOptions::new().poll_after(Duration::from_secs(20));
    /// ```
    #[must_use]
    pub fn poll_after(mut self, after: Duration) -> Self {
        self.poll_after = Some(after);
        self
    }

    /// The most connections served at once (default 512, at least 1). Past it the server
    /// stops accepting until one closes; new connections wait in the operating system's
    /// listen queue rather than taking file descriptors.
    #[must_use]
    pub fn max_connections(mut self, connections: usize) -> Self {
        self.max_connections = connections.max(1);
        self
    }

    /// How long a client has to send a request's body once its headers are in (default
    /// 30 s). A body still incomplete then gets `408 Request Timeout` and the connection is
    /// closed, so a client that stalls mid-body cannot hold a connection. (The headers have
    /// hyper's 30 s.)
    #[must_use]
    pub fn body_read_timeout(mut self, timeout: Duration) -> Self {
        self.body_read_timeout = timeout;
        self
    }

    /// The largest request body read (default [`Toolkit::MAX_ARGUMENT_BYTES`](crate::Toolkit::MAX_ARGUMENT_BYTES) plus 64 KiB, room for
    /// the message around arguments at their cap); a larger one gets `413 Payload Too Large`.
    #[must_use]
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.max_body_bytes = bytes;
        self
    }
}

impl fmt::Debug for HttpOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpOptions")
            .field("origins", &self.origins)
            .field("hosts", &self.hosts)
            .field("bearer_token", &self.auth)
            .field("protected_resource", &self.protected_resource)
            .field("stateless", &self.stateless)
            .field("shutdown_grace", &self.shutdown_grace)
            .field("max_sessions", &self.max_sessions)
            .field("session_idle_timeout", &self.session_idle_timeout)
            .field("max_connections", &self.max_connections)
            .field("body_read_timeout", &self.body_read_timeout)
            .field("max_body_bytes", &self.max_body_bytes)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use crate::mcp::server::http::options::*;

    #[test]
    fn the_defaults_are_the_documented_ones() {
        let options = HttpOptions::new();
        assert_eq!(options.max_sessions, 500);
        assert_eq!(options.session_idle_timeout, Duration::from_secs(300));
        assert_eq!(options.max_connections, 512);
        assert_eq!(options.body_read_timeout, Duration::from_secs(30));
        assert_eq!(options.max_body_bytes, 16 * 1024 * 1024 + 64 * 1024);
        assert_eq!(options.shutdown_grace, Duration::from_secs(10));
        assert_eq!(HttpOptions::new().max_connections(0).max_connections, 1);
    }
}
