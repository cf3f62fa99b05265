//! `tasks/get`, `tasks/update` and `tasks/cancel` on 2026-07-28 (SPEC §14): answered from the
//! store, for the task's own caller only; signals reach the server running the task.

use rmcp::ErrorData;
use rmcp::model::{
    CancelTaskParams, DetailedTask, ElicitRequest, GetTaskParams, GetTaskResult, InputRequest,
    InputRequests, JsonObject, Task, TaskPayload, TaskStatus as WireStatus, UpdateTaskParams,
};
use rmcp::service::{RequestContext, RoleServer};
use serde::Deserialize;
use serde_json::{Value, json};

use super::clock::{iso8601, now_ms};
use super::{POLL_INTERVAL, TaskRecord, TaskSignal, TaskStoreError};
use crate::mcp::server::McpServer;
use crate::mcp::server::suspend::{self, Modes};
use crate::toolkit::spawn::TaskStatus;

/// What a task whose server went away is reported as (SPEC §14).
fn lost(tool: &str) -> String {
    format!("tool `{tool}` stopped: the server running it went away")
}

impl McpServer {
    /// `tasks/get`: the task as it is now, with its question or its result.
    pub(crate) async fn get_task_now(
        &self,
        request: GetTaskParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        let record = self.find_task(&request.task_id, context).await?;
        Ok(GetTaskResult::new(self.detailed(&record)))
    }

    /// `tasks/update`: the answer to the task's outstanding question goes to the server
    /// running it, which checks it (SPEC §10B) and uses it once. Answers to keys that are
    /// not outstanding are ignored, as the extension says; with the one outstanding key
    /// unanswered there is nothing to do.
    pub(crate) async fn update_task_now(
        &self,
        request: UpdateTaskParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let record = self.find_task(&request.task_id, context).await?;
        let (TaskStatus::InputRequired, Some(asked)) = (record.status, &record.request) else {
            return Err(ErrorData::invalid_params(
                format!(
                    "task `{}` is not waiting for input (it is {}); an answer is used once",
                    record.id, record.status
                ),
                None,
            ));
        };
        let Some(response) = request.input_responses.get(&asked.id) else {
            return Ok(());
        };
        // SPEC §10B: what is not an elicitation result answers nothing, and nothing runs.
        let answer = suspend::read_answer(&asked.id, response).map_err(|why| {
            ErrorData::invalid_params(
                format!(
                    "`inputResponses.{}` of task `{}` is not an elicitation result: {why}",
                    asked.id, record.id
                ),
                None,
            )
        })?;
        self.tasks
            .store
            .signal(&record.id, TaskSignal::Answer(answer))
            .await
            .map_err(|error| store_error(&error))
    }

    /// `tasks/cancel`: asks the server running the task to stop it; an ended task is left
    /// as it ended.
    pub(crate) async fn cancel_task_now(
        &self,
        request: CancelTaskParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let record = self.find_task(&request.task_id, context).await?;
        if record.status.is_terminal() {
            return Ok(());
        }
        self.tasks
            .store
            .signal(&record.id, TaskSignal::Cancel)
            .await
            .map_err(|error| store_error(&error))
    }

    /// The record of task `id` if the caller of `context` owns it; a task of another caller
    /// is answered exactly as one that never existed. A task still running whose lease has
    /// lapsed is reported `failed` first.
    pub(super) async fn find_task(
        &self,
        id: &str,
        context: &RequestContext<RoleServer>,
    ) -> Result<TaskRecord, ErrorData> {
        let unknown = || {
            ErrorData::invalid_params(
                format!(
                    "no task `{id}` (it never existed, ended more than its ttlMs ago, or is not yours)"
                ),
                None,
            )
        };
        let found = self
            .tasks
            .store
            .get(id)
            .await
            .map_err(|error| store_error(&error))?;
        let Some(record) = found.filter(|record| record.owner == suspend::owner_of(context)) else {
            return Err(unknown());
        };
        self.settled(record)
            .await
            .map_err(|error| store_error(&error))?
            .ok_or_else(unknown)
    }

    /// `record` as it stands: one still running whose lease has lapsed is written `failed`
    /// first, and what the store then holds is read back (whoever writes first wins). `None`
    /// if the store has forgotten it meanwhile.
    pub(super) async fn settled(
        &self,
        mut record: TaskRecord,
    ) -> Result<Option<TaskRecord>, TaskStoreError> {
        let now = now_ms();
        if !record.is_lost(now) {
            return Ok(Some(record));
        }
        record.status = TaskStatus::Failed;
        record.error = Some(lost(&record.tool));
        record.request = None;
        record.lease = None;
        record.updated_at_ms = now;
        let store = &self.tasks.store;
        store.put(&record).await?;
        store.get(&record.id).await
    }

