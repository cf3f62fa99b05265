//! Toolkit: registration and lookup, `execute` and `execute_json`, and panics, which become
//! error results without disturbing the calls around them.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Map, Value, json};
use toolnexus::{BoxFuture, Tool, ToolContext, ToolResult, Toolkit, define_tool};

use common::{add_tool, block_on};

fn echo_args(name: &str) -> toolnexus::FnTool {
    define_tool(name, "Echo the arguments", json!({"type": "object"}))
        .unwrap()
        .sync(|args: Value, _: &ToolContext| args.to_string())
}

#[test]
fn first_registration_wins_and_lookup_finds_tools() {
    let first = define_tool("dup", "first", json!({"type": "object"}))
        .unwrap()
        .sync(|_: Value, _: &ToolContext| "first");
    let second: Arc<dyn Tool> = Arc::new(
        define_tool("dup", "second", json!({"type": "object"}))
            .unwrap()
            .sync(|_: Value, _: &ToolContext| "second"),
    );
    let mut tk = Toolkit::new()
        .with(first)
        .with(add_tool())
        .with_all([second, Arc::new(echo_args("echo")) as Arc<dyn Tool>]);
    assert!(!tk.register(Arc::new(add_tool())));
    let names: Vec<&str> = tk.tools().iter().map(|tool| tool.name()).collect();
    assert_eq!(names, ["dup", "add", "echo"]);
    assert_eq!(tk.len(), 3);
    assert!(!tk.is_empty());
    assert_eq!(tk.get("dup").unwrap().description(), "first");
    assert!(tk.get("missing").is_none());
    assert_eq!(format!("{tk:?}"), r#"["dup", "add", "echo"]"#);

    let ctx = ToolContext::default();
    block_on(async {
        assert_eq!(tk.execute("dup", json!({}), &ctx).await.output, "first");
        assert_eq!(
            tk.execute("add", json!({"a": 1, "b": 2}), &ctx)
                .await
                .output,
            "3"
        );
    });
}

#[test]
fn unknown_tool_is_an_error_result() {
    let tk = Toolkit::new().with(add_tool());
    let ctx = ToolContext::default();
    block_on(async {
        let result = tk.execute("sub", json!({}), &ctx).await;
        assert_eq!(result, ToolResult::error("Unknown tool: sub"));
        let result = tk.execute_json("sub", "not json", &ctx).await;
        assert_eq!(result, ToolResult::error("Unknown tool: sub"));
    });
}

#[test]
fn execute_json_reads_raw_model_arguments() {
    let tk = Toolkit::new().with(add_tool()).with(echo_args("echo"));
    let ctx = ToolContext::default();
    block_on(async {
        assert_eq!(
            tk.execute_json("add", r#"{"a":1.5,"b":2}"#, &ctx)
                .await
                .output,
            "3.5"
        );
        for blank in ["", "   ", "\n\t "] {
            let result = tk.execute_json("echo", blank, &ctx).await;
            assert_eq!(result, ToolResult::ok("{}"), "for {blank:?}");
        }
        let result = tk.execute_json("echo", r#"{"a": 1"#, &ctx).await;
        assert!(result.is_error);
        assert!(
            result
                .output
                .starts_with("invalid arguments for `echo`: EOF while parsing an object"),
            "{}",
            result.output
        );
    });
}

/// A tool whose `execute` panics before it even returns a future.
struct PanicsSynchronously;

impl Tool for PanicsSynchronously {
    fn name(&self) -> &str {
        "sync_boom"
    }
    fn description(&self) -> &str {
        "Panics while building its future"
    }
    fn input_schema(&self) -> &Map<String, Value> {
        static SCHEMA: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
        SCHEMA.get_or_init(|| {
            let mut schema = Map::new();
            schema.insert("type".into(), "object".into());
            schema
        })
    }
    fn execute<'a>(&'a self, _args: Value, _ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        panic!("no future for you")
    }
}

fn mid_await_panicker() -> toolnexus::FnTool {
    define_tool(
        "boom",
        "Panics after a yield point",
        json!({"type": "object"}),
    )
    .unwrap()
    .run(|args: Value, _ctx: ToolContext| async move {
        tokio::task::yield_now().await;
        match args["payload"].as_str() {
            Some("str") => panic!("static message"),
            Some("none") => std::panic::panic_any(42_u8),
            _ => panic!("call {} failed", args["n"]),
        }
        #[allow(unreachable_code)]
        ToolResult::ok("unreachable")
    })
}

fn slow_echo(counter: Arc<AtomicUsize>) -> toolnexus::FnTool {
    define_tool(
        "slow_echo",
        "Echoes n after yielding",
        json!({"type": "object"}),
    )
    .unwrap()
    .run(move |args: Value, _ctx: ToolContext| {
        let counter = Arc::clone(&counter);
        async move {
            tokio::task::yield_now().await;
            counter.fetch_add(1, Ordering::Relaxed);
            tokio::task::yield_now().await;
            args["n"].to_string()
        }
    })
}

#[test]
fn panic_while_building_the_future_becomes_an_error() {
    let tk = Toolkit::new().with(PanicsSynchronously).with(add_tool());
    let ctx = ToolContext::default();
    block_on(async {
        let result = tk.execute("sync_boom", json!({}), &ctx).await;
        assert_eq!(
            result,
            ToolResult::error("tool `sync_boom` panicked: no future for you")
        );
        assert_eq!(
            tk.execute("add", json!({"a": 1, "b": 1}), &ctx)
                .await
                .output,
            "2"
        );
    });
}

#[test]
fn panic_messages_cover_str_string_and_other_payloads() {
    let tk = Toolkit::new().with(mid_await_panicker());
    let ctx = ToolContext::default();
    block_on(async {
        let cases = [
            (json!({"payload": "str"}), "static message"),
            (json!({"n": 7}), "call 7 failed"),
            (
                json!({"payload": "none"}),
                "the panic payload is not a string",
            ),
        ];
        for (args, message) in cases {
            let result = tk.execute("boom", args, &ctx).await;
            assert!(result.is_error);
            assert_eq!(result.output, format!("tool `boom` panicked: {message}"));
        }
    });
}

#[test]
fn a_panic_mid_await_among_a_thousand_calls_leaves_every_other_call_intact() {
    let counter = Arc::new(AtomicUsize::new(0));
    let tk = Arc::new(
        Toolkit::new()
            .with(mid_await_panicker())
            .with(slow_echo(Arc::clone(&counter))),
    );
    // One thread, so the panicking future is interleaved with the others at every yield.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let results = runtime.block_on(async {
        let mut handles = Vec::new();
        for n in 0..1_001_u32 {
            let tk = Arc::clone(&tk);
            handles.push(tokio::spawn(async move {
                let ctx = ToolContext::default();
                // Call 500 panics; the 1,000 around it must not notice.
                let name = if n == 500 { "boom" } else { "slow_echo" };
                (n, tk.execute(name, json!({"n": n}), &ctx).await)
            }));
        }
        let mut results = Vec::new();
        for handle in handles {
            results.push(handle.await.expect("no task panicked"));
        }
        results
    });
    for (n, result) in results {
        if n == 500 {
            assert_eq!(
                result,
                ToolResult::error("tool `boom` panicked: call 500 failed")
            );
        } else {
            assert_eq!(result, ToolResult::ok(n.to_string()));
        }
    }
    assert_eq!(counter.load(Ordering::Relaxed), 1_000);
    // And the toolkit still works afterwards.
    let again = runtime.block_on(tk.execute("slow_echo", json!({"n": 1}), &ToolContext::default()));
    assert_eq!(again.output, "1");
}
