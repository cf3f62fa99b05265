//! The hooks a run calls around each model call and each tool call (SPEC §16), and the
//! `wait_for` that answers suspensions in the loop.

use std::future::Future;
use std::sync::Arc;

use serde_json::Value;

use crate::client::message::Message;
use crate::client::model::Reply;
use crate::provider::tool_call::ToolCall;
use crate::result::ToolResult;
use crate::result::suspend::{Answer, Request};
use crate::tool::future::BoxFuture;

use super::Client;

/// What a [`before_tool`](Client::before_tool) hook decides for one call.
#[derive(Clone, Debug, PartialEq)]
pub enum ToolDecision {
    /// Run the call as the model made it.
    Run,
    /// Run the call with these arguments instead (the transcript keeps the model's own).
    Rewrite(Value),
    /// Do not run the tool: the model reads this result instead (a policy gate).
    Skip(ToolResult),
}

type BeforeModel =
    dyn Fn(Vec<Message>, Value) -> BoxFuture<'static, (Vec<Message>, Value)> + Send + Sync;
type AfterModel = dyn Fn(Reply) -> BoxFuture<'static, ()> + Send + Sync;
type BeforeTool = dyn Fn(ToolCall) -> BoxFuture<'static, ToolDecision> + Send + Sync;
type AfterTool = dyn Fn(ToolCall, ToolResult) -> BoxFuture<'static, ToolResult> + Send + Sync;
type WaitFor = dyn Fn(Request) -> BoxFuture<'static, Answer> + Send + Sync;

/// The hooks a client was given; each is optional.
#[derive(Clone, Default)]
pub(crate) struct Hooks {
    pub(crate) before_model: Option<Arc<BeforeModel>>,
    pub(crate) after_model: Option<Arc<AfterModel>>,
    pub(crate) before_tool: Option<Arc<BeforeTool>>,
    pub(crate) after_tool: Option<Arc<AfterTool>>,
    pub(crate) wait_for: Option<Arc<WaitFor>>,
}

impl Client {
    /// Answers each suspension in the loop (SPEC §10): `wait_for(request)` gives the
    /// [`Answer`], and the call runs once more by [`Toolkit::call_with`](crate::Toolkit::call_with)'s
    /// rule (a second suspension is `unresolved: <prompt>`, a refusal `declined/expired:
    /// <prompt>`, an answer that breaks the request's schema is refused, SPEC §10B).
    /// Without it a suspension parks the run ([`Status::Pending`](crate::client::Status::Pending)).
    ///
    /// ```
    /// use toolnexus::client::Client;
    /// use toolnexus::{Answer, Request};
    /// # fn with(client: Client) -> Client {
    /// client.wait_for(|request: Request| async move { Answer::approve(&request) })
    /// # }
    /// ```
    #[must_use]
    pub fn wait_for<F, Fut>(mut self, wait_for: F) -> Self
    where
        F: Fn(Request) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Answer> + Send + 'static,
    {
        self.hooks.wait_for = Some(Arc::new(move |request| Box::pin(wait_for(request))));
        self
    }

    /// Called before each model call with the transcript and the tool definitions; what it
    /// returns is sent instead (a compactor is one, SPEC §16B). The run's own transcript
    /// ([`RunResult::messages`](crate::client::RunResult::messages)) stays whole.
    #[must_use]
    pub fn before_model<F, Fut>(mut self, hook: F) -> Self
    where
        F: Fn(Vec<Message>, Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = (Vec<Message>, Value)> + Send + 'static,
    {
        self.hooks.before_model = Some(Arc::new(move |m, t| Box::pin(hook(m, t))));
        self
    }

    /// Called with each reply of the model, before its tool calls run.
    #[must_use]
    pub fn after_model<F, Fut>(mut self, hook: F) -> Self
    where
        F: Fn(Reply) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        self.hooks.after_model = Some(Arc::new(move |reply| Box::pin(hook(reply))));
        self
    }

    /// Called before each tool call, in call order: run it, run it with other arguments, or
    /// answer it without running the tool.
    ///
    /// ```
    /// use toolnexus::ToolResult;
    /// use toolnexus::client::{Client, ToolDecision};
    /// # fn with(client: Client) -> Client {
    /// client.before_tool(|call| async move {
    ///     match call.name.as_str() {
    ///         "delete" => ToolDecision::Skip(ToolResult::error("deleting is not allowed here")),
    ///         _ => ToolDecision::Run,
    ///     }
    /// })
    /// # }
    /// ```
    #[must_use]
    pub fn before_tool<F, Fut>(mut self, hook: F) -> Self
    where
        F: Fn(ToolCall) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ToolDecision> + Send + 'static,
    {
        self.hooks.before_tool = Some(Arc::new(move |call| Box::pin(hook(call))));
        self
    }

    /// Called with each finished call and its result; what it returns is what the model reads
    /// and the run records.
    #[must_use]
    pub fn after_tool<F, Fut>(mut self, hook: F) -> Self
    where
        F: Fn(ToolCall, ToolResult) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ToolResult> + Send + 'static,
    {
        self.hooks.after_tool = Some(Arc::new(move |call, result| Box::pin(hook(call, result))));
        self
    }
}
