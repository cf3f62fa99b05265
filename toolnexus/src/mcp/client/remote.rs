//! One remote tool as a [`Tool`], and the call it makes.

use std::sync::{Arc, OnceLock};

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelledNotification, CancelledNotificationParam,
    ClientRequest, ProgressToken, RequestId, ServerResult, Tool as McpTool,
};
use rmcp::service::{Peer, PeerRequestOptions, RoleClient, ServiceError};
use serde_json::{Map, Value, json};
use tokio::sync::mpsc;

use super::convert::{elicit_result, request_of, tool_result};
use super::{Shared, Unconnected};
use crate::decode::Shape;
use crate::result::ToolResult;
use crate::result::suspend::{Request, pending};
use crate::tool::context::ToolContext;
use crate::tool::future::BoxFuture;
use crate::tool::{Tool, ToolAnnotations, ToolSource};

/// A tool as the server listed it.
pub(crate) struct RemoteDef {
    pub(crate) remote_name: String,
    description: String,
    input: Map<String, Value>,
    title: Option<String>,
    annotations: ToolAnnotations,
    output: Option<Map<String, Value>>,
    /// The input schema read for the argument check, on the first call.
    shape: OnceLock<Shape>,
}

impl RemoteDef {
    pub(crate) fn of(tool: &McpTool) -> Self {
        let wire = serde_json::to_value(tool).unwrap_or(Value::Null);
        let text = |key: &str| wire.get(key).and_then(Value::as_str).map(str::to_owned);
        let object = |key: &str| wire.get(key).and_then(Value::as_object).cloned();
        let hint = |key: &str| wire.get("annotations")?.get(key)?.as_bool();
        Self {
            remote_name: tool.name.to_string(),
            description: text("description").unwrap_or_default(),
            input: object("inputSchema").unwrap_or_default(),
            title: text("title").or_else(|| {
                wire.get("annotations")?
                    .get("title")?
                    .as_str()
                    .map(str::to_owned)
            }),
            annotations: ToolAnnotations {
                read_only: hint("readOnlyHint"),
                destructive: hint("destructiveHint"),
                idempotent: hint("idempotentHint"),
                open_world: hint("openWorldHint"),
            },
            output: object("outputSchema"),
            shape: OnceLock::new(),
        }
    }

    fn shape(&self) -> &Shape {
        self.shape.get_or_init(|| Shape::of_remote(&self.input))
    }
}

/// SPEC §11's check of arguments, against a schema a server sent: `None` when they may fit,
/// else the invalid-arguments result naming the place and the limit. Keywords the checker
/// does not read, and every `pattern` (`Shape::of_remote`), are left to the server.
fn refusal(tool: &str, def: &RemoteDef, args: &Value) -> Option<ToolResult> {
    crate::decode::check_args(tool, def.shape(), args).err()
}

/// A remote tool in a toolkit, under the name it was given there.
pub(crate) struct RemoteTool {
    pub(crate) name: String,
    pub(crate) def: Arc<RemoteDef>,
    pub(crate) shared: Arc<Shared>,
    pub(crate) deferred: bool,
}

impl Tool for RemoteTool {
    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> &str {
        &self.def.description
    }

    fn input_schema(&self) -> &Map<String, Value> {
        &self.def.input
    }

    fn source(&self) -> ToolSource {
        ToolSource::Mcp
    }

    fn title(&self) -> Option<&str> {
        self.def.title.as_deref()
    }

    fn annotations(&self) -> ToolAnnotations {
        self.def.annotations
    }

    fn output_schema(&self) -> Option<&Map<String, Value>> {
        self.def.output.as_ref()
    }

    fn deferred(&self) -> bool {
        self.deferred
    }

    fn namespace(&self) -> Option<&str> {
        Some(&self.shared.name)
    }

    fn execute<'a>(&'a self, args: Value, ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        Box::pin(self.call(args, ctx))
    }
}

/// What a suspended 2026-07-28 call needs for its retry.
pub(crate) struct Suspended {
    /// The key of the server's input request, which the answer is sent under.
    key: String,
    request_state: Option<String>,
    /// The task that asked, when a task did: the answer goes back with `tasks/update`.
    task: Option<String>,
}

