//! # toolnexus
//!
//! Turn a plain Rust function into an LLM tool. [`#[tool]`](macro@tool) generates the tool's
//! name, description and JSON Schema, and an `execute` that lowers whatever the function
//! returns — `Result`, your own enum, an image, a suspension waiting on a human — into a
//! [`ToolResult`] that every provider and every other toolnexus port understands byte for
//! byte. The wire contract is `docs/SPEC.md` in the repository; this crate is its Rust port.
//!
//! ```
//! use toolnexus::{ToolContext, Toolkit, tool, tools};
//!
//! /// Adds two numbers.
//! #[tool]
//! fn add(a: f64, b: f64) -> f64 {
//!     a + b
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let toolkit = Toolkit::new().with_all(tools![add]);
//! let definitions = toolkit.to_openai(); // also to_anthropic(), to_gemini(), to_mcp()
//! assert_eq!(definitions[0]["function"]["name"], "add");
//!
//! // Arguments exactly as the model sent them; failures are results, never panics.
//! let ctx = ToolContext::default();
//! assert_eq!(toolkit.execute_json("add", r#"{"a": 2, "b": 40}"#, &ctx).await.output, "42");
//! let bad = toolkit.execute_json("add", r#"{"a": 2}"#, &ctx).await;
//! assert!(bad.is_error);
//! assert_eq!(bad.output, "invalid arguments for `add`: missing field `b`");
//! # });
//! ```
//!
//! # A tour
//!
//! - Make tools: [`#[tool]`](macro@tool) on a fn, [`#[toolbox]`](macro@toolbox) on an `impl`
//!   for tools that share state, [`define_tool`] for tools described by data at run time, or
//!   implement [`Tool`] by hand. Collect them with [`tools!`] and a [`Toolkit`].
//! - Return anything that implements [`IntoToolResult`]: text, numbers, [`Json`], content
//!   parts ([`parts::attach`], [`parts::from_bytes`], [`parts::from_path`]), a [`Request`] to suspend until a human
//!   answers ([`pending`], [`auth_required`]), or your own type with
//!   [`#[derive(ToolOutput)]`](derive@ToolOutput).
//! - Talk to providers: [`Toolkit::to_openai`], [`Toolkit::to_openai_strict`],
//!   [`Toolkit::to_anthropic`], [`Toolkit::to_gemini`], [`Toolkit::to_mcp`] for definitions;
//!   [`ToolResult::to_openai_messages`], [`ToolResult::to_anthropic_block`] and
//!   [`ToolResult::to_mcp`] (or [`ToolResult::to_mcp_for`], with `structuredContent`) for
//!   results; [`Toolkit::call`] for the suspension loop rule. Serve a toolkit as an MCP
//!   server over stdio (feature `mcp`) or streamable HTTP (feature `mcp-http`): see the
//!   `mcp` module.
//! - Bound a call: [`ToolContext::timeout`] and [`ToolContext::cancel`] are enforced by every
//!   [`Toolkit`] call (see [`Toolkit::execute`]).
//! - Serve an app (SPEC §12): [`State`], [`Extension`] and
//!   [`FromToolContext`](context::FromToolContext) parameters reach a tool without reaching its
//!   schema; [`Toolkit::around`] runs layers around every call; [`Toolkit::visible_if`] shows
//!   each caller its own tools.
//! - Hold hundreds of tools (SPEC §15, §15B): mark the ones that may wait (`#[tool(defer)]`,
//!   [`ToolDef::deferred`], [`Toolkit::defer_all_but`]) and send [`Toolkit::definitions`] of a
//!   [`RunState`]: each API gets its own tool search ([`ToolSearch`]), and
//!   [`Toolkit::run_calls_in`] answers the local one and counts each tool's [`Retry`]s against
//!   its budget ([`Toolkit::retries`]).
//! - Keep the schemas honest: [`Toolkit::check`] lists every place
//!   a provider's schema dialect ([`Profile`]) cannot say what a tool accepts; assert it is
//!   empty in your tests. The other way round is done for you: a `#[tool]`'s decoded
//!   arguments are checked against its schema, so the forms serde reads beyond it (a struct
//!   sent as an array of its fields, an enum tag given as a variant's index) are refused,
//!   naming the place, at any size; only arguments whose check would take more than
//!   10,000,000 steps are let through as serde took them.
//! - Parameter types need `serde::Deserialize` and a JSON Schema: derive
//!   [`JsonSchema`](derive@JsonSchema) from this crate, so your `Cargo.toml` needs only
//!   `toolnexus` and `serde`.
//!
//! # Asking a human first
//!
//! `#[tool(approval = "…")]` makes a tool suspend until someone approves the call: its
//! arguments are decoded and checked first, then, without an answer, the call returns a
//! suspension whose [`Request`] (kind `"approval"`) carries the prompt formatted from the
//! arguments and the arguments themselves as `data`. [`Toolkit::call`] drives the round
//! trip: it hands the request to your code (a UI, a chat message, a policy) and runs the tool
//! once the [`Answer`] is `ok`; any other answer gives `declined/expired: <prompt>`.
//!
//! ```
//! use toolnexus::serde_json::json;
//! use toolnexus::{Answer, Request, ToolContext, Toolkit, tool, tools};
//!
//! /// Deletes a file from the scratch area.
//! #[tool(approval = "Delete {path}?", destructive)]
//! fn delete(path: &str) -> String {
//!     format!("deleted {path}") // a real tool would remove the file here
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let toolkit = Toolkit::new().with_all(tools![delete]);
//!
//! // Without an answer nothing runs: the result is a suspension asking for approval.
//! let asked = toolkit.execute_json("delete", r#"{"path": "a.txt"}"#, &ToolContext::default()).await;
//! let request = asked.pending().expect("the call waits for a human");
//! assert_eq!((request.kind.as_str(), request.prompt.as_str()), ("approval", "Delete a.txt?"));
//! assert_eq!(request.data.unwrap()["path"], "a.txt");
//!
//! // `call` asks your code, then runs the tool once approved.
//! let approve = |request: Request| async move { Answer::approve(&request) };
//! let done = toolkit.call("delete", json!({"path": "a.txt"}), approve).await;
//! assert_eq!(done.output, "deleted a.txt");
//! # });
//! ```
//!
//! # Sending results back to the model
//!
//! A [`ToolResult`] becomes the messages each provider expects: for OpenAI,
//! [`ToolResult::to_openai_messages`]`(call_id, tool_name)` gives the `tool` message and, when
//! the result carries images, files or audio, a `user` message after it holding them (OpenAI's
//! tool messages take text only); for Anthropic, [`ToolResult::to_anthropic_block`] gives the
//! `tool_result` block with the parts inside; for MCP, [`ToolResult::to_mcp`].
//!
//! ```
//! use toolnexus::serde_json::json;
//! use toolnexus::ToolResult;
//! use toolnexus::parts::from_bytes;
//!
//! let chart = ToolResult::ok("chart of the last week").with_part(from_bytes(b"\x89PNG", "image/png"));
//! let messages = chart.to_openai_messages("call_7", "plot");
//! assert_eq!(messages[0], json!({"role": "tool", "tool_call_id": "call_7", "content": "chart of the last week"}));
//! assert_eq!(messages[1]["role"], "user");
//! assert_eq!(messages[1]["content"][0]["text"], "Output of tool plot (call_7):");
//! assert_eq!(messages[1]["content"][1]["type"], "image_url");
//! ```
//!
//! # The whole turn
//!
//! [`tool_calls`] reads the calls out of a response body of any [`Api`] (OpenAI Chat
//! Completions and Responses, Anthropic Messages, Gemini), [`Toolkit::run_calls`] runs them
//! concurrently, and [`tool_results`] writes what to append, in the same API's shape. Send
//! [`Toolkit::to_openai_responses`] as `tools` to the Responses API.
//!
//! ```
//! use toolnexus::serde_json::json;
//! use toolnexus::{Api, ToolContext, Toolkit, tool, tool_calls, tool_results, tools};
//!
//! /// Current weather for a city.
//! #[tool]
//! fn get_weather(city: String) -> String {
//!     format!("{city}: 18°C")
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let toolkit = Toolkit::new().with_all(tools![get_weather]);
//! let reply = json!({"candidates": [{"content": {"role": "model", "parts": [
//!     {"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}},
//! ]}}]});
//! let calls = tool_calls(Api::Gemini, &reply).unwrap();
//! assert_eq!(calls[0].id, "call_0"); // Gemini sent no id
//! let results = toolkit.run_calls(&calls, &ToolContext::default()).await;
//! assert_eq!(
//!     tool_results(Api::Gemini, &calls, &results),
//!     [json!({"role": "user", "parts": [{"functionResponse": {
//!         "name": "get_weather", "response": {"output": "Oslo: 18°C"}
//!     }}]})]
//! );
//! # });
//! ```
//!
//! # Choices where the contract is silent
//!
//! - Raw argument text over [`Toolkit::MAX_ARGUMENT_BYTES`] and arguments nested more than 127 levels
//!   are refused as `invalid arguments`; `attach` refuses files that are not regular files.
//! - `serde_json` is built with `preserve_order` (schemas keep parameter order) and
//!   `float_roundtrip` (floats survive a round trip exactly); both are additive features.
//! - `ToolResult` and `Request` are large values, so clippy's `result_large_err` fires on
//!   `fn f() -> Result<T, Request>`; return `Result<T, Box<Request>>` (or
//!   `Box<ToolResult>`) instead, which lowers the same way.
//! - [`Tool::execute_json`] takes the raw argument text; `#[tool]` decodes it straight into
//!   its arguments when that succeeds, and otherwise decodes it exactly as [`Tool::execute`]
//!   decodes the same `Value`, so both give the same result, errors included (text over
//!   [`Toolkit::MAX_ARGUMENT_BYTES`], which a `Value` has no limit for, aside). A key given twice for a
//!   parameter or a struct field is refused (`duplicate field`).
//! - Decode errors name the path of the offending value (``field `order.items[0].quantity`:
//!   …``), through `serde_path_to_error`.
//! - [`Toolkit::with`] and [`Toolkit::with_all`] panic on a name the toolkit already holds
//!   (the second tool would never be called); [`Toolkit::register`] returns `false` instead.
//! - Deadlines need no async runtime: one timer thread, `toolnexus-timer`, starts the first
//!   time a call with a timeout has to wait. A timeout is reported in whole milliseconds as
//!   the other ports print it (``timed out after 50ms``), with a fraction only when it is
//!   not a whole number of milliseconds.
//! - A tool marked both read-only and destructive is sent to MCP clients as read-only and
//!   not destructive, the way MCP and every port read the pair.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod client;
mod decode;
mod provider;
mod result;
mod support;
mod tool;
mod toolkit;

