//! The fixture tools of the official MCP conformance suite (npm
//! `@modelcontextprotocol/conformance`), served the way `mcp_server` serves its tools, so the
//! suite's server scenarios can judge this crate's server: `scripts/mcp-conformance.sh` runs
//! every one of them against it.
//!
//! - stdio: `cargo run --example conformance_server --features mcp`.
//! - HTTP: `cargo run --example conformance_server --features mcp-http -- --http
//!   127.0.0.1:8765 [--stateless]` serves `http://127.0.0.1:8765/mcp`.
//!
//! Each tool answers what its scenario checks (the scenario's "Server Implementation
//! Requirements"). A question to the client is a §10 suspension, put to the client the way
//! its revision can: `elicitation/create` on 2025-06-18 and 2025-11-25, an
//! `InputRequiredResult` on 2026-07-28. The tasks scenarios' tools (`greet`, `slow_compute`,
//! `failing_job`, `protocol_error_job`, `confirm_delete`, `multi_input`,
//! `test_tool_with_task`, `test_missing_capability`) run as tasks of the extension when they outlast 200 ms
//! ([`TASK_AFTER`]).

use std::time::Duration;

use toolnexus::serde_json::{Map, Value, json};
use toolnexus::{
    ContentPart, Request, Tool, ToolContext, ToolResult, Toolkit, define_tool, parts, pending,
    tool, tools,
};

/// A 1×1 red PNG, the suite's own.
const PNG: &str = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A minimal WAV, the suite's own.
const WAV: &str =
    "data:audio/wav;base64,UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

/// Tests simple text content response
#[tool]
fn test_simple_text() -> &'static str {
    "This is a simple text response for testing."
}

/// Tests image content response
#[tool]
fn test_image_content() -> Result<ContentPart, parts::ContentPartError> {
    parts::attach(PNG)
}

/// Tests audio content response
#[tool]
fn test_audio_content() -> Result<ContentPart, parts::ContentPartError> {
    parts::attach(WAV)
}

/// Tests embedded resource content response
#[tool]
fn test_embedded_resource() -> ContentPart {
    parts::from_bytes(b"This is an embedded resource content.", "text/plain")
}

/// Tests response with multiple content types (text, image, resource)
#[tool]
fn test_multiple_content_types() -> Result<ToolResult, parts::ContentPartError> {
    let resource = parts::from_bytes(br#"{"test":"data","value":123}"#, "application/json");
    Ok(ToolResult::ok("Multiple content types test:")
        .with_part(parts::attach(PNG)?)
        .with_part(resource))
}

/// Tests error response handling
#[tool]
fn test_error_handling() -> Result<String, String> {
    Err("This tool intentionally returns an error for testing".to_owned())
}

/// Tests tool that reports progress notifications
#[tool]
async fn test_tool_with_progress(ctx: ToolContext) -> String {
    for step in [0.0, 50.0, 100.0] {
        let message = format!("Completed step {step} of 100");
        ctx.report_progress(step, Some(100.0), Some(&message));
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    "progress reported".to_owned()
}

/// Tests SSE stream disconnection and client reconnection (SEP-1699)
#[tool]
async fn test_reconnection() -> &'static str {
    tokio::time::sleep(Duration::from_millis(100)).await;
    "Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure."
}

/// Asks the client with a form of `schema`, under the input request key `id`; once answered,
/// `done` makes the result from what the human filled in.
fn form(
    ctx: &ToolContext,
    id: &str,
    message: &str,
    schema: Value,
    done: impl FnOnce(&Map<String, Value>) -> String,
) -> ToolResult {
    if let Some(answer) = &ctx.answer {
        return ToolResult::ok(done(&answer.data.clone().unwrap_or_default()));
    }
    let mut data = Map::new();
    data.insert("schema".to_owned(), schema);
    pending(Request::new("input", message).with_id(id).with_data(data))
}

/// Tests server-initiated elicitation (user input request)
#[tool]
fn test_elicitation(
    /// The message to show the user
    message: String,
    ctx: &ToolContext,
) -> ToolResult {
    let schema = json!({
        "type": "object",
        "properties": {"response": {"type": "string", "description": "User's response"}},
        "required": ["response"],
    });
    form(ctx, "response", &message, schema, |content| {
        format!(
            "User response: action=accept, content={}",
            Value::from(content.clone())
        )
    })
}

/// Tests elicitation with default values per SEP-1034
#[tool]
fn test_elicitation_sep1034_defaults(ctx: &ToolContext) -> ToolResult {
    let schema = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "User name", "default": "John Doe"},
            "age": {"type": "integer", "description": "User age", "default": 30},
            "score": {"type": "number", "description": "User score", "default": 95.5},
            "status": {
                "type": "string", "description": "User status",
                "enum": ["active", "inactive", "pending"], "default": "active",
            },
            "verified": {"type": "boolean", "description": "Verification status", "default": true},
        },
        "required": [],
    });
    let message = "Please review and update the form fields with defaults";
    form(ctx, "defaults", message, schema, completed)
}

