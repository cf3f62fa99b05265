//! The server half of MCP: [`McpServer`], the rmcp handler that serves a toolkit's tools, and
//! the transports it is served on (stdio, streamable HTTP).

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CancelTaskParams, CustomRequest,
    CustomResult, GetTaskParams, GetTaskResult, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, SubscriptionFilter, Tool as McpTool,
    UpdateTaskParams,
};
use rmcp::service::{RequestContext, RoleServer, SubscriptionContext};
use rmcp::{ErrorData, ServerHandler, ServiceExt};
use serde_json::Value;

use crate::provider::mcp_result::definition;
use crate::tool::Tool;
use crate::tool::task_support::TaskSupport;
use crate::toolkit::Toolkit;

pub(crate) mod call_tool;
pub(crate) mod caller;
#[cfg(feature = "mcp-http")]
pub(crate) mod http;
pub(crate) mod incoming;
pub(crate) mod notify_progress;
#[cfg(feature = "redis")]
mod redis_store;
pub(crate) mod stdio;
pub(crate) mod suspend;
pub(crate) mod tasks;

pub use caller::{ClientInfo, MissingState};
#[cfg(feature = "mcp-http")]
pub use http::{HttpOptions, HttpServer, HttpService, MCP_PATH, MetadataService, serve_http};
#[cfg(feature = "redis")]
pub use redis_store::RedisStore;
pub use stdio::LineTransport;
pub use suspend::{CallerId, InMemoryStateStore, StateKeyError, StateStore, StateStoreError};
pub use tasks::{
    InMemoryTaskStore, Lease, TaskEvent, TaskListener, TaskRecord, TaskSignal, TaskStore,
    TaskStoreError,
};

use suspend::StateSeal;

/// An rmcp [`ServerHandler`] that serves a [`Toolkit`]'s tools.
///
/// Build it from a `Toolkit` or an `Arc<Toolkit>`, then hand it to any rmcp transport with
/// [`ServiceExt::serve`] — or use [`serve_stdio`] for the common case. Cloning is cheap (two
/// `Arc`s), and the server reports itself as `toolnexus` with this crate's version unless
/// [`with_server_info`](Self::with_server_info) says otherwise.
///
/// ```
/// use std::sync::Arc;
/// use toolnexus::{Toolkit, mcp::McpServer};
///
/// let server = McpServer::new(Arc::new(Toolkit::new())).with_instructions("No tools yet.");
/// assert!(server.toolkit().is_empty());
/// ```
#[derive(Clone, Debug)]
pub struct McpServer {
    toolkit: Arc<Toolkit>,
    /// The `tools/list` entries, converted once from the cached schemas.
    tools: Arc<[McpTool]>,
    info: ServerConfig,
    call_timeout: Option<Duration>,
    /// Seals the `requestState` of a suspended 2026-07-28 call.
    seal: StateSeal,
    /// Calls that outlive their request (SPEC §14).
    tasks: tasks::Tasks,
}

