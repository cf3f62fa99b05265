//! `ToolContext::report_progress` outside MCP (SPEC §8C): `on_progress` receives every
//! increasing report of a sync and an async `#[tool]`, through a `Toolkit` call with a
//! deadline and its panic guard.

use crate::common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use toolnexus::{ToolContext, Toolkit, tool, tools};

use common::block_on;

/// Counts to `n`, reporting each step (and each step twice).
#[tool]
fn count(n: u32, ctx: &ToolContext) -> u32 {
    for step in 0..=n {
        ctx.report_progress(f64::from(step), Some(f64::from(n)), None);
        ctx.report_progress(f64::from(step), Some(f64::from(n)), Some("again"));
    }
    n
}

/// Counts to `n` slowly.
#[tool]
async fn count_slowly(n: u32, ctx: ToolContext) -> u32 {
    for step in 0..=n {
        ctx.report_progress(f64::from(step), None, Some("step"));
        tokio::task::yield_now().await;
    }
    n
}

type Seen = Arc<Mutex<Vec<(f64, Option<f64>, Option<String>)>>>;

fn listening() -> (ToolContext, Seen) {
    let seen = Seen::default();
    let record = Arc::clone(&seen);
    let ctx = ToolContext {
        timeout: Some(Duration::from_secs(30)),
        ..ToolContext::default()
    }
    .on_progress(move |progress, total, message| {
        record
            .lock()
            .unwrap()
            .push((progress, total, message.map(str::to_owned)));
    });
    (ctx, seen)
}

#[test]
fn a_sync_and_an_async_tool_report_through_a_toolkit() {
    let toolkit = Toolkit::new().with_all(tools![count, count_slowly]);
    let (ctx, seen) = listening();
    let result = block_on(toolkit.execute_json("count", r#"{"n": 3}"#, &ctx));
    assert_eq!(result.output, "3");
    let expected: Vec<_> = (0..=3)
        .map(|step| (f64::from(step), Some(3.0), None))
        .collect();
    assert_eq!(*seen.lock().unwrap(), expected);

    let (ctx, seen) = listening();
    let result = block_on(toolkit.execute_json("count_slowly", r#"{"n": 2}"#, &ctx));
    assert_eq!(result.output, "2");
    let step = Some("step".to_owned());
    assert_eq!(
        *seen.lock().unwrap(),
        [
            (0.0, None, step.clone()),
            (1.0, None, step.clone()),
            (2.0, None, step)
        ]
    );
}

#[test]
fn a_panicking_listener_is_caught_by_the_toolkit() {
    let toolkit = Toolkit::new().with_all(tools![count]);
    let ctx = ToolContext::default().on_progress(|_, _, _| panic!("no bar to draw"));
    let result = block_on(toolkit.execute_json("count", r#"{"n": 1}"#, &ctx));
    assert!(result.is_error);
    assert_eq!(result.output, "tool `count` panicked: no bar to draw");
    // The panic poisoned nothing: the next call reports (and panics) again rather than hang.
    let result = block_on(toolkit.execute_json("count", r#"{"n": 1}"#, &ctx));
    assert_eq!(result.output, "tool `count` panicked: no bar to draw");
}
