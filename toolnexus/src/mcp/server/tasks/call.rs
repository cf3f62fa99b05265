//! A `tools/call` of a task-capable tool (SPEC §14): answered inline when it ends within
//! `task_after`, else with a task (`resultType: "task"`) recorded in the store first; the
//! task's changes are written to the store while it runs, under a renewed lease.

use std::sync::Arc;

use rmcp::ErrorData;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, CreateTaskResult, ErrorCode,
    ProtocolVersion,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::Value;

use super::clock::now_ms;
use super::{Lease, TaskRecord, Tasks};
use crate::mcp::server::call_tool::on_2026_07_28;
use crate::mcp::server::incoming::Arguments;
use crate::mcp::server::suspend::{Modes, Resumed};
use crate::mcp::server::{McpServer, caller, suspend};
use crate::result::ToolResult;
use crate::tool::context::ToolContext;
use crate::tool::task_support::TaskSupport;
use crate::toolkit::spawn::{TaskHandle, TaskSnapshot, TaskStatus, prepare, spawn_in, task_id};

/// How a call runs the task way: the tool's support, and the modes its client can be asked
/// in, read with the capabilities that decided it.
#[derive(Clone, Copy)]
pub(crate) struct TaskMode {
    support: TaskSupport,
    modes: Modes,
}

impl McpServer {
    /// Whether this call runs the task way, and how; for a tool that runs only as a task,
    /// called by a client that did not declare the tasks extension, `-32021` (on 2025-11-25,
    /// whose client asks for a task with `task`, that revision's `-32601`). `None` leaves the
    /// call to the inline path (a tool that is not a task, arguments it refuses, a client that
    /// cannot follow a task).
    pub(crate) fn task_mode(
        &self,
        request: &CallToolRequestParams,
        args: &Arguments,
        context: &RequestContext<RoleServer>,
    ) -> Result<Option<TaskMode>, ErrorData> {
        let support = match self.toolkit.get(&request.name) {
            Some(tool) => tool.task_support(),
            None => return Ok(None),
        };
        if support == TaskSupport::Forbidden || matches!(args, Arguments::Text(_)) {
            return Ok(None);
        }
        let capabilities = context.client_capabilities();
        // The extension is 2026-07-28's: an older session never gets its task shapes, even
        // from a client that lists it.
        let declared = capabilities
            .as_ref()
            .is_some_and(ClientCapabilities::supports_tasks)
            && on_2026_07_28(context);
        match (declared, support) {
            (true, _) => {
                let elicitation = capabilities.and_then(|capabilities| capabilities.elicitation);
                let modes = Modes::of(elicitation.as_ref());
                Ok(Some(TaskMode { support, modes }))
            }
            // 2025-11-25's own rule for a tool that must run as a task, called without `task`.
            (false, TaskSupport::Required)
                if context.protocol_version() == Some(ProtocolVersion::V_2025_11_25) =>
            {
                Err(ErrorData::new(
                    ErrorCode::METHOD_NOT_FOUND,
                    format!(
                        "tool `{}` runs only as a task: call it with `task` (2025-11-25's tasks)",
                        request.name
                    ),
                    None,
                ))
            }
            (false, TaskSupport::Required) => {
                let mut refused = ErrorData::missing_required_client_capability(
                    ClientCapabilities::builder().enable_tasks().build(),
                );
                refused.message = format!(
                    "tool `{}` runs only as a task: the client must declare the 2026-07-28 extension `{}`",
                    request.name,
                    rmcp::model::TASKS_EXTENSION_ID
                )
                .into();
                Err(refused)
            }
            (false, _) => Ok(None),
        }
    }

