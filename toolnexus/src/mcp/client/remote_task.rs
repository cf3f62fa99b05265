//! A remote call the server answered with a task (SPEC §14, the 2026-07-28 tasks extension):
//! polled with `tasks/get` until it ends, inside the call's deadline and cancellation (either
//! sends `tasks/cancel`); `input_required` becomes a §10 suspension whose answer goes back
//! with `tasks/update`; a dropped connection resumes polling the same task after reconnecting.

use std::time::Duration;

use rmcp::model::{CancelTaskParams, GetTaskParams, UpdateTaskParams};
use rmcp::service::{Peer, RoleClient, ServiceError};
use serde_json::Value;

use super::Unconnected;
use super::convert::tool_result;
use super::remote::{RemoteTool, plain};
use crate::result::ToolResult;

/// The poll interval when the server suggests none, and the bounds on what it suggests.
const POLL: Duration = Duration::from_millis(500);
const FASTEST: Duration = Duration::from_millis(10);
const SLOWEST: Duration = Duration::from_secs(5);

/// How many times polling reconnects before the call gives up.
const RECONNECTS: u32 = 3;

/// Sends `tasks/cancel` for its task when dropped before the task ended or asked: the
/// caller's deadline or cancellation dropped the call.
struct CancelOnDrop {
    peer: Peer<RoleClient>,
    task: Option<String>,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(task) = self.task.take() else {
            return;
        };
        let peer = self.peer.clone();
        // Sending is async and drop is not: a task of its own, where a runtime runs.
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let _ = peer.cancel_task(CancelTaskParams::new(task)).await;
            });
        }
    }
}

impl RemoteTool {
    /// Sends the answer to task `task`'s question (`responses`, keyed as it asked), then
    /// follows the task on.
    pub(super) async fn answer_task(
        &self,
        peer: Peer<RoleClient>,
        task: String,
        responses: rmcp::model::InputResponses,
    ) -> ToolResult {
        match peer
            .update_task(UpdateTaskParams::new(task.clone(), responses))
            .await
        {
            Ok(()) => self.follow(peer, task, None).await,
            Err(ServiceError::McpError(error)) => self.failed(&format!(
                "refused the answer to its task {task}: {}",
                error.message
            )),
            Err(error) => self.failed(&plain(&error)),
        }
    }

    /// Polls task `task` until it ends (its result), asks (a §10 suspension) or fails.
    pub(super) async fn follow(
        &self,
        mut peer: Peer<RoleClient>,
        task: String,
        interval: Option<u64>,
    ) -> ToolResult {
        // A new task is first asked about after the interval its server suggested; a task
        // just answered, or found again after a reconnect, at once.
        let mut wait = interval.map(|ms| pace(Some(ms)));
        let mut guard = CancelOnDrop {
            peer: peer.clone(),
            task: Some(task.clone()),
        };
        let mut reconnects = 0;
        loop {
            if let Some(wait) = wait.take() {
                tokio::time::sleep(wait).await;
            }
            match peer.get_task(GetTaskParams::new(task.clone())).await {
                Ok(now) => {
                    let wire = serde_json::to_value(&now).unwrap_or(Value::Null);
                    let ended = |guard: &mut CancelOnDrop| guard.task = None;
                    match wire["status"].as_str() {
                        Some("completed") => {
                            ended(&mut guard);
                            return tool_result(&self.shared.name, &wire["result"]);
                        }
                        Some("failed") => {
                            ended(&mut guard);
                            let why = wire["error"]["message"]
                                .as_str()
                                .unwrap_or("no reason given");
                            return self.failed(&format!("failed its task {task}: {why}"));
                        }
                        Some("cancelled") => {
                            ended(&mut guard);
                            return self.failed(&format!("cancelled its task {task}"));
                        }
                        Some("input_required") => {
                            // The task waits for the answer: it is not cancelled here.
                            ended(&mut guard);
                            return self.suspend(&wire, Some(&task));
                        }
                        _ => wait = Some(pace(wire["pollIntervalMs"].as_u64())),
                    }
                }
                Err(ServiceError::McpError(error)) => {
                    guard.task = None;
                    return self.failed(&format!(
                        "could not report its task {task}: {}",
                        error.message
                    ));
                }
                Err(error) if reconnects >= RECONNECTS => return self.failed(&plain(&error)),
                Err(_) => {
                    // The connection dropped: reconnect and ask about the same task.
                    reconnects += 1;
                    self.shared.broken(&peer).await;
                    match self.shared.peer().await {
                        Ok((again, _)) => {
                            peer = again;
                            guard.peer = peer.clone();
                        }
                        // A reconnect that needs a sign-in first asks for it, as a new call does.
                        Err(Unconnected {
                            sign_in: Some(login),
                            ..
                        }) => return self.login(login),
                        Err(Unconnected { why, .. }) => return ToolResult::error(why),
                    }
                }
            }
        }
    }
}

/// The wait between two polls: the server's `pollIntervalMs`, within bounds.
fn pace(suggested: Option<u64>) -> Duration {
    suggested
        .map_or(POLL, Duration::from_millis)
        .clamp(FASTEST, SLOWEST)
}