/// Tests elicitation with enum schema improvements per SEP-1330
#[tool]
fn test_elicitation_sep1330_enums(ctx: &ToolContext) -> ToolResult {
    let titled = |title: &str| {
        (1..=3)
            .map(|n| json!({"const": format!("value{n}"), "title": format!("{} {title}", ["First", "Second", "Third"][n - 1])}))
            .collect::<Vec<_>>()
    };
    let schema = json!({
        "type": "object",
        "properties": {
            "untitledSingle": {
                "type": "string", "description": "Select one option",
                "enum": ["option1", "option2", "option3"],
            },
            "titledSingle": {
                "type": "string", "description": "Select one option with titles",
                "oneOf": titled("Option"),
            },
            "legacyEnum": {
                "type": "string", "description": "Select one option (legacy)",
                "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"],
            },
            "untitledMulti": {
                "type": "array", "description": "Select multiple options",
                "minItems": 1, "maxItems": 3,
                "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
            },
            "titledMulti": {
                "type": "array", "description": "Select multiple options with titles",
                "minItems": 1, "maxItems": 3,
                "items": {"anyOf": titled("Choice")},
            },
        },
        "required": [],
    });
    let message = "Please select options from the enum fields";
    form(ctx, "enums", message, schema, completed)
}

fn completed(content: &Map<String, Value>) -> String {
    format!(
        "Elicitation completed: action=accept, content={}",
        Value::from(content.clone())
    )
}

/// Asks for the user's name (SEP-2322: an InputRequiredResult on 2026-07-28)
#[tool]
fn test_input_required_result_elicitation(ctx: &ToolContext) -> ToolResult {
    let schema = json!({
        "type": "object",
        "properties": {"name": {"type": "string"}},
        "required": ["name"],
    });
    form(ctx, "user_name", "What is your name?", schema, |content| {
        let name = content.get("name").and_then(Value::as_str).unwrap_or("?");
        format!("Hello, {name}!")
    })
}

/// Asks for the user's name, the one of the scenario's three questions (a form, a sampling
/// request and `roots/list`, SEP-2322) this server can put: a suspension asks one question
/// (SPEC §8C), and sampling and roots are not offered
#[tool]
fn test_input_required_result_multiple_inputs(ctx: &ToolContext) -> ToolResult {
    let schema = json!({
        "type": "object",
        "properties": {"name": {"type": "string"}},
        "required": ["name"],
    });
    form(ctx, "user_name", "What is your name?", schema, |content| {
        let name = content.get("name").and_then(Value::as_str).unwrap_or("?");
        format!("Hello, {name}! (one question: sampling and roots are not offered)")
    })
}

/// Asks for the user's name, then for a favourite colour (SEP-2322's rounds). The §10 loop
/// rule runs a tool once more with its answer and ends a second question as `unresolved`
/// (SPEC §8C), so the colour is never answered: round two is that `isError` result
#[tool]
fn test_input_required_result_multi_round(ctx: &ToolContext) -> ToolResult {
    let name = json!({
        "type": "object",
        "properties": {"name": {"type": "string"}},
        "required": ["name"],
    });
    let Some(answer) = &ctx.answer else {
        return form(ctx, "step1", "Step 1: What is your name?", name, |_| {
            String::new()
        });
    };
    let mut data = Map::new();
    data.insert(
        "schema".to_owned(),
        json!({
            "type": "object",
            "properties": {"color": {"type": "string"}},
            "required": ["color"],
        }),
    );
    let who = answer
        .data
        .as_ref()
        .and_then(|data| data.get("name"))
        .and_then(Value::as_str)
        .unwrap_or("?");
    let asked = format!("Step 2: What is your favorite color, {who}?");
    pending(
        Request::new("input", asked)
            .with_id("step2")
            .with_data(data),
    )
}

