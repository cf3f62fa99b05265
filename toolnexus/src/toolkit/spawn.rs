//! [`Toolkit::spawn`]: a call that outlives its caller's wait, as a task with an id, a status,
//! a result to await, a cancel switch and a way to answer its suspension (SPEC §14).

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::{oneshot, watch};

use crate::result::ToolResult;
use crate::result::suspend::{Answer, Request};
use crate::tool::context::ToolContext;
use crate::tool::progress::Progress;
use crate::toolkit::Toolkit;

/// Where a task is in its life (SPEC §14), with the MCP wire names (`"working"`,
/// `"input_required"`, `"completed"`, `"failed"`, `"cancelled"`).
///
/// `working` → `input_required` (a §10 suspension waits for an [`Answer`]) → `working` → one
/// of the three terminal states. A tool that answered with an error result is `completed`:
/// `failed` is kept for what would have been a protocol error, and for a task whose server
/// went away while running it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// Running.
    Working,
    /// Suspended until its [`Request`] is answered ([`TaskHandle::answer`]).
    InputRequired,
    /// Ended with a result (an `is_error` one included).
    Completed,
    /// Ended without a result: what would have been a JSON-RPC error, or lost with its server.
    Failed,
    /// Stopped by [`TaskHandle::cancel`]; the tool's future was dropped.
    Cancelled,
}

impl TaskStatus {
    /// Whether the task has ended (`completed`, `failed` or `cancelled`).
    pub fn is_terminal(self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::Cancelled)
    }

    /// The MCP wire name: `"working"`, `"input_required"`, ….
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Working => "working",
            Self::InputRequired => "input_required",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
        }
    }
}

impl fmt::Display for TaskStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a task looks like at one moment: [`TaskHandle::snapshot`].
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct TaskSnapshot {
    /// Its status.
    pub status: TaskStatus,
    /// The last progress message ([`ToolContext::report_progress`]): its message, else
    /// `"<progress> of <total>"` (or `"<progress>"`). MCP sends it as `statusMessage`.
    pub message: Option<String>,
    /// The question it waits on, while `input_required`.
    pub request: Option<Request>,
    /// Its result, once `completed` or `cancelled`.
    pub result: Option<ToolResult>,
}

/// Why [`TaskHandle::answer`] refused an answer. Nothing reached the tool.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum AnswerError {
    /// The task is not waiting for an answer (it runs, it ended, or this question was
    /// answered already: an answer is used once).
    NotAsking {
        /// The task's id.
        task: String,
    },
    /// The answer is to another question than the one the task asks.
    OtherRequest {
        /// The id of the request the task waits on.
        expected: String,
        /// The id the answer carried.
        got: String,
    },
}

impl fmt::Display for AnswerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotAsking { task } => write!(
                f,
                "task {task} is not waiting for an answer (it is running, ended, or was answered already)"
            ),
            Self::OtherRequest { expected, got } => write!(
                f,
                "the answer is to request `{got}`, but the task waits on request `{expected}`"
            ),
        }
    }
}

impl std::error::Error for AnswerError {}

/// A call running as a task, from [`Toolkit::spawn`]. Clones watch the same task.
///
/// ```
/// use toolnexus::serde_json::json;
/// use toolnexus::{Answer, ToolContext, Toolkit, tool, tools};
/// use toolnexus::task::TaskStatus;
///
/// /// Publishes a report.
/// #[tool(approval = "Publish {name}?")]
/// async fn publish(name: String) -> String {
///     format!("published {name}")
/// }
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let toolkit = Toolkit::new().with_all(tools![publish]);
/// let mut task = toolkit.spawn("publish", json!({"name": "q3"}), ToolContext::default());
/// assert_eq!(task.id().len(), 32); // 128 random bits, in hex
///
/// // The approval gate suspends the task until someone answers.
/// let asked = task.changed().await;
/// assert_eq!(asked.status, TaskStatus::InputRequired);
/// let request = asked.request.unwrap();
/// assert_eq!(request.prompt, "Publish q3?");
/// task.answer(Answer::approve(&request)).unwrap();
/// assert!(task.answer(Answer::approve(&request)).is_err(), "an answer is used once");
///
/// assert_eq!(task.result().await.output, "published q3");
/// assert_eq!(task.status(), TaskStatus::Completed);
/// # });
/// ```
#[derive(Clone)]
pub struct TaskHandle {
    shared: Arc<Shared>,
    seen: watch::Receiver<TaskSnapshot>,
}

struct Shared {
    id: String,
    tool: String,
    state: watch::Sender<TaskSnapshot>,
    cancel: crate::tool::cancel::CancelSignal,
    /// The request waiting for an answer and where its answer goes; taken by the first
    /// answer, so a second one is refused.
    waiting: Mutex<Option<(String, oneshot::Sender<Answer>)>>,
}

impl fmt::Debug for TaskHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskHandle")
            .field("id", &self.shared.id)
            .field("tool", &self.shared.tool)
            .field("status", &self.status())
            .finish()
    }
}

