//! What a `#[tool]` fn's return type becomes, through real macro-generated tools: every
//! lowering row of SPEC §4, and the output schema a `Json<T>` return gives (with the title
//! and annotations MCP lists beside it).

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::{Value, json};
use toolnexus::{
    ContentPart, Json, Request, Tool, ToolContext, ToolResult, parts::from_bytes, tool, toolbox,
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

#[derive(Debug, thiserror::Error)]
enum WeatherError {
    #[error("upstream weather service failed")]
    Upstream(#[source] std::io::Error),
    // Prints its cause itself: the cause is not shown twice.
    #[error("cache unreadable: {0}")]
    Cache(#[source] std::io::Error),
}

fn timed_out() -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::TimedOut, "timed out after 5s")
}

/// An io error around a thiserror error around an io error.
fn three_layers() -> std::io::Error {
    std::io::Error::other(WeatherError::Upstream(timed_out()))
}

/// Fails with a thiserror error.
#[tool]
async fn forecast(which: u8) -> Result<String, WeatherError> {
    let cause = std::io::Error::new(std::io::ErrorKind::ConnectionReset, "connection reset");
    Err(match which {
        0 => WeatherError::Upstream(cause),
        _ => WeatherError::Cache(cause),
    })
}
/// Fails with an io error whose inner error has a cause.
#[tool]
fn layered() -> Result<String, std::io::Error> {
    Err(three_layers())
}
/// Fails with a boxed error with a cause.
#[tool]
fn boxed_send() -> Result<u8, Box<dyn std::error::Error + Send + Sync>> {
    Err(Box::new(WeatherError::Upstream(timed_out())))
}
/// Fails with a boxed error with a cause, not `Send`.
#[tool]
fn boxed_local() -> Result<u8, Box<dyn std::error::Error>> {
    Err(Box::new(WeatherError::Upstream(timed_out())))
}

/// SPEC §4: `Err(e)` shows the whole `source()` chain of any `std::error::Error`, as anyhow's
/// `{:#}` does, never a cause twice (issue: thiserror chains were lost).
#[tokio::test]
async fn an_error_shows_its_source_chain_once() {
    assert_eq!(
        run(&ForecastTool, json!({"which": 0})).await,
        ToolResult::error("upstream weather service failed: connection reset")
    );
    assert_eq!(
        run(&ForecastTool, json!({"which": 1})).await,
        ToolResult::error("cache unreadable: connection reset")
    );
    // io's own `Display` is its inner error's, and its `source()` that error's cause.
    assert_eq!(
        run(&LayeredTool, json!({})).await,
        ToolResult::error("upstream weather service failed: timed out after 5s")
    );
    // A boxed `dyn Error` is no `Error` itself, and shows its chain all the same.
    for tool in [&BoxedSendTool as &dyn Tool, &BoxedLocalTool] {
        assert_eq!(
            run(tool, json!({})).await,
            ToolResult::error("upstream weather service failed: timed out after 5s")
        );
    }
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
    assert_eq!(RetStringTool.title(), None);
    assert!(RetStringTool.annotations().is_empty());
    assert!(RetStringTool.output_schema().is_none());
    assert!(RetUnitTool.output_schema().is_none());
    // A `serde_json::Value` is JSON without an output schema: the way out of `Json<T>` for a
    // `T` without `JsonSchema`, which is a compile error (tests/ui).
    assert!(RetValueObjectTool.output_schema().is_none());

    let files = Arc::new(Files).tools();
    assert_eq!(files[0].title(), Some("List files"));
    assert_eq!(files[0].annotations().read_only, Some(true));
    let maybe = Value::Object(files[0].output_schema().unwrap().clone());
    assert_eq!(
        maybe["properties"]["result"]["anyOf"][1],
        json!({"type": "null"})
    );
}