/// Asks the user (an elicitation) only of a client that declared it can be asked: one that
/// declared sampling alone gets an `isError` result saying it cannot be asked (SPEC §8C),
/// never an input request it did not declare (SEP-2322)
#[tool]
fn test_input_required_result_capabilities(ctx: &ToolContext) -> ToolResult {
    let schema = json!({
        "type": "object",
        "properties": {"ok": {"type": "boolean"}},
        "required": ["ok"],
    });
    form(ctx, "confirm", "Please confirm", schema, |content| {
        format!("confirmed={}", content.get("ok").unwrap_or(&Value::Null))
    })
}

/// Needs a client capability: it runs only as a task, so a 2026-07-28 client that did not
/// declare the tasks extension is refused `-32021` (HTTP 400) naming it (SEP-2575). The
/// suite's probe expects the missing capability to be sampling, which this server does not
/// offer
#[tool(task = "required")]
async fn test_missing_capability() -> &'static str {
    "ran as a task: the client declared the tasks extension"
}

/// Asks for a confirmation whose requestState the client echoes (SEP-2322)
#[tool]
fn test_input_required_result_request_state(ctx: &ToolContext) -> ToolResult {
    confirm(ctx)
}

/// Asks for a confirmation under an integrity-protected requestState (SEP-2322)
#[tool]
fn test_input_required_result_tampered_state(ctx: &ToolContext) -> ToolResult {
    confirm(ctx)
}

/// Asks for a confirmation while the request's stream is open (the stateless scenario
/// checks that the stream carries no request of the server's own on 2026-07-28)
#[tool]
fn test_streaming_elicitation(ctx: &ToolContext) -> ToolResult {
    confirm(ctx)
}

/// A confirmation: the server's sealed `requestState` verified before the tool runs again.
fn confirm(ctx: &ToolContext) -> ToolResult {
    let schema = json!({
        "type": "object",
        "properties": {"ok": {"type": "boolean"}},
        "required": ["ok"],
    });
    form(ctx, "confirm", "Please confirm", schema, |content| {
        format!(
            "state-ok: confirmed={}",
            content.get("ok").unwrap_or(&Value::Null)
        )
    })
}

/// The suite's JSON Schema 2020-12 tool: its input schema exactly as the scenario writes it
/// (`$schema`, `$defs` with an `$anchor`, `allOf`/`anyOf`, `if`/`then`/`else`,
/// `additionalProperties`), which a `#[tool]`'s derived schema would not say.
fn json_schema_2020_12_tool() -> Result<impl Tool, toolnexus::DefineToolError> {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
            },
        },
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"},
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": false,
    });
    let description = "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)";
    Ok(
        define_tool("json_schema_2020_12_tool", description, schema)?.sync(
            |args: Value, _ctx: &ToolContext| {
                format!("JSON Schema 2020-12 tool called with: {args}")
            },
        ),
    )
}

/// Echoes the region it was sent
///
/// The client also sends the argument as the header `Mcp-Param-Region` (SEP-2243,
/// `x-mcp-header`); the server answers `-32020` (HTTP 400) when they differ.
#[tool]
fn test_header_param(
    /// The region
    #[param(header = "Region")]
    region: String,
) -> String {
    format!("region: {region}")
}

/// How long a call to a task-capable tool may run before it is answered with a task: short,
/// so that the tasks scenarios' one-second jobs become tasks.
const TASK_AFTER: Duration = Duration::from_millis(200);

/// Greets someone (answers inline: not a task)
#[tool]
fn greet(
    /// Who to greet
    name: String,
) -> String {
    format!("Hello, {name}!")
}

/// Sleeps `seconds` seconds, then answers; a task when it takes longer than a moment
#[tool(task)]
async fn slow_compute(
    /// How long to work, in seconds
    #[schemars(range(max = 3600))]
    seconds: u32,
    /// A label to tell runs apart
    label: Option<String>,
) -> String {
    tokio::time::sleep(Duration::from_secs(seconds.into())).await;
    let label = label.as_deref().unwrap_or("no label");
    format!("computed in {seconds} s ({label})")
}

/// Fails after about a second (a tool error: the task ends `completed` with `isError`)
#[tool(task = "required")]
async fn failing_job() -> Result<String, String> {
    tokio::time::sleep(Duration::from_secs(1)).await;
    Err("failing_job failed, as it always does".to_owned())
}

/// Panics after about a second. SPEC §8 makes a panic an `isError` result, in a task as
/// inline, so this task ends `completed` with `isError` where the suite's scenario expects
/// `failed` (which SPEC §14 keeps for what would have been a JSON-RPC error, and for a task
/// whose server went away).
#[tool(task)]
async fn protocol_error_job() -> String {
    tokio::time::sleep(Duration::from_secs(1)).await;
    panic!("protocol_error_job gave up")
}

