//! What reaches a tool besides its arguments (SPEC §12): the toolkit's [`State`], this call's
//! [`Extension`]s, and any type that builds itself from the context ([`FromToolContext`]).
//!
//! A call's extensions are an [`http::Extensions`] — the map axum and every tower layer put
//! request values in — so whatever a layer in front of an MCP endpoint inserted into the HTTP
//! request reaches the tool as it is, without a copy per type.
#![expect(
    clippy::result_large_err,
    reason = "the `inject_*` fns run once per injected parameter, their `Err` is the call's result"
)]

use std::any::{Any, TypeId};
use std::collections::BTreeMap;
use std::fmt;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;
use std::time::Duration;

use crate::result::ToolResult;
use crate::result::suspend::Answer;
use crate::tool::cancel::CancelSignal;
use crate::tool::progress::Progress;

/// A type map of the values one call carries: [`ToolContext::extensions`].
///
/// It is [`http::Extensions`], re-exported: the values a tower or axum layer put into an HTTP
/// request's extensions become the call's extensions as they are.
pub use http::Extensions;

/// What the caller passes to a tool beside its arguments.
///
/// A `#[tool]` fn receives it by declaring a parameter of type `&ToolContext` or `ToolContext`
/// anywhere in its list; it never appears in the schema. Its extensions and the toolkit's
/// state also reach a `#[tool]` as parameters of their own ([`State`](crate::State),
/// [`Extension`](crate::Extension), [`FromToolContext`](crate::context::FromToolContext)).
///
/// Every field is public, so `ToolContext { timeout: …, ..Default::default() }` works.
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
    /// Where [`report_progress`](Self::report_progress) sends its values: nowhere unless set
    /// with [`on_progress`](Self::on_progress) (the MCP server sets it for a request that
    /// carries a `progressToken`).
    pub progress: Progress,
    /// Values this call carries, by type (SPEC §12): what a `#[tool]` receives as
    /// [`Extension<T>`](crate::Extension), or reads with [`extension`](Self::extension).
    /// Cloning the context clones them. Over MCP each call carries the client's
    /// `toolnexus::mcp::ClientInfo` and, over HTTP, the request's
    /// `http::request::Parts` (without its `Authorization` header) and every value of the
    /// HTTP request's own extensions.
    pub extensions: Extensions,
}

impl ToolContext {
    /// Reports how far the tool has got (SPEC §8C): `progress` so far, of `total` when known,
    /// with an optional message for a human.
    ///
    /// Over MCP it becomes a `notifications/progress` for the request's `progressToken` (no
    /// token ⇒ nothing is sent); elsewhere the callback set with
    /// [`on_progress`](Self::on_progress) receives it. A value that is not greater than the
    /// last one passed on (or NaN) is dropped, so listeners only ever see progress increase.
    /// With nobody listening it costs a branch; with a listener, a lock and the listener's own
    /// work — cheap enough to call on every step of a loop.
    ///
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// use toolnexus::ToolContext;
    ///
    /// let seen = Arc::new(Mutex::new(Vec::new()));
    /// let record = Arc::clone(&seen);
    /// let ctx = ToolContext::default().on_progress(move |done, total, _message| {
    ///     record.lock().unwrap().push((done, total));
    /// });
    /// for step in [0.0, 50.0, 50.0, 100.0] {
    ///     ctx.report_progress(step, Some(100.0), None);
    /// }
    /// // The repeated 50 did not increase, so it was dropped.
    /// assert_eq!(*seen.lock().unwrap(), [(0.0, Some(100.0)), (50.0, Some(100.0)), (100.0, Some(100.0))]);
    /// ```
    pub fn report_progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        self.progress.report(progress, total, message);
    }

    /// Sends this context's progress reports to `callback` (`progress, total, message`), e.g.
    /// to draw a progress bar in an agent loop. It runs inside the tool's call — under a
    /// [`Toolkit`](crate::Toolkit)'s deadline and panic guard — so it should be quick, and
    /// must not report progress itself.
    #[must_use]
    pub fn on_progress(
        mut self,
        callback: impl Fn(f64, Option<f64>, Option<&str>) + Send + Sync + 'static,
    ) -> Self {
        self.progress = Progress::new(callback);
        self
    }
}

