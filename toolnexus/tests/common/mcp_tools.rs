//! Tools with the MCP-only parts of a definition — title, hints, an output schema — and one
//! that never finishes, served by the MCP tests over a pipe (`mcp_parity.rs`) and over HTTP
//! (`mcp_http.rs`).
#![allow(
    dead_code,
    reason = "each test binary compiles this module on its own and uses only part of it"
)]

use std::future::pending;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use serde::Serialize;
use serde_json::{Map, Value, json};
use toolnexus::{
    BoxFuture, IntoToolResult, Json, JsonSchema, Tool, ToolContext, ToolResult, Toolkit,
    define_tool,
};

#[derive(Serialize, JsonSchema)]
pub struct Point {
    pub x: i32,
    pub y: i32,
}

/// Returns `Option<Json<Point>>` (`{"some": true}` ⇒ `Some`), implemented by hand the way
/// `#[tool]` implements it: its output schema is `output_schema_for::<R>()` of its return
/// type, built once.
pub struct MaybePoint;

impl Tool for MaybePoint {
    fn name(&self) -> &str {
        "maybe_point"
    }

    fn description(&self) -> &str {
        "A point, if there is one"
    }

    fn input_schema(&self) -> &Map<String, Value> {
        static SCHEMA: OnceLock<Map<String, Value>> = OnceLock::new();
        SCHEMA.get_or_init(|| {
            object(json!({"type": "object", "properties": {"some": {"type": "boolean"}}}))
        })
    }

    fn output_schema(&self) -> Option<&Map<String, Value>> {
        static SCHEMA: OnceLock<Map<String, Value>> = OnceLock::new();
        Some(SCHEMA.get_or_init(toolnexus::__private::output_schema_for::<Option<Json<Point>>>))
    }

    fn execute<'a>(&'a self, args: Value, _: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        let point = (args["some"] == true).then_some(Json(Point { x: 1, y: 2 }));
        Box::pin(async move { point.into_tool_result() })
    }
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => unreachable!("a literal object"),
    }
}

fn no_params() -> Value {
    json!({"type": "object", "properties": {}})
}

/// The tools, and the flag `stuck` sets when its future is dropped.
pub struct McpTools {
    pub toolkit: Toolkit,
    pub stuck_dropped: Arc<AtomicBool>,
}

