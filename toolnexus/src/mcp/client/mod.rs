//! MCP servers as tools: the client side (SPEC §13, feature `mcp-client`).

mod builder;
mod child;
mod config;
mod convert;
mod error;
mod handler;
mod inbound;
mod oauth;
mod remote;
mod tasks;

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use rmcp::model::ProtocolVersion;
use rmcp::service::{Peer, RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientLifecycleMode, ClientServiceExt};

use crate::result::suspend::{Answer, Request};
use crate::tool::future::BoxFuture;
use crate::tool::{Tool, sanitize};

pub use builder::{HttpBuilder, StdioBuilder};
use child::{ChildTransport, Fault};
use config::{Endpoint, expand_env, http_config};
pub use error::McpClientError;
pub(crate) use error::Unconnected;
use handler::Handler;
use inbound::{Inbound, Routes};
pub use oauth::{CallbackListener, FileTokenStore, MemoryTokenStore, OAuthClient, TokenStore};
use remote::{RemoteDef, RemoteTool};

/// How long a remote call may take when neither the caller ([`ToolContext::timeout`]) nor
/// [`McpTools::with_call_timeout`] says: 60 seconds, the official TypeScript SDK's default.
///
/// [`ToolContext::timeout`]: crate::ToolContext::timeout
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(60);

/// Restart waits after consecutive failures: 100 ms, doubling, never more than this.
const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// Suspended 2026-07-28 calls remembered for their retry; the oldest is forgotten past this.
const MAX_SUSPENDED: usize = 1024;

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
///   the call with the answer and the server's `requestState`. A 2025-* `elicitation/create`
///   goes to [`on_elicitation`](Self::on_elicitation), and is declined without one.
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

/// One server's connection and what it knows; shared by every tool it made.
pub(crate) struct Shared {
    name: String,
    endpoint: Endpoint,
    /// The one revision to speak, when pinned.
    revision: Option<ProtocolVersion>,
    /// Signs in when an HTTP server asks (`HttpBuilder::oauth`).
    oauth: Option<OAuthClient>,
    link: tokio::sync::Mutex<Link>,
    defs: RwLock<Arc<[Arc<RemoteDef>]>>,
    elicit: RwLock<Option<Elicit>>,
    /// Where each call in flight wants its progress (read by the connection's [`Inbound`]).
    progress: Arc<Routes>,
    /// The input key and `requestState` of each suspended 2026-07-28 call, by request id.
    suspended: Mutex<BTreeMap<String, remote::Suspended>>,
    call_timeout: RwLock<Duration>,
}

#[derive(Default)]
struct Link {
    running: Option<Running>,
    /// Failures in a row (a connection that ended, or one that could not be made).
    failures: u32,
    last_attempt: Option<Instant>,
}

struct Running {
    service: RunningService<RoleClient, Handler>,
    fault: Fault,
}

impl Shared {
    /// The live connection's peer, connecting (again) first if there is none.
    async fn peer(self: &Arc<Self>) -> Result<(Peer<RoleClient>, Fault), Unconnected> {
        let mut link = self.link.lock().await;
        if let Some(running) = &link.running {
            if !running.service.is_closed() && !running.service.peer().is_transport_closed() {
                return Ok((running.service.peer().clone(), Arc::clone(&running.fault)));
            }
        }
        link.running = None;
        if link.failures > 0 {
            let wait = backoff(link.failures);
            let since = link.last_attempt.map_or(wait, |last| last.elapsed());
            if since < wait {
                tokio::time::sleep(wait - since).await;
            }
        }
        link.last_attempt = Some(Instant::now());
        // Boxed: connecting (rmcp's handshake futures) is tens of KB of future, which every
        // call's own future would otherwise carry and copy for the rare call that connects.
        let mut connected = Box::pin(self.connect()).await;
        if matches!(&connected, Err(Unconnected { renewed: true, .. })) {
            connected = Box::pin(self.connect()).await;
        }
        match connected {
            Ok((running, defs)) => {
                link.failures = 0;
                self.set_defs(defs);
                let peer = running.service.peer().clone();
                let fault = Arc::clone(&running.fault);
                link.running = Some(running);
                Ok((peer, fault))
            }
            // A login to make is not a failure to back off from.
            Err(Unconnected {
                sign_in: Some(login),
                why,
                ..
            }) => Err(Unconnected {
                why: format!("MCP server `{}` {why}", self.name),
                sign_in: Some(login),
                renewed: false,
            }),
            Err(Unconnected { why, .. }) => {
                link.failures = link.failures.saturating_add(1);
                Err(format!("MCP server `{}` {why}", self.name).into())
            }
        }
    }

    /// Forgets a connection that ended, so the next call makes a new one (after a backoff).
    async fn broken(&self, peer: &Peer<RoleClient>) {
        let mut link = self.link.lock().await;
        let ended = link.running.as_ref().is_some_and(|running| {
            running.service.peer().is_transport_closed() || running.service.is_closed()
        });
        if ended && peer.is_transport_closed() {
            link.running = None;
            link.failures = link.failures.saturating_add(1);
            link.last_attempt = Some(Instant::now());
        }
    }

