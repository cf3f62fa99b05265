//! Procedural macros for `toolnexus`, the runtime crate of this workspace (not the unrelated
//! `toolnexus` on crates.io). Use them through `toolnexus`, which re-exports them and the
//! runtime their expansions name.
//!
//! Every macro here only converts tokens; the work happens on `proc_macro2` in the modules,
//! so it can be unit-tested.
#![forbid(unsafe_code)]

use proc_macro::TokenStream;
use syn::parse_macro_input;

mod crate_path;
mod errors;
mod format;
mod idents;
mod json_schema;
mod output;
mod symbol;
mod tool;

/// Turns a plain function into a tool: a name, a description, the JSON Schema of its
/// parameters and an `execute` that decodes a model's arguments, calls the fn and lowers what
/// it returns into a `ToolResult`.
///
/// ```
/// use toolnexus::{JsonSchema, Tool, ToolContext, tool};
///
/// #[derive(serde::Deserialize, JsonSchema)]
/// #[serde(rename_all = "lowercase")]
/// enum Unit { Celsius, Fahrenheit }
///
/// /// Current weather for a city.
/// ///
/// /// Use it before suggesting clothes.
/// #[tool]
/// async fn get_weather(
///     /// City name, e.g. "Paris"
///     city: String,
///     /// Temperature unit; Celsius when omitted
///     unit: Option<Unit>,
///     #[param(default = 3)] days: u8,
///     ctx: &ToolContext, // injected, not in the schema
/// ) -> Result<String, std::io::Error> {
///     let _ = (unit, ctx);
///     Ok(format!("{city}: sunny for {days} days"))
/// }
///
/// // The fn is unchanged; beside it stands `GetWeatherTool`.
/// assert_eq!(GetWeatherTool::NAME, "get_weather");
/// assert_eq!(GetWeatherTool::DESCRIPTION, "Current weather for a city.\n\nUse it before suggesting clothes.");
/// let schema = toolnexus::serde_json::Value::Object(GetWeatherTool.input_schema().clone());
/// assert_eq!(schema["required"], toolnexus::serde_json::json!(["city"]));
/// assert_eq!(schema["properties"]["days"]["default"], 3);
/// ```
///
/// # What it generates
///
/// Beside the fn, left exactly as written (minus parameter attributes), a unit struct
/// `{PascalCase}Tool` with the fn's visibility — `Clone + Copy + Default + Debug`, associated
/// consts `NAME` and `DESCRIPTION`, and `impl Tool`. Its input schema is built once, on first
/// use, then borrowed: `{"type":"object","properties":{…},"required":[…],
/// "additionalProperties":false}` in parameter order, without `$schema` or a root `title`,
/// with `$ref`s inlined (recursive types keep `$defs`), non-standard `format`s dropped and
/// `Option<T>` described as `T`.
///
/// # Attributes
///
/// - `#[tool(name = "…", description = "…")]`: the name defaults to the fn's; the description
///   to its doc comment up to the first `# ` heading (lines trimmed, paragraphs kept).
/// - `title = "…"`: a human-facing name ([`Tool::title`], sent to MCP clients only).
/// - `read_only`, `destructive`, `idempotent`, `open_world`: MCP behaviour hints
///   ([`Tool::annotations`]); each is a flag or `key = true|false` (MCP assumes
///   `destructive` and `open_world` when unsaid, so `open_world = false` is worth writing).
///   `read_only` with `destructive` is refused: a read-only tool is not destructive.
/// - `approval = "…"`: ask a human first (below).
/// - `defer`: the definition waits until a search finds the tool ([`Tool::deferred`], SPEC
///   §15).
/// - `retries = N`: how many failed calls in a row the model may retry before a run gives up
///   on the tool ([`Tool::retries`], SPEC §15B; a whole number, default the toolkit's).
/// - `task`, `task = "required"`: the tool may run as a long-lived task, or only as one
///   ([`Tool::task_support`], SPEC §14): an MCP server answers a call that outlasts its
///   `task_after` with a task the client polls. `task` needs an `async fn`: a sync fn runs
///   inside a poll, and would hold one of the runtime's async threads for the whole task, so
///   it is a compile error rather than a silent stall; move blocking work into
///   `tokio::task::spawn_blocking` inside the async fn.
/// - `crate = "path"`: where toolnexus is, when your `Cargo.toml` renames it
///   (`tnx = { package = "toolnexus", … }` ⇒ `#[tool(crate = "tnx")]`); every path the
///   expansion names goes through it, and `tools![…]` of such tools reaches toolnexus
///   through them. The derives take the same as `#[toolnexus(crate = "tnx")]`.
/// - A parameter is described by its own doc comment, else by a rustdoc `# Arguments` bullet
///   (`` * `city` - … ``), else by `#[param(description = "…")]`, which wins over both.
/// - `#[param(rename = "…")]` changes the argument's key; `#[param(default)]` and
///   `#[param(default = expr)]` make it optional and show the value as `"default"` (a string
///   literal converts with `Into`, so `#[param(default = "metric")] system: String` works).
///   A forwarded `#[serde(default)]` or `#[serde(default = "path")]` does the same.
/// - `#[param(header = "Region")]` marks the parameter `"x-mcp-header": "Region"` in the
///   input schema (MCP, SEP-2243): an MCP client also sends the argument as the HTTP header
///   `Mcp-Param-Region`, and the MCP server answers a request whose header and argument
///   differ with `-32020` (HTTP 400). The name is an HTTP token, once per tool ignoring
///   case, and the parameter a string, an integer or a boolean (or an `Option` of one);
///   anything else is a compile error.
/// - `#[serde(…)]` and `#[schemars(…)]` on a parameter are forwarded to its field in the
///   generated arguments. For an optional or defaulted parameter with its own deserializer
///   (`deserialize_with`, `with`), `null` still means absent, as the schemas say: the
///   deserializer only ever sees a value that is there. (schemars reads serde's `with` as a
///   type, so add `#[schemars(with = "YourType")]` beside it; and it writes a `default`
///   through the module's `serialize`, so a `with` module needs one.)
///
/// A fn returning `Json<T>` (also in an `Option` or `Result`) gets an output schema
/// ([`Tool::output_schema`]), so `T` must be `JsonSchema`: a `T` without one is a compile
/// error at the return type, not a tool silently without a schema (a compile error, because
/// the macro sees the type; a run-time `check` issue would come too late). To return JSON
/// without an output schema, return a `serde_json::Value` (`serde_json::to_value(…)`). An
/// `async fn`'s return type is its `-> T`.
///
/// # Parameters
///
/// Any type that is `Deserialize + JsonSchema + Send`, under any name (the fn's own,
/// `args`, `ctx`, …), or a borrow of one, which is decoded into an owned value and lent to
/// the fn: `&str`, `Option<&str>`, `&[T]`, `&T`, `Option<&T>`, `Cow<'_, str>`. The fn may
/// declare lifetimes; it may not have type or const parameters, whose schema is unknown. One
/// parameter of type `&ToolContext` or `ToolContext` is injected instead of decoded. The
/// expansion names only absolute paths, so it compiles under `#![no_implicit_prelude]`.
///
/// ```
/// use toolnexus::{Tool, ToolContext, tool};
///
/// /// Shouts a text.
/// #[tool]
/// fn shout<'a>(text: &'a str, suffix: Option<&str>, ctx: &ToolContext) -> String {
///     let _ = ctx;
///     format!("{}{}", text.to_uppercase(), suffix.unwrap_or("!"))
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let result = ShoutTool.execute_json(r#"{"text": "hi"}"#, &ToolContext::default()).await;
/// assert_eq!(result.output, "HI!");
/// # });
/// ```
///
/// # Arguments at run time
///
/// `null` means `{}`; a missing or `null` `Option`/defaulted argument is absent; unknown keys
/// are refused (the schema says `additionalProperties: false`). Any failure is an `is_error`
/// result naming the path of the offending value — ``invalid arguments for `NAME`: field
/// `order.items[0].quantity`: invalid value: integer `-2`, expected u32`` — and the fn never
/// runs. `Tool::execute` (a `Value`) and `Tool::execute_json` (the model's text, decoded
/// straight into the arguments when it fits) give the same result for the same arguments.
///
/// # Approval
///
/// `#[tool(approval = "Delete {path} from {env}?")]` makes the tool ask before it acts. Its
/// arguments decode first (bad arguments never reach a human). Without an answer in the
/// context the tool returns `toolnexus::pending(Request::new("approval", prompt))` with the
/// prompt formatted from the arguments and the request's `data` set to the arguments object
/// as received, with absent defaulted parameters filled in from their schema `default`s — so
/// a UI shows exactly what will run, and no parameter type needs `Serialize`. An `ok` answer
/// runs the fn; any other answer returns `declined/expired: <prompt>` without running it.
/// Placeholders name parameters: `{path}` (which must be `Display`), `{path:?}`, any
/// `std::fmt` spec; `{{`/`}}` are braces. [`Toolkit::call`] drives the round trip.
///
/// ```
/// use toolnexus::{Answer, Request, Toolkit, tool, tools};
///
/// /// Deletes a file.
/// #[tool(approval = "Delete {path}?", destructive)]
/// fn delete(path: &str) -> String {
///     format!("deleted {path}")
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let toolkit = Toolkit::new().with_all(tools![delete]);
/// let args = toolnexus::serde_json::json!({"path": "/tmp/a"});
/// let result = toolkit
///     .call("delete", args, |request: Request| async move {
///         assert_eq!(request.prompt, "Delete /tmp/a?");
///         Answer { id: request.id, ok: true, data: None, reason: None }
///     })
///     .await;
/// assert_eq!(result.output, "deleted /tmp/a");
/// # });
/// ```
///
/// # Compile errors
///
/// Each reported on your own token, the first one saying what to change: a missing
/// description, an invalid or over-64-character name, an unknown `#[tool]` or `#[param]` key,
/// type or const parameters, `impl Trait`, a `&mut` or trait-object parameter, a borrow
/// inside another type (`Vec<&str>`), a `self` receiver outside `#[toolbox]`, a pattern
/// parameter, two parameters with one name, two `ToolContext` parameters or a `&mut
/// ToolContext`, `default` on an `Option` or two defaults, a `# Arguments` bullet naming no
/// parameter, an approval placeholder naming no parameter (or not `Display`), `read_only`
/// with `destructive`, a parameter type without `Deserialize` or `JsonSchema` (the message
/// names the parameter and the derive to add; a missing `JsonSchema` is one error), a
/// `Json<T>` return whose `T` has no `JsonSchema`, and a return type without
/// `IntoToolResult`. A `#[tool]` with an error still defines its `{Pascal}Tool`, so uses of
/// it add no second error.
///
/// [`Tool::title`]: ../toolnexus/trait.Tool.html#method.title
/// [`Tool::annotations`]: ../toolnexus/trait.Tool.html#method.annotations
/// [`Tool::task_support`]: ../toolnexus/trait.Tool.html#method.task_support
/// [`Tool::output_schema`]: ../toolnexus/trait.Tool.html#method.output_schema
/// [`Tool::deferred`]: ../toolnexus/trait.Tool.html#method.deferred
/// [`Tool::retries`]: ../toolnexus/trait.Tool.html#method.retries
/// [`Toolkit::call`]: ../toolnexus/struct.Toolkit.html#method.call
#[proc_macro_attribute]
pub fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    tool::expand::tool(args.into(), input.into()).into()
}