/// - `weather`: an object output schema, `Json` of a matching object.
/// - `sizes`: an array output schema (wrapped as `{"result": …}`).
/// - `maybe_point`: `Option<Json<Point>>`, by hand.
/// - `broken`: declares an object output schema but returns text that is not JSON.
/// - `sold_out`: declares an output schema but fails.
/// - `drop_table`: title, read-only *and* destructive (a contradiction to normalize),
///   idempotent.
/// - `lookup`: title, not open-world.
/// - `plain`: none of the MCP-only parts.
/// - `stuck`: never finishes; notices when its future is dropped.
pub fn mcp_tools() -> McpTools {
    let stuck_dropped = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stuck_dropped);
    let weather = define_tool(
        "weather",
        "Current weather",
        json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
    )
    .unwrap()
    .output_schema(json!({
        "type": "object",
        "properties": {"city": {"type": "string"}, "celsius": {"type": "number"}},
        "required": ["city", "celsius"],
        "additionalProperties": false,
    }))
    .unwrap()
    .sync(|args: Value, _: &ToolContext| {
        Json(json!({"city": args["city"].as_str().unwrap_or("?"), "celsius": 18.5}))
    });
    let sizes = define_tool("sizes", "Shirt sizes in stock", no_params())
        .unwrap()
        .output_schema(json!({"type": "array", "items": {"type": "string"}}))
        .unwrap()
        .sync(|_: Value, _: &ToolContext| Json(["S", "M", "XL"]));
    let broken = define_tool("broken", "Promises JSON, returns prose", no_params())
        .unwrap()
        .output_schema(json!({"type": "object", "properties": {}}))
        .unwrap()
        .sync(|_: Value, _: &ToolContext| "sunny, mostly");
    let sold_out = define_tool("sold_out", "Fails", no_params())
        .unwrap()
        .output_schema(json!({"type": "object", "properties": {}}))
        .unwrap()
        .sync(|_: Value, _: &ToolContext| ToolResult::error(r#"{"sold_out": true}"#));
    let drop_table = define_tool("drop_table", "Drops a table", no_params())
        .unwrap()
        .title("Drop table")
        .read_only(true)
        .destructive(true)
        .idempotent(true)
        .sync(|_: Value, _: &ToolContext| "dropped");
    let lookup = define_tool("lookup", "Looks a word up", no_params())
        .unwrap()
        .title("Dictionary lookup")
        .open_world(false)
        .sync(|_: Value, _: &ToolContext| "a word");
    let plain = define_tool("plain", "Nothing special", no_params())
        .unwrap()
        .sync(|_: Value, _: &ToolContext| "plain");
    let stuck = define_tool("stuck", "Never finishes", no_params())
        .unwrap()
        .run(move |_: Value, _: ToolContext| {
            let flag = Arc::clone(&flag);
            async move {
                let _notice = NoticeDrop(flag);
                pending::<String>().await
            }
        });
    McpTools {
        toolkit: Toolkit::new()
            .with(weather)
            .with(sizes)
            .with(MaybePoint)
            .with(broken)
            .with(sold_out)
            .with(drop_table)
            .with(lookup)
            .with(plain)
            .with(stuck),
        stuck_dropped,
    }
}

/// Sets its flag when dropped.
pub struct NoticeDrop(pub Arc<AtomicBool>);

impl Drop for NoticeDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// Whether `value` is valid against `schema`, with the validator's complaint otherwise.
pub fn check_against(schema: &Value, value: &Value) -> Result<(), String> {
    let validator = jsonschema::validator_for(schema).map_err(|error| error.to_string())?;
    validator.validate(value).map_err(|error| error.to_string())
}

/// Results of every shape the server sends: an image, a named file, a url part, and a
/// login suspension (`deploy`).
pub fn shaped_tools() -> Toolkit {
    let chart = define_tool("chart", "Draw a chart", no_params())
        .unwrap()
        .sync(|_: Value, _: &ToolContext| {
            ToolResult::ok("chart").with_part(toolnexus::parts::from_bytes(b"\x89PNG", "image/png"))
        });
    let report = define_tool("report", "Write a report", no_params())
        .unwrap()
        .sync(|_: Value, _: &ToolContext| {
            let mut pdf = toolnexus::parts::from_bytes(b"%PDF-1.7", "application/pdf");
            if let toolnexus::ContentPart::File(media) = &mut pdf {
                media.name = Some("q3 report.pdf".to_owned());
            }
            ToolResult::ok("report")
                .with_part(pdf)
                .with_part(toolnexus::parts::from_bytes(b"RIFF", "audio/wav"))
        });
    let deploy = define_tool("deploy", "Deploy to production", no_params())
        .unwrap()
        .sync(|_: Value, _: &ToolContext| {
            toolnexus::auth_required("https://auth.example.com/login")
        });
    Toolkit::new().with(chart).with(report).with(deploy)
}

/// `progress`: reports 0, 50 (again, dropped), then 100 of 100, and answers `done`.
pub fn progress_tool() -> toolnexus::FnTool {
    define_tool("progress", "Counts to 100", no_params())
        .unwrap()
        .run(|_: Value, ctx: ToolContext| async move {
            ctx.report_progress(0.0, Some(100.0), Some("starting"));
            tokio::task::yield_now().await;
            ctx.report_progress(50.0, Some(100.0), None);
            ctx.report_progress(50.0, Some(100.0), Some("not again"));
            tokio::task::yield_now().await;
            ctx.report_progress(100.0, Some(100.0), Some("done"));
            "done"
        })
}

/// Tools that ask the human, and how many times `delete_note`'s body ran:
/// - `delete_note`: approval "Delete note {id}?", then `deleted note ID`.
/// - `login`: `auth_required` at `https://auth.example.com/login` until answered, then
///   `logged in`.
/// - `pick_env`: asks for `{"env": string}` (a flat schema MCP forms allow), then
///   `deploying to ENV`.
/// - `twice`: suspends whatever the answer.
pub fn asking_tools() -> (Toolkit, Arc<std::sync::atomic::AtomicUsize>) {
    let runs = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = Arc::clone(&runs);
    let delete_note = define_tool(
        "delete_note",
        "Deletes a note",
        json!({"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}),
    )
    .unwrap()
    .approval("Delete note {id}?")
    .destructive(true)
    .sync(move |args: Value, _: &ToolContext| {
        counted.fetch_add(1, Ordering::SeqCst);
        format!("deleted note {}", args["id"])
    });
    let login = define_tool("login", "Needs a login", no_params())
        .unwrap()
        .sync(|_: Value, ctx: &ToolContext| match &ctx.answer {
            Some(answer) if answer.ok => ToolResult::ok("logged in"),
            _ => toolnexus::auth_required("https://auth.example.com/login"),
        });
    let pick_env = define_tool("pick_env", "Asks where to deploy", no_params())
        .unwrap()
        .sync(|_: Value, ctx: &ToolContext| {
            let env = ctx.answer.as_ref().and_then(|answer| {
                answer
                    .data
                    .as_ref()?
                    .get("env")?
                    .as_str()
                    .map(str::to_owned)
            });
            match env {
                Some(env) => ToolResult::ok(format!("deploying to {env}")),
                None => toolnexus::pending(
                    toolnexus::Request::new("input", "Which environment?")
                        .with_data(object(json!({"schema": env_schema()}))),
                ),
            }
        });
    let twice = define_tool("twice", "Never satisfied", no_params())
        .unwrap()
        .sync(|_: Value, _: &ToolContext| {
            toolnexus::pending(toolnexus::Request::new("approval", "Again?"))
        });
    let toolkit = Toolkit::new()
        .with(delete_note)
        .with(login)
        .with(pick_env)
        .with(twice);
    (toolkit, runs)
}

/// The form `pick_env` asks for.
pub fn env_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"env": {"type": "string", "description": "staging or production"}},
        "required": ["env"],
    })
}
