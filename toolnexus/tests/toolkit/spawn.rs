//! `Toolkit::spawn`: a call as a task, its status, result, cancellation and answers.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use toolnexus::serde_json::{Value, json};
use toolnexus::task::{AnswerError, TaskStatus};
use toolnexus::{
    Answer, Reason, Request, ToolContext, ToolResult, Toolkit, define_tool, pending, tool, tools,
};

/// Publishes a report.
#[tool(approval = "Publish {name}?")]
async fn publish(name: String) -> String {
    format!("published {name}")
}

/// Counts to `n`, reporting each step.
#[tool]
async fn count(n: u32, ctx: &ToolContext) -> String {
    for i in 1..=n {
        ctx.report_progress(f64::from(i), Some(f64::from(n)), None);
        tokio::task::yield_now().await;
    }
    format!("counted to {n}")
}

fn toolkit() -> Toolkit {
    Toolkit::new().with_all(tools![publish, count])
}

/// Waits until the task asks, and returns its question.
async fn question(task: &mut toolnexus::task::TaskHandle) -> Request {
    loop {
        let now = task.changed().await;
        if now.status == TaskStatus::InputRequired {
            return now
                .request
                .expect("an input_required task has its question");
        }
        assert!(!now.status.is_terminal(), "ended without asking: {now:?}");
    }
}

#[tokio::test]
async fn a_task_runs_to_its_result_with_progress_as_its_message() {
    let heard = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&heard);
    let ctx =
        ToolContext::default().on_progress(move |done, _, _| record.lock().unwrap().push(done));
    let task = toolkit().spawn("count", json!({"n": 3}), ctx);
    assert_eq!(task.tool(), "count");
    let result = task.result().await;
    assert_eq!(result, ToolResult::ok("counted to 3"));
    let done = task.snapshot();
    assert_eq!(done.status, TaskStatus::Completed);
    assert_eq!(done.message.as_deref(), Some("3 of 3"));
    assert_eq!(done.result, Some(result));
    // The caller's own listener still hears every step.
    assert_eq!(*heard.lock().unwrap(), [1.0, 2.0, 3.0]);
}

#[tokio::test]
async fn ids_are_128_random_bits_and_never_repeat() {
    let toolkit = toolkit();
    let ids: Vec<String> = (0..50)
        .map(|_| {
            toolkit
                .spawn("count", json!({"n": 0}), ToolContext::default())
                .id()
                .to_owned()
        })
        .collect();
    for id in &ids {
        assert_eq!(id.len(), 32, "{id}");
        assert!(
            id.chars()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()),
            "{id}"
        );
    }
    let unique: std::collections::BTreeSet<_> = ids.iter().collect();
    assert_eq!(unique.len(), ids.len());
}

#[tokio::test]
async fn a_suspension_waits_for_its_answer_which_is_used_once() {
    let mut task = toolkit().spawn("publish", json!({"name": "q3"}), ToolContext::default());
    let request = question(&mut task).await;
    assert_eq!(
        (request.kind.as_str(), request.prompt.as_str()),
        ("approval", "Publish q3?")
    );
    assert_eq!(task.status(), TaskStatus::InputRequired);

    // An answer to another question is refused, and the task still waits.
    let stray = Answer::approve(&Request::new("approval", "something else"));
    let refused = task.answer(stray.clone()).unwrap_err();
    assert_eq!(
        refused,
        AnswerError::OtherRequest {
            expected: request.id.clone(),
            got: stray.id
        }
    );
    assert_eq!(task.status(), TaskStatus::InputRequired);

    task.answer(Answer::approve(&request)).unwrap();
    let again = task.answer(Answer::approve(&request)).unwrap_err();
    assert_eq!(
        again,
        AnswerError::NotAsking {
            task: task.id().to_owned()
        }
    );
    assert!(
        again.to_string().contains("not waiting for an answer"),
        "{again}"
    );
    assert_eq!(task.result().await.output, "published q3");
    assert_eq!(task.status(), TaskStatus::Completed);
}

#[tokio::test]
async fn a_declined_answer_ends_the_task_with_the_loop_rules_words() {
    let mut task = toolkit().spawn("publish", json!({"name": "q3"}), ToolContext::default());
    let request = question(&mut task).await;
    task.answer(Answer::decline(&request, Reason::Declined))
        .unwrap();
    let result = task.result().await;
    assert!(result.is_error);
    assert_eq!(result.output, "declined/expired: Publish q3?");
    // An error result is a completed task, not a failed one.
    assert_eq!(task.status(), TaskStatus::Completed);
}