impl McpServer {
    /// A server for `toolkit` (a [`Toolkit`] or an `Arc<Toolkit>`).
    pub fn new(toolkit: impl Into<Arc<Toolkit>>) -> Self {
        let toolkit = toolkit.into();
        let tools = toolkit
            .tools()
            .iter()
            .map(|tool| mcp_tool(tool.as_ref()))
            .collect();
        // The tasks extension is advertised when a tool can run as a task.
        let tasks = toolkit
            .tools()
            .iter()
            .any(|tool| tool.task_support() != TaskSupport::Forbidden);
        // `listChanged`: a 2026-07-28 client may subscribe to it (`subscriptions/listen`);
        // the list is fixed when the server is built, so no change is ever sent.
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed();
        let capabilities = if tasks {
            capabilities.enable_tasks().build()
        } else {
            capabilities.build()
        };
        let info = ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("toolnexus", env!("CARGO_PKG_VERSION")));
        Self {
            toolkit,
            tools,
            info,
            call_timeout: None,
            seal: StateSeal::random(),
            tasks: tasks::Tasks::new(),
        }
    }

    /// Replaces the name and version the server reports in `initialize` (default: `toolnexus`
    /// and this crate's version).
    #[must_use]
    pub fn with_server_info(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.info.server_info = Implementation::new(name, version);
        self
    }

    /// Sets the instructions the server gives the client in `initialize`.
    #[must_use]
    pub fn with_instructions(mut self, instructions: impl Into<String>) -> Self {
        self.info = self.info.with_instructions(instructions);
        self
    }

    /// Gives every `tools/call` a deadline: each execution gets `timeout` as its
    /// [`ToolContext::timeout`](crate::ToolContext::timeout), which the toolkit enforces — at
    /// the deadline the call answers the `isError` result ``tool `NAME` timed out after
    /// <duration>`` and the tool's future is dropped. Without it calls have no deadline.
    ///
    /// ```
    /// use std::time::Duration;
    /// use toolnexus::{Toolkit, mcp::McpServer};
    ///
    /// let server = McpServer::new(Toolkit::new()).with_call_timeout(Duration::from_secs(30));
    /// assert_eq!(server.call_timeout(), Some(Duration::from_secs(30)));
    /// ```
    #[must_use]
    pub fn with_call_timeout(mut self, timeout: Duration) -> Self {
        self.call_timeout = Some(timeout);
        self
    }

    /// The per-call deadline set with [`with_call_timeout`](Self::with_call_timeout).
    pub fn call_timeout(&self) -> Option<Duration> {
        self.call_timeout
    }

    /// Seals the `requestState` of suspended 2026-07-28 calls under `key` instead of a
    /// random per-process key, so that replicas given the same key (stateless HTTP behind a
    /// load balancer) each complete a call another one suspended. `key` is a secret of at
    /// least 32 bytes; a shorter one is refused. A retry whose state does not verify under
    /// the key is refused with the JSON-RPC error `-32602` ``tool `NAME` did not run: its
    /// requestState does not
    /// verify under this server's key: it was tampered with, or issued by another server
    /// instance (or by this one before a restart); replicas must share the key
    /// (`McpServer::with_state_key`)``, and the tool does not run. Which states were used is
    /// shared with [`with_state_store`](Self::with_state_store).
    ///
    /// ```
    /// use toolnexus::{Toolkit, mcp::McpServer};
    ///
    /// let key = std::env::var("MCP_STATE_KEY").unwrap_or_else(|_| "x".repeat(32));
    /// let server = McpServer::new(Toolkit::new()).with_state_key(key)?;
    /// let short = McpServer::new(Toolkit::new()).with_state_key("hunter2");
    /// assert_eq!(
    ///     short.unwrap_err().to_string(),
    ///     "the requestState key must be at least 32 bytes of secret, got 7"
    /// );
    /// # Ok::<(), toolnexus::mcp::StateKeyError>(())
    /// ```
    pub fn with_state_key(mut self, key: impl Into<Vec<u8>>) -> Result<Self, StateKeyError> {
        self.seal = self.seal.rekeyed(key.into())?;
        Ok(self)
    }

    /// How long a suspended 2026-07-28 call stays answerable (default 10 minutes): a retry
    /// after that gets an `isError` result saying its state expired, and the tool does not
    /// run.
    #[must_use]
    pub fn with_state_expiry(mut self, expiry: Duration) -> Self {
        self.seal.expiry = expiry;
        self
    }

    /// The toolkit being served.
    pub fn toolkit(&self) -> &Arc<Toolkit> {
        &self.toolkit
    }

    /// The tool `name`, if the caller of `context` may call it: none such, or hidden from it
    /// by `visible_if`, is `None`.
    fn callable(&self, name: &str, context: &RequestContext<RoleServer>) -> Option<Arc<dyn Tool>> {
        let tool = self.toolkit.get(name)?;
        let visible = !self.toolkit.has_visibility_rule()
            || self
                .toolkit
                .is_visible(tool.as_ref(), &caller::context_of(context));
        visible.then(|| Arc::clone(tool))
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        self.info.clone()
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        if !self.toolkit.has_visibility_rule() {
            return Ok(ListToolsResult::with_all_items(self.tools.to_vec()));
        }
        // What this caller may see; never cached for another caller.
        let ctx = caller::context_of(&context);
        let visible = self
            .toolkit
            .tools()
            .iter()
            .zip(self.tools.iter())
            .filter(|(tool, _)| self.toolkit.is_visible(tool.as_ref(), &ctx))
            .map(|(_, listed)| listed.clone())
            .collect();
        let mut result = ListToolsResult::with_all_items(visible);
        result.cache_scope = Some(CacheScope::Private);
        Ok(result)
    }

    fn get_tool(&self, name: &str) -> Option<McpTool> {
        self.tools.iter().find(|tool| tool.name == name).cloned()
    }

    async fn call_tool(
        &self,
        mut request: CallToolRequestParams,
        mut context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // SPEC §8: over MCP a name the caller cannot call (none such, or hidden from it by
        // `visible_if`) is a JSON-RPC `-32602`, as the protocol asks; in process it stays the
        // `isError` result with the same words.
        if self.callable(&request.name, &context).is_none() {
            return Err(ErrorData::invalid_params(
                format!("Unknown tool: {}", request.name),
                None,
            ));
        }
        let args = incoming::Arguments::take(&mut request, &mut context.meta);
        let mode = self.task_mode(&request, &args, &context)?;
        // A retry of a suspended call: its state opens (SPEC §8C, §10B), for this tool and
        // these arguments, before anything runs.
        let resumed = match (&request.request_state, &args) {
            (Some(state), incoming::Arguments::Object(object)) => {
                let responses = request.input_responses.as_ref();
                let name = &request.name;
                match self
                    .seal
                    .open(state, name, object, responses, &context)
                    .await
                {
                    Ok(resumed) => Some(resumed),
                    Err(suspend::Refused::Invalid(why)) => {
                        return Err(ErrorData::invalid_params(why, None));
                    }
                    Err(suspend::Refused::Result(refused)) => {
                        return Ok(self.complete(name, &refused));
                    }
                }
            }
            _ => None,
        };
        // SPEC §14: a task-capable tool, called by a client that can follow a task.
        if let Some(mode) = mode {
            if let incoming::Arguments::Object(args) = args {
                return Ok(self
                    .call_as_task(request, args, mode, resumed, context)
                    .await);
            }
        }
        Ok(self.call(request, args, resumed, context).await)
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        self.get_task_now(request, &context).await
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.update_task_now(request, &context).await
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.cancel_task_now(request, &context).await
    }

    /// `subscriptions/listen` (2026-07-28): `toolsListChanged` is accepted, and the tasks
    /// extension's `taskIds` (carried past rmcp, whose filter has no field for them): the
    /// stream stays open until the client cancels it.
    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        let mut accepted = SubscriptionFilter::new();
        accepted.tools_list_changed = requested.tools_list_changed;
        Some(accepted)
    }

    async fn listen(&self, subscription: SubscriptionContext) -> Result<(), ErrorData> {
        self.listen_to_tasks(subscription).await
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        match request.method.strip_prefix(incoming::CORE_TASKS) {
            Some(method) => {
                let params = request.params.clone().unwrap_or(Value::Null);
                let answer = self.core_tasks_request(method, params, context).await?;
                Ok(CustomResult::new(answer))
            }
            None => Err(tasks::unread_request(&request)),
        }
    }
}

