//! The `tracing` feature (SPEC §12C): every execution through a toolkit is an `execute_tool`
//! span with the OpenTelemetry GenAI attributes, and every MCP request over HTTP a span with
//! the MCP ones, read here by a subscriber that keeps each span's fields.
#![cfg(all(feature = "tracing", feature = "mcp-http"))]

use crate::common::mcp_raw;

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use serde_json::{Value, json};
use toolnexus::mcp::HttpOptions;
use toolnexus::{Request, ToolContext, ToolResult, Toolkit, define_tool, pending, tool, tools};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};
use tracing_core::span::Current;

type Fields = BTreeMap<String, String>;

/// Every span opened in the process: its name and fields as last recorded.
#[derive(Default)]
struct Capture {
    next: AtomicU64,
    spans: Mutex<HashMap<u64, (&'static str, Fields)>>,
    metadata: Mutex<HashMap<u64, &'static Metadata<'static>>>,
}

thread_local! {
    /// The spans entered on this thread, innermost last: what `Span::current()` reads.
    static ENTERED: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
}

struct Fill<'a>(&'a mut Fields);

impl Visit for Fill<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
}

impl Subscriber for Capture {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, attributes: &Attributes<'_>) -> Id {
        let id = self.next.fetch_add(1, Ordering::SeqCst) + 1;
        let mut fields = Fields::new();
        attributes.record(&mut Fill(&mut fields));
        let name = attributes.metadata().name();
        self.spans.lock().unwrap().insert(id, (name, fields));
        self.metadata
            .lock()
            .unwrap()
            .insert(id, attributes.metadata());
        Id::from_u64(id)
    }
    fn record(&self, span: &Id, values: &Record<'_>) {
        if let Some((_, fields)) = self.spans.lock().unwrap().get_mut(&span.into_u64()) {
            values.record(&mut Fill(fields));
        }
    }
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, _: &Event<'_>) {}
    fn enter(&self, span: &Id) {
        ENTERED.with(|entered| entered.borrow_mut().push(span.into_u64()));
    }
    fn exit(&self, _: &Id) {
        ENTERED.with(|entered| entered.borrow_mut().pop());
    }
    fn current_span(&self) -> Current {
        let Some(id) = ENTERED.with(|entered| entered.borrow().last().copied()) else {
            return Current::none();
        };
        match self.metadata.lock().unwrap().get(&id) {
            Some(metadata) => Current::new(Id::from_u64(id), metadata),
            None => Current::none(),
        }
    }
}

fn capture() -> &'static Capture {
    static CAPTURE: OnceLock<&'static Capture> = OnceLock::new();
    CAPTURE.get_or_init(|| {
        let capture: &'static Capture = Box::leak(Box::default());
        tracing::subscriber::set_global_default(CaptureRef(capture)).unwrap();
        capture
    })
}

/// The global subscriber: the leaked `Capture`, so the tests can read it too.
struct CaptureRef(&'static Capture);

impl Subscriber for CaptureRef {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        self.0.enabled(metadata)
    }
    fn new_span(&self, attributes: &Attributes<'_>) -> Id {
        self.0.new_span(attributes)
    }
    fn record(&self, span: &Id, values: &Record<'_>) {
        self.0.record(span, values);
    }
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, _: &Event<'_>) {}
    fn enter(&self, span: &Id) {
        self.0.enter(span);
    }
    fn exit(&self, span: &Id) {
        self.0.exit(span);
    }
    fn current_span(&self) -> Current {
        self.0.current_span()
    }
}

/// The fields of the spans named `name` whose field `key` is `value`.
fn spans(name: &str, key: &str, value: &str) -> Vec<Fields> {
    capture()
        .spans
        .lock()
        .unwrap()
        .values()
        .filter(|(span, fields)| {
            *span == name && fields.get(key).map(String::as_str) == Some(value)
        })
        .map(|(_, fields)| fields.clone())
        .collect()
}

/// Adds two integers.
#[tool]
fn traced_add(a: i64, b: i64) -> i64 {
    a + b
}

