//! Every outcome of a tool — success, failure, rich output, a suspension — is a `ToolResult`
//! value (SPEC §1–§4), shown on four tools: a config reader that succeeds and fails, a search
//! with metadata, a screenshot with an image part, and a deploy that waits for approval.

use crate::common;

use std::path::Path;

use anyhow::Context as _;
use serde_json::{Map, Value, json};
use toolnexus::parts::Source;
use toolnexus::{
    Answer, BoxFuture, ContentPart, Request, Tool, ToolContext, ToolResult, auth_required,
    define_tool,
    parts::{attach, part_bytes},
    pending, pending_of,
};

use common::{fixture_png_base64, root};

fn object_schema(properties: Value, required: &[&str]) -> Value {
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

// 1. A config reader: success and failure are both results, never panics.

fn config_reader() -> impl Tool {
    define_tool(
        "read_config",
        "Read a configuration file and return its text.",
        object_schema(json!({"path": {"type": "string"}}), &["path"]),
    )
    .unwrap()
    .sync(
        |args: Value, _ctx: &ToolContext| -> anyhow::Result<String> {
            let path = args["path"].as_str().context("`path` must be a string")?;
            std::fs::read_to_string(path).with_context(|| format!("reading config {path}"))
        },
    )
}

#[tokio::test]
async fn config_reader_success_is_a_result() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("app.toml");
    std::fs::write(&path, "port = 8080\n").unwrap();

    let tool = config_reader();
    let result = tool
        .execute(json!({"path": path}), &ToolContext::default())
        .await;
    assert_eq!(result, ToolResult::ok("port = 8080\n"));
    assert_eq!(
        serde_json::to_string(&result).unwrap(),
        r#"{"output":"port = 8080\n","isError":false}"#
    );
}

#[tokio::test]
async fn config_reader_failure_is_a_result_too() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("missing.toml");

    let tool = config_reader();
    let result = tool
        .execute(json!({"path": path}), &ToolContext::default())
        .await;
    assert!(result.is_error);
    assert!(!result.is_pending());
    // anyhow's whole chain, via `{:#}`: our context, then the io error.
    let expected_prefix = format!("reading config {}: ", path.display());
    assert!(
        result.output.starts_with(&expected_prefix),
        "{}",
        result.output
    );
    assert!(result.output.len() > expected_prefix.len());
    assert!(result.parts.is_empty() && result.metadata.is_empty());

    let bad_args = tool
        .execute(json!({"path": 42}), &ToolContext::default())
        .await;
    assert_eq!(bad_args, ToolResult::error("`path` must be a string"));
}

// 2. A search: legible output for the model, structured metadata for the code.

struct Doc {
    id: u64,
    title: &'static str,
}

const DOCS: [Doc; 4] = [
    Doc {
        id: 4,
        title: "Rust ownership explained",
    },
    Doc {
        id: 9,
        title: "Async Rust in practice",
    },
    Doc {
        id: 12,
        title: "Gardening for beginners",
    },
    Doc {
        id: 17,
        title: "Rust macros, by example",
    },
];

fn search_tool() -> impl Tool {
    define_tool(
        "search_docs",
        "Search the documentation by title.",
        object_schema(json!({"query": {"type": "string"}}), &["query"]),
    )
    .unwrap()
    .run(|args: Value, _ctx: ToolContext| async move {
        let query = args["query"].as_str().unwrap_or_default().to_lowercase();
        let hits: Vec<&Doc> = DOCS
            .iter()
            .filter(|doc| doc.title.to_lowercase().contains(&query))
            .collect();
        let lines: Vec<String> = hits
            .iter()
            .map(|doc| format!("#{} {}", doc.id, doc.title))
            .collect();
        ToolResult::ok(format!(
            "{} results for \"{query}\":\n{}",
            hits.len(),
            lines.join("\n")
        ))
        .with_metadata("title", format!("Search: {query}"))
        .with_metadata("count", hits.len())
        .with_metadata("ids", hits.iter().map(|doc| doc.id).collect::<Vec<_>>())
    })
}

#[tokio::test]
async fn search_returns_legible_output_plus_metadata() {
    let result = search_tool()
        .execute(json!({"query": "Rust"}), &ToolContext::default())
        .await;
    assert!(!result.is_error);
    assert_eq!(
        result.output,
        "3 results for \"rust\":\n#4 Rust ownership explained\n#9 Async Rust in practice\n#17 Rust macros, by example"
    );
    assert_eq!(
        Value::Object(result.metadata.clone()),
        json!({"title": "Search: rust", "count": 3, "ids": [4, 9, 17]})
    );
    // Metadata is for code: it rides in the wire form, after the model-facing fields.
    assert_eq!(
        serde_json::to_string(&result).unwrap(),
        r#"{"output":"3 results for \"rust\":\n#4 Rust ownership explained\n#9 Async Rust in practice\n#17 Rust macros, by example","isError":false,"metadata":{"title":"Search: rust","count":3,"ids":[4,9,17]}}"#
    );
}

// 3. A screenshot: an image part beside a one-line text description. Implemented by hand.

struct Screenshot {
    schema: Map<String, Value>,
}

impl Screenshot {
    const PATH: &'static str = "examples/media/fixture.png";

    fn new() -> Self {
        let Value::Object(schema) = object_schema(json!({}), &[]) else {
            unreachable!()
        };
        Self { schema }
    }