    /// Runs the call as a task: `Required` ones are recorded before they run, `Optional`
    /// ones only once they outlast `task_after`. An `Optional` one that asks within
    /// `task_after` is asked inline, as any call is (an `InputRequiredResult`), and the retry
    /// that answers it may become the task: SEP-2663's input rounds, then a task.
    pub(crate) async fn call_as_task(
        &self,
        request: CallToolRequestParams,
        args: Value,
        TaskMode { support, modes }: TaskMode,
        resumed: Option<Resumed>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResponse {
        let name: &str = &request.name;
        let mut ctx = ToolContext {
            timeout: self.call_timeout,
            ..caller::context_of(&context)
        };
        // A retry, its state opened (SPEC §10B): the §10 loop rule goes on in the task (a
        // second question is `unresolved: <prompt>`).
        let resumed = match resumed {
            Some(Resumed { answer, prompt }) if !answer.ok => {
                let declined = ToolResult::error(format!("declined/expired: {prompt}"));
                return self.complete(name, &declined);
            }
            Some(Resumed { answer, prompt }) => {
                ctx.answer = Some(answer);
                Some(prompt)
            }
            None => None,
        };
        let id = task_id();
        // The owner's digests only for a call that becomes a task.
        let record = |snapshot: &TaskSnapshot| {
            let owner = suspend::owner_of(&context);
            self.tasks.record(&id, &owner, name, snapshot)
        };
        if support == TaskSupport::Required {
            let first = record(&TaskSnapshot::working());
            if let Err(refused) = self.tasks.create(&first).await {
                return self.complete(name, &refused);
            }
            let toolkit = Arc::clone(&self.toolkit);
            let handle = spawn_in(toolkit, id, name, args, ctx, resumed);
            return self.tasks.follow(handle, first).into();
        }
        // A question before the task begins is put inline (the retry that answers one asks
        // no more); the arguments are kept for its sealed state only when it can be.
        let kept = (resumed.is_none() && (modes.form || modes.url)).then(|| args.clone());
        // Polled here, in the request, while it ends within `task_after` and does not ask;
        // handed to the runtime as a task only when it outlasts that. The client's own
        // cancellation stops it as any call's does.
        let (mut handle, mut work) = prepare(
            Arc::clone(&self.toolkit),
            id.clone(),
            name,
            args,
            ctx,
            resumed,
        );
        let window = tokio::time::sleep(self.tasks.after);
        tokio::pin!(window);
        let asked = loop {
            tokio::select! {
                () = &mut work => return self.complete(name, &handle.result().await),
                snapshot = handle.changed() => {
                    if snapshot.status == TaskStatus::InputRequired {
                        break snapshot.request;
                    }
                }
                () = &mut window => break None,
                () = context.ct.cancelled() => {
                    handle.cancel();
                    work.await;
                    return self.complete(name, &handle.result().await);
                }
            }
        };
        if let (Some(asked), Some(args)) = (asked, kept) {
            if let Some(elicitation) = suspend::elicitation(&asked, modes) {
                // The tool's run has ended on its question; what waits for the answer goes.
                drop(work);
                let question = self
                    .seal
                    .input_required(name, &args, &asked, elicitation, &context);
                return question.into();
            }
        }
        tokio::spawn(work);
        let first = record(&handle.snapshot());
        if self.tasks.create(&first).await.is_err() {
            // No room for another task: the call goes on inline rather than be dropped.
            let done = tokio::select! {
                result = handle.result() => result,
                () = context.ct.cancelled() => {
                    handle.cancel();
                    handle.result().await
                }
            };
            return self.complete(name, &done);
        }
        self.tasks.follow(handle, first).into()
    }
}

impl TaskSnapshot {
    pub(super) fn working() -> Self {
        Self {
            status: TaskStatus::Working,
            message: None,
            request: None,
            result: None,
        }
    }
}

impl Tasks {
    /// The record of task `id` as `snapshot` shows it, leased to this process.
    pub(super) fn record(
        &self,
        id: &str,
        owner: &str,
        tool: &str,
        snapshot: &TaskSnapshot,
    ) -> TaskRecord {
        let now = now_ms();
        let lease = Lease {
            holder: self.holder.to_string(),
            expires_at_ms: now + millis(self.lease),
        };
        let mut record = TaskRecord::new(id, owner, tool, now, millis(self.ttl), lease);
        apply(&mut record, snapshot);
        record
    }

