//! The [`Tool`] trait, its context, and tools built from data at run time.

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::approval::{approval_data, format_prompt, gate};
use crate::cancel::CancelSignal;
use crate::decode::{dismantle, json_kind, parse_args, too_deep, within_nesting};
use crate::future::{BoxFuture, ToolFuture};
use crate::lower::IntoToolResult;
use crate::result::ToolResult;
use crate::schema::wrap_result;
use crate::suspend::Answer;

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
/// `#[tool(read_only, destructive, idempotent, open_world)]` or on a [`ToolDef`].
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

/// What the caller passes to a tool beside its arguments.
///
/// A `#[tool]` fn receives it by declaring a parameter of type `&ToolContext` or `ToolContext`
/// anywhere in its list; it never appears in the schema.
#[derive(Clone, Debug, Default)]
pub struct ToolContext {
    /// The answer to this tool's earlier suspension, when it is being executed again.
    pub answer: Option<Answer>,
    /// How long the caller is willing to wait for one execution, if it said.
    /// [`Toolkit::execute`](crate::Toolkit::execute) and its siblings enforce it: at the
    /// deadline the call resolves as an error and the tool's future is dropped.
    pub timeout: Option<Duration>,
    /// Fired when the caller gives up. A call through a [`Toolkit`](crate::Toolkit) resolves
    /// at once as an error and drops the tool's future; a tool may also watch it itself.
    pub cancel: CancelSignal,
}

/// A tool a model can call. Object safe: toolkits hold `Arc<dyn Tool>`.
///
/// `#[tool]` implements it for you; implement it by hand for anything unusual, or use
/// [`define_tool`] for tools described by data at run time.
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
    /// [`MAX_ARGUMENT_BYTES`](crate::MAX_ARGUMENT_BYTES) or that is not JSON gives an
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

/// Starts a tool described by data at run time (the JavaScript `defineTool`): a name, a
/// description and a JSON Schema `Value`, then a sync ([`ToolDef::sync`]) or async
/// ([`ToolDef::run`]) closure.
///
/// The schema must be a JSON object whose `type` is `"object"`; anything else is refused
/// here, naming the tool, instead of failing later inside a provider. The closure gets the
/// arguments as they came, except that arguments nested more than 127 levels deep are refused
/// before it runs, as a `#[tool]`'s are (dropping such a `Value` would overflow the stack).
///
/// ```
/// use serde_json::{json, Value};
/// use toolnexus::{define_tool, Tool, ToolContext};
///
/// let echo = define_tool("echo", "Echo the text back", json!({
///     "type": "object",
///     "properties": {"text": {"type": "string"}},
///     "required": ["text"],
/// }))
/// .unwrap()
/// .sync(|args: Value, _ctx: &ToolContext| args["text"].as_str().unwrap_or_default().to_owned());
///
/// let ctx = ToolContext::default();
/// let result = block_on(echo.execute(json!({"text": "hi"}), &ctx));
/// assert_eq!(result.output, "hi");
/// # fn block_on<F: std::future::Future>(f: F) -> F::Output {
/// #     tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
/// # }
/// ```
pub fn define_tool(
    name: impl Into<String>,
    description: impl Into<String>,
    input_schema: Value,
) -> Result<ToolDef, DefineToolError> {
    let name = name.into();
    let schema = match input_schema {
        Value::Object(schema) if schema.get("type") == Some(&Value::from("object")) => schema,
        other => {
            return Err(DefineToolError {
                name,
                schema: "input",
                found: match other {
                    Value::Object(_) => "an object without \"type\": \"object\"",
                    other => json_kind(&other),
                },
            });
        }
    };
    Ok(ToolDef {
        name,
        description: description.into(),
        schema,
        source: ToolSource::Native,
        title: None,
        annotations: ToolAnnotations::default(),
        output_schema: None,
        approval: None,
    })
}

/// Why [`define_tool`] or [`ToolDef::output_schema`] refused a schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefineToolError {
    name: String,
    /// `"input"` or `"output"`.
    schema: &'static str,
    found: &'static str,
}

