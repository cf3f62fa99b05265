//! Deadlines and cancellation (SPEC §8): `Toolkit::execute`, `execute_json` and `call_with`
//! resolve at `ctx.timeout` and as soon as `ctx.cancel` fires, dropping the tool's future; the
//! panic guard keeps working; no async runtime is needed for any of it.
//!
//! Timing margins are generous (the machine may be loaded): tools that must be interrupted
//! never finish on their own, so resolving at all proves the interruption.

use std::future::{Future, pending};
use std::pin::pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolnexus::context::CancelSignal;
use toolnexus::{
    Answer, Request, ToolContext, ToolResult, Toolkit, define_tool, pending as suspend,
};

/// Sets its flag when dropped: shows that the toolkit dropped the tool's future.
struct NoticeDrop(Arc<AtomicBool>);

impl Drop for NoticeDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

fn no_params() -> Value {
    json!({"type": "object", "properties": {}})
}

/// `stuck` never finishes and records when its future is dropped; `quick` answers at once;
/// `counted` counts its runs; `late_panic` panics after its first `Pending`.
struct Fixture {
    toolkit: Toolkit,
    dropped: Arc<AtomicBool>,
    runs: Arc<AtomicUsize>,
}

fn fixture() -> Fixture {
    let dropped = Arc::new(AtomicBool::new(false));
    let runs = Arc::new(AtomicUsize::new(0));
    let flag = Arc::clone(&dropped);
    let stuck = define_tool("stuck", "Never finishes", no_params())
        .unwrap()
        .run(move |_: Value, _: ToolContext| {
            let notice = NoticeDrop(Arc::clone(&flag));
            async move {
                let _notice = notice;
                pending::<String>().await
            }
        });
    let quick = define_tool("quick", "Answers at once", no_params())
        .unwrap()
        .sync(|_: Value, _: &ToolContext| "done");
    let counter = Arc::clone(&runs);
    let counted = define_tool("counted", "Counts its runs", no_params())
        .unwrap()
        .sync(move |_: Value, _: &ToolContext| counter.fetch_add(1, Ordering::SeqCst));
    let late_panic = define_tool("late_panic", "Panics on its second poll", no_params())
        .unwrap()
        .run(|_: Value, _: ToolContext| async {
            yield_once().await;
            if true {
                panic!("late");
            }
            "unreachable"
        });
    Fixture {
        toolkit: Toolkit::new()
            .with(stuck)
            .with(quick)
            .with(counted)
            .with(late_panic),
        dropped,
        runs,
    }
}