    /// Drops the connection (after a sign-in), so the next call connects with the new token.
    async fn forget(&self) {
        self.link.lock().await.running = None;
    }

    /// The login `challenge` (a `WWW-Authenticate` header) asks for, when this server signs
    /// in with OAuth; else `why` as it is.
    async fn sign_in(&self, challenge: Option<&str>, why: String) -> Unconnected {
        let (Some(oauth), Some(challenge), Endpoint::Http { url, .. }) =
            (&self.oauth, challenge, &self.endpoint)
        else {
            return why.into();
        };
        match oauth.begin(&self.name, url, challenge).await {
            Ok(Some(login)) => Unconnected {
                why: format!(
                    "needs a sign-in: {}",
                    login.url.as_deref().unwrap_or_default()
                ),
                sign_in: Some(login),
                renewed: false,
            },
            Ok(None) => Unconnected {
                why: format!("{why}; signed in again as the client itself: call again"),
                sign_in: None,
                renewed: true,
            },
            Err(failed) => failed.into(),
        }
    }

    async fn connect(self: &Arc<Self>) -> Result<(Running, Vec<RemoteDef>), Unconnected> {
        let fault = Fault::default();
        let handler = Handler {
            shared: Arc::downgrade(self),
            revision: self
                .revision
                .clone()
                .unwrap_or(ProtocolVersion::V_2025_11_25),
        };
        let lifecycle = match &self.revision {
            None => ClientLifecycleMode::Auto {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                legacy_version: Some(ProtocolVersion::V_2025_11_25),
            },
            Some(revision) if revision.has_initialize() => ClientLifecycleMode::Initialize,
            Some(revision) => ClientLifecycleMode::Discover {
                preferred_versions: vec![revision.clone()],
            },
        };
        let service = match &self.endpoint {
            Endpoint::Stdio { command, args, env } => {
                let transport = ChildTransport::spawn(command, args, env, Arc::clone(&fault))
                    .map_err(|error| format!("could not be started (`{command}`): {error}"))?;
                let transport = Inbound::new(transport, Arc::clone(&self.progress));
                handler.serve_with_lifecycle(transport, lifecycle).await
            }
            Endpoint::Http { url, headers } => {
                let config = http_config(url, headers)?;
                match &self.oauth {
                    None => {
                        let transport = StreamableHttpClientTransport::from_config(config);
                        let transport = Inbound::new(transport, Arc::clone(&self.progress));
                        handler.serve_with_lifecycle(transport, lifecycle).await
                    }
                    Some(oauth) => {
                        let client = oauth.client(url).await?;
                        let transport = StreamableHttpClientTransport::with_client(client, config);
                        let transport = Inbound::new(transport, Arc::clone(&self.progress));
                        handler.serve_with_lifecycle(transport, lifecycle).await
                    }
                }
            }
        };
        let service = match service {
            Ok(service) => service,
            Err(error) => {
                let fault = fault.lock().unwrap_or_else(|p| p.into_inner()).clone();
                let why = format!(
                    "could not be initialized: {}",
                    fault.unwrap_or_else(|| error.to_string())
                );
                return Err(self.sign_in(error.auth_challenge(), why).await);
            }
        };
        let listed = match service.peer().list_all_tools().await {
            Ok(listed) => listed,
            Err(error) => {
                let why = format!("did not list its tools: {error}");
                return Err(self.sign_in(error.auth_challenge(), why).await);
            }
        };
        let defs = listed.iter().map(RemoteDef::of).collect();
        Ok((Running { service, fault }, defs))
    }

    fn set_defs(&self, defs: Vec<RemoteDef>) {
        let defs: Arc<[Arc<RemoteDef>]> = defs.into_iter().map(Arc::new).collect();
        *self.defs.write().unwrap_or_else(|p| p.into_inner()) = defs;
    }

    fn call_timeout(&self) -> Duration {
        *self.call_timeout.read().unwrap_or_else(|p| p.into_inner())
    }

    fn remember(&self, id: String, suspended: remote::Suspended) {
        let mut map = self.suspended.lock().unwrap_or_else(|p| p.into_inner());
        if map.len() >= MAX_SUSPENDED {
            // Ids sort by their creation time (`pnd-<base36 millis>-…` of equal length for
            // centuries), so the first is about the oldest.
            if let Some(oldest) = map.keys().next().cloned() {
                map.remove(&oldest);
            }
        }
        map.insert(id, suspended);
    }

    fn take_suspended(&self, id: &str) -> Option<remote::Suspended> {
        self.suspended
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(id)
    }
}

fn backoff(failures: u32) -> Duration {
    let doubled =
        Duration::from_millis(100).saturating_mul(1 << failures.saturating_sub(1).min(16));
    doubled.min(MAX_BACKOFF)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_from_100ms_up_to_5s() {
        let waits: Vec<u64> = (1..=8).map(|n| backoff(n).as_millis() as u64).collect();
        assert_eq!(waits, [100, 200, 400, 800, 1600, 3200, 5000, 5000]);
        assert_eq!(backoff(u32::MAX), MAX_BACKOFF);
    }
}
