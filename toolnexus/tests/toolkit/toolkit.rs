//! Toolkit: registration and lookup, `execute` and `execute_json`, and panics, which become
//! error results without disturbing the calls around them.

use crate::common;

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

/// Two tools with one name while assembling a toolkit is a bug: the second would never be
/// called. The panic names the tool and both sources, as axum does for overlapping routes.
#[test]
fn a_builder_given_a_name_it_holds_panics_naming_both() {
    let tool = |description: &'static str, source| {
        define_tool("add_todo", description, json!({"type": "object"}))
            .unwrap()
            .source(source)
            .sync(|_: Value, _: &ToolContext| "")
    };
    let (native, mcp) = (toolnexus::ToolSource::Native, toolnexus::ToolSource::Mcp);
    let expected = "toolkit already has a tool named `add_todo` (native: \"Adds a todo\"); the second one (mcp: \"Adds a todo item\") would never be called — give one of them another name";
    let with = std::panic::catch_unwind(|| {
        Toolkit::new()
            .with(tool("Adds a todo", native))
            .with(tool("Adds a todo item", mcp))
    });
    let with_all = std::panic::catch_unwind(|| {
        Toolkit::new()
            .with(tool("Adds a todo", native))
            .with_all([Arc::new(tool("Adds a todo item", mcp)) as Arc<dyn Tool>])
    });
    for outcome in [with, with_all] {
        let payload = outcome.expect_err("a duplicate name panics");
        assert_eq!(
            payload.downcast_ref::<String>().map(String::as_str),
            Some(expected)
        );
    }
}

#[test]
fn register_keeps_the_first_and_lookup_finds_tools() {
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
        .with_all([Arc::new(echo_args("echo")) as Arc<dyn Tool>]);
    // Tools that arrive at run time: the first registration wins, and `register` says so.
    assert!(!tk.register(second));
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