/// Returns `Pending` once (waking itself), then `Ready`.
async fn yield_once() {
    let mut yielded = false;
    std::future::poll_fn(|cx| {
        if yielded {
            Poll::Ready(())
        } else {
            yielded = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    })
    .await;
}

fn with_timeout(timeout: Duration) -> ToolContext {
    ToolContext {
        timeout: Some(timeout),
        ..ToolContext::default()
    }
}

/// Polls `future` on this thread, parking between polls: no async runtime at all. Gives up
/// (failing the test) if nothing wakes it for 30 s.
fn block_on<F: Future>(future: F) -> F::Output {
    struct Unpark(Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = Waker::from(Arc::new(Unpark(thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut future = pin!(future);
    let give_up = Instant::now() + Duration::from_secs(30);
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
        assert!(Instant::now() < give_up, "the future was never woken");
        thread::park_timeout(Duration::from_secs(1));
    }
}

/// Cancels `signal` from another thread after `delay`.
fn cancel_after(signal: &CancelSignal, delay: Duration) -> thread::JoinHandle<()> {
    let signal = signal.clone();
    thread::spawn(move || {
        thread::sleep(delay);
        signal.cancel();
    })
}

#[test]
fn a_tool_that_never_finishes_times_out_and_is_dropped() {
    let Fixture {
        toolkit, dropped, ..
    } = fixture();
    let ctx = with_timeout(Duration::from_millis(50));
    let result = block_on(toolkit.execute("stuck", json!({}), &ctx));
    assert_eq!(
        result,
        ToolResult::error("tool `stuck` timed out after 50ms")
    );
    assert!(
        dropped.load(Ordering::SeqCst),
        "the tool's future was dropped"
    );
}

#[test]
fn execute_json_times_out_the_same_way() {
    let Fixture {
        toolkit, dropped, ..
    } = fixture();
    let ctx = with_timeout(Duration::from_micros(1500));
    let result = block_on(toolkit.execute_json("stuck", "{}", &ctx));
    assert_eq!(
        result,
        ToolResult::error("tool `stuck` timed out after 1.5ms")
    );
    assert!(dropped.load(Ordering::SeqCst));
}

#[test]
fn cancelling_resolves_the_call_at_once_and_drops_the_tool() {
    // The case: a 50 ms timeout, cancelled at 20 ms. Cancellation wins because it
    // comes first; the tool never finishes, so resolving at all proves the interruption.
    let Fixture {
        toolkit, dropped, ..
    } = fixture();
    let ctx = with_timeout(Duration::from_secs(3600));
    let canceller = cancel_after(&ctx.cancel, Duration::from_millis(20));
    let result = block_on(toolkit.execute("stuck", json!({}), &ctx));
    assert_eq!(result, ToolResult::error("tool `stuck` was cancelled"));
    assert!(dropped.load(Ordering::SeqCst));
    canceller.join().unwrap();
}

#[tokio::test]
async fn the_reported_case_resolves_before_the_tool_would_finish() {
    // A tool sleeping 300 ms, a 50 ms timeout, the signal fired at 20 ms: the call is an
    // error (cancelled, or timed out if this machine is slow to run the canceller) and the
    // tool's sleep never completes.
    let finished = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&finished);
    let sleepy = define_tool("sleepy", "Sleeps 300 ms", no_params())
        .unwrap()
        .run(move |_: Value, _: ToolContext| {
            let flag = Arc::clone(&flag);
            async move {
                tokio::time::sleep(Duration::from_millis(300)).await;
                flag.store(true, Ordering::SeqCst);
                "slept"
            }
        });
    let toolkit = Toolkit::new().with(sleepy);
    let ctx = with_timeout(Duration::from_millis(50));
    let canceller = cancel_after(&ctx.cancel, Duration::from_millis(20));
    let result = toolkit.execute("sleepy", json!({}), &ctx).await;
    assert!(result.is_error, "{result:?}");
    assert!(
        [
            "tool `sleepy` was cancelled",
            "tool `sleepy` timed out after 50ms"
        ]
        .contains(&result.output.as_str()),
        "{result:?}"
    );
    assert!(!finished.load(Ordering::SeqCst));
    canceller.join().unwrap();
}

#[tokio::test]
async fn deadlines_work_on_tokio_too() {
    let Fixture {
        toolkit, dropped, ..
    } = fixture();
    let ctx = with_timeout(Duration::from_millis(30));
    let result = toolkit.execute("stuck", json!({}), &ctx).await;
    assert_eq!(result.output, "tool `stuck` timed out after 30ms");
    assert!(dropped.load(Ordering::SeqCst));

    let ctx = ToolContext::default();
    let signal = ctx.cancel.clone();
    let canceller = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(20)).await;
        signal.cancel();
    });
    let result = toolkit.execute("stuck", json!({}), &ctx).await;
    assert_eq!(result.output, "tool `stuck` was cancelled");
    canceller.await.unwrap();
}

#[test]
fn an_already_cancelled_call_or_a_zero_timeout_never_runs_the_tool() {
    let Fixture { toolkit, runs, .. } = fixture();
    let cancelled = ToolContext::default();
    cancelled.cancel.cancel();
    assert_eq!(
        block_on(toolkit.execute("counted", json!({}), &cancelled)),
        ToolResult::error("tool `counted` was cancelled")
    );
    assert_eq!(
        block_on(toolkit.execute("counted", json!({}), &with_timeout(Duration::ZERO))),
        ToolResult::error("tool `counted` timed out after 0ms")
    );
    assert_eq!(runs.load(Ordering::SeqCst), 0);
    // An unknown name is still unknown, cancelled or not.
    assert_eq!(
        block_on(toolkit.execute("nope", json!({}), &cancelled)).output,
        "Unknown tool: nope"
    );
}

