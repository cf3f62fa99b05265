//! The methods of 2025-11-25's core tasks (SPEC §14): a client of that revision asks for a
//! task (`task: {ttl}` on `tools/call`, for a tool whose `execution.taskSupport` allows it),
//! polls `tasks/get`, waits on `tasks/result` — where a task's question is put to it with
//! `elicitation/create` — may `tasks/cancel`, and `tasks/list` its own;
//! `notifications/tasks/status` tells it of each new status or status message. The same tasks,
//! store and caller binding as the 2026-07-28 extension's methods (`methods`); only the shapes
//! differ. Its requests reach it renamed (`incoming::core_routing`).

use std::time::Duration;

use rmcp::ErrorData;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CustomNotification, ElicitRequestParams, ErrorCode,
    MetaObject, ProtocolVersion, RequestMetaObject, ServerNotification,
};
use rmcp::service::{Peer, RequestContext, RoleServer};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::clock::iso8601;
use super::methods::{invalid_task_params, store_error};
use super::{POLL_INTERVAL, TaskRecord, TaskSignal};
use crate::mcp::server::call_tool::{asking_modes, unanswerable};
use crate::mcp::server::incoming::Arguments;
use crate::mcp::server::{McpServer, caller, suspend};
use crate::result::ToolResult;
use crate::tool::task_support::TaskSupport;
use crate::toolkit::spawn::{TaskHandle, TaskSnapshot, TaskStatus, spawn_in, task_id};

/// How many tasks one `tasks/list` page holds.
const LIST_PAGE: usize = 100;

/// How often `tasks/result` reads a task that has not ended.
const RESULT_POLL: Duration = Duration::from_millis(50);

/// The longest `tasks/cancel` waits for the task it cancelled to end, so it can answer with
/// the task `cancelled`.
const CANCEL_WAIT: Duration = Duration::from_secs(2);

/// The notification of a task's new status (2025-11-25).
const STATUS: &str = "notifications/tasks/status";

/// The `_meta` key that ties a result to its task (2025-11-25).
const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";

/// The `task` a 2025-11-25 `tools/call` carries.
#[derive(Deserialize)]
struct TaskMetadata {
    ttl: Option<u64>,
}

#[derive(Deserialize)]
struct TaskIdParams {
    #[serde(rename = "taskId")]
    task_id: String,
}

/// Whether `context` is a 2025-11-25 session: the one revision with core tasks.
fn on_2025_11_25(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|version| version == ProtocolVersion::V_2025_11_25)
}

/// The capability a 2025-11-25 `initialize` result advertises, added to `message` (a JSON-RPC
/// answer) when its result is one of that revision from a server with a task-capable tool (it
/// lists the 2026-07-28 extension). rmcp's capabilities have no field for it, so the
/// transports add it to the JSON they send.
pub(crate) fn with_core_tasks_capability(message: &mut Value) {
    let Some(result) = message.get_mut("result") else {
        return;
    };
    if result.get("protocolVersion").and_then(Value::as_str)
        != Some(ProtocolVersion::V_2025_11_25.as_str())
    {
        return;
    }
    let Some(capabilities) = result
        .get_mut("capabilities")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    let has_tasks = capabilities
        .get("extensions")
        .and_then(|extensions| extensions.get(rmcp::model::TASKS_EXTENSION_ID))
        .is_some();
    if has_tasks {
        capabilities.insert(
            "tasks".to_owned(),
            json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}),
        );
    }
}