/// The toolkit's shared value of type `T`, as a `#[tool]` parameter: `db: State<Db>`.
///
/// Set with [`Toolkit::with_state`](crate::Toolkit::with_state); every call of the toolkit
/// shares the one value (an `Arc` clone per call). Never part of the schema. A tool that
/// needs a state the toolkit does not hold answers ``tool `NAME` needs `State<Db>`, which the
/// toolkit does not hold`` without running; [`Toolkit::missing_state`](crate::Toolkit::missing_state)
/// finds such tools before any call.
///
/// ```
/// use toolnexus::{State, ToolContext, Toolkit, tool, tools};
///
/// struct Greeting { text: String }
///
/// /// Greets someone.
/// #[tool]
/// fn greet(name: String, greeting: State<Greeting>) -> String {
///     format!("{}, {name}!", greeting.text)
/// }
///
/// let toolkit = Toolkit::new().with_state(Greeting { text: "Hello".into() }).with_all(tools![greet]);
/// assert!(toolkit.missing_state().is_empty());
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let ctx = ToolContext::default();
/// assert_eq!(toolkit.execute_json("greet", r#"{"name":"Ada"}"#, &ctx).await.output, "Hello, Ada!");
/// # });
/// ```
pub struct State<T: ?Sized>(pub Arc<T>);

impl<T: ?Sized> Clone for State<T> {
    fn clone(&self) -> Self {
        Self(Arc::clone(&self.0))
    }
}

impl<T: ?Sized> Deref for State<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for State<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("State").field(&&*self.0).finish()
    }
}

/// A value this call carries, as a `#[tool]` parameter: `user: Extension<User>` (a clone of
/// what [`ToolContext::extension`] finds), or `Option<Extension<User>>` for one that may be
/// absent. Never part of the schema.
///
/// A caller puts it there ([`ToolContext::with_extension`]), a layer does
/// ([`Toolkit::around`](crate::Toolkit::around)), or, over MCP, an HTTP layer in front of the
/// endpoint (every value of the HTTP request's extensions arrives). A missing one answers
/// ``tool `NAME` needs `Extension<User>`, which this call does not carry`` without running.
///
/// ```
/// use toolnexus::{Extension, ToolContext, Toolkit, tool, tools};
///
/// #[derive(Clone)]
/// struct User { name: String }
///
/// /// Says who is calling.
/// #[tool]
/// fn whoami(user: Extension<User>) -> String {
///     user.name.clone()
/// }
///
/// let toolkit = Toolkit::new().with_all(tools![whoami]);
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let ctx = ToolContext::default().with_extension(User { name: "ada".into() });
/// assert_eq!(toolkit.execute_json("whoami", "", &ctx).await.output, "ada");
/// let anonymous = toolkit.execute_json("whoami", "", &ToolContext::default()).await;
/// assert_eq!(anonymous.output, "tool `whoami` needs `Extension<User>`, which this call does not carry");
/// # });
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Extension<T>(pub T);

impl<T> Deref for Extension<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> DerefMut for Extension<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

/// A type a `#[tool]` builds from the call's context, for a parameter marked
/// `#[param(inject)]`: a trace id from a header, a tenant from the signed-in user, a
/// connection checked out of a pool held as state. Never part of the schema.
///
/// `Err` says why it could not be built, for the model: the call answers
/// ``tool `NAME`: <why>`` and the fn does not run.
///
/// ```
/// use toolnexus::{ToolContext, Toolkit, tool, tools};
/// use toolnexus::context::FromToolContext;
///
/// #[derive(Clone)]
/// struct TraceId(String);
///
/// impl FromToolContext for TraceId {
///     fn from_tool_context(ctx: &ToolContext) -> Result<Self, String> {
///         ctx.extension::<TraceId>().cloned().ok_or_else(|| "no trace id on this call".to_owned())
///     }
/// }
///
/// /// Echoes the trace id.
/// #[tool]
/// fn trace(#[param(inject)] id: TraceId) -> String {
///     id.0
/// }
///
/// let toolkit = Toolkit::new().with_all(tools![trace]);
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let ctx = ToolContext::default().with_extension(TraceId("t-1".into()));
/// assert_eq!(toolkit.execute_json("trace", "{}", &ctx).await.output, "t-1");
/// let without = toolkit.execute_json("trace", "{}", &ToolContext::default()).await;
/// assert_eq!(without.output, "tool `trace`: no trace id on this call");
/// # });
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be injected into a tool: it does not implement `FromToolContext`",
    label = "`#[param(inject)]` needs `FromToolContext` for this type",
    note = "implement `toolnexus::context::FromToolContext` for `{Self}` (build it from the `ToolContext`), or take `State<T>` / `Extension<T>` / `&ToolContext` instead"
)]
pub trait FromToolContext: Sized {
    /// Builds the value from the call's context; `Err` is why not, for the model.
    fn from_tool_context(ctx: &ToolContext) -> Result<Self, String>;
}