impl TaskHandle {
    /// The task's id: 128 random bits as 32 lowercase hex digits, never guessable.
    pub fn id(&self) -> &str {
        &self.shared.id
    }

    /// The name of the tool it runs.
    pub fn tool(&self) -> &str {
        &self.shared.tool
    }

    /// Its status now.
    pub fn status(&self) -> TaskStatus {
        self.shared.state.borrow().status
    }

    /// Everything about it now: status, progress message, question, result.
    pub fn snapshot(&self) -> TaskSnapshot {
        self.shared.state.borrow().clone()
    }

    /// Waits for the next change this handle has not seen and returns the task as it is
    /// then; once the task has ended, returns at once. For code that mirrors a task
    /// elsewhere (the MCP server writes each change to its `TaskStore`).
    pub async fn changed(&mut self) -> TaskSnapshot {
        let unseen = self.seen.has_changed().unwrap_or(true);
        if !unseen && !self.seen.borrow().status.is_terminal() {
            // The sender lives in `shared`, which this handle holds: the wait cannot fail.
            let _ = self.seen.changed().await;
        }
        self.seen.borrow_and_update().clone()
    }

    /// Waits for the task to end and returns its result: the tool's result (the §10 loop
    /// rule applied: a second suspension is `unresolved: <prompt>`, a refused answer
    /// `declined/expired: <prompt>`), or ``tool `NAME` was cancelled``. A task waiting for an
    /// answer keeps waiting until it is answered or cancelled.
    pub async fn result(&self) -> ToolResult {
        let mut seen = self.shared.state.subscribe();
        let ended = seen
            .wait_for(|task| task.status.is_terminal())
            .await
            .map(|task| task.result.clone());
        // The sender lives in `shared`: the wait only ends at a terminal status.
        ended.ok().flatten().unwrap_or_else(|| {
            ToolResult::error(format!(
                "tool `{}` ended without a result",
                self.shared.tool
            ))
        })
    }

    /// Cancels the task: its context's [`cancel`](ToolContext::cancel) signal fires, the
    /// tool's future is dropped, and it ends `cancelled`. Does nothing once it has ended.
    pub fn cancel(&self) {
        self.shared.cancel.cancel();
    }

    /// Answers the question the task waits on (`input_required`). The answer is checked as
    /// SPEC §10B says before the tool runs again (a refused answer ends the task with
    /// ``answer to `NAME`: …``), and is used once: a second answer, or one while the task is
    /// not asking, is refused with [`AnswerError`].
    pub fn answer(&self, answer: Answer) -> Result<(), AnswerError> {
        let mut waiting = self
            .shared
            .waiting
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let Some((expected, _)) = waiting.as_ref() else {
            return Err(AnswerError::NotAsking {
                task: self.shared.id.clone(),
            });
        };
        if *expected != answer.id {
            return Err(AnswerError::OtherRequest {
                expected: expected.clone(),
                got: answer.id,
            });
        }
        let (_, sender) = waiting.take().expect("seen above");
        self.shared.state.send_modify(|task| {
            task.status = TaskStatus::Working;
            task.request = None;
        });
        // The task holds the receiver until it ends; ended means cancelled meanwhile.
        let _ = sender.send(answer);
        Ok(())
    }
}

impl Toolkit {
    /// Runs `name` as a task on the current tokio runtime (SPEC §14) and returns at once
    /// with its [`TaskHandle`]: for work that takes longer than anyone should wait on one
    /// call. The MCP server's tasks are built on it.
    ///
    /// The call runs as [`call_with`](Self::call_with) runs it — `ctx`'s timeout bounds each
    /// execution, its layers, state and visibility apply — except that a suspension (SPEC §10)
    /// makes the task `input_required` until [`TaskHandle::answer`] answers it, however long
    /// that takes. [`ToolContext::report_progress`] still reaches `ctx`'s own listener and
    /// also becomes the task's [`message`](TaskSnapshot::message). [`TaskHandle::cancel`]
    /// fires `ctx.cancel`, so cancelling either ends the task `cancelled` and drops the
    /// tool's future.
    ///
    /// The toolkit is cloned into the task (a clone shares its tools, schemas and state).
    ///
    /// # Panics
    ///
    /// Outside a tokio runtime, as `tokio::spawn` does.
    ///
    /// ```
    /// use toolnexus::serde_json::json;
    /// use toolnexus::{ToolContext, Toolkit, tool, tools};
    /// use toolnexus::task::TaskStatus;
    ///
    /// /// Counts to `n`, slowly.
    /// #[tool]
    /// async fn count(n: u32, ctx: &ToolContext) -> String {
    ///     for i in 1..=n {
    ///         ctx.report_progress(f64::from(i), Some(f64::from(n)), None);
    ///     }
    ///     format!("counted to {n}")
    /// }
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let toolkit = Toolkit::new().with_all(tools![count]);
    /// let task = toolkit.spawn("count", json!({"n": 3}), ToolContext::default());
    /// assert_eq!(task.result().await.output, "counted to 3");
    /// let done = task.snapshot();
    /// assert_eq!((done.status, done.message.as_deref()), (TaskStatus::Completed, Some("3 of 3")));
    /// # });
    /// ```
    pub fn spawn(&self, name: &str, args: Value, ctx: ToolContext) -> TaskHandle {
        spawn_in(Arc::new(self.clone()), task_id(), name, args, ctx, None)
    }
}