    fn take(&self) -> ToolResult {
        let part = match attach(root().join(Self::PATH).to_string_lossy()) {
            Ok(part) => part,
            Err(error) => return ToolResult::error(format!("screenshot failed: {error}")),
        };
        let mime = part.media().map(|media| media.mime_type.clone());
        let output = format!(
            "{} ({}, {} bytes)",
            Self::PATH,
            mime.unwrap_or_default(),
            part_bytes(&part)
        );
        ToolResult::ok(output).with_part(part)
    }
}

impl Tool for Screenshot {
    fn name(&self) -> &str {
        "screenshot"
    }

    fn description(&self) -> &str {
        "Take a screenshot of the current screen."
    }

    fn input_schema(&self) -> &Map<String, Value> {
        &self.schema
    }

    fn execute<'a>(&'a self, _args: Value, _ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move { self.take() })
    }
}

#[tokio::test]
async fn screenshot_returns_an_image_part() {
    let tool: std::sync::Arc<dyn Tool> = std::sync::Arc::new(Screenshot::new());
    let result = tool.execute(Value::Null, &ToolContext::default()).await;
    assert!(!result.is_error);
    assert_eq!(
        result.output,
        "examples/media/fixture.png (image/png, 82 bytes)"
    );
    assert_eq!(result.parts.len(), 1);

    let base64 = fixture_png_base64();
    let ContentPart::Image(media) = &result.parts[0] else {
        panic!("a png is an image part: {:?}", result.parts[0]);
    };
    assert_eq!(media.mime_type, "image/png");
    assert_eq!(media.name, None, "image parts carry no name");
    assert_eq!(media.source, Source::Data(base64.clone()));

    let wire = serde_json::to_value(&result).unwrap();
    assert_eq!(
        wire["parts"][0],
        json!({"type": "image", "mimeType": "image/png", "data": base64})
    );
    assert!(Path::new(&root().join(Screenshot::PATH)).exists());
}

// 4. Suspension: a tool that cannot finish until a human answers.

/// `Err(Request)` suspends. (`Request` is bigger than clippy's `result_large_err` threshold;
/// a tool returns it once per call, so the size does not matter here.)
#[allow(clippy::result_large_err)]
fn deploy(args: Value, ctx: &ToolContext) -> Result<String, Request> {
    let service = args["service"].as_str().unwrap_or("?").to_owned();
    match &ctx.answer {
        None => Err(Request::new(
            "approval",
            format!("Approve deploying {service} to production?"),
        )
        .with_url("https://ci.example.com/approve")),
        Some(answer) if answer.ok => Ok(format!("deployed {service}")),
        Some(_) => Err(Request::new("approval", "still waiting").with_id("never")),
    }
}

fn deploy_tool() -> impl Tool {
    define_tool(
        "deploy",
        "Deploy a service to production (asks for approval first).",
        object_schema(json!({"service": {"type": "string"}}), &["service"]),
    )
    .unwrap()
    .sync(deploy)
}

#[tokio::test]
async fn pending_suspends_and_resumes() {
    let tool = deploy_tool();
    let first = tool
        .execute(json!({"service": "api"}), &ToolContext::default())
        .await;
    assert!(first.is_error, "a suspension produced no answer");
    assert!(first.is_pending());
    assert_eq!(
        first.output,
        "Approve deploying api to production?\nhttps://ci.example.com/approve"
    );
    let request = pending_of(&first).expect("the result carries its request");
    assert_eq!(first.pending(), Some(request.clone()));
    assert_eq!(request.kind, "approval");
    assert_eq!(
        request.url.as_deref(),
        Some("https://ci.example.com/approve")
    );
    assert!(request.id.starts_with("pnd-"));
    assert_eq!(
        first.metadata["pending"],
        serde_json::to_value(&request).unwrap()
    );

    let ctx = ToolContext {
        answer: Some(Answer {
            id: request.id.clone(),
            ok: true,
            data: None,
            reason: None,
        }),
        ..ToolContext::default()
    };
    let second = tool.execute(json!({"service": "api"}), &ctx).await;
    assert_eq!(second, ToolResult::ok("deployed api"));
    assert!(!second.is_pending());
    assert_eq!(pending_of(&second), None);
}

#[test]
fn pending_of_tells_suspensions_from_failures() {
    let failure = ToolResult::error("disk full");
    assert!(failure.is_error && !failure.is_pending());
    assert_eq!(pending_of(&failure), None);

    let request = Request::new("input", "Which environment?");
    let suspended = pending(request.clone());
    assert_eq!(suspended.output, "Which environment?");
    assert_eq!(pending_of(&suspended), Some(request));

    // A `pending` entry that is not a request is not a suspension.
    let odd = ToolResult::error("x").with_metadata("pending", "soon");
    assert_eq!(pending_of(&odd), None);
}

#[test]
fn auth_required_is_an_authorization_suspension() {
    let result = auth_required("https://example.com/login");
    assert!(result.is_pending());
    assert!(result.is_error);
    assert_eq!(
        result.output,
        "Authorization required to continue\nhttps://example.com/login"
    );
    let request = pending_of(&result).unwrap();
    assert_eq!(request.kind, "authorization");
    assert_eq!(request.prompt, "Authorization required to continue");
    assert_eq!(request.url.as_deref(), Some("https://example.com/login"));
    assert_eq!(request.data, None);
    assert_eq!(request.expires_at, None);
}