#[cfg(any(feature = "mcp", feature = "mcp-client"))]
pub mod mcp;

pub use provider::profile::{IssueKind, Profile, SchemaIssue};
pub use provider::search_names::ToolSearch;
pub use provider::turn::{Api, ResponseError, ToolCall, tool_calls, tool_results};
pub use result::ToolResult;
pub use result::lower::{IntoToolError, IntoToolResult, Json};
pub use result::part::ContentPart;
pub use result::retry::Retry;
pub use result::suspend::{
    Answer, Reason, Request, auth_required, auth_required_with, pending, pending_of,
};
pub use tool::context::{Extension, State, ToolContext};
pub use tool::define::{DefineToolError, FnTool, ToolDef, define_tool};
pub use tool::future::{BoxFuture, ToolFuture};
pub use tool::{Tool, ToolAnnotations, ToolSource, sanitize};
pub use toolkit::run_state::RunState;
pub use toolkit::{Next, Toolkit};
pub use toolnexus_macros::*;

/// `toolnexus::JsonSchema` is both schemars' trait and toolnexus' derive, like
/// `schemars::JsonSchema`: the glob brings the trait, the explicit import replaces schemars'
/// derive with ours (which needs no schemars in the user's `Cargo.toml`).
#[doc(hidden)]
pub mod __json_schema {
    pub use schemars::*;
    pub use toolnexus_macros::JsonSchema;
}
pub use __json_schema::JsonSchema;

