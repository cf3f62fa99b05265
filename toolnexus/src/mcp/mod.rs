//! Serve a [`Toolkit`](crate::Toolkit) as an MCP server with the official Rust MCP SDK, [`rmcp`]: over stdio
//! with the `mcp` feature, and over streamable HTTP with `mcp-http`. Use MCP servers' tools
//! with `mcp-client` (`McpTools`, SPEC §13), which builds on rmcp's client alone; the two
//! halves share the stdio line reader and its [`MAX_LINE_BYTES`].
//!
//! The `mcp` feature needs Rust 1.88 or newer, as rmcp does (the rest of toolnexus builds on
//! 1.85). It serves stdio only and stays light: rmcp's server core, with stdio served on this
//! crate's own [`LineTransport`] (which answers every line it cannot read) rather than on
//! rmcp's stdio transport.
//!
//! - `tools/list` answers [`Toolkit::to_mcp`](crate::Toolkit::to_mcp)'s entries, converted once when the server is
//!   built: each tool's cached input schema, and where the tool has them its `title`, its
//!   `outputSchema` and its `annotations` (the MCP hints that are set; a read-only tool is
//!   never sent as destructive).
//! - `tools/call` runs [`Toolkit::execute`](crate::Toolkit::execute), so an unknown tool, bad arguments and a tool that
//!   panics all come back as `isError` results, never as protocol errors. The result is
//!   [`ToolResult::to_mcp_for`](crate::ToolResult::to_mcp_for): the output as text, images and audio as MCP content, files as
//!   embedded resources, URL parts as resource links, and for a tool with an output schema the
//!   parsed output as `structuredContent`. Every result is valid under the JSON schema of the
//!   revision the client negotiated (2025-03-26, 2025-06-18, 2025-11-25 or 2026-07-28;
//!   `resultType` on the last).
//! - A suspension (see [`pending`](crate::pending), `#[tool(approval = "…")]`) reaches the
//!   human when the client can ask: on 2026-07-28 as an `InputRequiredResult` holding one
//!   elicitation and a sealed `requestState` (see
//!   [`with_state_key`](McpServer::with_state_key)); on 2025-06-18 and 2025-11-25 as an
//!   `elicitation/create` the server sends itself. A login with a url is URL mode (2025-11-25
//!   on), never a form; a `data.schema` of flat primitives is a form with that schema; anything
//!   else, approvals included, a form with the prompt and no fields. The answer becomes the
//!   [`Answer`](crate::Answer) and SPEC §10's loop rule applies, as in
//!   [`Toolkit::call_with`](crate::Toolkit::call_with). A client that cannot be asked (no `elicitation` capability, or
//!   not the mode needed) gets an `isError` result that says so: ``needs approval, which this client cannot ask
//!   for: <prompt>`` (``needs <kind> input, …`` for other kinds) and, when
//!   there is one, the url on the next line.
//! - [`ToolContext::report_progress`](crate::ToolContext::report_progress) sends
//!   `notifications/progress` for the request's `progressToken`, before the result.
//! - A client's `notifications/cancelled` fires the call's
//!   [`ToolContext::cancel`](crate::ToolContext::cancel) signal: the toolkit resolves the
//!   call at once and drops the tool's future (rmcp then sends no response, as MCP asks).
//!   [`McpServer::with_call_timeout`] gives every call a deadline.
//! - A tool marked `#[tool(task)]` (or `task = "required"`) runs as a task of the 2026-07-28
//!   tasks extension for a client that declared it: answered inline when it ends within
//!   [`McpServer::task_after`], else with a task the client follows with `tasks/get`,
//!   `tasks/update` and `tasks/cancel` (SPEC §14; kept in a [`TaskStore`]). A 2025-11-25
//!   client asks for one with `task` on `tools/call`, and follows it with that revision's
//!   `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel`. A client may also hear of
//!   its tasks' changes: `notifications/tasks` through `subscriptions/listen` (2026-07-28), or
//!   `notifications/tasks/status` (2025-11-25).
//! - Replicas behind a load balancer share one Redis through `RedisStore` (feature `redis`,
//!   SPEC §14B), both the record of used `requestState`s and the tasks: an approved retry
//!   runs once across them, and any replica answers for any task.
//!
//! ```no_run
//! use toolnexus::{Toolkit, define_tool, serde_json::json};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
//! let echo = define_tool("echo", "Echo the text back", json!({
//!     "type": "object",
//!     "properties": {"text": {"type": "string"}},
//!     "required": ["text"],
//! }))?
//! .sync(|args: toolnexus::serde_json::Value, _: &toolnexus::ToolContext| {
//!     args["text"].as_str().unwrap_or_default().to_owned()
//! });
//! toolnexus::mcp::serve_stdio(Toolkit::new().with(echo)).await?;
//! # Ok(())
//! # }
//! ```
//!
//! # Over HTTP
//!
//! With the `mcp-http` feature, [`serve_http`] and [`HttpServer`] serve the same tools at
//! `http://ADDR/mcp` on rmcp's streamable HTTP transport (the current MCP transport for
//! remote servers), inside a small hyper server that adds what a listening endpoint needs:
//!
//! - an `Origin` allow-list: a request whose `Origin` is not allowed gets `403 Forbidden`
//!   before anything else is looked at (DNS-rebinding protection, as the MCP transport
//!   requires); requests without `Origin`, i.e. non-browser clients, are allowed. By default
//!   a server bound to a loopback address allows loopback origins only, and one bound
//!   elsewhere allows none ([`HttpOptions::allow_origins`]). The `Host` header is checked the
//!   same way ([`HttpOptions::allow_hosts`]).
//! - an optional bearer token ([`HttpOptions::bearer_token`]): `401 Unauthorized` without it.
//! - graceful shutdown on Ctrl-C and SIGTERM ([`HttpServer::run`]).
//! - a stateless mode ([`HttpOptions::stateless`]) with no sessions, so replicas can sit
//!   behind an ordinary load balancer.
//!
//! It needs a Tokio runtime; the stdio server's other guarantees hold unchanged.
//!
//! [`Toolkit`]: crate::Toolkit
//! [`Toolkit::to_mcp`]: crate::Toolkit::to_mcp
//! [`Toolkit::execute`]: crate::Toolkit::execute
//! [`Toolkit::call_with`]: crate::Toolkit::call_with