#[tokio::test]
async fn an_answer_is_checked_against_what_was_asked_before_the_tool_runs_again() {
    let runs = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&runs);
    let pick = define_tool("pick_environment", "Pick one", json!({"type": "object"}))
        .unwrap()
        .sync(move |_: Value, ctx: &ToolContext| {
            counted.fetch_add(1, Ordering::SeqCst);
            match &ctx.answer {
                Some(answer) => ToolResult::ok(format!("{:?}", answer.data)),
                None => pending(
                    Request::new("input", "Which environment?").with_data(
                        json!({"schema": {"type": "object", "properties": {
                        "env": {"type": "string", "enum": ["staging", "production"]}
                    }, "required": ["env"]}})
                        .as_object()
                        .unwrap()
                        .clone(),
                    ),
                ),
            }
        });
    let mut task =
        Toolkit::new()
            .with(pick)
            .spawn("pick_environment", json!({}), ToolContext::default());
    let request = question(&mut task).await;
    let mut moon = Answer::approve(&request);
    moon.data = Some(json!({"env": "moon"}).as_object().unwrap().clone());
    task.answer(moon).unwrap();
    let result = task.result().await;
    assert!(result.is_error);
    assert!(
        result
            .output
            .starts_with("answer to `pick_environment`: field `env`"),
        "{}",
        result.output
    );
    assert_eq!(runs.load(Ordering::SeqCst), 1, "the tool did not run again");
}

/// Sets its flag when dropped: the tool's future was dropped.
struct Dropped(Arc<AtomicBool>);

impl Drop for Dropped {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

#[tokio::test]
async fn cancel_drops_the_tools_future_and_ends_the_task_cancelled() {
    let dropped = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&dropped);
    let started = Arc::new(tokio::sync::Notify::new());
    let running = Arc::clone(&started);
    let stuck = define_tool("stuck", "Never ends", json!({"type": "object"}))
        .unwrap()
        .run(move |_: Value, _: ToolContext| {
            let guard = Dropped(Arc::clone(&flag));
            let running = Arc::clone(&running);
            async move {
                let _guard = guard;
                running.notify_one();
                std::future::pending::<String>().await
            }
        });
    let task = Toolkit::new()
        .with(stuck)
        .spawn("stuck", json!({}), ToolContext::default());
    started.notified().await;
    assert_eq!(task.status(), TaskStatus::Working);
    task.cancel();
    let result = task.result().await;
    assert_eq!(result.output, "tool `stuck` was cancelled");
    assert_eq!(task.status(), TaskStatus::Cancelled);
    assert!(
        dropped.load(Ordering::SeqCst),
        "the tool's future was dropped"
    );
    task.cancel(); // once ended, nothing happens
    assert_eq!(task.status(), TaskStatus::Cancelled);
}

#[tokio::test]
async fn a_task_waiting_for_an_answer_can_be_cancelled_and_then_refuses_answers() {
    let ctx = ToolContext::default();
    let mut task = toolkit().spawn("publish", json!({"name": "q3"}), ctx.clone());
    let request = question(&mut task).await;
    // The caller's own signal cancels the task too.
    ctx.cancel.cancel();
    assert_eq!(task.result().await.output, "tool `publish` was cancelled");
    assert_eq!(task.status(), TaskStatus::Cancelled);
    assert!(matches!(
        task.answer(Answer::approve(&request)),
        Err(AnswerError::NotAsking { .. })
    ));
}

#[tokio::test]
async fn bad_arguments_and_unknown_tools_end_as_error_results_never_panics() {
    let toolkit = toolkit();
    let bad = toolkit.spawn("count", json!({"n": "many"}), ToolContext::default());
    let result = bad.result().await;
    assert!(result.is_error);
    assert!(
        result
            .output
            .starts_with("invalid arguments for `count`: field `n`"),
        "{}",
        result.output
    );
    let unknown = toolkit.spawn("nope", json!({}), ToolContext::default());
    assert_eq!(unknown.result().await.output, "Unknown tool: nope");
    assert_eq!(unknown.status(), TaskStatus::Completed);
}

#[tokio::test]
async fn a_timeout_bounds_each_execution_not_the_wait_for_a_human() {
    let ctx = ToolContext {
        timeout: Some(Duration::from_millis(5)),
        ..Default::default()
    };
    let mut task = toolkit().spawn("publish", json!({"name": "q3"}), ctx);
    let request = question(&mut task).await;
    // Long past the timeout, the question still stands.
    tokio::time::sleep(Duration::from_millis(30)).await;
    assert_eq!(task.status(), TaskStatus::InputRequired);
    task.answer(Answer::approve(&request)).unwrap();
    assert_eq!(task.result().await.output, "published q3");
}

#[test]
fn statuses_have_their_mcp_names() {
    let all = [
        (TaskStatus::Working, "working", false),
        (TaskStatus::InputRequired, "input_required", false),
        (TaskStatus::Completed, "completed", true),
        (TaskStatus::Failed, "failed", true),
        (TaskStatus::Cancelled, "cancelled", true),
    ];
    for (status, name, terminal) in all {
        assert_eq!(status.to_string(), name);
        assert_eq!(
            toolnexus::serde_json::to_value(status).unwrap(),
            json!(name)
        );
        assert_eq!(status.is_terminal(), terminal);
    }
}
