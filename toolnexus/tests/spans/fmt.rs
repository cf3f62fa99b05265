//! README "Tracing": the crate emits spans, not events, so `tracing_subscriber::fmt()` prints
//! nothing for a call until it is asked for span closings; then each call is one line when it
//! ends, with the tool's name and the error type of an error result.
#![cfg(feature = "tracing")]

use std::io::Write;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use toolnexus::{ToolContext, ToolResult, Toolkit, define_tool};
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::fmt::format::FmtSpan;

/// What the formatter wrote.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> MakeWriter<'a> for Captured {
    type Writer = Captured;
    fn make_writer(&'a self) -> Captured {
        self.clone()
    }
}

/// The lines `fmt()` (with `span_events`) prints while a toolkit runs one good call and one to
/// a misspelt tool.
fn printed(span_events: FmtSpan) -> Vec<String> {
    let captured = Captured::default();
    let subscriber = tracing_subscriber::fmt()
        .with_span_events(span_events)
        .with_ansi(false)
        .with_writer(captured.clone())
        .finish();
    let toolkit = Toolkit::new().with(
        define_tool("get_weather", "Weather", json!({"type": "object"}))
            .unwrap()
            .sync(|_: Value, _: &ToolContext| ToolResult::ok("18°C")),
    );
    tracing::subscriber::with_default(subscriber, || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        runtime.block_on(async {
            let ctx = ToolContext::default();
            assert_eq!(
                toolkit.execute("get_weather", json!({}), &ctx).await.output,
                "18°C"
            );
            assert!(
                toolkit
                    .execute("get_wether", json!({}), &ctx)
                    .await
                    .is_error
            );
        });
    });
    let text = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    text.lines().map(str::to_owned).collect()
}

#[test]
fn a_plain_fmt_subscriber_prints_nothing_for_a_call() {
    assert_eq!(printed(FmtSpan::NONE), Vec::<String>::new());
}

#[test]
fn with_span_closings_each_call_is_one_line_naming_the_tool() {
    let lines = printed(FmtSpan::CLOSE);
    assert_eq!(lines.len(), 2, "{lines:#?}");
    for (line, name) in lines.iter().zip(["get_weather", "get_wether"]) {
        assert!(line.contains(" INFO execute_tool{"), "{line}");
        assert!(
            line.contains(&format!("gen_ai.tool.name=\"{name}\"")),
            "{line}"
        );
        assert!(line.contains(": close time.busy="), "{line}");
    }
    assert!(!lines[0].contains("error.type"), "{}", lines[0]);
    assert!(
        lines[1].contains("error.type=\"unknown_tool\""),
        "{}",
        lines[1]
    );
}
