//! The §10 loop rule: `Toolkit::call` and `call_with` run a tool, ask once when it suspends,
//! run it once more with the answer, and turn a refusal or a second suspension into an error.

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Map, Value, json};
use toolnexus::{Answer, Reason, Request, ToolContext, ToolResult, Toolkit, define_tool, pending};

use common::block_on;

/// Suspends until answered; with an answer, reports what it got.
fn deploy_tool(executions: Arc<AtomicUsize>, suspend_twice: bool) -> toolnexus::FnTool {
    define_tool(
        "deploy",
        "Deploys after approval",
        json!({"type": "object"}),
    )
    .unwrap()
    .sync(move |args: Value, ctx: &ToolContext| {
        executions.fetch_add(1, Ordering::Relaxed);
        if args["skip_approval"] == true {
            return ToolResult::ok("deployed without asking");
        }
        match &ctx.answer {
            Some(answer) if !suspend_twice => ToolResult::ok(format!(
                "deployed {} with {} (timeout {:?})",
                args["service"],
                answer
                    .data
                    .as_ref()
                    .map_or(Value::Null, |d| d["by"].clone()),
                ctx.timeout
            )),
            Some(_) => pending(Request::new("approval", "Really, really deploy?")),
            None => pending(
                Request::new("approval", "Deploy to production?")
                    .with_id("pnd-fixed")
                    .with_url("https://ci.example/approve"),
            ),
        }
    })
}

fn answer(ok: bool, reason: Option<Reason>) -> impl FnOnce(Request) -> std::future::Ready<Answer> {
    move |request: Request| {
        let mut data = Map::new();
        data.insert("by".into(), "alice".into());
        std::future::ready(Answer {
            id: request.id,
            ok,
            data: Some(data),
            reason,
        })
    }
}

#[test]
fn call_re_executes_once_with_the_answer() {
    let executions = Arc::new(AtomicUsize::new(0));
    let tk = Toolkit::new().with(deploy_tool(Arc::clone(&executions), false));
    block_on(async {
        let seen = Arc::new(std::sync::Mutex::new(None));
        let seen_in = Arc::clone(&seen);
        let result = tk
            .call(
                "deploy",
                json!({"service": "api"}),
                |request: Request| async move {
                    tokio::task::yield_now().await;
                    *seen_in.lock().unwrap() = Some(request.clone());
                    answer(true, None)(request).await
                },
            )
            .await;
        assert_eq!(
            result,
            ToolResult::ok(r#"deployed "api" with "alice" (timeout None)"#)
        );
        let request = seen.lock().unwrap().clone().unwrap();
        assert_eq!(request.id, "pnd-fixed");
        assert_eq!(request.url.as_deref(), Some("https://ci.example/approve"));
    });
    assert_eq!(executions.load(Ordering::Relaxed), 2);
}

#[test]
fn call_with_keeps_the_callers_context() {
    let tk = Toolkit::new().with(deploy_tool(Arc::new(AtomicUsize::new(0)), false));
    let ctx = ToolContext {
        timeout: Some(Duration::from_secs(5)),
        ..ToolContext::default()
    };
    let result =
        block_on(tk.call_with("deploy", json!({"service": "db"}), &ctx, answer(true, None)));
    assert_eq!(
        result.output,
        r#"deployed "db" with "alice" (timeout Some(5s))"#
    );
}

#[test]
fn call_without_a_suspension_never_asks() {
    let executions = Arc::new(AtomicUsize::new(0));
    let tk = Toolkit::new().with(deploy_tool(Arc::clone(&executions), false));
    let result = block_on(tk.call(
        "deploy",
        json!({"skip_approval": true}),
        |_: Request| async { unreachable!("wait_for must not be called") },
    ));
    assert_eq!(result, ToolResult::ok("deployed without asking"));
    assert_eq!(executions.load(Ordering::Relaxed), 1);
    let unknown = block_on(tk.call("nope", json!({}), answer(true, None)));
    assert_eq!(unknown, ToolResult::error("Unknown tool: nope"));
}

#[test]
fn call_reports_any_refusal_as_declined_expired_whatever_the_reason() {
    let cases = [
        Some(Reason::Declined),
        None,
        Some(Reason::Expired),
        Some(Reason::Cancelled),
    ];
    // SPEC §10: one literal wording whatever the reason, as the Python port's client.py
    // (0.21.0) prints it.
    let expected = "declined/expired: Deploy to production?";
    for reason in cases {
        let executions = Arc::new(AtomicUsize::new(0));
        let tk = Toolkit::new().with(deploy_tool(Arc::clone(&executions), false));
        let result = block_on(tk.call("deploy", json!({}), answer(false, reason)));
        assert_eq!(result, ToolResult::error(expected));
        assert!(!result.is_pending());
        assert_eq!(executions.load(Ordering::Relaxed), 1, "no re-execution");
    }
}

#[test]
fn call_gives_up_when_the_tool_suspends_again() {
    let executions = Arc::new(AtomicUsize::new(0));
    let tk = Toolkit::new().with(deploy_tool(Arc::clone(&executions), true));
    let result = block_on(tk.call("deploy", json!({}), answer(true, None)));
    assert_eq!(
        result,
        ToolResult::error("unresolved: Deploy to production?")
    );
    assert!(!result.is_pending());
    assert_eq!(executions.load(Ordering::Relaxed), 2);
}
