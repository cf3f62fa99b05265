//! [`Toolkit`]: a set of tools looked up by name and executed safely (SPEC §8), and the
//! suspension loop rule (SPEC §10). Each provider's definitions are built in `provider/`.

mod around;
pub(crate) mod catalog;
pub(crate) mod deadline;
mod definitions;
mod guarded;
mod run_calls;
pub(crate) mod run_state;
mod search;
#[cfg(feature = "tasks")]
pub(crate) mod spawn;
mod suspension;
#[cfg(feature = "tracing")]
pub(crate) mod trace;

use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::num::NonZeroUsize;
use std::sync::Arc;

use serde_json::Value;

use crate::provider::profile::Profiles;
use crate::result::ToolResult;
use crate::tool::Tool;
use crate::tool::context::ToolContext;
use around::{Arguments, Around};
use guarded::Guarded;

pub use around::Next;

/// A set of tools, looked up by name.
///
/// Names are unique. Assembling a toolkit with [`with`](Self::with) and
/// [`with_all`](Self::with_all) panics on a name it already holds — two tools with one name
/// is a bug in the program, like two axum routes for one path, and the second tool would never
/// be called. [`register`](Self::register), for tools that arrive at run time, returns
/// `false` instead and keeps the first. Executing through a toolkit never panics: an unknown
/// name, bad arguments and a tool that panics all come back as results with `is_error`.
///
/// ```
/// use serde_json::{json, Value};
/// use toolnexus::{define_tool, ToolContext, Toolkit};
///
/// let add = define_tool("add", "Add two numbers", json!({
///     "type": "object",
///     "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
///     "required": ["a", "b"],
/// }))
/// .unwrap()
/// .sync(|args: Value, _: &ToolContext| args["a"].as_f64().unwrap_or(0.0) + args["b"].as_f64().unwrap_or(0.0));
///
/// let tk = Toolkit::new().with(add);
/// let ctx = ToolContext::default();
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// assert_eq!(tk.execute_json("add", r#"{"a":1,"b":2}"#, &ctx).await.output, "3");
/// assert_eq!(tk.execute("nope", json!({}), &ctx).await.output, "Unknown tool: nope");
/// # });
/// assert_eq!(tk.to_openai()[0]["function"]["name"], "add");
/// ```
#[derive(Clone, Default)]
pub struct Toolkit {
    tools: Vec<Arc<dyn Tool>>,
    /// Name → position in `tools`, so lookup stays logarithmic however many tools there are.
    index: BTreeMap<String, usize>,
    /// Each tool's profiles, built on first use, beside `tools`.
    profiles: Profiles,
    /// How many calls [`run_calls`](Self::run_calls) runs at once; `None` is all of them.
    max_concurrency: Option<NonZeroUsize>,
    /// State, layers and visibility (SPEC §12); `None` until one is set.
    around: Option<Arc<Around>>,
    /// Deferred loading, search and retry budgets (SPEC §15, §15B).
    catalog: catalog::Catalog,
}

impl fmt::Debug for Toolkit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.tools.iter().map(|tool| tool.name()))
            .finish()
    }
}

impl Toolkit {
    /// The largest raw argument text [`execute_json`](Self::execute_json) (and a `#[tool]`'s
    /// own [`Tool::execute_json`]) accepts: 16 MiB, far above any real tool call, far below what
    /// hurts a server. Longer text is refused before it is parsed.
    pub const MAX_ARGUMENT_BYTES: usize = crate::decode::MAX_ARGUMENT_BYTES;

    /// An empty toolkit.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one tool and returns the toolkit.
    ///
    /// # Panics
    ///
    /// When the toolkit already has a tool with this name; the message names the tool and
    /// both sources. Use [`register`](Self::register) for tools whose names are not known
    /// until run time.
    #[must_use]
    pub fn with(mut self, tool: impl Tool + 'static) -> Self {
        self.insert_unique(Arc::new(tool));
        self
    }

    /// Adds several tools in order, e.g. from `tools![…]` or a `#[toolbox]`'s `tools()`.
    ///
    /// # Panics
    ///
    /// When a name is already taken, by an earlier tool or one of these:
    ///
    /// ```should_panic
    /// use toolnexus::{Toolkit, tool, tools};
    ///
    /// /// Adds a todo.
    /// #[tool]
    /// fn add_todo(text: String) -> String { text }
    ///
    /// mod v2 {
    ///     /// Adds a todo item.
    ///     #[toolnexus::tool]
    ///     pub fn add_todo(text: String) -> String { text }
    /// }
    ///
    /// // toolkit already has a tool named `add_todo` (native: "Adds a todo"); the second
    /// // one (native: "Adds a todo item") would never be called — give one of them another name
    /// let _ = Toolkit::new().with_all(tools![add_todo]).with_all(tools![v2::add_todo]);
    /// ```
    #[must_use]
    pub fn with_all(mut self, tools: impl IntoIterator<Item = Arc<dyn Tool>>) -> Self {
        for tool in tools {
            self.insert_unique(tool);
        }
        self
    }