/// `serde_json`, re-exported so users never need it in their own `Cargo.toml`.
pub use serde_json;

/// `schemars`, re-exported so users never need it in their own `Cargo.toml`.
pub use schemars;

/// Content parts (SPEC §1B, §8A): making them from a path, a URL, a `data:` URL or bytes,
/// measuring them, and encoding one for a provider.
///
/// [`ContentPart`] is at the crate root, beside [`ToolResult`] that carries it; what a part is
/// made of ([`Media`](parts::Media), [`Source`](parts::Source)) and how a file becomes one
/// ([`AttachOptions`](parts::AttachOptions)) are here.
///
/// ```
/// use toolnexus::parts::{Style, describe_part, encode_part, from_bytes, part_bytes};
///
/// let png = from_bytes(b"\x89PNG", "image/png");
/// assert_eq!((part_bytes(&png), describe_part(&png).as_str()), (4, "image (image/png, 4 bytes)"));
/// assert_eq!(encode_part(&png, Style::Anthropic).unwrap()["type"], "image");
/// ```
pub mod parts {
    pub use crate::provider::{Style, encode_part};
    pub use crate::result::attach::{AttachOptions, attach, attach_with, from_bytes, from_path};
    pub use crate::result::part::{
        ContentPartError, Media, Source, base64_bytes, describe_part, part_bytes,
    };
}

/// The types behind [`ToolContext`]'s fields and the extractors' bounds: what a call carries
/// ([`Extensions`](context::Extensions)), where its progress goes
/// ([`Progress`](context::Progress)), its cancel switch ([`CancelSignal`](context::CancelSignal))
/// and the future that waits for it ([`Cancelled`](context::Cancelled)), the state types a
/// tool needs ([`StateType`](context::StateType)) and what an extractor implements
/// ([`FromToolContext`](context::FromToolContext)). A tool names them only when it is written
/// by hand; `#[tool]` fns take [`State`], [`Extension`] and [`ToolContext`] from the crate root.
pub mod context {
    pub use crate::tool::cancel::{CancelSignal, Cancelled};
    pub use crate::tool::context::{Extensions, FromToolContext, StateType};
    pub use crate::tool::progress::Progress;
}

/// Long-running calls (SPEC §14): how a tool may run as a task
/// ([`TaskSupport`](task::TaskSupport), what `#[tool(task)]` sets) and, with the `tasks`
/// feature, a call run as one in process: `Toolkit::spawn` returns a `TaskHandle` whose
/// `TaskSnapshot`s carry a `TaskStatus`; `AnswerError` is why it refused an answer. The MCP
/// server's tasks are built on them.
pub mod task {
    pub use crate::tool::task_support::TaskSupport;
    #[cfg(feature = "tasks")]
    pub use crate::toolkit::spawn::{AnswerError, TaskHandle, TaskSnapshot, TaskStatus};
}

/// Support for macro-generated code. Not public API: it may change in any release.
#[doc(hidden)]
pub mod __private {
    pub use crate::support::*;
}

/// The README's examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;
