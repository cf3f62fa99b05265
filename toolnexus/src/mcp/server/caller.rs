//! Who is calling (SPEC §12): what each MCP request's tool context carries — the client's
//! [`ClientInfo`] and, over HTTP, the request itself and every value the user's tower layers
//! put into its extensions.

use std::error::Error;
use std::fmt;

use rmcp::service::{RequestContext, RoleServer};

use crate::tool::context::ToolContext;
use crate::toolkit::Toolkit;

/// The MCP client behind a call, as far as the protocol says: every call's context carries it
/// as an [`Extension<ClientInfo>`](crate::Extension) where anything of it is known.
///
/// A session (stdio, HTTP with sessions) knows all three from `initialize`; a 2026-07-28
/// request says them itself; a stateless 2025-* request carries only the revision.
///
/// ```
/// use toolnexus::{Extension, tool};
/// use toolnexus::mcp::ClientInfo;
///
/// /// Names the client.
/// #[tool]
/// fn client(info: Option<Extension<ClientInfo>>) -> String {
///     match info {
///         Some(info) => format!("{:?} {:?} at {:?}", info.name, info.version, info.revision),
///         None => "not over MCP".to_owned(),
///     }
/// }
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ClientInfo {
    /// The client's name (`clientInfo.name`), e.g. `"claude-ai"`.
    pub name: Option<String>,
    /// The client's version (`clientInfo.version`).
    pub version: Option<String>,
    /// The protocol revision of the request, e.g. `"2025-11-25"`.
    pub revision: Option<String>,
}

impl ClientInfo {
    fn of(context: &RequestContext<RoleServer>) -> Option<Self> {
        let revision = context.protocol_version().map(|v| v.as_str().to_owned());
        let implementation = context
            .client_info()
            .filter(|_| !sessionless_before_2026(context, revision.as_deref()));
        if implementation.is_none() && revision.is_none() {
            return None;
        }
        let (name, version) = match implementation {
            Some(found) => (Some(found.name), Some(found.version)),
            None => (None, None),
        };
        Some(Self {
            name,
            version,
            revision,
        })
    }
}

/// Whether `context` is a 2025-* request over HTTP without a session. rmcp serves one by
/// initializing a throwaway peer with its own `clientInfo` (`rmcp`), so the client that sent
/// it is not known; a 2026-07-28 request says it itself.
fn sessionless_before_2026(context: &RequestContext<RoleServer>, revision: Option<&str>) -> bool {
    let Some(parts) = context.extensions.get::<http::request::Parts>() else {
        return false;
    };
    !parts.headers.contains_key("mcp-session-id") && revision.is_none_or(|r| r < "2026-07-28")
}

/// The context a request's tool calls start from: the client, and over HTTP the request's
/// `Parts` (its `Authorization` header removed: MCP forbids passing the client's token on) and
/// every value of its extensions.
pub(super) fn context_of(context: &RequestContext<RoleServer>) -> ToolContext {
    let mut ctx = ToolContext::default();
    if let Some(parts) = context.extensions.get::<http::request::Parts>() {
        let mut parts = parts.clone();
        parts.headers.remove(http::header::AUTHORIZATION);
        ctx.extensions.extend(parts.extensions.clone());
        ctx.extensions.insert(parts);
    }
    if let Some(info) = ClientInfo::of(context) {
        ctx.extensions.insert(info);
    }
    ctx
}

/// A toolkit whose tools need state it does not hold, refused at a server's start: every
/// `(tool, type)` pair [`Toolkit::missing_state`] lists.
#[derive(Debug)]
pub struct MissingState(Vec<(String, &'static str)>);

impl MissingState {
    /// `Err` naming every tool that could not be served.
    pub(crate) fn check(toolkit: &Toolkit) -> Result<(), Self> {
        let missing = toolkit.missing_state();
        if missing.is_empty() {
            Ok(())
        } else {
            Err(Self(missing))
        }
    }

    /// The `(tool, type)` pairs.
    pub fn pairs(&self) -> &[(String, &'static str)] {
        &self.0
    }
}

impl fmt::Display for MissingState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (at, (tool, ty)) in self.0.iter().enumerate() {
            if at > 0 {
                f.write_str("; ")?;
            }
            write!(
                f,
                "tool `{tool}` needs `State<{ty}>`, which the toolkit does not hold"
            )?;
        }
        f.write_str(": add it with `Toolkit::with_state`")
    }
}

impl Error for MissingState {}
