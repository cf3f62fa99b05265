//! Who a call comes from: a sealed `requestState` is bound to the connection and the verified
//! caller it was issued to, where they are known (SPEC §10B), and a task to its caller (SPEC
//! §14, [`owner_of`](super::owner_of)). The connection is a stdio connection or an HTTP
//! session, as the transport tags each request; rmcp serves 2026-07-28 requests (the only
//! ones that carry a `requestState`) without a session, so over HTTP those are bound to the
//! verified caller alone unless they name a live session.

use std::sync::Arc;

use rmcp::service::{RequestContext, RoleServer};
use sha2::{Digest, Sha256};

/// A verified identity of the caller, which a sealed `requestState` is bound to: a state
/// issued to one `CallerId` does not open for another (nor for a call that has none).
///
/// Return it from [`HttpOptions::verify_bearer`](crate::mcp::HttpOptions::verify_bearer)'s
/// validator, or have an authentication layer in front of the MCP endpoint insert it into
/// the HTTP request's extensions once it has verified who is calling — a tower layer, or an
/// axum middleware, with `request.extensions_mut().insert(CallerId(user_id))`. toolnexus reads it from the
/// [`http::request::Parts`](https://docs.rs/http/1/http/request/struct.Parts.html) that
/// rmcp hands each call (and from the call's own extensions, for a custom transport); it
/// never trusts a value the client could set itself, such as a header. Only a digest of it
/// goes into the state, which is signed, not encrypted.
///
/// ```
/// use toolnexus::mcp::CallerId;
///
/// // What an authentication layer does once the token is verified.
/// let mut request = toolnexus::context::Extensions::new();
/// request.insert(CallerId("user-42".to_owned()));
/// assert_eq!(request.get::<CallerId>(), Some(&CallerId("user-42".to_owned())));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CallerId(pub String);

/// The connection a request came in on, as the transport tags every request it reads:
/// [`LineTransport`](super::super::LineTransport) a stdio connection (it has no session id, and
/// each connection is one client), the HTTP endpoint the live session a request names (rmcp
/// refuses a 2025-* request naming any other).
#[derive(Clone, Debug)]
pub(crate) struct Connection(pub(crate) Arc<str>);

impl Connection {
    /// A connection with a fresh random id.
    pub(crate) fn new() -> Self {
        let mut id = [0_u8; 16];
        // Without an OS random source the connection is still told apart from others by
        // nothing worse than a fixed id: the binding is lost, the seal is not.
        let _ = getrandom::fill(&mut id);
        Self(hex(&id).into())
    }
}

/// What a call is bound to: digests (hex SHA-256) of the connection (stdio) or session (HTTP)
/// and of the verified caller, each `None` where the call has none.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Binding {
    pub(super) connection: Option<String>,
    pub(super) caller: Option<String>,
}

impl Binding {
    /// The binding of the call `context` belongs to.
    pub(super) fn of(context: &RequestContext<RoleServer>) -> Self {
        let connection =
            tagged::<Connection>(context).map(|connection| digest("connection", &connection.0));
        let caller = tagged::<CallerId>(context).map(|id| digest("caller", &id.0));
        Self { connection, caller }
    }
}

/// The `T` the call `context` belongs to was tagged with: in its own extensions, or (as rmcp's
/// HTTP transport hands a request over) in those of the HTTP request's `Parts`.
fn tagged<T: Send + Sync + 'static>(context: &RequestContext<RoleServer>) -> Option<&T> {
    context
        .extensions
        .get::<T>()
        .or_else(|| in_http_parts(context))
}

#[cfg(feature = "mcp-http")]
fn in_http_parts<T: Send + Sync + 'static>(context: &RequestContext<RoleServer>) -> Option<&T> {
    context
        .extensions
        .get::<hyper::http::request::Parts>()?
        .extensions
        .get::<T>()
}

#[cfg(not(feature = "mcp-http"))]
fn in_http_parts<T>(_: &RequestContext<RoleServer>) -> Option<&T> {
    None
}

/// SHA-256 (hex) of `value` under `label`, so a connection id never equals a caller id.
fn digest(label: &str, value: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update(label.as_bytes());
    hasher.update([0]);
    hasher.update(value.as_bytes());
    hex(&hasher.finalize())
}

pub(super) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}
