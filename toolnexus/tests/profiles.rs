//! The schema profiles a toolkit sends (SPEC §11): each tool's profile built once and kept.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Map, Value, json};
use toolnexus::{BoxFuture, Profile, Tool, ToolContext, ToolResult, Toolkit};

/// A tool that counts how often its schema is read, to see when a profile is rebuilt.
struct Counting {
    schema: Map<String, Value>,
    reads: Arc<AtomicUsize>,
}

impl Tool for Counting {
    fn name(&self) -> &str {
        "tagged"
    }

    fn description(&self) -> &str {
        "Counts its schema reads"
    }

    fn input_schema(&self) -> &Map<String, Value> {
        self.reads.fetch_add(1, Ordering::Relaxed);
        &self.schema
    }

    fn execute<'a>(&'a self, _: Value, _: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        Box::pin(async { ToolResult::ok("ok") })
    }
}

fn counting(schema: Value) -> (Counting, Arc<AtomicUsize>) {
    let reads = Arc::new(AtomicUsize::new(0));
    let Value::Object(schema) = schema else {
        panic!("an object schema")
    };
    let tool = Counting {
        schema,
        reads: Arc::clone(&reads),
    };
    (tool, reads)
}

#[test]
fn a_toolkit_builds_each_profile_of_a_tool_once() {
    let schema = json!({
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "tags": {"type": "object", "additionalProperties": {"type": "string"}},
        },
        "required": ["city"],
    });
    let (tool, reads) = counting(schema);
    let toolkit = Toolkit::new().with(tool);
    let rewrites = [Profile::OpenAiStrict, Profile::Gemini];
    let sent = |toolkit: &Toolkit| {
        (
            toolkit.to_openai_strict(),
            toolkit.to_gemini(),
            rewrites.map(|profile| toolkit.check(profile)),
        )
    };
    let first = sent(&toolkit);
    let built = reads.load(Ordering::Relaxed);
    assert!(built > 0);
    // Later calls, and the toolkit's clones, reuse what the first calls built.
    let copy = toolkit.clone();
    for _ in 0..3 {
        assert_eq!(sent(&toolkit), first);
        assert_eq!(sent(&copy), first);
    }
    assert_eq!(reads.load(Ordering::Relaxed), built);
    // What is kept is what a fresh build gives.
    assert_eq!(
        first.2[0],
        toolnexus::check(toolkit.tools()[0].as_ref(), Profile::OpenAiStrict)
    );
    assert_eq!(first.2[0].len(), 1, "the map is reported: {:?}", first.2[0]);
    assert_eq!(first.0[0]["function"]["strict"], false);
}