/// One state type a tool needs ([`Tool::required_state`](crate::Tool::required_state)): what
/// [`Toolkit::missing_state`](crate::Toolkit::missing_state) compares with what the toolkit
/// holds. `#[tool]` lists its `State<T>` parameters; a hand-written tool that reads
/// [`ToolContext::state`] lists its own.
///
/// ```
/// use toolnexus::context::StateType;
///
/// struct Db;
/// const NEEDS: &[StateType] = &[StateType::new::<Db>("Db")];
/// assert_eq!(NEEDS[0].name(), "Db");
/// ```
#[derive(Clone, Copy)]
pub struct StateType {
    id: fn() -> TypeId,
    name: &'static str,
}

impl StateType {
    /// The state `T`, named `name` in messages (the type as written: `"Db"`).
    pub const fn new<T: ?Sized + 'static>(name: &'static str) -> Self {
        Self {
            id: TypeId::of::<T>,
            name,
        }
    }

    /// The name messages use for it.
    pub fn name(&self) -> &'static str {
        self.name
    }

    pub(crate) fn id(&self) -> TypeId {
        (self.id)()
    }
}

impl fmt::Debug for StateType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("StateType").field(&self.name).finish()
    }
}

/// A toolkit's state: one `Arc` per type.
#[derive(Clone, Default)]
pub(crate) struct StateMap(BTreeMap<TypeId, Arc<dyn Any + Send + Sync>>);

impl StateMap {
    pub(crate) fn insert<T: Send + Sync + 'static>(&mut self, value: T) {
        self.0.insert(TypeId::of::<T>(), Arc::new(value));
    }

    pub(crate) fn contains(&self, id: TypeId) -> bool {
        self.0.contains_key(&id)
    }

    fn get<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        let value = Arc::clone(self.0.get(&TypeId::of::<T>())?);
        value.downcast().ok()
    }
}

/// How a toolkit call's context carries the toolkit's state: one entry of its extensions, of
/// a type nobody else can name, so [`ToolContext::state`] finds the toolkit's state and only
/// that.
#[derive(Clone)]
pub(crate) struct ToolkitState(pub(crate) Arc<StateMap>);

impl ToolContext {
    /// This context with `value` among its extensions (replacing one of the same type).
    ///
    /// ```
    /// use toolnexus::ToolContext;
    ///
    /// #[derive(Clone, Debug, PartialEq)]
    /// struct User(u64);
    ///
    /// let ctx = ToolContext::default().with_extension(User(7));
    /// assert_eq!(ctx.extension::<User>(), Some(&User(7)));
    /// ```
    #[must_use]
    pub fn with_extension<T: Clone + Send + Sync + 'static>(mut self, value: T) -> Self {
        self.extensions.insert(value);
        self
    }

    /// Puts `value` among the extensions, returning the one of the same type it replaces.
    pub fn insert_extension<T: Clone + Send + Sync + 'static>(&mut self, value: T) -> Option<T> {
        self.extensions.insert(value)
    }

    /// The extension of type `T`, if this call carries one.
    pub fn extension<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.extensions.get::<T>()
    }

    /// The toolkit's state of type `T` ([`Toolkit::with_state`](crate::Toolkit::with_state)),
    /// inside a call through a toolkit that holds one; `None` otherwise, and for a
    /// [`Tool::execute`](crate::Tool::execute) called directly.
    ///
    /// ```
    /// use serde_json::{Value, json};
    /// use toolnexus::{ToolContext, Toolkit, define_tool};
    ///
    /// let count = define_tool("count", "Counts", json!({"type": "object"}))
    ///     .unwrap()
    ///     .sync(|_: Value, ctx: &ToolContext| match ctx.state::<u32>() {
    ///         Some(n) => n.to_string(),
    ///         None => "no state".to_owned(),
    ///     });
    /// let toolkit = Toolkit::new().with_state(41_u32).with(count);
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// assert_eq!(toolkit.execute("count", json!({}), &ToolContext::default()).await.output, "41");
    /// # });
    /// ```
    pub fn state<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        self.extensions.get::<ToolkitState>()?.0.get::<T>()
    }
}