    fn insert_unique(&mut self, tool: Arc<dyn Tool>) {
        if let Some(first) = self.get(tool.name()) {
            panic!(
                "toolkit already has a tool named `{}` ({}); the second one ({}) would never be called — give one of them another name",
                tool.name(),
                provenance(first.as_ref()),
                provenance(tool.as_ref()),
            );
        }
        self.register(tool);
    }

    /// Adds one tool in place. Returns `false`, leaving the toolkit unchanged, when a tool
    /// with the same name is already registered (the first registration wins).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use serde_json::{json, Value};
    /// use toolnexus::{define_tool, ToolContext, Toolkit};
    ///
    /// let make = |text: &'static str| {
    ///     let schema = json!({"type": "object", "properties": {}});
    ///     Arc::new(define_tool("echo", "Echo", schema).unwrap().sync(move |_: Value, _: &ToolContext| text))
    /// };
    /// let mut tk = Toolkit::new();
    /// assert!(tk.register(make("first")));
    /// assert!(!tk.register(make("second")));
    /// assert_eq!(tk.len(), 1);
    /// ```
    pub fn register(&mut self, tool: Arc<dyn Tool>) -> bool {
        if self.index.contains_key(tool.name()) {
            return false;
        }
        self.index.insert(tool.name().to_owned(), self.tools.len());
        self.tools.push(tool);
        self.profiles.push();
        self.catalog.tools_changed();
        if let Some(around) = &mut self.around {
            Arc::make_mut(around).tools_changed();
        }
        true
    }

    /// Every tool, in registration order.
    pub fn tools(&self) -> &[Arc<dyn Tool>] {
        &self.tools
    }

