//! Allocations per call of a synchronous `#[tool]` through a `Toolkit`: its result comes back
//! ready, never in a boxed future, whichever entry point the call takes (SPEC §9's per-call
//! budgets assume it). Allocations are counted, not timed, so the count is exact on any
//! machine. One test in its own binary: the counting allocator sees every thread's
//! allocations, so nothing may run beside it.

#[path = "../benches/counting/mod.rs"]
mod counting;

use std::pin::pin;
use std::task::{Context, Poll, Waker};

use counting::allocations;
use serde_json::json;
use toolnexus::{ToolContext, Toolkit, tool};

/// Add two integers.
#[tool]
fn add_ints(a: i64, b: i64) -> i64 {
    a.wrapping_add(b)
}

/// Add two integers, one of them at most 10.
#[tool]
fn add_capped(#[schemars(range(max = 10))] a: i64, b: i64) -> i64 {
    a.wrapping_add(b)
}

/// Polls a future to completion with a no-op waker; every tool here is ready at once.
fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
    }
}

#[test]
fn a_sync_tool_through_a_toolkit_allocates_only_its_output() {
    let toolkit = Toolkit::new().with(AddIntsTool).with(AddCappedTool);
    let ctx = ToolContext::default();
    let args = json!({"a": 2, "b": -7});
    let text = args.to_string();
    // Warm what is built once per tool (schemas, shapes) before counting.
    for name in ["add_ints", "add_capped"] {
        assert_eq!(
            block_on(toolkit.execute(name, args.clone(), &ctx)).output,
            "-5"
        );
        assert_eq!(
            block_on(toolkit.execute_json(name, &text, &ctx)).output,
            "-5"
        );
    }
    let (_, clone) = allocations(|| drop(args.clone()));
    for name in ["add_ints", "add_capped"] {
        let (result, value) = allocations(|| block_on(toolkit.execute(name, args.clone(), &ctx)));
        assert_eq!(result.output, "-5");
        // The one allocation left is the output's text, as in a hand-written floor.
        assert_eq!(value - clone, 1, "`{name}` by `Toolkit::execute`");
        let (result, from_text) = allocations(|| block_on(toolkit.execute_json(name, &text, &ctx)));
        assert_eq!(result.output, "-5");
        assert_eq!(from_text, 1, "`{name}` by `Toolkit::execute_json`");
    }
}