impl fmt::Display for DefineToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let required = match self.schema {
            "input" => "a JSON object with \"type\": \"object\"",
            _ => "a JSON Schema object",
        };
        write!(
            f,
            "the {} schema of tool `{}` must be {required}, found {}",
            self.schema, self.name, self.found
        )
    }
}

impl std::error::Error for DefineToolError {}

/// A tool definition waiting for its closure; made by [`define_tool`].
#[derive(Debug, Clone)]
pub struct ToolDef {
    name: String,
    description: String,
    schema: Map<String, Value>,
    source: ToolSource,
    title: Option<String>,
    annotations: ToolAnnotations,
    output_schema: Option<Map<String, Value>>,
    approval: Option<String>,
}

type Run = dyn Fn(Value, &ToolContext) -> BoxFuture<'static, ToolResult> + Send + Sync;

impl ToolDef {
    /// Sets where the tool comes from (default [`ToolSource::Native`]).
    #[must_use]
    pub fn source(mut self, source: ToolSource) -> Self {
        self.source = source;
        self
    }

    /// Sets the human-facing name MCP clients show (MCP `title`; see [`Tool::title`]).
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Says whether the tool leaves its environment unchanged (MCP `readOnlyHint`).
    #[must_use]
    pub fn read_only(mut self, read_only: bool) -> Self {
        self.annotations.read_only = Some(read_only);
        self
    }

    /// Says whether the tool may destroy or overwrite data (MCP `destructiveHint`). MCP
    /// reads a read-only tool as not destructive, so with `read_only(true)` this hint is
    /// sent as `false`.
    #[must_use]
    pub fn destructive(mut self, destructive: bool) -> Self {
        self.annotations.destructive = Some(destructive);
        self
    }

    /// Says whether repeating a call with the same arguments has no further effect (MCP
    /// `idempotentHint`).
    #[must_use]
    pub fn idempotent(mut self, idempotent: bool) -> Self {
        self.annotations.idempotent = Some(idempotent);
        self
    }

    /// Says whether the tool reaches an open world of external entities, such as the web
    /// (MCP `openWorldHint`).
    #[must_use]
    pub fn open_world(mut self, open_world: bool) -> Self {
        self.annotations.open_world = Some(open_world);
        self
    }

    /// Declares the JSON Schema of the tool's successful results (MCP `outputSchema`; see
    /// [`Tool::output_schema`]). The tool's output must then be JSON text of that shape:
    /// MCP clients get it parsed as `structuredContent`.
    ///
    /// A schema whose root is `"type": "object"` is used as it is. Any other schema (an
    /// array, a number, `anyOf`…) is wrapped as `{"type":"object","properties":{"result":
    /// …},"required":["result"],"x-toolnexus-wrap-result":true}`, because MCP wants an object
    /// at the root, and results are wrapped as `{"result": …}` to match — as `#[tool]` does
    /// for a fn returning `Json<Vec<T>>`. A schema that is not a JSON object is refused.
    ///
    /// ```
    /// use serde_json::{json, Value};
    /// use toolnexus::{define_tool, Tool, ToolContext};
    ///
    /// let tags = define_tool("tags", "List the tags", json!({"type": "object", "properties": {}}))?
    ///     .title("Tags")
    ///     .read_only(true)
    ///     .output_schema(json!({"type": "array", "items": {"type": "string"}}))?
    ///     .sync(|_: Value, _: &ToolContext| toolnexus::Json(["red", "green"]));
    /// assert_eq!(tags.output_schema().unwrap()["properties"]["result"]["type"], "array");
    /// assert_eq!(tags.title(), Some("Tags"));
    ///
    /// let refused = define_tool("t", "T", json!({"type": "object"}))?.output_schema(json!("text"));
    /// assert_eq!(
    ///     refused.unwrap_err().to_string(),
    ///     "the output schema of tool `t` must be a JSON Schema object, found a string"
    /// );
    /// # Ok::<(), toolnexus::DefineToolError>(())
    /// ```
    pub fn output_schema(mut self, schema: Value) -> Result<Self, DefineToolError> {
        let schema = match schema {
            Value::Object(schema) if schema.get("type") == Some(&Value::from("object")) => schema,
            Value::Object(schema) => wrap_result(schema, false),
            other => {
                return Err(DefineToolError {
                    name: self.name,
                    schema: "output",
                    found: json_kind(&other),
                });
            }
        };
        self.output_schema = Some(schema);
        Ok(self)
    }

