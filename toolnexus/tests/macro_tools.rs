//! `#[tool]` tools through the toolkit: the schemas the macro really emits pass the same
//! provider profile checks as the hand-written ones in `adapters.rs`, and the tools run.
//!
//! Runtime tests otherwise build their tools with `define_tool`; these reuse the profile
//! checkers in `common/`, which the root package's tests cannot reach.

mod common;

use std::cell::Cell;
use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use serde::Deserialize;
use serde_json::json;
use toolnexus::{JsonSchema, Tool, ToolContext, ToolResult, Toolkit, tool, tools};

use common::block_on;
use common::profile_checks::{check_gemini, check_strict, depth};

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Unit {
    Celsius,
    Fahrenheit,
}

#[derive(Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Shape {
    Circle { radius: f64 },
    Square { side: f64 },
}

#[derive(Deserialize, JsonSchema)]
struct Region {
    country: String,
    city: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
struct Node {
    name: String,
    children: Vec<Node>,
}

/// Forecast for a place.
#[tool]
fn forecast(
    region: Region,
    unit: Option<Unit>,
    #[param(default = 3)] days: u8,
    shape: Option<Shape>,
) -> String {
    let unit = match unit {
        Some(Unit::Celsius) | None => "C",
        Some(Unit::Fahrenheit) => "F",
    };
    let area = match shape {
        Some(Shape::Circle { radius }) => radius * radius * 3.0,
        Some(Shape::Square { side }) => side * side,
        None => 0.0,
    };
    format!("{} {:?} {days} {unit} {area}", region.country, region.city)
}

/// Lists a tree's node names, depth first.
#[tool]
fn node_names(tree: Node) -> String {
    fn walk(node: &Node, names: &mut Vec<String>) {
        names.push(node.name.clone());
        node.children.iter().for_each(|child| walk(child, names));
    }
    let mut names = Vec::new();
    walk(&tree, &mut names);
    names.join(",")
}

/// Panics after yielding once.
#[tool]
async fn explode(after: u32) -> String {
    tokio::task::yield_now().await;
    panic!("exploded after {after}")
}

fn toolkit() -> Toolkit {
    Toolkit::new().with_all(tools![forecast, node_names, explode])
}

#[test]
fn macro_schemas_pass_every_profile_check() {
    let tk = toolkit();
    let strict = tk.to_openai_strict();
    let gemini = tk.to_gemini();
    for (at, tool) in tk.tools().iter().enumerate() {
        let portable = serde_json::Value::Object(tool.input_schema().clone());
        check_strict(
            tool.name(),
            &portable,
            &strict[at]["function"]["parameters"],
        );
        let lowered = &gemini[0]["functionDeclarations"][at]["parameters"];
        check_gemini(tool.name(), lowered);
        assert!(!lowered.to_string().contains("$ref"), "{}", tool.name());
    }
    // The argument itself, three unrolled levels, then the cut: a list that must stay empty.
    let tree = &gemini[0]["functionDeclarations"][1]["parameters"]["properties"]["tree"];
    assert_eq!(depth(tree), toolnexus::GEMINI_RECURSION_DEPTH + 2);
    let cut = "/properties/children/items".repeat(toolnexus::GEMINI_RECURSION_DEPTH);
    assert_eq!(
        tree.pointer(&format!("{cut}/properties/children")),
        Some(&json!({"type": "array", "maxItems": 0, "items": {}}))
    );
}

#[test]
fn macro_tools_run_through_the_toolkit() {
    let tk = toolkit();
    let ctx = ToolContext::default();
    block_on(async {
        let result = tk
            .execute_json(
                "forecast",
                r#"{"region":{"country":"FR"},"unit":"fahrenheit"}"#,
                &ctx,
            )
            .await;
        assert_eq!(result.output, "FR None 3 F 0");
        let result = tk.execute_json("forecast", "", &ctx).await;
        assert!(result.is_error);
        assert!(
            result
                .output
                .starts_with("invalid arguments for `forecast`: "),
            "{}",
            result.output
        );
        let result = tk
            .execute(
                "node_names",
                json!({"tree": {"name": "a", "children": [{"name": "b", "children": []}]}}),
                &ctx,
            )
            .await;
        assert_eq!(result.output, "a,b");
        let result = tk.execute("explode", json!({"after": 1}), &ctx).await;
        assert_eq!(result.output, "tool `explode` panicked: exploded after 1");
        assert!(result.is_error);
    });
}

thread_local! {
    static TICKS: Cell<u32> = const { Cell::new(0) };
}

/// Counts its calls on this thread; panics on `0`.
#[tool]
fn tick(by: u32) -> u32 {
    if by == 0 {
        panic!("no tick of zero");
    }
    TICKS.with(|ticks| ticks.replace(ticks.get() + by) + by)
}

fn poll_once<F: Future>(future: F) -> Poll<F::Output> {
    pin!(future).poll(&mut Context::from_waker(Waker::noop()))
}

#[test]
fn a_sync_tool_runs_at_the_first_poll_and_is_ready_there() {
    let tk = Toolkit::new().with_all(tools![tick]);
    let ctx = ToolContext::default();
    TICKS.with(|ticks| ticks.set(0));
    // Nothing runs until the call is polled; dropped unpolled, it never runs.
    drop(tk.execute_json("tick", r#"{"by": 1}"#, &ctx));
    drop(tk.execute("tick", json!({"by": 1}), &ctx));
    assert_eq!(TICKS.with(Cell::get), 0);
    let Poll::Ready(result) = poll_once(tk.execute_json("tick", r#"{"by": 2}"#, &ctx)) else {
        panic!("a sync tool's call is ready at its first poll");
    };
    assert_eq!(result, ToolResult::ok("2"));
    assert_eq!(
        poll_once(tk.execute_json("tick", r#"{"by": 0}"#, &ctx)),
        Poll::Ready(ToolResult::error("tool `tick` panicked: no tick of zero"))
    );
    // A cancelled call never runs the fn, ready or not.
    let cancelled = ToolContext::default();
    cancelled.cancel.cancel();
    let result = block_on(tk.execute_json("tick", r#"{"by": 5}"#, &cancelled));
    assert_eq!(result, ToolResult::error("tool `tick` was cancelled"));
    assert_eq!(TICKS.with(Cell::get), 2);
    // `Tool::execute` still hands back a future, ready at its first poll.
    assert_eq!(
        poll_once(TickTool.execute(json!({"by": 3}), &ctx)),
        Poll::Ready(ToolResult::ok("5"))
    );
}
