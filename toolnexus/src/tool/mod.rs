//! Making a tool: the [`Tool`] trait, what reaches a call besides its arguments
//! ([`ToolContext`], its state and extractors, cancellation, progress), the approval gate, and
//! tools built from data at run time (`define.rs`).

pub(crate) mod approval;
pub(crate) mod cancel;
pub(crate) mod context;
pub(crate) mod define;
pub(crate) mod future;
pub(crate) mod progress;
pub(crate) mod task_support;

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::decode::parse_args;
use crate::result::ToolResult;
use crate::tool::context::{StateType, ToolContext};
use crate::tool::future::{BoxFuture, ToolFuture};
use crate::tool::task_support::TaskSupport;

/// Where a tool comes from. Serialized lowercase (`"native"`, `"mcp"`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolSource {
    /// A tool served by an MCP server.
    Mcp,
    /// A tool from a skill bundle.
    Skill,
    /// A provider's built-in tool.
    Builtin,
    /// A tool implemented in this process (what `#[tool]` makes).
    #[default]
    Native,
    /// A tool called over HTTP.
    Http,
    /// A tool exposed by another agent (agent-to-agent).
    A2a,
    /// Anything else.
    Custom,
}

/// Hints about what a tool does to the world (MCP tool annotations, SPEC §8), set with
/// `#[tool(read_only, destructive, idempotent, open_world)]` or on a [`ToolDef`](crate::ToolDef).
///
/// Each is `None` (not sent) unless set. They are hints for clients, never guarantees, and
/// never part of the OpenAI, Anthropic or Gemini definitions. Following MCP and the other
/// ports, a read-only tool is read as not destructive.
///
/// ```
/// let hints = toolnexus::ToolAnnotations { read_only: Some(true), ..Default::default() };
/// assert!(!hints.is_empty());
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct ToolAnnotations {
    /// The tool does not modify its environment (MCP `readOnlyHint`).
    pub read_only: Option<bool>,
    /// The tool may perform destructive updates (MCP `destructiveHint`).
    pub destructive: Option<bool>,
    /// Calling it again with the same arguments has no further effect (MCP `idempotentHint`).
    pub idempotent: Option<bool>,
    /// The tool interacts with an open world of external entities (MCP `openWorldHint`).
    pub open_world: Option<bool>,
}

impl ToolSource {
    /// The wire name, as serialized: `"native"`, `"mcp"`, ….
    ///
    /// ```
    /// assert_eq!(toolnexus::ToolSource::A2a.as_str(), "a2a");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Mcp => "mcp",
            Self::Skill => "skill",
            Self::Builtin => "builtin",
            Self::Native => "native",
            Self::Http => "http",
            Self::A2a => "a2a",
            Self::Custom => "custom",
        }
    }
}