/// Deletes a file once the user confirmed (always a task; the question makes it
/// `input_required`)
#[tool(task = "required", approval = "Delete {filename}?")]
async fn confirm_delete(
    /// The file to delete
    filename: String,
) -> String {
    format!("deleted {filename}")
}

/// Asks for a name and a confirmation (always a task). The suite asks for two questions at
/// once; a suspension asks one (SPEC §8C), here a form with both fields.
#[tool(task = "required")]
async fn multi_input(ctx: ToolContext) -> ToolResult {
    let schema = json!({
        "type": "object",
        "properties": {"name": {"type": "string"}, "confirm": {"type": "boolean"}},
        "required": ["name", "confirm"],
    });
    form(
        &ctx,
        "name_and_confirm",
        "Your name, and do you confirm?",
        schema,
        |content| format!("multi_input completed: {}", Value::from(content.clone())),
    )
}

/// Asks for the user's name inline, then works on as a task (SEP-2663: MRTR, then a task)
#[tool(task)]
async fn test_tool_with_task(ctx: ToolContext) -> ToolResult {
    let schema = json!({
        "type": "object",
        "properties": {"name": {"type": "string"}},
        "required": ["name"],
    });
    let Some(answer) = &ctx.answer else {
        return form(&ctx, "user_name", "What is your name?", schema, |_| {
            String::new()
        });
    };
    let data = answer.data.clone().unwrap_or_default();
    let name = data
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or("?")
        .to_owned();
    // Longer than `TASK_AFTER`: the answered round becomes a task.
    tokio::time::sleep(TASK_AFTER * 3).await;
    ToolResult::ok(format!("Hello, {name}! (answered before the task began)"))
}

type Error = Box<dyn std::error::Error + Send + Sync>;

const USAGE: &str = "usage: conformance_server [--http ADDR [--stateless]]";

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    let toolkit = Toolkit::new()
        .with_all(tools![
            test_simple_text,
            test_image_content,
            test_audio_content,
            test_embedded_resource,
            test_multiple_content_types,
            test_error_handling,
            test_tool_with_progress,
            test_reconnection,
            test_elicitation,
            test_elicitation_sep1034_defaults,
            test_elicitation_sep1330_enums,
            test_input_required_result_elicitation,
            test_input_required_result_request_state,
            test_input_required_result_tampered_state,
            test_input_required_result_multiple_inputs,
            test_input_required_result_multi_round,
            test_input_required_result_capabilities,
            test_missing_capability,
            test_streaming_elicitation,
            test_header_param,
            greet,
            slow_compute,
            failing_job,
            protocol_error_job,
            confirm_delete,
            multi_input,
            test_tool_with_task
        ])
        .with(json_schema_2020_12_tool()?);
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        [] => serve_stdio(toolkit).await,
        ["--http", addr] => serve_http(toolkit, addr, false).await,
        ["--http", addr, "--stateless"] => serve_http(toolkit, addr, true).await,
        _ => Err(USAGE.into()),
    }
}

async fn serve_stdio(toolkit: Toolkit) -> Result<(), Error> {
    use toolnexus::mcp::{LineTransport, McpServer, ServiceExt};

    let server = McpServer::new(toolkit).task_after(TASK_AFTER);
    let transport = LineTransport::new(tokio::io::stdin(), tokio::io::stdout());
    server.serve(transport).await?.waiting().await?;
    Ok(())
}

#[cfg(feature = "mcp-http")]
async fn serve_http(toolkit: Toolkit, addr: &str, stateless: bool) -> Result<(), Error> {
    use toolnexus::mcp::{HttpOptions, HttpServer, McpServer};

    // A call in a session that sends nothing for 50 ms has its stream closed, to be resumed
    // with `Last-Event-ID` (SSE polling: `test_reconnection` takes 100 ms).
    let options = HttpOptions::new()
        .stateless(stateless)
        .poll_after(Duration::from_millis(50));
    let http = HttpServer::bind(
        addr,
        McpServer::new(toolkit).task_after(TASK_AFTER),
        options,
    )
    .await?;
    eprintln!(
        "conformance server: http://{}/mcp{}",
        http.local_addr(),
        if stateless { " (stateless)" } else { "" }
    );
    http.run().await;
    Ok(())
}

#[cfg(not(feature = "mcp-http"))]
async fn serve_http(_: Toolkit, _: &str, _: bool) -> Result<(), Error> {
    Err("this build serves stdio only: build with `--features mcp-http` for --http".into())
}