fn toolkit() -> Toolkit {
    let tool = |name: &str| define_tool(name, "A tool", json!({"type": "object"})).unwrap();
    Toolkit::new()
        .with_all(tools![traced_add])
        .with(tool("traced_http").sync(|_: Value, _: &ToolContext| ToolResult::ok("5")))
        .with(
            tool("traced_fails")
                .sync(|_: Value, _: &ToolContext| ToolResult::error("the disk is full")),
        )
        .with(
            tool("traced_asks")
                .sync(|_: Value, _: &ToolContext| pending(Request::new("approval", "Go?"))),
        )
        .with(
            tool("traced_panics")
                .sync(|_: Value, _: &ToolContext| -> ToolResult { panic!("oh no") }),
        )
        .with(tool("traced_sleeps").run(|_: Value, _: ToolContext| async {
            tokio::time::sleep(Duration::from_secs(60)).await;
            ToolResult::ok("late")
        }))
}

#[tokio::test]
async fn every_execution_is_an_execute_tool_span_with_its_error_type() {
    capture();
    let toolkit = toolkit();
    let ctx = ToolContext::default();
    let timed = ToolContext {
        timeout: Some(Duration::from_millis(10)),
        ..Default::default()
    };
    toolkit
        .execute("traced_add", json!({"a": 1, "b": 2}), &ctx)
        .await;
    toolkit
        .execute_json("traced_add", r#"{"a": "one"}"#, &ctx)
        .await;
    toolkit.execute("traced_missing", json!({}), &ctx).await;
    toolkit.execute("traced_fails", json!({}), &ctx).await;
    toolkit.execute("traced_asks", json!({}), &ctx).await;
    toolkit.execute("traced_panics", json!({}), &ctx).await;
    toolkit.execute("traced_sleeps", json!({}), &timed).await;
    for (tool, runs, error_type) in [
        ("traced_add", 2, None),
        ("traced_add", 2, Some("invalid_arguments")),
        ("traced_missing", 1, Some("unknown_tool")),
        ("traced_fails", 1, Some("tool_error")),
        ("traced_asks", 1, Some("suspended")),
        ("traced_panics", 1, Some("panic")),
        ("traced_sleeps", 1, Some("timeout")),
    ] {
        let spans = spans("execute_tool", "gen_ai.tool.name", tool);
        assert_eq!(spans.len(), runs, "{tool}: {spans:?}");
        let span = spans
            .iter()
            .find(|span| span.get("error.type").map(String::as_str) == error_type)
            .unwrap_or_else(|| panic!("{tool} with error.type {error_type:?}: {spans:?}"));
        assert_eq!(span["otel.name"], format!("execute_tool {tool}"));
        assert_eq!(span["gen_ai.operation.name"], "execute_tool");
        // Outside MCP and run_calls the call has no id.
        assert!(!span.contains_key("gen_ai.tool.call.id"), "{span:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mcp_request_over_http_is_a_span_with_the_mcp_attributes() {
    capture();
    let running = mcp_raw::start(toolkit(), HttpOptions::new()).await;
    let mut client = mcp_raw::Client::new(&running);
    client.initialize().await;
    let session = client.session.clone().unwrap();
    let reply = client.call(4242, "traced_http", "{}").await;
    assert_eq!(reply.message["result"]["content"][0]["text"], "5");
    let spans = spans("mcp.request", "jsonrpc.request.id", "4242");
    assert_eq!(spans.len(), 1, "{spans:?}");
    let span = &spans[0];
    assert_eq!(span["mcp.method.name"], "tools/call");
    assert_eq!(span["otel.name"], "tools/call");
    assert_eq!(span["mcp.session.id"], session);
    let executed = self::spans("execute_tool", "gen_ai.tool.name", "traced_http");
    assert_eq!(executed.len(), 1, "{executed:?}");
    // Over MCP the call's id is the JSON-RPC request id.
    assert_eq!(executed[0]["gen_ai.tool.call.id"], "4242");
    running.shut_down().await;
}