impl ToolAnnotations {
    /// Whether no hint is set (nothing to send).
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

/// A tool a model can call. Object safe: toolkits hold `Arc<dyn Tool>`.
///
/// `#[tool]` implements it for you; implement it by hand for anything unusual, or use
/// [`define_tool`](crate::define_tool) for tools described by data at run time.
pub trait Tool: Send + Sync {
    /// The name the model calls the tool by.
    fn name(&self) -> &str;
    /// What the tool does, for the model.
    fn description(&self) -> &str;
    /// The JSON Schema of the arguments object; built once, then borrowed.
    fn input_schema(&self) -> &Map<String, Value>;
    /// Where the tool comes from.
    fn source(&self) -> ToolSource {
        ToolSource::Native
    }
    /// A human-facing name for the tool (MCP `title`); never sent to the model's providers.
    fn title(&self) -> Option<&str> {
        None
    }
    /// Hints about the tool's behaviour (MCP tool annotations); never sent to the model's
    /// providers. All absent by default.
    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::default()
    }
    /// The JSON Schema of the tool's successful results (MCP `outputSchema`), for tools that
    /// return JSON with a known shape; built once, then borrowed. `#[tool]` provides it for
    /// fns returning `Json<T>` (also inside `Option`/`Result`) with `T: JsonSchema`.
    fn output_schema(&self) -> Option<&Map<String, Value>> {
        None
    }
    /// Whether the tool's definition may wait until a search finds it (SPEC §15): set with
    /// `#[tool(defer)]`, [`ToolDef::deferred`](crate::ToolDef::deferred) or
    /// `McpTools::deferred()`. A deferred tool runs like any other; only its definition
    /// waits. `false` by default.
    fn deferred(&self) -> bool {
        false
    }
    /// How many failed calls in a row the model may retry before a run gives up on the tool
    /// (SPEC §15B): set with `#[tool(retries = N)]` or
    /// [`ToolDef::retries`](crate::ToolDef::retries); `None` (the default) takes the
    /// toolkit's [`retries`](crate::Toolkit::retries).
    fn retries(&self) -> Option<u32> {
        None
    }
    /// The group the tool's definition is sent in where an API groups tools (OpenAI
    /// Responses `namespace`s, SPEC §15): an MCP server's name for its tools; `None` by
    /// default.
    fn namespace(&self) -> Option<&str> {
        None
    }
    /// Whether the tool may run as a long-lived task (SPEC §14); `#[tool(task)]` and
    /// `#[tool(task = "required")]` set it. [`TaskSupport::Forbidden`] by default.
    fn task_support(&self) -> TaskSupport {
        TaskSupport::Forbidden
    }
    /// The toolkit state types the tool reads ([`ToolContext::state`]), so that
    /// [`Toolkit::missing_state`](crate::Toolkit::missing_state) can find a toolkit that
    /// cannot serve it before any call. `#[tool]` lists its `State<T>` parameters; none by
    /// default.
    fn required_state(&self) -> &[StateType] {
        &[]
    }
    /// Runs the tool. Failures are results with `is_error`, never panics.
    ///
    /// A tool may do its work when called or when the future is polled: a `#[tool]` over a
    /// sync fn runs the fn right away and returns a ready future (so no future is built
    /// around it), an async one runs when polled. Through a [`Toolkit`](crate::Toolkit)
    /// nothing runs before the call's first poll, whichever it is.
    fn execute<'a>(&'a self, args: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult>;
    /// Runs the tool with the raw argument text a model produced.
    ///
    /// Empty or all-whitespace text means `{}`; text over
    /// [`Toolkit::MAX_ARGUMENT_BYTES`](crate::Toolkit::MAX_ARGUMENT_BYTES) or that is not JSON gives an
    /// `invalid arguments for `NAME`` error. The default parses the text into a `Value` and
    /// calls [`execute`](Self::execute); `#[tool]` overrides it to decode the text straight
    /// into its arguments, skipping the intermediate `Value`.
    ///
    /// It returns a [`ToolFuture`] rather than a [`BoxFuture`] so that a result known at once
    /// costs no allocation: bad arguments, and every call of a synchronous `#[tool]` fn,
    /// which runs inside this method (a [`Toolkit`](crate::Toolkit) calls it at the first
    /// poll, under its panic guard and limits).
    fn execute_json<'a>(&'a self, args: &'a str, ctx: &'a ToolContext) -> ToolFuture<'a> {
        match parse_args(self.name(), args) {
            Ok(args) => ToolFuture::boxed(self.execute(args, ctx)),
            Err(invalid) => ToolFuture::ready(invalid),
        }
    }
    /// [`execute`](Self::execute) as a [`ToolFuture`]: what a [`Toolkit`](crate::Toolkit)
    /// calls, so that a result known at once (bad arguments, a synchronous `#[tool]` fn)
    /// costs no allocation, as with [`execute_json`](Self::execute_json). Not part of the
    /// contract (SPEC §1 pins `execute`): the default boxes `execute`'s future, which is right
    /// for every hand-written tool, and `#[tool]` overrides it.
    #[doc(hidden)]
    fn execute_value<'a>(&'a self, args: Value, ctx: &'a ToolContext) -> ToolFuture<'a> {
        ToolFuture::boxed(self.execute(args, ctx))
    }
}

impl fmt::Debug for dyn Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tool")
            .field("name", &self.name())
            .field("source", &self.source())
            .finish_non_exhaustive()
    }
}

/// Replaces every character outside `[a-zA-Z0-9_-]` with `_`, one `_` per character, to make
/// a name every provider accepts.
///
/// ```
/// assert_eq!(toolnexus::sanitize("fs.read_file"), "fs_read_file");
/// ```
pub fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sources_name_is_its_wire_form() {
        use ToolSource::*;
        for source in [Mcp, Skill, Builtin, Native, Http, A2a, Custom] {
            assert_eq!(serde_json::to_value(source).unwrap(), source.as_str());
        }
    }

    #[test]
    fn sanitize_replaces_one_underscore_per_character() {
        assert_eq!(sanitize("héllo/wörld"), "h_llo_w_rld");
        assert_eq!(sanitize("ok-name_1"), "ok-name_1");
    }
}
