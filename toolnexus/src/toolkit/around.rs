//! What a toolkit adds around its tools (SPEC §12): state every call shares, layers that run
//! around every execution ([`Toolkit::around`], [`Next`]), and a rule for which tools a caller
//! may see ([`Toolkit::visible_if`]).
//!
//! A toolkit with none of them keeps them as `None` and pays one check per call for them.

use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::sync::{Arc, OnceLock};

use serde_json::Value;

use super::Toolkit;
use crate::provider::tool_call::ToolCall;
use crate::result::ToolResult;
use crate::tool::Tool;
use crate::tool::context::ToolContext;
use crate::tool::context::{StateMap, ToolkitState};
use crate::tool::future::BoxFuture;

type Layer =
    Arc<dyn Fn(ToolCall, ToolContext, Next) -> BoxFuture<'static, ToolResult> + Send + Sync>;
type VisibleIf = dyn Fn(&dyn Tool, &ToolContext) -> bool + Send + Sync;
/// Every tool by name, for the end of a layer chain (a layer may change the call's name).
type Routes = BTreeMap<String, Arc<dyn Tool>>;

/// The §12 additions of one toolkit; shared between its clones until one of them changes.
#[derive(Clone, Default)]
pub(super) struct Around {
    state: Option<Arc<StateMap>>,
    layers: Vec<Layer>,
    /// `layers` as the chain of a call holds them, made on the first layered call.
    chain: OnceLock<Arc<[Layer]>>,
    visible: Option<Arc<VisibleIf>>,
    /// Made on the first layered call; emptied whenever a tool is added.
    routes: OnceLock<Arc<Routes>>,
}

impl Around {
    /// A tool was added: the routes are made again on the next layered call.
    pub(super) fn tools_changed(&mut self) {
        self.routes = OnceLock::new();
    }

    /// Whether a layer or state changes how a call runs (visibility alone does not).
    pub(super) fn wraps_calls(&self) -> bool {
        self.state.is_some() || !self.layers.is_empty()
    }

    /// The context the tool and the layers see: the caller's, with the toolkit's state.
    fn context(&self, ctx: &ToolContext) -> ToolContext {
        let mut owned = ctx.clone();
        if let Some(state) = &self.state {
            owned.extensions.insert(ToolkitState(Arc::clone(state)));
        }
        owned
    }

    /// One execution of `tool`: through the layers, or straight to the tool with the state.
    /// Nothing runs until the future is polled.
    pub(super) fn run<'a>(
        &'a self,
        toolkit: &'a Toolkit,
        tool: &'a Arc<dyn Tool>,
        id: &'a str,
        args: Arguments<'a>,
        ctx: &ToolContext,
    ) -> BoxFuture<'a, ToolResult> {
        let ctx = self.context(ctx);
        if self.layers.is_empty() {
            return Box::pin(async move {
                match args {
                    Arguments::Value(args) => tool.execute_value(args, &ctx).await,
                    Arguments::Text(text) => tool.execute_json(text, &ctx).await,
                }
            });
        }
        let call = ToolCall {
            id: id.to_owned(),
            name: tool.name().to_owned(),
            arguments: match args {
                Arguments::Value(args) => args.to_string(),
                Arguments::Text(text) => text.to_owned(),
            },
        };
        let next = Next {
            layers: Arc::clone(self.chain.get_or_init(|| self.layers.clone().into())),
            at: 0,
            routes: Arc::clone(self.routes.get_or_init(|| {
                Arc::new(
                    toolkit
                        .tools()
                        .iter()
                        .map(|tool| (tool.name().to_owned(), Arc::clone(tool)))
                        .collect(),
                )
            })),
        };
        Box::pin(next.run(call, ctx))
    }
}

/// A call's arguments as its entry point received them.
pub(super) enum Arguments<'a> {
    Value(Value),
    Text(&'a str),
}

/// The rest of the chain after a layer ([`Toolkit::around`]): the layers inside it, then the
/// tool.
pub struct Next {
    layers: Arc<[Layer]>,
    at: usize,
    routes: Arc<Routes>,
}

impl fmt::Debug for Next {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Next")
            .field("layers_left", &(self.layers.len() - self.at))
            .finish_non_exhaustive()
    }
}

