//! MCP servers as tools: the client side (SPEC §13, feature `mcp-client`).

mod builder;
mod child;
mod config;
mod connect_error;
mod connection;
mod convert;
mod handler;
mod inbound;
mod oauth;
mod remote;
mod remote_task;

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use rmcp::model::ProtocolVersion;

use crate::result::suspend::{Answer, Request};
use crate::tool::future::BoxFuture;
use crate::tool::{Tool, sanitize};

pub use builder::{HttpBuilder, StdioBuilder};
use config::{Endpoint, expand_env};
pub use connect_error::McpClientError;
pub(crate) use connect_error::Unconnected;
use connection::Link;
pub(crate) use connection::Shared;
pub use oauth::{
    CallbackListener, EnterpriseIdp, FileTokenStore, MemoryTokenStore, OAuthClient, TokenStore,
};
use remote::RemoteTool;

/// How long a remote call may take when neither the caller ([`ToolContext::timeout`]) nor
/// [`McpTools::with_call_timeout`] says: 60 seconds, the official TypeScript SDK's default.
///
/// [`ToolContext::timeout`]: crate::ToolContext::timeout
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(60);

/// A handler for the questions a 2025-06-18 or 2025-11-25 server asks during a call
/// (`elicitation/create`), as a §10 [`Request`]: a form is kind `"input"` with the requested
/// schema as `data.schema`, a URL is kind `"authorization"` with the `url`.
type Elicit = Arc<dyn Fn(Request) -> BoxFuture<'static, Answer> + Send + Sync>;

/// The tools of one MCP server, as [`Tool`]s for a [`Toolkit`](crate::Toolkit) (SPEC §13).
///
/// Connect with [`stdio`](Self::stdio) (a server run as a child process), [`http`](Self::http)
/// (streamable HTTP) or [`from_config`](Self::from_config) (an `mcp.json`), then add
/// [`tools`](Self::tools) or [`tools_prefixed`](Self::tools_prefixed) to a toolkit. Every
/// promise of this crate holds for them:
///
/// - **Each remote tool is a [`Tool`]** with [`ToolSource::Mcp`](crate::ToolSource::Mcp), the
///   server's name, description, input schema exactly as sent, title, annotations and output
///   schema. The provider profiles (`to_openai_strict`, `to_gemini`, …) rewrite it and
///   [`Toolkit::check`](crate::Toolkit::check) reports what a dialect cannot say, as for a
///   local tool.
/// - **Arguments are checked before anything is sent**, against the remote input schema with
///   the checker of SPEC §11 and its messages (the path and the limit). Keywords it does not
///   read (`format`, `dependentRequired`, …) are left to the server. A refused call sends
///   nothing.
/// - **Results map as the other ports map them:** text blocks join the output with `"\n"`
///   (an embedded text resource too); images and audio become parts; an embedded resource
///   (blob or text) a file part named by its uri; a resource link a line `resource link: <uri>` and a file part with
///   that url; `structuredContent` without text becomes the output as JSON; only non-text
///   content gives one line per part ([`describe_part`](crate::parts::describe_part)); `isError` is
///   kept; `metadata.server` names the server.
/// - **A server's question is a suspension:** a 2026-07-28 `InputRequiredResult` becomes
///   [`pending`](crate::pending) (URL mode ⇒ kind `"authorization"` with the url; a form ⇒
///   kind `"input"` with `data.schema`), and answering it
///   ([`Toolkit::call`](crate::Toolkit::call), `call_with`, or `ctx.answer` by hand) retries
///   the call with the answer and the server's `requestState`. A retry the server refuses
///   with a JSON-RPC error (`-32602` for a `requestState` that expired, was tampered with or
///   was used before) is an `isError` result carrying the server's message (``MCP server
///   `NAME` refused the call: <message> (calling `TOOL`)``), so the model still reads why. A
///   2025-* `elicitation/create` goes to [`on_elicitation`](Self::on_elicitation), and is
///   declined without one.
/// - **A server that asks for a sign-in** (OAuth 2.1, as the MCP authorization spec
///   describes) is signed in to with an [`OAuthClient`] given to
///   [`HttpBuilder::oauth`]: the login is a suspension too (kind `"authorization"`, the
///   authorization URL), from a call or from [`connect`](HttpBuilder::connect)
///   ([`McpClientError::pending`]).
/// - **Progress, deadlines, cancellation:** the server's progress reaches
///   [`ToolContext::report_progress`](crate::ToolContext::report_progress), every step the
///   server sent before its result before the call returns; at the call's
///   deadline ([`ToolContext::timeout`](crate::ToolContext::timeout), else
///   [`with_call_timeout`](Self::with_call_timeout), else [`DEFAULT_CALL_TIMEOUT`]) or on
///   [`ToolContext::cancel`](crate::ToolContext::cancel) the call resolves at once and the
///   server is sent `notifications/cancelled`.
/// - **Faults are results:** a server that exits, drops the connection or writes a line that
///   is not JSON-RPC answers every call in flight with an `isError` result naming the server
///   and what happened; the next call reconnects (a stdio server is started again, waiting
///   100 ms after a failure, doubling up to 5 s between attempts).
/// - `notifications/tools/list_changed` (2025-* servers) refreshes what [`tools`](Self::tools)
///   returns; a reconnection does too.
///
/// It speaks MCP 2026-07-28 (`server/discover`) and falls back to `initialize` with
/// 2025-11-25 for older servers, which may answer 2025-06-18 (an error, or a success that is
/// not a discover result — 2025-era servers may answer an unknown method with `{}` — both mean
/// an older server). Plain `http://` URLs work out
/// of the box; for `https://` enable rmcp's `reqwest` feature (TLS) in your own
/// `Cargo.toml`.
///
/// ```no_run
/// use toolnexus::{Toolkit, mcp::McpTools};
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let files = McpTools::stdio("npx", ["-y", "@modelcontextprotocol/server-filesystem", "/data"]).await?;
/// let search = McpTools::http("http://127.0.0.1:8765/mcp").bearer_token("secret").connect().await?;
/// let toolkit = Toolkit::new()
///     .with_all(files.tools())
///     .with_all(search.tools_prefixed("search_"));
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct McpTools {
    shared: Arc<Shared>,
    /// Whether [`tools`](Self::tools) marks every tool deferred (SPEC §15).
    deferred: bool,
}