/// Serves `toolkit` over stdin/stdout until the client disconnects.
///
/// Needs a Tokio runtime (e.g. `#[tokio::main]`). Nothing else may write to stdout while it
/// runs: that is the protocol channel (log to stderr). The error is a failed `initialize`
/// handshake or a server task that did not finish cleanly.
///
/// For another transport (a socket, an in-process `tokio::io::duplex` pipe…) use rmcp
/// directly: `McpServer::new(toolkit).serve(transport).await` with [`rmcp::ServiceExt`].
pub async fn serve_stdio(
    toolkit: impl Into<Arc<Toolkit>>,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let toolkit = toolkit.into();
    MissingState::check(&toolkit)?;
    let transport = LineTransport::new(tokio::io::stdin(), tokio::io::stdout());
    let running = McpServer::new(toolkit).serve(transport).await?;
    running.waiting().await?;
    Ok(())
}

/// `tool`'s `tools/list` entry ([`Toolkit::to_mcp`]) as rmcp's type.
fn mcp_tool(tool: &dyn Tool) -> McpTool {
    serde_json::from_value(Value::Object(definition(tool))).unwrap_or_else(|_| {
        // Unreachable with the entries `definition` builds; kept as a plainer entry, never a
        // panic.
        McpTool::new(
            tool.name().to_owned(),
            tool.description().to_owned(),
            Arc::new(tool.input_schema().clone()),
        )
    })
}