/// `State<T>` for a `#[tool]`, or the result naming what is missing.
#[doc(hidden)]
pub fn inject_state<T: Send + Sync + 'static>(
    tool: &str,
    name: &str,
    ctx: &ToolContext,
) -> Result<State<T>, ToolResult> {
    ctx.state::<T>().map(State).ok_or_else(|| {
        ToolResult::error(format!(
            "tool `{tool}` needs `State<{name}>`, which the toolkit does not hold"
        ))
    })
}

/// `Extension<T>` for a `#[tool]`, or the result naming what is missing.
#[doc(hidden)]
pub fn inject_extension<T: Clone + Send + Sync + 'static>(
    tool: &str,
    name: &str,
    ctx: &ToolContext,
) -> Result<Extension<T>, ToolResult> {
    inject_optional_extension(ctx).ok_or_else(|| {
        ToolResult::error(format!(
            "tool `{tool}` needs `Extension<{name}>`, which this call does not carry"
        ))
    })
}

/// `Option<Extension<T>>` for a `#[tool]`: `None` when the call carries none.
#[doc(hidden)]
pub fn inject_optional_extension<T: Clone + Send + Sync + 'static>(
    ctx: &ToolContext,
) -> Option<Extension<T>> {
    ctx.extension::<T>().cloned().map(Extension)
}

/// A `#[param(inject)]` value for a `#[tool]`, or ``tool `NAME`: <why>``.
#[doc(hidden)]
pub fn inject<T: FromToolContext>(tool: &str, ctx: &ToolContext) -> Result<T, ToolResult> {
    T::from_tool_context(ctx).map_err(|why| ToolResult::error(format!("tool `{tool}`: {why}")))
}

#[cfg(test)]
mod tests {
    use crate::tool::context::*;

    #[test]
    fn state_is_found_by_type_and_shared() {
        let mut map = StateMap::default();
        map.insert(5_u8);
        map.insert(String::from("db"));
        let ctx = ToolContext::default().with_extension(ToolkitState(Arc::new(map)));
        assert_eq!(ctx.state::<u8>().as_deref(), Some(&5));
        assert_eq!(
            ctx.state::<String>().as_deref().map(String::as_str),
            Some("db")
        );
        assert!(ctx.state::<u16>().is_none());
        let a = ctx.state::<String>().unwrap();
        let b = ctx.clone().state::<String>().unwrap();
        assert!(Arc::ptr_eq(&a, &b), "one value shared, never copied");
    }

    #[test]
    fn an_extension_is_not_state() {
        let ctx = ToolContext::default().with_extension(5_u8);
        assert!(ctx.state::<u8>().is_none());
        assert_eq!(
            inject_state::<u8>("t", "u8", &ctx).unwrap_err().output,
            "tool `t` needs `State<u8>`, which the toolkit does not hold"
        );
        assert_eq!(inject_extension::<u8>("t", "u8", &ctx).unwrap().0, 5);
        assert!(inject_optional_extension::<u16>(&ctx).is_none());
    }

    #[test]
    fn state_types_compare_by_type() {
        struct Db;
        let need = StateType::new::<Db>("Db");
        let mut map = StateMap::default();
        assert!(!map.contains(need.id()));
        map.insert(Db);
        assert!(map.contains(need.id()));
        assert_eq!(format!("{need:?}"), "StateType(\"Db\")");
    }
}