impl fmt::Debug for McpTools {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpTools")
            .field("server", &self.shared.name)
            .finish_non_exhaustive()
    }
}

impl McpTools {
    /// Starts `command` with `args` as a stdio MCP server (its stderr is this process's) and
    /// reads its tools. The server is named by the command's file name in messages.
    pub async fn stdio(
        command: impl Into<String>,
        args: impl IntoIterator<Item = impl Into<String>>,
    ) -> Result<Self, McpClientError> {
        Self::command(command, args).connect().await
    }

    /// A stdio server to start with `command` and `args`; set its environment on the
    /// [`StdioBuilder`], then [`connect`](StdioBuilder::connect).
    pub fn command(
        command: impl Into<String>,
        args: impl IntoIterator<Item = impl Into<String>>,
    ) -> StdioBuilder {
        StdioBuilder {
            name: None,
            command: command.into(),
            args: args.into_iter().map(Into::into).collect(),
            env: BTreeMap::new(),
            revision: None,
        }
    }

    /// A streamable HTTP server at `url` (e.g. `http://127.0.0.1:8765/mcp`); add headers to
    /// the [`HttpBuilder`], then [`connect`](HttpBuilder::connect).
    pub fn http(url: impl Into<String>) -> HttpBuilder {
        HttpBuilder {
            name: None,
            url: url.into(),
            headers: BTreeMap::new(),
            revision: None,
            oauth: None,
        }
    }

    /// Connects to every server of the `mcp.json` at `path`, in the file's order:
    /// `{"mcpServers": {NAME: {"command", "args", "env"} | {"url", "headers"}}}`, with
    /// `"type": "stdio" | "http"` accepted. `${VAR}` in a header's value is replaced by the
    /// environment variable, so a token need not be written in the file. A bad file is an
    /// error naming the file, the server and the field; a server that cannot be reached, one
    /// naming the server.
    pub async fn from_config(path: impl AsRef<Path>) -> Result<Vec<Self>, McpClientError> {
        let path = path.as_ref();
        let shown = path.display();
        let text = std::fs::read_to_string(path)
            .map_err(|error| McpClientError::new(format!("{shown}: cannot be read: {error}")))?;
        let servers = config::parse(&text)
            .map_err(|message| McpClientError::new(format!("{shown}: {message}")))?;
        let mut connected = Vec::with_capacity(servers.len());
        for (name, endpoint) in servers {
            connected.push(Self::start(name, expand_env(endpoint), None, None).await?);
        }
        Ok(connected)
    }

