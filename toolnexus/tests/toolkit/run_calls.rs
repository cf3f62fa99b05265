//! `Toolkit::run_calls`: a turn's calls at once, results in call order, each with its own
//! deadline, panics and suspensions kept to their call.

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolnexus::{
    Request, ToolCall, ToolContext, ToolResult, Toolkit, define_tool, pending, pending_of,
};

use common::block_on;

fn call(id: &str, name: &str, arguments: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: arguments.into(),
    }
}

/// Sleeps `{"ms": …}` milliseconds, then answers with its `tag`; counts how many run at once.
fn sleeper(in_flight: Arc<AtomicUsize>, most: Arc<AtomicUsize>) -> toolnexus::FnTool {
    define_tool("sleep", "Sleep", json!({"type": "object"}))
        .unwrap()
        .run(move |args: Value, _: ToolContext| {
            let (in_flight, most) = (in_flight.clone(), most.clone());
            async move {
                let now = in_flight.fetch_add(1, Ordering::SeqCst) + 1;
                most.fetch_max(now, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(args["ms"].as_u64().unwrap_or(0))).await;
                in_flight.fetch_sub(1, Ordering::SeqCst);
                args["tag"].as_str().unwrap_or_default().to_owned()
            }
        })
}

fn toolkit() -> (Toolkit, Arc<AtomicUsize>) {
    let most = Arc::new(AtomicUsize::new(0));
    let tool = sleeper(Arc::new(AtomicUsize::new(0)), most.clone());
    let panics = define_tool("boom", "Panics", json!({"type": "object"}))
        .unwrap()
        .sync(|_: Value, _: &ToolContext| -> String { panic!("kaboom") });
    let asks = define_tool("deploy", "Asks first", json!({"type": "object"}))
        .unwrap()
        .sync(|_: Value, _: &ToolContext| pending(Request::new("approval", "Deploy?")));
    (Toolkit::new().with(tool).with(panics).with(asks), most)
}

fn sleeps(count: usize, ms: u64) -> Vec<ToolCall> {
    (0..count)
        .map(|i| {
            let args = json!({"ms": ms, "tag": format!("t{i}")}).to_string();
            call(&format!("c{i}"), "sleep", &args)
        })
        .collect()
}

/// Three calls of a 100 ms tool take about 100 ms, not 300: compared with the same calls run
/// one after the other in the same test, so a loaded machine slows both alike.
#[test]
fn three_slow_calls_take_about_as_long_as_one() {
    let (tk, _) = toolkit();
    let calls = sleeps(3, 100);
    let ctx = ToolContext::default();
    block_on(async {
        let started = Instant::now();
        for call in &calls {
            tk.execute_json(&call.name, &call.arguments, &ctx).await;
        }
        let sequential = started.elapsed();
        let started = Instant::now();
        let results = tk.run_calls(&calls, &ctx).await;
        let concurrent = started.elapsed();
        eprintln!("sequential {sequential:?}, concurrent {concurrent:?}");
        let outputs: Vec<_> = results.iter().map(|r| r.output.as_str()).collect();
        assert_eq!(outputs, ["t0", "t1", "t2"]);
        assert!(
            concurrent.as_secs_f64() < 0.6 * sequential.as_secs_f64(),
            "concurrent {concurrent:?} vs sequential {sequential:?}"
        );
    });
}

/// `with_max_concurrency(n)` never has more than `n` calls running; `1` is one at a time.
#[test]
fn max_concurrency_bounds_the_calls_in_flight() {
    for (bound, expected) in [(None, 4), (Some(2), 2), (Some(1), 1), (Some(0), 1)] {
        let (tk, most) = toolkit();
        let tk = match bound {
            Some(n) => tk.with_max_concurrency(n),
            None => tk,
        };
        // Later calls are shorter, so they would finish first if they ran out of turn.
        let calls: Vec<_> = (0..4)
            .map(|i| {
                let args = json!({"ms": 40 - 10 * i, "tag": format!("t{i}")}).to_string();
                call(&format!("c{i}"), "sleep", &args)
            })
            .collect();
        let results = block_on(tk.run_calls(&calls, &ToolContext::default()));
        let outputs: Vec<_> = results.iter().map(|r| r.output.as_str()).collect();
        assert_eq!(outputs, ["t0", "t1", "t2", "t3"], "{bound:?}");
        assert_eq!(most.load(Ordering::SeqCst), expected, "{bound:?}");
    }
}

/// A panic, an unknown tool, bad arguments and a suspension each stay with their own call.
#[test]
fn every_outcome_stays_with_its_call() {
    let (tk, _) = toolkit();
    let calls = [
        call("a", "boom", "{}"),
        call("b", "sleep", r#"{"ms": 5, "tag": "slept"}"#),
        call("c", "nope", "{}"),
        call("d", "deploy", ""),
        call("e", "sleep", "{\"ms\":"),
    ];
    let results = block_on(tk.run_calls(&calls, &ToolContext::default()));
    assert_eq!(results[0].output, "tool `boom` panicked: kaboom");
    assert_eq!(results[1], ToolResult::ok("slept"));
    assert_eq!(results[2].output, "Unknown tool: nope");
    assert_eq!(pending_of(&results[3]).unwrap().prompt, "Deploy?");
    assert!(results[4].is_error);
    assert_eq!(results.len(), calls.len());
}

/// Each call has the context's timeout to itself, counted from when it starts, and
/// cancelling the context stops every call still running.
#[test]
fn each_call_has_its_own_deadline_and_the_cancel_signal() {
    let (tk, _) = toolkit();
    let tk = tk.with_max_concurrency(1);
    let ctx = ToolContext {
        timeout: Some(Duration::from_millis(400)),
        ..Default::default()
    };
    // One at a time, 3 × 150 ms is past the timeout in total but not for any one call.
    let results = block_on(tk.run_calls(&sleeps(3, 150), &ctx));
    assert!(results.iter().all(|r| !r.is_error), "{results:?}");
    let slow = [
        call("s", "sleep", r#"{"ms": 5000}"#),
        call("f", "sleep", r#"{"ms": 1, "tag": "fast"}"#),
    ];
    let ctx = ToolContext {
        timeout: Some(Duration::from_millis(50)),
        ..Default::default()
    };
    let results = block_on(tk.with_max_concurrency(2).run_calls(&slow, &ctx));
    assert_eq!(results[0].output, "tool `sleep` timed out after 50ms");
    assert_eq!(results[1].output, "fast");

    let (tk, _) = toolkit();
    let ctx = ToolContext::default();
    let cancel = ctx.cancel.clone();
    let calls = sleeps(2, 5000);
    let results = block_on(async {
        let (results, ()) = tokio::join!(tk.run_calls(&calls, &ctx), async {
            tokio::time::sleep(Duration::from_millis(20)).await;
            cancel.cancel();
        });
        results
    });
    for result in results {
        assert_eq!(result.output, "tool `sleep` was cancelled");
    }
}

/// A turn can be spawned on a multi-threaded runtime: `run_calls`'s future is `Send`.
#[test]
fn a_turn_runs_as_a_spawned_task() {
    let (tk, _) = toolkit();
    let tk = Arc::new(tk);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let results = runtime.block_on(async move {
        let task = tokio::spawn(async move {
            let calls = sleeps(2, 5);
            tk.run_calls(&calls, &ToolContext::default()).await
        });
        task.await.unwrap()
    });
    let outputs: Vec<_> = results.iter().map(|r| r.output.as_str()).collect();
    assert_eq!(outputs, ["t0", "t1"]);
}
