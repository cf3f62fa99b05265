//! `#[tool]`, `#[toolbox]` and `tools![]` behaviour through real macro-generated tools:
//! every lowering row of SPEC §4, argument decoding, context injection and toolboxes.

use std::borrow::Cow;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};
use toolnexus::{
    Answer, ContentPart, Json, Request, Tool, ToolContext, ToolResult, from_bytes, tool, toolbox,
    tools,
};

async fn run(tool: &dyn Tool, args: Value) -> ToolResult {
    tool.execute(args, &ToolContext::default()).await
}

/// Returns a String.
#[tool]
fn ret_string() -> String {
    "text".to_owned()
}
/// Returns a &str.
#[tool]
fn ret_str() -> &'static str {
    "static"
}
/// Returns a Cow.
#[tool]
fn ret_cow() -> Cow<'static, str> {
    Cow::Borrowed("cow")
}
/// Returns a char.
#[tool]
fn ret_char() -> char {
    'c'
}
/// Returns an integer.
#[tool]
fn ret_int() -> i64 {
    -42
}
/// Returns a float.
#[tool]
fn ret_float() -> f64 {
    2.5
}
/// Returns a bool.
#[tool]
fn ret_bool() -> bool {
    true
}
/// Returns unit.
#[tool]
fn ret_unit() {}
/// Returns JSON.
#[tool]
fn ret_json() -> Json<Value> {
    Json(json!({"b": 1, "a": [true, null]}))
}
/// Returns JSON that cannot be serialized.
#[tool]
fn ret_json_failure() -> Json<std::collections::BTreeMap<(u8, u8), u8>> {
    Json([((1, 2), 3)].into_iter().collect())
}
/// Returns a JSON string value.
#[tool]
fn ret_value_string() -> Value {
    json!("plain")
}
/// Returns a JSON object value.
#[tool]
fn ret_value_object() -> Value {
    json!({"k": "v"})
}
/// Returns a ToolResult.
#[tool]
fn ret_tool_result() -> ToolResult {
    ToolResult::error("custom").with_metadata("code", 7)
}
/// Returns a part.
#[tool]
fn ret_part() -> ContentPart {
    from_bytes(&[1, 2, 3], "image/png")
}
/// Returns parts.
#[tool]
fn ret_parts() -> Vec<ContentPart> {
    vec![
        ContentPart::text("caption"),
        from_bytes(&[1, 2, 3, 4], "audio/wav"),
    ]
}
/// Returns a request.
#[tool]
fn ret_request() -> Request {
    Request::new("input", "Which environment?").with_id("pnd-fixed-1")
}
/// Returns an option.
#[tool]
fn ret_option(some: bool) -> Option<u8> {
    some.then_some(7)
}
/// Returns an io result.
#[tool]
fn ret_io(fail: bool) -> Result<String, std::io::Error> {
    if fail {
        Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "config.toml not found",
        ))
    } else {
        Ok("read".to_owned())
    }
}
/// Returns an anyhow error with context.
#[tool]
fn ret_anyhow() -> anyhow::Result<u32> {
    use anyhow::Context;
    Err(anyhow::anyhow!("file missing")).context("reading config")
}
/// Returns a ToolResult error.
#[tool]
#[expect(
    clippy::result_large_err,
    reason = "the plain form must work; the boxed one is tested too"
)]
fn ret_err_tool_result() -> Result<String, ToolResult> {
    Err(ToolResult::error("passed through").with_metadata("retry", true))
}
/// Returns a Request error.
#[tool]
#[expect(
    clippy::result_large_err,
    reason = "the plain form must work; the boxed one is tested too"
)]
fn ret_err_request() -> Result<String, Request> {
    Err(Request::new("approval", "Approve?").with_url("https://example.com/ok"))
}
/// Returns boxed errors.
#[tool]
fn ret_err_boxed(suspend: bool) -> Result<String, Box<Request>> {
    if suspend {
        Err(Box::new(Request::new("input", "Which one?")))
    } else {
        Ok("fine".to_owned())
    }
}
/// Returns a boxed ToolResult error.
#[tool]
fn ret_err_boxed_result() -> Result<String, Box<ToolResult>> {
    Err(Box::new(ToolResult::error("boxed")))
}