    /// Makes the tool ask a human before it runs (SPEC §10A), as `#[tool(approval = "…")]`
    /// does: without an answer in the context it returns a suspension — an `"approval"`
    /// [`Request`](crate::Request) whose prompt is `prompt` with its `{name}` placeholders
    /// filled from the arguments (a string as its text, anything else as compact JSON, a
    /// missing argument left as `{name}`; `{{`/`}}` are braces) and whose `data` is the
    /// arguments with absent schema `default`s filled in. An `ok` answer runs the closure;
    /// any other answer gives `declined/expired: <prompt>`. [`Toolkit::call`](crate::Toolkit::call)
    /// drives it like any suspension.
    ///
    /// ```
    /// use serde_json::{json, Value};
    /// use toolnexus::{define_tool, Tool, ToolContext};
    ///
    /// let schema = json!({"type": "object", "properties": {"path": {"type": "string"}}});
    /// let remove = define_tool("remove", "Removes a file", schema)
    ///     .unwrap()
    ///     .approval("Remove {path}?")
    ///     .sync(|args: Value, _: &ToolContext| format!("removed {}", args["path"]));
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let asked = remove.execute(json!({"path": "/tmp/a"}), &ToolContext::default()).await;
    /// assert_eq!(asked.pending().unwrap().prompt, "Remove /tmp/a?");
    /// # });
    /// ```
    #[must_use]
    pub fn approval(mut self, prompt: impl Into<String>) -> Self {
        self.approval = Some(prompt.into());
        self
    }

    /// Finishes the tool with a synchronous closure. It runs when the returned future is polled.
    pub fn sync<F, R>(self, f: F) -> FnTool
    where
        F: Fn(Value, &ToolContext) -> R + Send + Sync + 'static,
        R: IntoToolResult,
    {
        let f = Arc::new(f);
        self.finish(Box::new(move |args, ctx| {
            let f = Arc::clone(&f);
            let ctx = ctx.clone();
            Box::pin(async move { f(args, &ctx).into_tool_result() })
        }))
    }

    /// Finishes the tool with an async closure; it gets its own clone of the context.
    pub fn run<F, Fut>(self, f: F) -> FnTool
    where
        F: Fn(Value, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: Future + Send + 'static,
        Fut::Output: IntoToolResult,
    {
        self.finish(Box::new(move |args, ctx| {
            let future = f(args, ctx.clone());
            Box::pin(async move { future.await.into_tool_result() })
        }))
    }

    fn finish(self, run: Box<Run>) -> FnTool {
        FnTool { def: self, run }
    }
}

/// A tool made from data and a closure by [`define_tool`].
pub struct FnTool {
    def: ToolDef,
    run: Box<Run>,
}

impl fmt::Debug for FnTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FnTool")
            .field("def", &self.def)
            .finish_non_exhaustive()
    }
}

impl Tool for FnTool {
    fn name(&self) -> &str {
        &self.def.name
    }

    fn description(&self) -> &str {
        &self.def.description
    }

    fn input_schema(&self) -> &Map<String, Value> {
        &self.def.schema
    }

    fn source(&self) -> ToolSource {
        self.def.source
    }

    fn title(&self) -> Option<&str> {
        self.def.title.as_deref()
    }

    fn annotations(&self) -> ToolAnnotations {
        self.def.annotations
    }