    /// The tool registered under `name`.
    pub fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.index.get(name).map(|&at| &self.tools[at])
    }

    /// The number of tools.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether the toolkit has no tools.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// Runs the tool called `name`.
    ///
    /// An unknown name gives `is_error` with output `Unknown tool: NAME`. A panic inside the
    /// tool — while its future is created or at any point while it runs — gives `is_error`
    /// with output ``tool `NAME` panicked: <message>``; the toolkit stays usable. (The process's
    /// panic hook still runs, so the panic is also reported on stderr as usual.)
    ///
    /// # Deadlines and cancellation
    ///
    /// With `ctx.timeout` set, the call resolves at the deadline (counted from this call) with
    /// `is_error` and output ``tool `NAME` timed out after <duration>``; the duration is in
    /// whole milliseconds as every toolnexus port prints it (`50ms`, `1500ms`), with a
    /// decimal fraction only for a timeout that is not a whole number of milliseconds
    /// (`0.25ms`). When `ctx.cancel` fires, the call resolves at once with ``tool `NAME` was
    /// cancelled``. Either way the tool's future is dropped — that is how an async tool is
    /// stopped. A call already cancelled, or with a zero timeout, never runs the tool.
    ///
    /// Code that blocks inside one poll (a synchronous tool, or blocking work in an async
    /// one) cannot be interrupted: a poll that began in time returns its result. No async
    /// runtime is involved: the cancel signal wakes the call directly, and deadlines come
    /// from one timer thread (`toolnexus-timer`) that starts the first time a call with a
    /// timeout has to wait. Calls without a timeout or cancellation pay two flag checks.
    ///
    /// ```
    /// use std::time::Duration;
    /// use serde_json::{json, Value};
    /// use toolnexus::{define_tool, ToolContext, Toolkit};
    ///
    /// let stuck = define_tool("stuck", "Never answers", json!({"type": "object"}))
    ///     .unwrap()
    ///     .run(|_: Value, _: ToolContext| std::future::pending::<String>());
    /// let tk = Toolkit::new().with(stuck);
    /// let ctx = ToolContext { timeout: Some(Duration::from_millis(20)), ..Default::default() };
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// assert_eq!(tk.execute("stuck", json!({}), &ctx).await.output, "tool `stuck` timed out after 20ms");
    /// # });
    /// ```
    pub fn execute<'a>(
        &'a self,
        name: &str,
        args: Value,
        ctx: &'a ToolContext,
    ) -> impl Future<Output = ToolResult> + Send + 'a {
        self.execute_as("", name, args, ctx)
    }

    /// [`execute`](Self::execute) of a call whose layers see `id` as [`ToolCall::id`].
    ///
    /// [`ToolCall::id`]: crate::ToolCall::id
    pub(crate) fn execute_as<'a>(
        &'a self,
        id: &'a str,
        name: &str,
        args: Value,
        ctx: &'a ToolContext,
    ) -> impl Future<Output = ToolResult> + Send + 'a {
        let call = match (self.find(name, ctx), self.wrapping()) {
            (Some(tool), Some(around)) => {
                let chain = around.run(self, tool, id, Arguments::Value(args), ctx);
                Guarded::running(tool.as_ref(), ctx, chain)
            }
            (Some(tool), None) => Guarded::new(tool.as_ref(), ctx, move |tool, ctx| {
                tool.execute_value(args, ctx)
            }),
            (None, _) => Guarded::unknown(name, ctx),
        };
        #[cfg(feature = "tracing")] // SPEC §12C: the `execute_tool` span
        let call = crate::toolkit::trace::execute_tool(name, id, call);
        call
    }

    /// The tool a caller with `ctx` may call by `name`. Inlined: both entry points start here.
    #[inline]
    fn find(&self, name: &str, ctx: &ToolContext) -> Option<&Arc<dyn Tool>> {
        self.get(name)
            .filter(|tool| self.around.is_none() || self.is_visible(tool.as_ref(), ctx))
    }

    /// What runs around each execution (SPEC §12), when anything does. A call through it
    /// starts as the chain's future, polled under the same guard and limits as a tool's; a
    /// plain call takes the path it took before there were layers.
    fn wrapping(&self) -> Option<&Around> {
        self.around.as_deref().filter(|around| around.wraps_calls())
    }

    /// Runs the tool called `name` with the raw argument string a model produced.
    ///
    /// An empty or all-whitespace string means `{}` (models send that for tools without
    /// parameters); text that is not JSON, or longer than [`MAX_ARGUMENT_BYTES`] (refused
    /// before parsing), gives `is_error` with output ``invalid arguments for `NAME`: …``.
    /// A `#[tool]` decodes the text straight into its arguments ([`Tool::execute_json`]).
    /// Panics, deadlines and cancellation are handled as in [`execute`](Self::execute).
    ///
    /// [`MAX_ARGUMENT_BYTES`]: Self::MAX_ARGUMENT_BYTES
    // Inlined, so the call's future is built in the caller's slot rather than moved out.
    #[inline]
    pub fn execute_json<'a>(
        &'a self,
        name: &str,
        args: &'a str,
        ctx: &'a ToolContext,
    ) -> impl Future<Output = ToolResult> + Send + 'a {
        self.guarded_json("", name, args, ctx)
    }

    /// [`execute_json`](Self::execute_json) of a call whose layers see `id`.
    #[cfg(feature = "mcp")]
    pub(crate) fn execute_json_as<'a>(
        &'a self,
        id: &'a str,
        name: &str,
        args: &'a str,
        ctx: &'a ToolContext,
    ) -> impl Future<Output = ToolResult> + Send + 'a {
        self.guarded_json(id, name, args, ctx)
    }

    /// [`execute_json`](Self::execute_json)'s future, as a type known to be `Unpin`.
    fn guarded_json<'a>(
        &'a self,
        id: &'a str,
        name: &str,
        args: &'a str,
        ctx: &'a ToolContext,
    ) -> impl Future<Output = ToolResult> + Send + Unpin + 'a {
        let call = match (self.find(name, ctx), self.wrapping()) {
            (Some(tool), Some(around)) => {
                let chain = around.run(self, tool, id, Arguments::Text(args), ctx);
                Guarded::running(tool.as_ref(), ctx, chain)
            }
            (Some(tool), None) => Guarded::new(tool.as_ref(), ctx, move |tool, ctx| {
                tool.execute_json(args, ctx)
            }),
            (None, _) => Guarded::unknown(name, ctx),
        };
        #[cfg(feature = "tracing")] // SPEC §12C: the `execute_tool` span
        let call = crate::toolkit::trace::execute_tool(name, id, call);
        call
    }
}

/// `native: "Adds a todo"`: where a tool comes from and what it says it does.
fn provenance(tool: &dyn Tool) -> String {
    format!("{}: {:?}", tool.source().as_str(), tool.description())
}