/// Turns every `#[tool]` method (taking `&self`) of an inherent `impl` block into a tool bound
/// to one shared instance, and adds `pub fn tools(self: Arc<Self>) -> Vec<Arc<dyn Tool>>`
/// (in method order). Everything `#[tool]` accepts works on the methods; other methods are
/// left alone. `&mut self`, `self` by value, a missing receiver and two tools with one name
/// are compile errors. `#[toolbox(crate = "path")]` is `#[tool(crate = "path")]` for every
/// method (a method's own `crate` wins).
///
/// ```
/// use std::sync::Arc;
/// use std::sync::atomic::{AtomicU32, Ordering};
/// use toolnexus::{Tool, ToolContext, tool, toolbox};
///
/// struct Counter { hits: AtomicU32 }
///
/// #[toolbox]
/// impl Counter {
///     /// Counts one more hit and returns the total.
///     #[tool]
///     fn hit(&self, #[param(default = 1)] by: u32) -> u32 {
///         self.hits.fetch_add(by, Ordering::SeqCst) + by
///     }
/// }
///
/// let counter = Arc::new(Counter { hits: AtomicU32::new(0) });
/// let tools = Arc::clone(&counter).tools();
/// let ctx = ToolContext::default();
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let result = tools[0].execute(toolnexus::serde_json::json!({"by": 2}), &ctx).await;
/// assert_eq!(result.output, "2");
/// # });
/// assert_eq!(counter.hits.load(Ordering::SeqCst), 2);
/// ```
#[proc_macro_attribute]
pub fn toolbox(args: TokenStream, input: TokenStream) -> TokenStream {
    tool::expand::toolbox(args.into(), input.into()).into()
}