    fn output_schema(&self) -> Option<&Map<String, Value>> {
        self.def.output_schema.as_ref()
    }

    fn execute<'a>(&'a self, args: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        // Arguments nested past the decoder's limit are refused as a `#[tool]`'s are: copying
        // them for an approval request, or dropping them in the closure, recurses once per
        // level and would overflow the stack.
        if let Value::Object(object) = &args {
            if !within_nesting(object) {
                dismantle(args);
                return Box::pin(std::future::ready(too_deep(self.name())));
            }
        }
        if let Some(template) = &self.def.approval {
            // Built only for a request or a refusal, never on the approved call.
            let data = || approval_data(&self.def.schema, Some(&args));
            if let Some(stop) = gate(ctx, || format_prompt(template, &data()), data) {
                return Box::pin(std::future::ready(stop));
            }
        }
        (self.run)(args, ctx)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_sources_name_is_its_wire_form() {
        use ToolSource::*;
        for source in [Mcp, Skill, Builtin, Native, Http, A2a, Custom] {
            assert_eq!(serde_json::to_value(source).unwrap(), source.as_str());
        }
    }

    #[test]
    fn define_tool_refuses_a_schema_that_is_not_an_object_schema() {
        let cases = [
            (json!("object"), "found a string"),
            (json!([]), "found an array"),
            (json!(null), "found null"),
            (
                json!({"properties": {}}),
                "found an object without \"type\": \"object\"",
            ),
            (
                json!({"type": "string"}),
                "found an object without \"type\": \"object\"",
            ),
        ];
        for (schema, found) in cases {
            let error = define_tool("lookup", "Looks up", schema).unwrap_err();
            assert_eq!(
                error.to_string(),
                format!(
                    "the input schema of tool `lookup` must be a JSON object with \"type\": \"object\", {found}"
                )
            );
        }
    }

    #[test]
    fn tool_def_sets_title_hints_and_output_schema() {
        let schema = json!({"type": "object", "properties": {}});
        let plain = define_tool("plain", "Plain", schema.clone())
            .unwrap()
            .sync(|_: Value, _: &ToolContext| "");
        assert_eq!(plain.title(), None);
        assert!(plain.annotations().is_empty());
        assert!(plain.output_schema().is_none());

        let point = json!({"type": "object", "properties": {"x": {"type": "number"}}});
        let tool = define_tool("drop_table", "Drops a table", schema)
            .unwrap()
            .title("Drop table")
            .destructive(true)
            .idempotent(true)
            .open_world(false)
            .output_schema(point.clone())
            .unwrap()
            .sync(|_: Value, _: &ToolContext| "");
        assert_eq!(tool.title(), Some("Drop table"));
        assert_eq!(
            tool.annotations(),
            ToolAnnotations {
                read_only: None,
                destructive: Some(true),
                idempotent: Some(true),
                open_world: Some(false),
            }
        );
        assert_eq!(tool.output_schema(), point.as_object());
    }

    #[test]
    fn a_non_object_output_schema_is_wrapped_and_a_non_schema_refused() {
        let def = define_tool("n", "N", json!({"type": "object"})).unwrap();
        let wrapped = def
            .clone()
            .output_schema(json!({"type": "integer"}))
            .unwrap()
            .sync(|_: Value, _: &ToolContext| 1);
        assert_eq!(
            Value::Object(wrapped.output_schema().unwrap().clone()),
            json!({
                "type": "object",
                "properties": {"result": {"type": "integer"}},
                "required": ["result"],
                crate::schema::WRAPPED_RESULT: true,
            })
        );
        let error = def.output_schema(json!([])).unwrap_err();
        assert_eq!(
            error.to_string(),
            "the output schema of tool `n` must be a JSON Schema object, found an array"
        );
    }

    #[test]
    fn sanitize_replaces_one_underscore_per_character() {
        assert_eq!(sanitize("héllo/wörld"), "h_llo_w_rld");
        assert_eq!(sanitize("ok-name_1"), "ok-name_1");
    }
}