impl McpServer {
    /// A request [`screen`](crate::mcp::server::incoming) routed here under a
    /// [`CORE_TASKS`](crate::mcp::server::incoming::CORE_TASKS) method.
    pub(crate) async fn core_tasks_request(
        &self,
        method: &str,
        params: Value,
        context: RequestContext<RoleServer>,
    ) -> Result<Value, ErrorData> {
        let task_id = || {
            TaskIdParams::deserialize(&params)
                .map(|params| params.task_id)
                .map_err(|why| invalid_task_params(method, &params, &why))
        };
        match method {
            "tools/list" => Ok(self.core_tools_list(&context).await),
            "tools/call" => self.core_call(params, context).await,
            "tasks/get" => Ok(core_task(&self.find_task(&task_id()?, &context).await?)),
            "tasks/result" => self.core_result(&task_id()?, &context).await,
            "tasks/cancel" => self.core_cancel(&task_id()?, &context).await,
            "tasks/list" => self.core_list(&params, &context).await,
            _ => Err(ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                method.to_owned(),
                None,
            )),
        }
    }

    /// `tools/list` of an older session: as rmcp would list the tools, and on 2025-11-25 each
    /// task-capable tool with its `execution.taskSupport`.
    async fn core_tools_list(&self, context: &RequestContext<RoleServer>) -> Value {
        let ctx = caller::context_of(context);
        let with_execution = on_2025_11_25(context);
        let tools: Vec<Value> = self
            .toolkit
            .tools()
            .iter()
            .zip(self.tools.iter())
            .filter(|(tool, _)| {
                !self.toolkit.has_visibility_rule() || self.toolkit.is_visible(tool.as_ref(), &ctx)
            })
            .map(|(tool, listed)| {
                let mut listed = serde_json::to_value(listed).unwrap_or_default();
                let support = match tool.task_support() {
                    TaskSupport::Optional => "optional",
                    TaskSupport::Required => "required",
                    TaskSupport::Forbidden => return listed,
                };
                if let (true, Some(entry)) = (with_execution, listed.as_object_mut()) {
                    entry.insert("execution".to_owned(), json!({ "taskSupport": support }));
                }
                listed
            })
            .collect();
        json!({ "tools": tools })
    }

    /// A 2025-11-25 `tools/call` with `task`: recorded, then run, answered with the task at
    /// once. An older session has no tasks: its call runs inline, as any call does.
    async fn core_call(
        &self,
        params: Value,
        mut context: RequestContext<RoleServer>,
    ) -> Result<Value, ErrorData> {
        let mut request = CallToolRequestParams::deserialize(&params)
            .map_err(|why| ErrorData::invalid_params(format!("`tools/call`: {why}"), None))?;
        if !on_2025_11_25(&context) {
            return match rmcp::ServerHandler::call_tool(self, request, context).await? {
                CallToolResponse::Complete(result) => Ok(of_older_revision(&result)),
                // Only 2026-07-28's: not sent to an older session.
                _ => Err(ErrorData::internal_error(
                    "an answer of another revision",
                    None,
                )),
            };
        }
        let Some(tool) = self.callable(&request.name, &context) else {
            return Err(ErrorData::invalid_params(
                format!("Unknown tool: {}", request.name),
                None,
            ));
        };
        if tool.task_support() == TaskSupport::Forbidden {
            return Err(ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                format!(
                    "tool `{}` does not run as a task: call it without `task` (its `execution.taskSupport` is `forbidden`)",
                    request.name
                ),
                None,
            ));
        }
        let asked = params
            .get("task")
            .and_then(|task| TaskMetadata::deserialize(task).ok())
            .and_then(|task| task.ttl);
        let name = request.name.clone();
        let args = match Arguments::take(&mut request, &mut context.meta) {
            Arguments::Object(args) => args,
            // Arguments `execute_json` refuses: its words, as a protocol error, for no task
            // was made.
            Arguments::Text(text) => {
                let refused = self
                    .toolkit
                    .execute_json(&name, &text, &caller::context_of(&context))
                    .await;
                return Err(ErrorData::invalid_params(refused.output, None));
            }
        };
        let ctx = crate::tool::context::ToolContext {
            timeout: self.call_timeout,
            ..caller::context_of(&context)
        };
        let id = task_id();
        let owner = suspend::owner_of(&context);
        let mut first = self
            .tasks
            .record(&id, &owner, &name, &TaskSnapshot::working());
        // The client's ttl, within the server's (`McpServer::task_ttl`).
        first.ttl_ms = asked.map_or(first.ttl_ms, |asked| asked.min(first.ttl_ms));
        if let Err(refused) = self.tasks.create(&first).await {
            return Err(ErrorData::internal_error(refused.output, None));
        }
        let handle = spawn_in(
            std::sync::Arc::clone(&self.toolkit),
            id,
            &name,
            args,
            ctx,
            None,
        );
        tokio::spawn(tell_status(
            handle.clone(),
            first.clone(),
            context.peer.clone(),
        ));
        drop(self.tasks.follow(handle, first.clone()));
        Ok(json!({ "task": core_task(&first) }))
    }

    /// `tasks/result`: waits for the task to end and answers with its `CallToolResult`; a
    /// question it asks meanwhile is put to the client with `elicitation/create` (the task's
    /// answer, checked and used once as `tasks/update`'s is), or, if the client cannot be
    /// asked, answered with the `isError` text SPEC §8C gives such a client.
    async fn core_result(
        &self,
        id: &str,
        context: &RequestContext<RoleServer>,
    ) -> Result<Value, ErrorData> {
        let mut asked = None;
        loop {
            let record = self.find_task(id, context).await?;
            match record.status {
                TaskStatus::Completed | TaskStatus::Cancelled => {
                    let result = record.result.clone().unwrap_or_default();
                    return Ok(self.core_call_result(&record, &result));
                }
                TaskStatus::Failed => {
                    let message = record.error.unwrap_or_default();
                    return Err(ErrorData::internal_error(message, None));
                }
                TaskStatus::InputRequired => {
                    // Each question once: the answer takes a moment to reach the task.
                    let new = record
                        .request
                        .as_ref()
                        .filter(|request| asked.as_ref() != Some(&request.id));
                    if let Some(request) = new.cloned() {
                        asked = Some(request.id.clone());
                        let modes = asking_modes(context);
                        let answer = match suspend::elicitation(&request, modes) {
                            Some(elicitation) => {
                                let elicitation = related_to(elicitation, id);
                                self.elicit(elicitation, &request, context).await
                            }
                            None => None,
                        };
                        // SPEC §10B: no answer, and nothing runs; the task waits on, and the
                        // next `tasks/result` asks again.
                        let answer = answer.transpose().map_err(|why| {
                            ErrorData::invalid_params(
                                format!(
                                    "the answer to task `{id}`'s question is not an elicitation \
                                     result: {why}"
                                ),
                                None,
                            )
                        })?;
                        // The client could not be asked: it is told so, as SPEC §8C words
                        // it, and the task waits on for an answer it cannot give.
                        let Some(answer) = answer else {
                            let pending = crate::result::suspend::pending(request.clone());
                            let refused = unanswerable(pending, &request);
                            return Ok(self.core_call_result(&record, &refused));
                        };
                        self.tasks
                            .store
                            .signal(id, TaskSignal::Answer(answer))
                            .await
                            .map_err(|error| store_error(&error))?;
                    }
                }
                TaskStatus::Working => {}
            }
            tokio::select! {
                () = tokio::time::sleep(RESULT_POLL) => {}
                () = context.ct.cancelled() => {
                    return Err(ErrorData::internal_error("`tasks/result` was cancelled", None));
                }
            }
        }
    }

    /// `tasks/list`: the caller's tasks still kept, oldest first, a page at a time (the cursor
    /// is where the next page starts); a task whose server went away is listed `failed`.
    async fn core_list(
        &self,
        params: &Value,
        context: &RequestContext<RoleServer>,
    ) -> Result<Value, ErrorData> {
        let start = match params.get("cursor") {
            None | Some(Value::Null) => 0,
            Some(cursor) => cursor
                .as_str()
                .and_then(|cursor| cursor.parse::<usize>().ok())
                .ok_or_else(|| {
                    ErrorData::invalid_params(
                        format!("`tasks/list`: `cursor` {cursor} is not one this server gave"),
                        None,
                    )
                })?,
        };
        let owner = suspend::owner_of(context);
        let records = self
            .tasks
            .store
            .list(&owner)
            .await
            .map_err(|error| store_error(&error))?;
        let now = super::clock::now_ms();
        let tasks: Vec<Value> = records
            .iter()
            .skip(start)
            .take(LIST_PAGE)
            .map(|record| {
                let mut task = core_task(record);
                if record.is_lost(now) {
                    task["status"] = json!("failed");
                }
                task
            })
            .collect();
        let mut page = json!({ "tasks": tasks });
        if start + LIST_PAGE < records.len() {
            page["nextCursor"] = json!((start + LIST_PAGE).to_string());
        }
        Ok(page)
    }

    /// `result` as 2025-11-25's `CallToolResult` of the task `record` (that revision has no
    /// `resultType`; `_meta` names the task).
    fn core_call_result(&self, record: &TaskRecord, result: &ToolResult) -> Value {
        let mut answer = of_older_revision(&self.call_result(&record.tool, result));
        if let Some(answer) = answer.as_object_mut() {
            let mut meta = Map::new();
            meta.insert(RELATED_TASK.to_owned(), json!({ "taskId": record.id }));
            answer.insert("_meta".to_owned(), Value::Object(meta));
        }
        answer
    }

    /// `tasks/cancel`: the task is stopped and answered as it ended (`cancelled`, or how it
    /// ended first); an ended task cannot be cancelled (`-32602`).
    async fn core_cancel(
        &self,
        id: &str,
        context: &RequestContext<RoleServer>,
    ) -> Result<Value, ErrorData> {
        let record = self.find_task(id, context).await?;
        if record.status.is_terminal() {
            return Err(ErrorData::invalid_params(
                format!(
                    "task `{id}` has already ended ({}); it cannot be cancelled",
                    record.status
                ),
                None,
            ));
        }
        self.cancel_task_now(rmcp::model::CancelTaskParams::new(id), context)
            .await?;
        let waited = tokio::time::Instant::now();
        loop {
            let record = self.find_task(id, context).await?;
            if record.status.is_terminal() || waited.elapsed() >= CANCEL_WAIT {
                return Ok(core_task(&record));
            }
            tokio::time::sleep(RESULT_POLL).await;
        }
    }
}