    async fn start(
        name: String,
        endpoint: Endpoint,
        revision: Option<String>,
        oauth: Option<OAuthClient>,
    ) -> Result<Self, McpClientError> {
        let revision = match revision {
            None => None,
            Some(revision) => Some(
                ProtocolVersion::KNOWN_VERSIONS
                    .iter()
                    .find(|known| known.as_str() == revision)
                    .cloned()
                    .ok_or_else(|| {
                        McpClientError::new(format!(
                            "MCP server `{name}`: unknown protocol version `{revision}`"
                        ))
                    })?,
            ),
        };
        let shared = Arc::new(Shared {
            name,
            endpoint,
            revision,
            oauth,
            link: tokio::sync::Mutex::new(Link::default()),
            defs: RwLock::new(Arc::from([])),
            elicit: RwLock::new(None),
            progress: Arc::default(),
            suspended: Mutex::default(),
            call_timeout: RwLock::new(DEFAULT_CALL_TIMEOUT),
        });
        shared.peer().await?;
        Ok(Self {
            shared,
            deferred: false,
        })
    }

    /// The server's name: its key in `mcp.json`, the command's file name, or the URL's host.
    pub fn name(&self) -> &str {
        &self.shared.name
    }

    /// The server's tools as it last listed them, named as the server names them.
    pub fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.tools_named(|name| name.to_owned())
    }

    /// The server's tools, each named `prefix` + its name, [`sanitize`]d (so `"fs."` and
    /// `read.file` give `fs__read_file`): names any provider accepts, and no clash with another
    /// server's. `tools_prefixed("")` only sanitizes.
    pub fn tools_prefixed(&self, prefix: &str) -> Vec<Arc<dyn Tool>> {
        self.tools_named(|name| sanitize(&format!("{prefix}{name}")))
    }

    /// Marks every tool this server lists as deferred (SPEC §15): their definitions wait
    /// until a search finds them ([`Tool::deferred`]). Each tool's namespace
    /// ([`Tool::namespace`]) is the server's [`name`](Self::name) either way.
    #[must_use]
    pub fn deferred(mut self) -> Self {
        self.deferred = true;
        self
    }

    fn tools_named(&self, rename: impl Fn(&str) -> String) -> Vec<Arc<dyn Tool>> {
        let defs = Arc::clone(&self.shared.defs.read().unwrap_or_else(|p| p.into_inner()));
        defs.iter()
            .map(|def| {
                Arc::new(RemoteTool {
                    name: rename(&def.remote_name),
                    def: Arc::clone(def),
                    shared: Arc::clone(&self.shared),
                    deferred: self.deferred,
                }) as Arc<dyn Tool>
            })
            .collect()
    }

    /// Answers the questions a 2025-06-18 or 2025-11-25 server asks during a call
    /// (`elicitation/create`) with `handler`: it receives a §10 [`Request`] (a form is kind
    /// `"input"` with the requested schema as `data.schema`; a URL is kind
    /// `"authorization"` with the `url`) and returns the [`Answer`] (`ok` ⇒ accept with
    /// `data` as the content; declined ⇒ decline; anything else ⇒ cancel). Without a
    /// handler every such question is declined. (A 2026-07-28 server asks through the call's
    /// result instead, which becomes a suspension the caller answers.)
    #[must_use]
    pub fn on_elicitation<F, Fut>(self, handler: F) -> Self
    where
        F: Fn(Request) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Answer> + Send + 'static,
    {
        let handler: Elicit = Arc::new(move |request| Box::pin(handler(request)));
        *self
            .shared
            .elicit
            .write()
            .unwrap_or_else(|p| p.into_inner()) = Some(handler);
        self
    }

    /// Gives calls without their own [`ToolContext::timeout`](crate::ToolContext::timeout)
    /// this deadline instead of [`DEFAULT_CALL_TIMEOUT`].
    #[must_use]
    pub fn with_call_timeout(self, timeout: Duration) -> Self {
        *self
            .shared
            .call_timeout
            .write()
            .unwrap_or_else(|p| p.into_inner()) = timeout;
        self
    }

    /// The MCP revision the server and this client agreed on, e.g. `"2026-07-28"` (`None`
    /// while disconnected).
    pub async fn protocol_version(&self) -> Option<String> {
        let link = self.shared.link.lock().await;
        let running = link.running.as_ref()?;
        Some(running.service.peer_info()?.protocol_version.to_string())
    }
}
