//! `#[tool]`, `#[toolbox]` and `tools![]` behaviour through real macro-generated tools: the
//! name and description, argument decoding, context injection, toolboxes, and when a call
//! runs. What each return type becomes is in `tool_return_types.rs`.

use crate::common;

use std::cell::Cell;
use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll, Waker};

use serde_json::{Value, json};
use toolnexus::{Answer, Tool, ToolContext, ToolResult, Toolkit, tool, toolbox, tools};

async fn run(tool: &dyn Tool, args: Value) -> ToolResult {
    tool.execute(args, &ToolContext::default()).await
}

thread_local! {
    // Per test thread: tests run in parallel and several of them call `get_weather`.
    static CALLS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Current weather for a city.
///
/// Use it before suggesting clothes.
///
/// # Examples
///
/// Not part of the description.
#[tool]
async fn get_weather(
    city: String,
    unit: Option<String>,
    #[param(default = 3)] days: u8,
    #[param(default = "metric")] system: String,
) -> String {
    CALLS.set(CALLS.get() + 1);
    format!(
        "{city} {} {days} {system}",
        unit.as_deref().unwrap_or("celsius")
    )
}

#[tokio::test]
async fn name_description_and_the_fn_itself() {
    assert_eq!(GetWeatherTool::NAME, "get_weather");
    assert_eq!(
        GetWeatherTool::DESCRIPTION,
        "Current weather for a city.\n\nUse it before suggesting clothes."
    );
    assert_eq!(GetWeatherTool.name(), GetWeatherTool::NAME);
    assert_eq!(GetWeatherTool.description(), GetWeatherTool::DESCRIPTION);
    assert_eq!(GetWeatherTool.source(), toolnexus::ToolSource::Native);
    // The fn stays callable exactly as written.
    assert_eq!(
        get_weather("Oslo".into(), None, 1, "si".into()).await,
        "Oslo celsius 1 si"
    );
}

#[tokio::test]
async fn decoding_absent_null_and_defaults() {
    let weather = |args| run(&GetWeatherTool, args);
    assert_eq!(
        weather(json!({"city": "Paris"})).await.output,
        "Paris celsius 3 metric"
    );
    assert_eq!(
        weather(json!({"city": "Paris", "unit": null, "days": null, "system": null}))
            .await
            .output,
        "Paris celsius 3 metric"
    );
    assert_eq!(
        weather(json!({"city": "Paris", "unit": "kelvin", "days": 5, "system": "imperial"}))
            .await
            .output,
        "Paris kelvin 5 imperial"
    );
}

#[tokio::test]
async fn bad_arguments_never_reach_the_fn() {
    let before = CALLS.get();
    let cases = [
        (json!(null), "missing field `city`"),
        (json!([1, 2]), "expected a JSON object, found an array"),
        (json!("Paris"), "expected a JSON object, found a string"),
        (json!(7), "expected a JSON object, found a number"),
        (json!(true), "expected a JSON object, found a boolean"),
        (json!({}), "missing field `city`"),
        (
            json!({"city": null}),
            "field `city`: invalid type: null, expected a string",
        ),
        (
            json!({"city": 1}),
            "field `city`: invalid type: integer `1`, expected a string",
        ),
        (
            json!({"city": "x", "days": 300}),
            "field `days`: invalid value: integer `300`, expected u8",
        ),
        (
            json!({"city": "x", "days": "3"}),
            "field `days`: invalid type: string \"3\", expected u8",
        ),
        (
            json!({"city": "x", "unit": 5}),
            "field `unit`: invalid type: integer `5`, expected a string",
        ),
        (
            json!({"city": "x", "country": "FR"}),
            "unknown field `country`, expected one of `city`, `unit`, `days`, `system`",
        ),
    ];
    for (args, detail) in cases {
        let result = run(&GetWeatherTool, args.clone()).await;
        assert!(result.is_error, "{args}");
        assert_eq!(
            result.output,
            format!("invalid arguments for `get_weather`: {detail}"),
            "{args}"
        );
    }
    assert_eq!(CALLS.get(), before, "the fn ran on bad input");
}

/// Reports what the context carried.
#[tool]
fn context_first(ctx: &ToolContext, label: String) -> String {
    let answer = ctx
        .answer
        .as_ref()
        .map_or("none".to_owned(), |a| a.id.clone());
    format!("{label}: {answer} cancelled={}", ctx.cancel.is_cancelled())
}

/// Takes the context by value, last.
#[tool]
async fn context_owned(label: String, ctx: ToolContext) -> String {
    format!("{label}: {:?}", ctx.timeout)
}

#[tokio::test]
async fn the_context_is_injected_and_not_in_the_schema() {
    let ctx = ToolContext {
        answer: Some(Answer {
            id: "pnd-1".into(),
            ok: true,
            data: None,
            reason: None,
        }),
        timeout: Some(std::time::Duration::from_secs(2)),
        ..ToolContext::default()
    };
    ctx.cancel.cancel();
    let first = ContextFirstTool.execute(json!({"label": "a"}), &ctx).await;
    assert_eq!(first.output, "a: pnd-1 cancelled=true");
    let owned = ContextOwnedTool.execute(json!({"label": "b"}), &ctx).await;
    assert_eq!(owned.output, "b: Some(2s)");
    for tool in [&ContextFirstTool as &dyn Tool, &ContextOwnedTool] {
        assert_eq!(tool.input_schema()["required"], json!(["label"]));
        assert_eq!(
            tool.input_schema()["properties"].as_object().unwrap().len(),
            1
        );
    }
}

/// A stateful calendar.
struct Calendar {
    owner: String,
    booked: AtomicUsize,
}

#[toolbox]
impl Calendar {
    /// Books a slot.
    ///
    /// # Arguments
    ///
    /// * `slot` - An ISO time
    #[tool]
    async fn book(
        &self,
        slot: String,
        #[param(default = 30)] minutes: u32,
        ctx: &ToolContext,
    ) -> String {
        let _ = ctx;
        let count = self.booked.fetch_add(1, Ordering::SeqCst) + 1;
        format!("{} booked {slot} for {minutes} min (#{count})", self.owner)
    }

    /// Counts bookings.
    #[tool(name = "booking_count")]
    fn count(&self) -> usize {
        self.booked.load(Ordering::SeqCst)
    }

    fn not_a_tool(&self) -> &str {
        &self.owner
    }
}

#[tokio::test]
async fn a_toolbox_binds_its_tools_to_one_instance() {
    let calendar = Arc::new(Calendar {
        owner: "ana".into(),
        booked: AtomicUsize::new(0),
    });
    assert_eq!(calendar.not_a_tool(), "ana");
    let tools = Arc::clone(&calendar).tools();
    let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
    assert_eq!(names, ["book", "booking_count"]);
    assert_eq!(tools[0].description(), "Books a slot.");
    assert_eq!(
        tools[0].input_schema()["properties"]["slot"]["description"],
        json!("An ISO time")
    );
    assert_eq!(
        tools[0].input_schema()["properties"]["minutes"]["default"],
        json!(30)
    );
    let booked = run(tools[0].as_ref(), json!({"slot": "09:00"})).await;
    assert_eq!(booked.output, "ana booked 09:00 for 30 min (#1)");
    assert_eq!(run(tools[1].as_ref(), json!(null)).await.output, "1");
    let bad = run(tools[0].as_ref(), json!({"slot": 9})).await;
    assert_eq!(
        bad.output,
        "invalid arguments for `book`: field `slot`: invalid type: integer `9`, expected a string"
    );
    // The instance is shared, not copied.
    assert_eq!(calendar.count(), 1);
}

/// Returns a String.
#[tool]
fn ret_string() -> String {
    "text".to_owned()
}

#[tokio::test]
async fn tools_macro_collects_generated_tools() {
    let all = tools![ret_string, get_weather, self::context_first];
    let names: Vec<&str> = all.iter().map(|t| t.name()).collect();
    assert_eq!(names, ["ret_string", "get_weather", "context_first"]);
    assert_eq!(run(all[0].as_ref(), json!({})).await.output, "text");
}

#[tokio::test]
async fn raw_argument_text_decodes_like_a_value() {
    let ctx = ToolContext::default();
    let texts = [
        r#"{"city": "Paris"}"#,
        r#"  {"city": "Paris", "unit": null, "days": 4}"#,
        r#"{}"#,
        r#"{"city": 1}"#,
        r#"{"city": "x", "days": 300}"#,
        r#"{"city": "x", "country": "FR"}"#,
        "null",
        "[1, 2]",
        r#""Paris""#,
        "",
        "  \n",
    ];
    for text in texts {
        let value = if text.trim().is_empty() {
            json!({})
        } else {
            serde_json::from_str(text).unwrap()
        };
        let from_value = GetWeatherTool.execute(value, &ctx).await;
        let from_text = GetWeatherTool.execute_json(text, &ctx).await;
        assert_eq!(from_text, from_value, "{text}");
    }
}

#[tokio::test]
async fn raw_argument_text_reports_syntax_errors_with_their_place() {
    let ctx = ToolContext::default();
    // Broken inside an argument: the position says where.
    let inside = GetWeatherTool.execute_json(r#"{"city": "Par"#, &ctx).await;
    assert_eq!(
        inside.output,
        "invalid arguments for `get_weather`: EOF while parsing a string at line 1 column 13"
    );
    // Broken between arguments: the position is given.
    let between = GetWeatherTool
        .execute_json(r#"{"city": "Paris""#, &ctx)
        .await;
    assert_eq!(
        between.output,
        "invalid arguments for `get_weather`: EOF while parsing an object at line 1 column 16"
    );
    // Text cannot hide a second value for the same key behind the first.
    let duplicated = GetWeatherTool
        .execute_json(r#"{"city": "a", "city": "b"}"#, &ctx)
        .await;
    assert_eq!(
        duplicated.output,
        "invalid arguments for `get_weather`: duplicate field `city`"
    );
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
    let result = common::block_on(tk.execute_json("tick", r#"{"by": 5}"#, &cancelled));
    assert_eq!(result, ToolResult::error("tool `tick` was cancelled"));
    // And neither does one whose timeout is zero.
    let no_time = ToolContext {
        timeout: Some(std::time::Duration::ZERO),
        ..ToolContext::default()
    };
    let result = common::block_on(tk.execute_json("tick", r#"{"by": 5}"#, &no_time));
    assert_eq!(result, ToolResult::error("tool `tick` timed out after 0ms"));
    assert_eq!(TICKS.with(Cell::get), 2);
    // `Tool::execute` still hands back a future, ready at its first poll.
    assert_eq!(
        poll_once(TickTool.execute(json!({"by": 3}), &ctx)),
        Poll::Ready(ToolResult::ok("5"))
    );
}

/// A type whose crate gives it no JSON Schema.
#[derive(serde::Deserialize)]
struct Celsius(f64);

/// Reads a temperature.
#[tool]
fn read_temperature(#[schemars(with = "f64")] degrees: Celsius) -> f64 {
    degrees.0
}

#[tokio::test]
async fn a_parameter_described_by_schemars_with_needs_no_json_schema_of_its_own() {
    // What the `JsonSchema` error's note advises for a type from another crate.
    let schema = Value::Object(ReadTemperatureTool.input_schema().clone());
    assert_eq!(schema["properties"]["degrees"], json!({"type": "number"}));
    let result = run(&ReadTemperatureTool, json!({"degrees": 21.5})).await;
    assert_eq!(result, ToolResult::ok("21.5"));
}