/// A `tools/call` on its way: dropped before its answer (the caller's deadline or
/// cancellation dropped the call), it sends the server `notifications/cancelled`; either way
/// it stops routing the call's progress.
struct InFlight<'a> {
    shared: &'a Shared,
    peer: Peer<RoleClient>,
    /// The request's id until its answer came.
    id: Option<RequestId>,
    token: ProgressToken,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.shared.progress.close(&self.token);
        if let Some(id) = self.id.take() {
            let peer = self.peer.clone();
            let cancelled = CancelledNotification::new(CancelledNotificationParam::new(
                Some(id),
                Some("the caller gave up".to_owned()),
            ));
            // Sending is async and drop is not: a task of its own, where a runtime runs.
            if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                runtime.spawn(async move {
                    let _ = peer.send_notification(cancelled.into()).await;
                });
            }
        }
    }
}

impl RemoteTool {
    async fn call(&self, args: Value, ctx: &ToolContext) -> ToolResult {
        let args = match args {
            Value::Object(args) => args,
            Value::Null => Map::new(),
            other => {
                let kind = crate::decode::json_kind(&other);
                return crate::decode::invalid_args(
                    &self.name,
                    format_args!("expected an object of arguments, got {kind}"),
                );
            }
        };
        let args = Value::Object(args);
        if let Some(refused) = refusal(&self.name, &self.def, &args) {
            return refused;
        }
        let Value::Object(args) = args else {
            unreachable!("checked to be an object above")
        };
        let mut params =
            CallToolRequestParams::new(self.def.remote_name.clone()).with_arguments(args);
        // The answer to a task's question resumes that task rather than call again.
        let mut resumed_task = None;
        if let Some(answer) = &ctx.answer {
            // The answer to a login this server asked for: sign in, then call on a new
            // connection that carries the token.
            if let Some(oauth) = &self.shared.oauth {
                match oauth.finish(answer).await {
                    Some(Ok(())) => self.shared.forget().await,
                    Some(Err(why)) => return self.failed(&why),
                    None => {}
                }
            }
            if let Some(suspended) = self.shared.take_suspended(&answer.id) {
                let responses = [(suspended.key, elicit_result(answer))]
                    .into_iter()
                    .collect();
                match suspended.task {
                    Some(task) => resumed_task = Some((task, responses)),
                    None => {
                        params.input_responses = Some(responses);
                        params.request_state = suspended.request_state;
                    }
                }
            }
        }
        let (progress, mut steps) = mpsc::unbounded_channel();
        let deadline = ctx.timeout.unwrap_or_else(|| self.shared.call_timeout());
        let exchange = async {
            let (peer, fault) = match self.shared.peer().await {
                Ok(connected) => connected,
                Err(Unconnected {
                    sign_in: Some(login),
                    ..
                }) => return self.login(login),
                Err(Unconnected { why, .. }) => return ToolResult::error(why),
            };
            if let Some((task, responses)) = resumed_task {
                return self.answer_task(peer, task, responses).await;
            }
            let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
            let answered = match peer
                .send_request_with_option(request, PeerRequestOptions::no_options())
                .await
            {
                Ok(handle) => {
                    // rmcp picks the progress token; the server's progress is routed by it.
                    let token = handle.progress_token.clone();
                    let mut watch = InFlight {
                        shared: &self.shared,
                        peer: peer.clone(),
                        id: Some(handle.id.clone()),
                        token: token.clone(),
                    };
                    self.shared.progress.follow(token, progress);
                    let answered = match handle.rx.await {
                        Ok(answered) => answered,
                        Err(_) => Err(ServiceError::TransportClosed),
                    };
                    watch.id = None;
                    answered
                }
                Err(error) => Err(error),
            };
            match answered {
                Ok(ServerResult::CallToolResult(result)) => {
                    let wire = serde_json::to_value(&result).unwrap_or(Value::Null);
                    tool_result(&self.shared.name, &wire)
                }
                Ok(ServerResult::InputRequiredResult(question)) => {
                    let wire = serde_json::to_value(&question).unwrap_or(Value::Null);
                    self.suspend(&wire, None)
                }
                Ok(ServerResult::CreateTaskResult(created)) => {
                    let interval = created.task.poll_interval_ms;
                    self.follow(peer, created.task.task_id, interval).await
                }
                // A result without content (rmcp reads `{}` as empty): nothing to say.
                Ok(ServerResult::EmptyResult(_)) => {
                    tool_result(&self.shared.name, &json!({"content": []}))
                }
                Ok(_) => self.failed("answered with a result that is not a tool's"),
                Err(ServiceError::McpError(error)) => {
                    self.failed(&format!("refused the call: {}", error.message))
                }
                Err(error) if self.shared.oauth.is_some() && error.auth_challenge().is_some() => {
                    let why = format!("refused the call: {}", plain(&error));
                    match self.shared.sign_in(error.auth_challenge(), why).await {
                        Unconnected {
                            sign_in: Some(login),
                            ..
                        } => self.login(login),
                        Unconnected { why, renewed, .. } => {
                            if renewed {
                                // The next call connects with the new token.
                                self.shared.forget().await;
                            }
                            self.failed(&why)
                        }
                    }
                }
                Err(error) => {
                    self.shared.broken(&peer).await;
                    let fault = fault.lock().unwrap_or_else(|p| p.into_inner()).clone();
                    match fault {
                        Some(why) => self.failed(&why),
                        None => self.failed(&plain(&error)),
                    }
                }
            }
        };
        let forward = async {
            while let Some((done, total, message)) = steps.recv().await {
                ctx.report_progress(done, total, message.as_deref());
            }
            std::future::pending::<()>().await;
        };
        let result = tokio::select! {
            result = exchange => result,
            () = forward => unreachable!("forwarding progress never ends"),
            () = tokio::time::sleep(deadline) => self.failed(&format!(
                "did not answer within {deadline:?}; the call was cancelled"
            )),
            () = ctx.cancel.cancelled() => ToolResult::error(format!("tool `{}` was cancelled", self.name)),
        };
        // Every step the server sent before its result is in the channel by now (the
        // connection's reader routed it before handing the result on): pass the rest on.
        while let Ok((done, total, message)) = steps.try_recv() {
            ctx.report_progress(done, total, message.as_deref());
        }
        result
    }