/// `tools![a, path::b]`: the tools `#[tool]` generated for these fns, as
/// `Vec<Arc<dyn Tool>>`. Two entries with the same tool name are a compile-time error that
/// names the tool; the same fn listed twice has its own error.
///
/// ```
/// use toolnexus::{tool, tools};
///
/// /// Adds two numbers.
/// #[tool]
/// fn add(a: f64, b: f64) -> f64 { a + b }
///
/// mod text {
///     /// Upper-cases a text.
///     #[toolnexus::tool]
///     pub fn shout(text: String) -> String { text.to_uppercase() }
/// }
///
/// let all = tools![add, text::shout];
/// assert_eq!(all.iter().map(|t| t.name()).collect::<Vec<_>>(), ["add", "shout"]);
/// ```
#[proc_macro]
pub fn tools(input: TokenStream) -> TokenStream {
    tool::expand::tools(input.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Implements `IntoToolResult` for an enum or struct, variant by variant, thiserror-style:
/// a tool returns its own type and each variant says how it lowers into a `ToolResult`.
///
/// ```
/// use serde::Serialize;
/// use toolnexus::{ContentPart, IntoToolResult, ToolOutput, ToolResult, parts::from_bytes};
///
/// #[derive(Serialize)]
/// struct Summary { deployed: u32 }
///
/// #[derive(ToolOutput)]
/// enum Deploy {
///     #[output("deployed {service} to {env}")]            Done { service: String, env: String },
///     #[output(error, "no such service: {0}")]             Unknown(String),
///     #[output(pending, kind = "approval", prompt = "Approve deploying {0} to production?")]
///                                                          NeedsApproval(String),
///     #[output("chart for {city}")]                        Chart { city: String, #[part] png: ContentPart,
///                                                                  #[metadata] rows: u32 },
///     #[output(json)]                                      Report(Summary),
///     Raw(ToolResult),
/// }
///
/// let done = Deploy::Done { service: "api".into(), env: "prod".into() }.into_tool_result();
/// assert_eq!(done, ToolResult::ok("deployed api to prod"));
///
/// let unknown = Deploy::Unknown("billing".into()).into_tool_result();
/// assert_eq!(unknown, ToolResult::error("no such service: billing"));
///
/// let approval = Deploy::NeedsApproval("api".into()).into_tool_result();
/// assert_eq!(approval.pending().unwrap().prompt, "Approve deploying api to production?");
/// assert!(approval.is_error); // a suspension produced no answer
///
/// let png = from_bytes(b"\x89PNG", "image/png");
/// let chart = Deploy::Chart { city: "Paris".into(), png: png.clone(), rows: 12 }.into_tool_result();
/// assert_eq!(chart, ToolResult::ok("chart for Paris").with_part(png).with_metadata("rows", 12));
///
/// let report = Deploy::Report(Summary { deployed: 3 }).into_tool_result();
/// assert_eq!(report, ToolResult::ok(r#"{"deployed":3}"#));
///
/// assert_eq!(Deploy::Raw(ToolResult::ok("as is")).into_tool_result(), ToolResult::ok("as is"));
/// ```
///
/// # `#[output(...)]` on each variant (or on the struct)
///
/// | form | lowers to |
/// |---|---|
/// | `#[output("fmt")]` | `ToolResult::ok(format!(..))` |
/// | `#[output(error, "fmt")]` | `ToolResult::error(format!(..))` |
/// | `#[output(retry, "fmt")]` | `Err(Retry::new(format!(..)))`'s result: an error the model should fix, counted by a retry budget |
/// | `#[output(retry)]` | on a variant holding just a `toolnexus::Retry`: its result; the type gets `From<Retry>` (so `?` works); a type with `retry` variants is also an error type (`IntoToolError`), and must not implement `Display` |
/// | `#[output(pending, kind = "fmt", prompt = "fmt", url = "fmt")]` | `toolnexus::pending(Request::new(kind, prompt).with_url(url))`; `url` is optional |
/// | `#[output(json)]` | compact JSON of the single field; of several named fields, an object keyed by field name in declaration order; of several tuple fields, an array |
/// | `#[output(transparent)]` | the single field's own `IntoToolResult` |
/// | none | only on a single-field tuple variant (or tuple struct): as `transparent` |
///
/// Format strings are `std::fmt` syntax over the variant's fields: `{name}`, `{0}`, specs
/// such as `{0:?}`, `{x:>5}` or `{x:>width$}`, and `{{`/`}}` for braces. A placeholder
/// naming no field is a compile error on the string. `json` and `transparent` use the fields
/// that carry neither `#[part]` nor `#[metadata]`.
///
/// # Field attributes
///
/// - `#[part]` on a `ContentPart`, `Vec<ContentPart>`, `Option<ContentPart>` or
///   `Option<Vec<ContentPart>>` field appends it to `parts`; several `#[part]` fields append
///   in declaration order.
/// - `#[metadata]` on a named field of any `Serialize` type stores it in `metadata` under the
///   field's name. If it fails to serialize (a map with non-string keys, say), the whole
///   result becomes an error naming the field rather than a panic or a silently missing key.
///
/// Both combine with every mode. Generic types work: the impl requires of each generic field
/// only what its use needs (`Display` for `{x}`, `Serialize` for `json`, …).
///
/// # Container attribute
///
/// `#[toolnexus(crate = "path")]` on the type: where toolnexus is, when your `Cargo.toml`
/// renames it (`tnx = { package = "toolnexus", … }` ⇒ `#[toolnexus(crate = "tnx")]`), as
/// `#[tool(crate = "…")]` does.
#[proc_macro_derive(ToolOutput, attributes(output, part, metadata, toolnexus))]
pub fn derive_tool_output(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as syn::DeriveInput);
    output::expand::derive(&input).into()
}

/// schemars' `JsonSchema` derive, usable with toolnexus as the only dependency: no
/// `schemars` in your `Cargo.toml`, no schemars path in scope. It yields the same schema as
/// schemars' own derive and honours `#[serde]`, `#[schemars]` and doc attributes.
///
/// ```
/// use serde::Deserialize;
/// use toolnexus::JsonSchema;
///
/// /// A price window.
/// #[derive(Deserialize, JsonSchema)]
/// struct Filter {
///     /// Lowest price
///     min: f64,
///     #[serde(default)]
///     max: Option<f64>,
/// }
///
/// let schema = toolnexus::schemars::schema_for!(Filter);
/// assert_eq!(schema.get("description").unwrap(), "A price window.");
/// ```
///
/// `#[toolnexus(crate = "path")]` on the type says where toolnexus is when your `Cargo.toml`
/// renames it, as `#[tool(crate = "…")]` does.
#[proc_macro_derive(JsonSchema, attributes(schemars, serde, toolnexus))]
pub fn derive_json_schema(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as syn::DeriveInput);
    json_schema::derive(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