impl Next {
    /// Runs the layers inside this one, then the tool `call.name` names with `call.arguments`
    /// (as [`Tool::execute_json`] reads them) and `ctx`.
    ///
    /// The tool is the toolkit's tool of that name, so a layer that renames the call routes it
    /// (to a tool the caller may not see, too: that is the layer's decision); a name the
    /// toolkit does not hold answers `Unknown tool: NAME`.
    pub async fn run(self, call: ToolCall, ctx: ToolContext) -> ToolResult {
        match self.layers.get(self.at) {
            Some(layer) => {
                let layer = Arc::clone(layer);
                let inner = Next {
                    at: self.at + 1,
                    ..self
                };
                layer(call, ctx, inner).await
            }
            None => match self.routes.get(&call.name) {
                Some(tool) => tool.execute_json(&call.arguments, &ctx).await,
                None => ToolResult::error(format!("Unknown tool: {}", call.name)),
            },
        }
    }
}

impl Toolkit {
    /// Shares `value` with every call of this toolkit: a `#[tool]` takes it as a
    /// [`State<T>`](crate::State) parameter, any tool reads it with
    /// [`ToolContext::state`]. One value per type; the same type again replaces it.
    ///
    /// See [`State`](crate::State) for an example.
    #[must_use]
    pub fn with_state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        let around = self.around_mut();
        let mut state = around
            .state
            .take()
            .map(Arc::unwrap_or_clone)
            .unwrap_or_default();
        state.insert(value);
        around.state = Some(Arc::new(state));
        self
    }

    /// Runs `layer` around every execution through this toolkit (SPEC §12): audit, policy,
    /// rate limits, caching, metrics. Layers added first run outermost.
    ///
    /// A layer receives the call — its [`ToolCall::id`] is the provider's call id in
    /// [`run_calls`](Self::run_calls), the JSON-RPC request id over MCP, else empty; its
    /// `arguments` the raw text — and an owned context. It may change either before
    /// [`next.run`](Next::run), answer without calling it (denied, cached, limited), or change
    /// the result. Every entry point goes through the layers: `execute`, `execute_json`, each
    /// execution of `call`/`call_with`, `run_calls`, and MCP `tools/call`. The call's deadline
    /// and cancellation enclose the whole chain, and a layer that panics gives the result a
    /// panicking tool gives. A call to a tool the caller may not see
    /// ([`visible_if`](Self::visible_if)), or to no tool at all, answers `Unknown tool: NAME`
    /// before any layer runs.
    ///
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// use toolnexus::{Next, ToolCall, ToolContext, ToolResult, Toolkit, tool, tools};
    ///
    /// /// Adds two numbers.
    /// #[tool]
    /// fn add(a: i64, b: i64) -> i64 { a + b }
    ///
    /// let audit = Arc::new(Mutex::new(Vec::new()));
    /// let log = Arc::clone(&audit);
    /// let toolkit = Toolkit::new()
    ///     .with_all(tools![add])
    ///     .around(move |call: ToolCall, ctx: ToolContext, next: Next| {
    ///         let log = Arc::clone(&log);
    ///         async move {
    ///             let result = next.run(call.clone(), ctx).await;
    ///             log.lock().unwrap().push(format!("{}({}) = {}", call.name, call.arguments, result.output));
    ///             result
    ///         }
    ///     })
    ///     .around(|call: ToolCall, ctx: ToolContext, next: Next| async move {
    ///         if call.arguments.contains("666") {
    ///             return ToolResult::error("denied by policy");
    ///         }
    ///         next.run(call, ctx).await
    ///     });
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let ctx = ToolContext::default();
    /// assert_eq!(toolkit.execute_json("add", r#"{"a":1,"b":2}"#, &ctx).await.output, "3");
    /// assert_eq!(toolkit.execute_json("add", r#"{"a":666,"b":0}"#, &ctx).await.output, "denied by policy");
    /// # });
    /// assert_eq!(audit.lock().unwrap()[1], r#"add({"a":666,"b":0}) = denied by policy"#);
    /// ```
    #[must_use]
    pub fn around<F, Fut>(mut self, layer: F) -> Self
    where
        F: Fn(ToolCall, ToolContext, Next) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ToolResult> + Send + 'static,
    {
        let around = self.around_mut();
        around.layers.push(Arc::new(move |call, ctx, next| {
            Box::pin(layer(call, ctx, next))
        }));
        around.chain = OnceLock::new();
        self
    }

    /// Shows a caller only the tools `visible` allows (SPEC §12): the others are absent from
    /// [`visible_tools`](Self::visible_tools) and from MCP `tools/list` for that request, and
    /// a call to one answers `Unknown tool: NAME` on every entry point, before any layer runs.
    /// [`tools`](Self::tools) and the `to_*()` definitions still list every tool: filter with
    /// `visible_tools` for a caller.
    ///
    /// ```
    /// use toolnexus::{Tool, ToolContext, Toolkit, tool, tools};
    ///
    /// #[derive(Clone)]
    /// struct Admin;
    ///
    /// /// Reads the time.
    /// #[tool]
    /// fn now() -> String { "noon".into() }
    ///
    /// /// Restarts the service.
    /// #[tool]
    /// fn admin_restart() -> String { "restarted".into() }
    ///
    /// let toolkit = Toolkit::new()
    ///     .with_all(tools![now, admin_restart])
    ///     .visible_if(|tool: &dyn Tool, ctx: &ToolContext| {
    ///         !tool.name().starts_with("admin_") || ctx.extension::<Admin>().is_some()
    ///     });
    /// let guest = ToolContext::default();
    /// let admin = ToolContext::default().with_extension(Admin);
    /// assert_eq!(toolkit.visible_tools(&guest).len(), 1);
    /// assert_eq!(toolkit.visible_tools(&admin).len(), 2);
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// assert_eq!(toolkit.execute_json("admin_restart", "", &guest).await.output, "Unknown tool: admin_restart");
    /// assert_eq!(toolkit.execute_json("admin_restart", "", &admin).await.output, "restarted");
    /// # });
    /// ```
    #[must_use]
    pub fn visible_if<F>(mut self, visible: F) -> Self
    where
        F: Fn(&dyn Tool, &ToolContext) -> bool + Send + Sync + 'static,
    {
        self.around_mut().visible = Some(Arc::new(visible));
        self
    }

    /// The tools a caller with `ctx` may see and call, in registration order: every tool
    /// unless [`visible_if`](Self::visible_if) says otherwise.
    pub fn visible_tools(&self, ctx: &ToolContext) -> Vec<Arc<dyn Tool>> {
        self.tools()
            .iter()
            .filter(|tool| self.is_visible(tool.as_ref(), ctx))
            .cloned()
            .collect()
    }

    /// Every `(tool, type)` pair of a tool that needs a state
    /// ([`Tool::required_state`]) this toolkit does not hold, in registration order. Assert
    /// it is empty in a test; the MCP servers refuse to start a toolkit for which it is not.
    ///
    /// ```
    /// use toolnexus::{State, Toolkit, tool, tools};
    ///
    /// struct Db;
    ///
    /// /// Counts the orders.
    /// #[tool]
    /// fn count_orders(db: State<Db>) -> u32 { let _ = db; 0 }
    ///
    /// let toolkit = Toolkit::new().with_all(tools![count_orders]);
    /// assert_eq!(toolkit.missing_state(), [("count_orders".to_owned(), "Db")]);
    /// assert!(toolkit.with_state(Db).missing_state().is_empty());
    /// ```
    pub fn missing_state(&self) -> Vec<(String, &'static str)> {
        let state = self
            .around
            .as_ref()
            .and_then(|around| around.state.as_deref());
        let mut missing = Vec::new();
        for tool in self.tools() {
            for need in tool.required_state() {
                let held = state.is_some_and(|state| state.contains(need.id()));
                let pair = (tool.name().to_owned(), need.name());
                if !held && !missing.contains(&pair) {
                    missing.push(pair);
                }
            }
        }
        missing
    }

    /// Whether `tool` may be seen and called by a caller with `ctx`.
    pub(crate) fn is_visible(&self, tool: &dyn Tool, ctx: &ToolContext) -> bool {
        match self
            .around
            .as_ref()
            .and_then(|around| around.visible.as_ref())
        {
            Some(visible) => visible(tool, ctx),
            None => true,
        }
    }

    /// Whether what a caller sees depends on the caller.
    #[cfg(feature = "mcp")]
    pub(crate) fn has_visibility_rule(&self) -> bool {
        self.around
            .as_ref()
            .is_some_and(|around| around.visible.is_some())
    }

    fn around_mut(&mut self) -> &mut Around {
        Arc::make_mut(self.around.get_or_insert_default())
    }
}