#[test]
fn a_tool_that_finishes_in_time_is_untouched() {
    let Fixture { toolkit, .. } = fixture();
    let ctx = with_timeout(Duration::from_secs(3600));
    assert_eq!(
        block_on(toolkit.execute("quick", json!({}), &ctx)),
        ToolResult::ok("done")
    );
}

#[test]
fn a_panic_is_still_a_result_with_limits_set() {
    let Fixture { toolkit, .. } = fixture();
    let ctx = with_timeout(Duration::from_secs(3600));
    assert_eq!(
        block_on(toolkit.execute("late_panic", json!({}), &ctx)),
        ToolResult::error("tool `late_panic` panicked: late")
    );
}

#[test]
fn a_panic_while_dropping_the_stopped_tool_is_swallowed() {
    struct PanicOnDrop;
    impl Drop for PanicOnDrop {
        fn drop(&mut self) {
            panic!("drop panic");
        }
    }
    let tool = define_tool("messy", "Panics when dropped", no_params())
        .unwrap()
        .run(|_: Value, _: ToolContext| async {
            let _messy = PanicOnDrop;
            pending::<String>().await
        });
    let toolkit = Toolkit::new().with(tool);
    let ctx = with_timeout(Duration::from_millis(10));
    assert_eq!(
        block_on(toolkit.execute("messy", json!({}), &ctx)).output,
        "tool `messy` timed out after 10ms"
    );
}

fn deploy_toolkit() -> Toolkit {
    let deploy = define_tool("deploy", "Deploy", no_params()).unwrap().sync(
        |_: Value, ctx: &ToolContext| match &ctx.answer {
            Some(answer) if answer.ok => ToolResult::ok("deployed"),
            _ => suspend(Request::new("approval", "Deploy to production?")),
        },
    );
    Toolkit::new().with(deploy)
}

fn approve(request: Request) -> Answer {
    Answer {
        id: request.id,
        ok: true,
        data: None,
        reason: None,
    }
}

#[tokio::test]
async fn in_call_the_timeout_covers_each_execution_not_the_human() {
    let toolkit = deploy_toolkit();
    // The human takes longer than the timeout; each execution is instant.
    let ctx = with_timeout(Duration::from_millis(200));
    let result = toolkit
        .call_with("deploy", json!({}), &ctx, |request| async move {
            tokio::time::sleep(Duration::from_millis(400)).await;
            approve(request)
        })
        .await;
    assert_eq!(result, ToolResult::ok("deployed"));
}

#[tokio::test]
async fn in_call_cancelling_stops_the_wait_for_the_human() {
    let toolkit = deploy_toolkit();
    let ctx = ToolContext::default();
    let waiting_dropped = Arc::new(AtomicBool::new(false));
    let notice = NoticeDrop(Arc::clone(&waiting_dropped));
    let signal = ctx.cancel.clone();
    let result = toolkit
        .call_with("deploy", json!({}), &ctx, |request| async move {
            let _notice = notice;
            signal.cancel();
            // The human never answers; only the cancellation can end this call.
            pending::<()>().await;
            approve(request)
        })
        .await;
    assert_eq!(result, ToolResult::error("tool `deploy` was cancelled"));
    assert!(waiting_dropped.load(Ordering::SeqCst));
}

#[tokio::test]
async fn a_tool_can_await_its_own_cancel_signal() {
    let tool = define_tool("polite", "Stops when asked", no_params())
        .unwrap()
        .run(|_: Value, ctx: ToolContext| async move {
            ctx.cancel.cancelled().await;
            "stopped politely"
        });
    let ctx = ToolContext::default();
    let signal = ctx.cancel.clone();
    let waiting = tokio::spawn(async move { tool_result(tool, ctx).await });
    tokio::time::sleep(Duration::from_millis(10)).await;
    signal.cancel();
    // Called directly (not through a toolkit), the tool decides how to stop.
    assert_eq!(waiting.await.unwrap().output, "stopped politely");
}

async fn tool_result(tool: toolnexus::FnTool, ctx: ToolContext) -> ToolResult {
    use toolnexus::Tool;
    tool.execute(json!({}), &ctx).await
}