#[tokio::test]
async fn every_lowering_row_through_a_macro_tool() {
    let ok = |output: &str| ToolResult::ok(output);
    assert_eq!(run(&RetStringTool, json!({})).await, ok("text"));
    assert_eq!(run(&RetStrTool, json!({})).await, ok("static"));
    assert_eq!(run(&RetCowTool, json!({})).await, ok("cow"));
    assert_eq!(run(&RetCharTool, json!({})).await, ok("c"));
    assert_eq!(run(&RetIntTool, json!({})).await, ok("-42"));
    assert_eq!(run(&RetFloatTool, json!({})).await, ok("2.5"));
    assert_eq!(run(&RetBoolTool, json!({})).await, ok("true"));
    assert_eq!(run(&RetUnitTool, json!({})).await, ok(""));
    assert_eq!(
        run(&RetJsonTool, json!({})).await,
        ok(r#"{"b":1,"a":[true,null]}"#)
    );
    let failure = run(&RetJsonFailureTool, json!({})).await;
    assert!(failure.is_error);
    assert!(
        failure.output.contains("key must be a string"),
        "{}",
        failure.output
    );
    assert_eq!(run(&RetValueStringTool, json!({})).await, ok("plain"));
    assert_eq!(
        run(&RetValueObjectTool, json!({})).await,
        ok(r#"{"k":"v"}"#)
    );
    assert_eq!(
        run(&RetToolResultTool, json!({})).await,
        ToolResult::error("custom").with_metadata("code", 7)
    );
    assert_eq!(
        run(&RetPartTool, json!({})).await,
        ok("image (image/png, 3 bytes)").with_part(from_bytes(&[1, 2, 3], "image/png"))
    );
    assert_eq!(
        run(&RetPartsTool, json!({})).await,
        ok("caption\naudio (audio/wav, 4 bytes)").with_parts([
            ContentPart::text("caption"),
            from_bytes(&[1, 2, 3, 4], "audio/wav")
        ])
    );
    let suspended = run(&RetRequestTool, json!({})).await;
    assert!(suspended.is_error && suspended.is_pending());
    assert_eq!(suspended.output, "Which environment?");
    assert_eq!(
        suspended.metadata["pending"],
        json!({"id": "pnd-fixed-1", "kind": "input", "prompt": "Which environment?"})
    );
    assert_eq!(run(&RetOptionTool, json!({"some": false})).await, ok(""));
    assert_eq!(run(&RetOptionTool, json!({"some": true})).await, ok("7"));
    assert_eq!(run(&RetIoTool, json!({"fail": false})).await, ok("read"));
    assert_eq!(
        run(&RetIoTool, json!({"fail": true})).await,
        ToolResult::error("config.toml not found")
    );
    assert_eq!(
        run(&RetAnyhowTool, json!({})).await,
        ToolResult::error("reading config: file missing")
    );
    assert_eq!(
        run(&RetErrToolResultTool, json!({})).await,
        ToolResult::error("passed through").with_metadata("retry", true)
    );
    assert_eq!(
        run(&RetErrBoxedResultTool, json!({})).await,
        ToolResult::error("boxed")
    );
    assert_eq!(
        run(&RetErrBoxedTool, json!({"suspend": false})).await,
        ok("fine")
    );
    let boxed = run(&RetErrBoxedTool, json!({"suspend": true})).await;
    assert_eq!(
        (boxed.output.as_str(), boxed.is_pending()),
        ("Which one?", true)
    );
    let approval = run(&RetErrRequestTool, json!({})).await;
    assert_eq!(approval.output, "Approve?\nhttps://example.com/ok");
    assert_eq!(approval.pending().unwrap().kind, "approval");
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

/// Deletes a file.
#[tool(
    title = "Delete a file",
    destructive,
    idempotent = true,
    open_world = false
)]
fn delete_file(path: String) -> Json<Vec<String>> {
    Json(vec![path])
}

/// Reads a file.
#[tool(read_only, destructive = false)]
async fn read_file(path: String) -> Result<Json<ToolAnnotationsShape>, std::io::Error> {
    Ok(Json(ToolAnnotationsShape { path }))
}

#[derive(serde::Serialize, toolnexus::JsonSchema)]
struct ToolAnnotationsShape {
    path: String,
}

/// A toolbox whose tool says how it behaves.
struct Files;

#[toolbox]
impl Files {
    /// Lists files.
    #[tool(title = "List files", read_only)]
    fn list(&self) -> Option<Json<u32>> {
        Some(Json(1))
    }
}

#[test]
fn title_annotations_and_output_schema() {
    use toolnexus::ToolAnnotations;
    assert_eq!(DeleteFileTool.title(), Some("Delete a file"));
    assert_eq!(
        DeleteFileTool.annotations(),
        ToolAnnotations {
            read_only: None,
            destructive: Some(true),
            idempotent: Some(true),
            open_world: Some(false),
        }
    );
    let list = Value::Object(DeleteFileTool.output_schema().unwrap().clone());
    assert_eq!(list["properties"]["result"]["type"], "array");

    assert_eq!(ReadFileTool.title(), None);
    assert_eq!(
        ReadFileTool.annotations(),
        ToolAnnotations {
            read_only: Some(true),
            destructive: Some(false),
            ..ToolAnnotations::default()
        }
    );
    // An async fn's return type is its `-> T`; a `Result` of `Json` is structured.
    let object = ReadFileTool.output_schema().unwrap();
    assert_eq!(object["required"], json!(["path"]));
    // Built once, then borrowed.
    assert!(std::ptr::eq(object, ReadFileTool.output_schema().unwrap()));

    // Tools that say nothing keep the defaults; text results have no output schema.
    assert_eq!(GetWeatherTool.title(), None);
    assert!(GetWeatherTool.annotations().is_empty());
    assert!(GetWeatherTool.output_schema().is_none());
    assert!(RetUnitTool.output_schema().is_none());

    let files = Arc::new(Files).tools();
    assert_eq!(files[0].title(), Some("List files"));
    assert_eq!(files[0].annotations().read_only, Some(true));
    let maybe = Value::Object(files[0].output_schema().unwrap().clone());
    assert_eq!(
        maybe["properties"]["result"]["anyOf"][1],
        json!({"type": "null"})
    );
}