/// rmcp's trait that serves an [`McpServer`] on a transport: `server.serve(transport)`, with
/// [`LineTransport`] or any of rmcp's. The one rmcp item a user of this module must name; a
/// program that uses more of rmcp depends on it directly, so rmcp's major versions are not
/// this crate's.
#[cfg(feature = "mcp")]
pub use rmcp::ServiceExt;

#[cfg(feature = "mcp-client")]
mod client;
mod lines;
#[cfg(feature = "mcp")]
mod server;

#[cfg(feature = "mcp-client")]
pub use client::{
    CallbackListener, DEFAULT_CALL_TIMEOUT, EnterpriseIdp, FileTokenStore, HttpBuilder,
    McpClientError, McpTools, MemoryTokenStore, OAuthClient, StdioBuilder, TokenStore,
};
pub use lines::MAX_LINE_BYTES;
#[cfg(feature = "redis")]
pub use server::RedisStore;
#[cfg(feature = "mcp")]
pub use server::{
    CallerId, ClientInfo, InMemoryStateStore, InMemoryTaskStore, Lease, LineTransport, McpServer,
    MissingState, StateKeyError, StateStore, StateStoreError, TaskEvent, TaskListener, TaskRecord,
    TaskSignal, TaskStore, TaskStoreError, serve_stdio,
};
#[cfg(feature = "mcp-http")]
pub use server::{HttpOptions, HttpServer, HttpService, MCP_PATH, MetadataService, serve_http};