/// Sends the client that started the task `notifications/tasks/status` each time its status
/// or status message (the tool's progress, SPEC §14) changes, until it ends; a client that can
/// no longer be told stops it.
async fn tell_status(mut handle: TaskHandle, mut record: TaskRecord, peer: Peer<RoleServer>) {
    // As it is now first: the tool may have reported before this began to watch.
    let mut snapshot = handle.snapshot();
    loop {
        if (snapshot.status, &snapshot.message) != (record.status, &record.status_message) {
            record.status = snapshot.status;
            record.status_message = snapshot.message;
            record.updated_at_ms = super::clock::now_ms();
            let status = CustomNotification::new(STATUS, Some(core_task(&record)));
            let sent = peer
                .send_notification(ServerNotification::CustomNotification(status))
                .await;
            if sent.is_err() {
                return;
            }
        }
        if record.status.is_terminal() {
            return;
        }
        snapshot = handle.changed().await;
    }
}

/// `elicitation` tied to task `id` by its `_meta`, as 2025-11-25 asks of every request a
/// server sends while serving that task's `tasks/result`.
fn related_to(mut elicitation: ElicitRequestParams, id: &str) -> ElicitRequestParams {
    let meta = match &mut elicitation {
        ElicitRequestParams::FormElicitationParams { meta, .. }
        | ElicitRequestParams::UrlElicitationParams { meta, .. } => meta,
        _ => return elicitation,
    };
    let mut related = meta.take().map(|meta| meta.0.0).unwrap_or_default();
    related.insert(RELATED_TASK.to_owned(), json!({ "taskId": id }));
    *meta = Some(RequestMetaObject(MetaObject(related)));
    elicitation
}

/// `result` as a revision before 2026-07-28 has it: without `resultType`.
fn of_older_revision(result: &rmcp::model::CallToolResult) -> Value {
    let mut answer = serde_json::to_value(result).unwrap_or_default();
    if let Some(answer) = answer.as_object_mut() {
        answer.remove("resultType");
    }
    answer
}

/// The record as 2025-11-25's `Task`.
fn core_task(record: &TaskRecord) -> Value {
    let mut task = json!({
        "taskId": record.id,
        "status": record.status.to_string(),
        "createdAt": iso8601(record.created_at_ms),
        "lastUpdatedAt": iso8601(record.updated_at_ms),
        "ttl": record.ttl_ms,
        "pollInterval": u64::try_from(POLL_INTERVAL.as_millis()).unwrap_or(u64::MAX),
    });
    if let Some(message) = &record.status_message {
        task["statusMessage"] = Value::String(message.clone());
    }
    task
}
