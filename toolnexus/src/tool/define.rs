//! Tools built from data at run time (the JavaScript `defineTool`): [`define_tool`] starts a
//! [`ToolDef`], a closure finishes it as an [`FnTool`].

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::decode::schema::wrap_result;
use crate::decode::{dismantle, json_kind, too_deep, within_nesting};
use crate::result::ToolResult;
use crate::result::lower::IntoToolResult;
use crate::tool::approval::{approval_data, format_prompt, gate};
use crate::tool::context::ToolContext;
use crate::tool::future::BoxFuture;
use crate::tool::task_support::TaskSupport;
use crate::tool::{Tool, ToolAnnotations, ToolSource};

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
        deferred: false,
        retries: None,
        task: TaskSupport::Forbidden,
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
    deferred: bool,
    retries: Option<u32>,
    task: TaskSupport,
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

    /// Says whether the tool's definition may wait until a search finds it (SPEC §15), as
    /// `#[tool(defer)]` does; see [`Tool::deferred`].
    ///
    /// ```
    /// use serde_json::{json, Value};
    /// use toolnexus::{define_tool, Tool, ToolContext};
    ///
    /// let tool = define_tool("archive", "Archives a project", json!({"type": "object"}))?
    ///     .deferred(true)
    ///     .retries(5)
    ///     .sync(|_: Value, _: &ToolContext| "archived");
    /// assert!(tool.deferred());
    /// assert_eq!(tool.retries(), Some(5));
    /// # Ok::<(), toolnexus::DefineToolError>(())
    /// ```
    #[must_use]
    pub fn deferred(mut self, deferred: bool) -> Self {
        self.deferred = deferred;
        self
    }

    /// Sets how many failed calls in a row the model may retry (SPEC §15B), as
    /// `#[tool(retries = N)]` does; see [`Tool::retries`].
    #[must_use]
    pub fn retries(mut self, retries: u32) -> Self {
        self.retries = Some(retries);
        self
    }

    /// Whether the tool may run as a task (SPEC §14), as `#[tool(task)]` says for a fn;
    /// [`TaskSupport::Forbidden`] unless set. A closure given to [`sync`](Self::sync) runs on
    /// the thread that polls it: a long task should be [`run`](Self::run) with blocking work
    /// moved off the async threads (`tokio::task::spawn_blocking`).
    ///
    /// ```
    /// use toolnexus::serde_json::{json, Value};
    /// use toolnexus::{define_tool, Tool, ToolContext};
    /// use toolnexus::task::TaskSupport;
    ///
    /// let crawl = define_tool("crawl", "Crawls a site", json!({"type": "object"}))
    ///     .unwrap()
    ///     .task(TaskSupport::Required)
    ///     .run(|_: Value, _: ToolContext| async { "crawled" });
    /// assert_eq!(crawl.task_support(), TaskSupport::Required);
    /// ```
    #[must_use]
    pub fn task(mut self, support: TaskSupport) -> Self {
        self.task = support;
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

    fn deferred(&self) -> bool {
        self.def.deferred
    }

    fn retries(&self) -> Option<u32> {
        self.def.retries
    }

    fn task_support(&self) -> TaskSupport {
        self.def.task
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

    use crate::tool::define::*;

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
                crate::decode::schema::WRAPPED_RESULT: true,
            })
        );
        let error = def.output_schema(json!([])).unwrap_err();
        assert_eq!(
            error.to_string(),
            "the output schema of tool `n` must be a JSON Schema object, found an array"
        );
    }
}