    /// Records a new task: the `isError` result a call gets instead when there is no room
    /// or the store cannot be written (the tool does not run, or goes on inline).
    pub(super) async fn create(&self, record: &TaskRecord) -> Result<(), ToolResult> {
        let refused =
            |why: String| ToolResult::error(format!("tool `{}` did not run: {why}", record.tool));
        match self.store.create(record, self.max).await {
            Ok(true) => Ok(()),
            Ok(false) => Err(refused(format!(
                "this server already runs its limit of {} tasks; try again once one has ended",
                self.max
            ))),
            Err(error) => Err(refused(format!("the task could not be recorded ({error})"))),
        }
    }

    /// Registers `handle` as running here, writes each of its changes to the store (and
    /// renews its lease) until it ends, and returns the create result for `first`.
    pub(super) fn follow(&self, mut handle: TaskHandle, first: TaskRecord) -> CreateTaskResult {
        let created = CreateTaskResult::new(super::methods::task_of(&first));
        self.running.insert(handle.clone());
        let tasks = self.clone();
        let fixed = Fixed::of(first);
        tokio::spawn(async move {
            let mut renew = tokio::time::interval(tasks.lease / 3);
            renew.tick().await;
            loop {
                // Scoped and boxed, so that neither the snapshot nor the record takes room in
                // this future, which lives as long as the task.
                let (record, ended) = {
                    let snapshot = tokio::select! {
                        snapshot = handle.changed() => snapshot,
                        _ = renew.tick() => handle.snapshot(),
                    };
                    let ended = snapshot.status.is_terminal();
                    let now = now_ms();
                    let lease = (!ended).then(|| Lease {
                        holder: tasks.holder.to_string(),
                        expires_at_ms: now + millis(tasks.lease),
                    });
                    (Box::new(fixed.record(&snapshot, now, lease)), ended)
                };
                // Refused: the task ended elsewhere (reported lost) or was forgotten, so it
                // stops here too. A store out of reach: the lease lapses, and the task is
                // reported failed by whoever reads it next.
                let kept = tasks.store.put(&record).await;
                if ended || !matches!(kept, Ok(true)) {
                    if !ended {
                        handle.cancel();
                    }
                    tasks.running.remove(handle.id());
                    return;
                }
            }
        });
        created
    }
}

/// What a running task's record keeps between writes: the fields that never change. The rest
/// is the handle's snapshot, so the follower holds no second copy of the record (about 500
/// bytes a task) beside the store's.
struct Fixed {
    id: String,
    owner: String,
    tool: String,
    created_at_ms: u64,
    ttl_ms: u64,
}

impl Fixed {
    fn of(record: TaskRecord) -> Self {
        Self {
            id: record.id,
            owner: record.owner,
            tool: record.tool,
            created_at_ms: record.created_at_ms,
            ttl_ms: record.ttl_ms,
        }
    }

    /// The record as `snapshot` shows the task at `now_ms`, under `lease` while it runs.
    fn record(&self, snapshot: &TaskSnapshot, now_ms: u64, lease: Option<Lease>) -> TaskRecord {
        let mut record = TaskRecord {
            id: self.id.clone(),
            owner: self.owner.clone(),
            tool: self.tool.clone(),
            status: snapshot.status,
            status_message: None,
            result: None,
            error: None,
            request: None,
            created_at_ms: self.created_at_ms,
            updated_at_ms: now_ms,
            ttl_ms: self.ttl_ms,
            lease,
        };
        apply(&mut record, snapshot);
        record
    }
}

/// `record` updated to what `snapshot` shows.
fn apply(record: &mut TaskRecord, snapshot: &TaskSnapshot) {
    record.status = snapshot.status;
    record.status_message.clone_from(&snapshot.message);
    record.request.clone_from(&snapshot.request);
    record.result.clone_from(&snapshot.result);
}

fn millis(duration: std::time::Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}