    /// The record as the extension's `DetailedTask`.
    pub(super) fn detailed(&self, record: &TaskRecord) -> DetailedTask {
        let payload = match record.status {
            TaskStatus::Working => TaskPayload::Working,
            TaskStatus::Cancelled => TaskPayload::Cancelled,
            TaskStatus::InputRequired => match record.request.as_ref().and_then(|request| {
                let both = Modes {
                    form: true,
                    url: true,
                };
                let elicitation = suspend::elicitation(request, both)?;
                let mut requests = InputRequests::new();
                requests.insert(
                    request.id.clone(),
                    InputRequest::Elicitation(ElicitRequest::new(elicitation)),
                );
                Some(requests)
            }) {
                Some(input_requests) => TaskPayload::InputRequired { input_requests },
                None => TaskPayload::Working,
            },
            TaskStatus::Completed => {
                let result = record.result.clone().unwrap_or_default();
                let converted = self.call_result(&record.tool, &result);
                TaskPayload::Completed {
                    result: object(serde_json::to_value(converted).unwrap_or_default()),
                }
            }
            TaskStatus::Failed => TaskPayload::Failed {
                error: object(json!({
                    "code": -32603,
                    "message": record.error.clone().unwrap_or_else(|| lost(&record.tool)),
                })),
            },
        };
        DetailedTask::new(task_of(record), payload)
    }
}

/// The error for a request rmcp could not read as one of its own: a `tasks/*` request whose
/// params are not what the extension says is `-32602` naming what is wrong (rmcp would
/// answer it as an unknown method); anything else is an unknown method.
pub(crate) fn unread_request(request: &rmcp::model::CustomRequest) -> ErrorData {
    let params = request.params.clone().unwrap_or(Value::Null);
    let refused = match request.method.as_str() {
        "tasks/get" => GetTaskParams::deserialize(&params).err(),
        "tasks/update" => UpdateTaskParams::deserialize(&params).err(),
        "tasks/cancel" => CancelTaskParams::deserialize(&params).err(),
        _ => None,
    };
    match refused {
        Some(why) => invalid_task_params(&request.method, &params, &why),
        None => ErrorData::new(
            rmcp::model::ErrorCode::METHOD_NOT_FOUND,
            request.method.clone(),
            None,
        ),
    }
}

/// `-32602` for the params of `tasks/*` `method` that do not read as the revision says: what
/// is wrong with a field, or, for params that are not an object, what the method needs —
/// never the name of a type the server reads them into.
pub(super) fn invalid_task_params(
    method: &str,
    params: &Value,
    why: &serde_json::Error,
) -> ErrorData {
    let detail = match (params, method) {
        (Value::Object(_), _) => why.to_string(),
        (_, "tasks/update") => "params must be an object with the task's `taskId` (a string) \
            and its `inputResponses`"
            .to_owned(),
        _ => "params must be an object with the task's `taskId` (a string)".to_owned(),
    };
    ErrorData::invalid_params(format!("`{method}`: {detail}"), None)
}

/// The record's `Task` fields, as the create result and `tasks/get` send them.
pub(super) fn task_of(record: &TaskRecord) -> Task {
    let status = match record.status {
        TaskStatus::Working => WireStatus::Working,
        TaskStatus::InputRequired => WireStatus::InputRequired,
        TaskStatus::Completed => WireStatus::Completed,
        TaskStatus::Failed => WireStatus::Failed,
        TaskStatus::Cancelled => WireStatus::Cancelled,
    };
    let mut task = Task::new(
        record.id.clone(),
        status,
        iso8601(record.created_at_ms),
        iso8601(record.updated_at_ms),
    )
    .with_ttl_ms(record.ttl_ms)
    .with_poll_interval_ms(u64::try_from(POLL_INTERVAL.as_millis()).unwrap_or(u64::MAX));
    if let Some(message) = &record.status_message {
        task = task.with_status_message(message.clone());
    }
    task
}

fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(object) => object,
        _ => JsonObject::new(),
    }
}

/// A store that could not answer: an internal error quoting it.
pub(super) fn store_error(error: &super::TaskStoreError) -> ErrorData {
    ErrorData::internal_error(
        format!("the task store could not be reached: {error}"),
        None,
    )
}