    /// An `isError` result naming the server, the tool and `what` happened.
    pub(super) fn failed(&self, what: &str) -> ToolResult {
        ToolResult::error(format!(
            "MCP server `{}` {what} (calling `{}`)",
            self.shared.name, self.def.remote_name
        ))
        .with_metadata("server", self.shared.name.as_str())
    }

    /// A login the server asks for, as a §10 suspension (kind `"authorization"`, the url).
    pub(super) fn login(&self, login: Request) -> ToolResult {
        pending(login).with_metadata("server", self.shared.name.as_str())
    }

    /// A 2026-07-28 `InputRequiredResult` (or an `input_required` task, `task`) as a §10
    /// suspension, its `requestState` (or task) kept for the answer.
    pub(super) fn suspend(&self, question: &Value, task: Option<&str>) -> ToolResult {
        let state = question
            .get("requestState")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let requests = question.get("inputRequests").and_then(Value::as_object);
        let Some((key, asked)) = requests.and_then(|requests| requests.iter().next()) else {
            return self.failed("asked for input without saying what");
        };
        let method = asked.get("method").and_then(Value::as_str).unwrap_or("");
        if method != "elicitation/create" {
            return self.failed(&format!(
                "asked for `{method}`, which this client does not answer"
            ));
        }
        let request = request_of(asked.get("params").unwrap_or(&Value::Null));
        self.shared.remember(
            request.id.clone(),
            Suspended {
                key: key.clone(),
                request_state: state,
                task: task.map(str::to_owned),
            },
        );
        pending(request).with_metadata("server", self.shared.name.as_str())
    }
}

/// What went wrong, for a person: the transport's own innermost message (rmcp's wrappers name
/// Rust types).
pub(super) fn plain(error: &ServiceError) -> String {
    match error {
        ServiceError::TransportSend(sent) => {
            let mut innermost: &(dyn std::error::Error + 'static) = sent.error.as_ref();
            while let Some(source) = innermost.source() {
                innermost = source;
            }
            format!("could not be reached: {innermost}")
        }
        ServiceError::TransportClosed => "closed the connection".to_owned(),
        other => format!("failed: {other}"),
    }
}