/// [`Toolkit::spawn`] on a toolkit already shared (the MCP server's), without a clone of it,
/// under an id chosen first (the server records the task before it runs).
pub(crate) fn spawn_in(
    toolkit: Arc<Toolkit>,
    id: String,
    name: &str,
    args: Value,
    ctx: ToolContext,
    resumed: Option<String>,
) -> TaskHandle {
    let (handle, work) = prepare(toolkit, id, name, args, ctx, resumed);
    tokio::spawn(work);
    handle
}

/// The work of a task (boxed: its caller may poll it in place for a while and then hand it
/// to `tokio::spawn` as it is, a pointer rather than a large future) and its handle. Nothing
/// runs until the work is polled.
///
/// `resumed` is the prompt of a question already answered before the task began (`ctx.answer`
/// holds the answer: a 2026-07-28 retry that becomes a task): the tool then runs once, and
/// the §10 loop rule makes a second suspension `unresolved: <prompt>`.
pub(crate) fn prepare(
    toolkit: Arc<Toolkit>,
    id: String,
    name: &str,
    args: Value,
    mut ctx: ToolContext,
    resumed: Option<String>,
) -> (TaskHandle, crate::tool::future::BoxFuture<'static, ()>) {
    let (state, seen) = watch::channel(TaskSnapshot {
        status: TaskStatus::Working,
        message: None,
        request: None,
        result: None,
    });
    let shared = Arc::new(Shared {
        id,
        tool: name.to_owned(),
        state,
        cancel: ctx.cancel.clone(),
        waiting: Mutex::new(None),
    });
    ctx.progress = progress_into(Arc::clone(&shared), ctx.progress.clone());
    let running = Arc::clone(&shared);
    let work = Box::pin(async move {
        let result = match resumed {
            None => {
                let asking = Arc::clone(&running);
                let wait_for = move |request: Request| ask(asking, request);
                toolkit.call_with(&running.tool, args, &ctx, wait_for).await
            }
            Some(prompt) => {
                let second = toolkit.execute(&running.tool, args, &ctx).await;
                if second.is_pending() {
                    ToolResult::error(format!("unresolved: {prompt}"))
                } else {
                    second
                }
            }
        };
        let status = if ctx.cancel.is_cancelled() {
            TaskStatus::Cancelled
        } else {
            TaskStatus::Completed
        };
        // A late answer is refused rather than sent to a task that no longer asks.
        running
            .waiting
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        running.state.send_modify(|task| {
            task.status = status;
            task.request = None;
            task.result = Some(result);
        });
    });
    (TaskHandle { shared, seen }, work)
}

/// The suspension's wait: the task is `input_required` until [`TaskHandle::answer`] sends.
async fn ask(shared: Arc<Shared>, request: Request) -> Answer {
    let (sender, answered) = oneshot::channel();
    *shared
        .waiting
        .lock()
        .unwrap_or_else(PoisonError::into_inner) = Some((request.id.clone(), sender));
    shared.state.send_modify(|task| {
        task.status = TaskStatus::InputRequired;
        task.request = Some(request.clone());
    });
    match answered.await {
        Ok(answer) => answer,
        // `shared` holds the sender until an answer takes it: never reached, and a
        // cancellation drops this future before it could be.
        Err(_) => Answer::decline(&request, crate::result::suspend::Reason::Cancelled),
    }
}

/// `previous` (the caller's own listener) and the task's message, both told of each report.
fn progress_into(shared: Arc<Shared>, previous: Progress) -> Progress {
    Progress::new(move |progress, total, message| {
        previous.report(progress, total, message);
        let text = match (message, total) {
            (Some(message), _) => message.to_owned(),
            (None, Some(total)) => format!("{progress} of {total}"),
            (None, None) => progress.to_string(),
        };
        shared
            .state
            .send_modify(|task| task.message = Some(text.clone()));
    })
}

/// 128 random bits as 32 lowercase hex digits.
pub(crate) fn task_id() -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut bytes = [0_u8; 16];
    getrandom::fill(&mut bytes).expect("the OS random source for a task id");
    // By table, not `format!` per byte: this is on every task-capable call's path.
    let mut id = String::with_capacity(32);
    for byte in bytes {
        id.push(char::from(DIGITS[usize::from(byte >> 4)]));
        id.push(char::from(DIGITS[usize::from(byte & 0xf)]));
    }
    id
}
