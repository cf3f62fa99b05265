//! The `execute_tool` spans as OpenTelemetry sees them (SPEC §12C): through
//! `tracing-opentelemetry` into the SDK's in-memory exporter, the span named
//! `execute_tool {name}` with the GenAI attributes by their OpenTelemetry names.
#![cfg(feature = "tracing")]

use std::collections::BTreeMap;

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider};
use serde_json::{Value, json};
use toolnexus::{ToolContext, ToolResult, Toolkit, define_tool};
use tracing_subscriber::layer::SubscriberExt;

#[test]
fn execute_tool_spans_reach_opentelemetry_with_the_gen_ai_attributes() {
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let subscriber = tracing_subscriber::registry()
        .with(tracing_opentelemetry::layer().with_tracer(provider.tracer("toolnexus-test")));
    let schema = json!({"type": "object"});
    let toolkit = Toolkit::new()
        .with(
            define_tool("lookup", "Looks up", schema.clone())
                .unwrap()
                .sync(|_: Value, _: &ToolContext| ToolResult::ok("found")),
        )
        .with(
            define_tool("explode", "Panics", schema)
                .unwrap()
                .sync(|_: Value, _: &ToolContext| -> ToolResult { panic!("boom") }),
        );
    tracing::subscriber::with_default(subscriber, || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        runtime.block_on(async {
            let ctx = ToolContext::default();
            assert_eq!(
                toolkit.execute("lookup", json!({}), &ctx).await.output,
                "found"
            );
            assert!(toolkit.execute("explode", json!({}), &ctx).await.is_error);
        });
    });
    provider.force_flush().unwrap();
    let spans: BTreeMap<String, BTreeMap<String, String>> = exporter
        .get_finished_spans()
        .unwrap()
        .into_iter()
        .map(|span| {
            let attributes = span
                .attributes
                .iter()
                .map(|kv| (kv.key.as_str().to_owned(), kv.value.as_str().into_owned()))
                .collect();
            (span.name.into_owned(), attributes)
        })
        .collect();
    let lookup = &spans["execute_tool lookup"];
    assert_eq!(lookup["gen_ai.operation.name"], "execute_tool");
    assert_eq!(lookup["gen_ai.tool.name"], "lookup");
    assert!(!lookup.contains_key("error.type"), "{lookup:?}");
    let explode = &spans["execute_tool explode"];
    assert_eq!(explode["gen_ai.tool.name"], "explode");
    assert_eq!(explode["error.type"], "panic");
}
