//! SPEC §9: `input_schema()` after the first call is a borrow (pointer-equal, no allocation),
//! and `Toolkit::to_openai()` for 100 tools reuses the cached schemas instead of rebuilding
//! them; the profiles (`to_openai_strict()`, `to_gemini()`, `check()`) for 100 tools cost
//! about a clone of their result, each tool's profile being built once (issue 19).
//!
//! Run: `cargo bench -p toolnexus --bench schema`.

mod common;
mod counting;

use counting::allocations;

use std::hint::black_box;
use std::sync::OnceLock;

use serde_json::{Map, Value};
use toolnexus::{Profile, Tool, ToolContext, Toolkit, define_tool, tool};

/// Look up the weather forecast for a city.
///
/// # Arguments
///
/// * `city` - The city, e.g. "Paris" or "San Francisco, CA".
/// * `days` - How many days ahead, 1 to 14.
/// * `units` - "metric" or "imperial".
/// * `include` - Extra fields: "wind", "humidity", "uv".
#[tool]
fn forecast(
    city: String,
    #[param(default = 3)] days: u8,
    units: Option<String>,
    #[param(default)] include: Vec<String>,
) -> String {
    format!("{city} {days} {units:?} {include:?}")
}

fn main() {
    let mut c = common::criterion();
    let mut summary = common::Summary::new();

    // (c) `input_schema()` repeat calls: the first builds it, every later one borrows it.
    let tool: &dyn Tool = &ForecastTool;
    let (first, first_allocations) = allocations(|| tool.input_schema());
    let (again, again_allocations) = allocations(|| {
        let mut last = tool.input_schema();
        for _ in 0..10_000 {
            last = black_box(tool.input_schema());
        }
        last
    });
    assert!(first_allocations > 0, "the first call builds the schema");
    assert!(
        std::ptr::eq(first, again),
        "a later call returns the same map"
    );
    assert_eq!(again_allocations, 0, "10,000 later calls allocated");
    println!(
        "input_schema(): first call {first_allocations} allocations; \
         next 10,000 calls {again_allocations} allocations, pointer-equal: {}",
        std::ptr::eq(first, again)
    );

    let floor: &dyn Cached = &HandWritten;
    assert!(std::ptr::eq(floor.schema(), floor.schema()));
    let floor_borrow = |()| black_box(floor).schema().len();
    let repeat_call = |()| black_box(tool).input_schema().len();
    let mut group = c.benchmark_group("input_schema");
    group.bench_function("floor_dyn_borrow", |b| b.iter(|| floor_borrow(())));
    group.bench_function("repeat_call", |b| b.iter(|| repeat_call(())));
    group.finish();
    summary.compare_interleaved(
        "input_schema",
        "floor_dyn_borrow",
        "repeat_call",
        Some(1.5),
        || (),
        floor_borrow,
        repeat_call,
    );

    // (d) `to_openai()` for 100 tools, each with a realistic schema (the macro tool's own).
    let schema = Value::Object(ForecastTool.input_schema().clone());
    let toolkit = (0..100).fold(Toolkit::new(), |toolkit, i| {
        let tool = define_tool(
            format!("forecast_{i:03}"),
            "Look up the weather forecast for a city.",
            schema.clone(),
        )
        .unwrap()
        .sync(|_: Value, _: &ToolContext| "sunny");
        toolkit.with(tool)
    });
    assert_eq!(toolkit.len(), 100);
    let openai = toolkit.to_openai();
    for (entry, tool) in openai.as_array().unwrap().iter().zip(toolkit.tools()) {
        assert_eq!(entry["function"]["name"], tool.name());
        assert_eq!(
            entry["function"]["parameters"].as_object(),
            Some(tool.input_schema())
        );
    }
    let ((), floor_allocations) = allocations(|| {
        black_box(clone_schemas(&toolkit));
    });
    let ((), hand_allocations) = allocations(|| {
        black_box(hand_built_entries(&toolkit));
    });
    let ((), openai_allocations) = allocations(|| {
        black_box(toolkit.to_openai());
    });
    assert_eq!(hand_built_entries(&toolkit), openai);
    println!(
        "to_openai() for 100 tools: {openai_allocations} allocations \
         (floor, cloning the 100 cached schemas: {floor_allocations}; \
         the same entries built by hand: {hand_allocations})"
    );

    let floor_clone = |()| clone_schemas(black_box(&toolkit));
    let to_openai = |()| black_box(&toolkit).to_openai();
    // Not a floor: the same output with one clone per schema, to show to_openai's overhead.
    let hand_built = |()| hand_built_entries(black_box(&toolkit));
    // For scale only: what rebuilding every schema from its type would cost.
    let rebuild = |()| {
        (0..100)
            .map(|_| toolnexus::__private::input_schema_for::<ForecastArgs>())
            .collect::<Vec<_>>()
    };
    let mut group = c.benchmark_group("to_openai_100");
    group.bench_function("floor_clone_schemas", |b| b.iter(|| floor_clone(())));
    group.bench_function("to_openai", |b| b.iter(|| to_openai(())));
    group.bench_function("hand_built", |b| b.iter(|| hand_built(())));
    group.bench_function("rebuild_schemas", |b| b.iter(|| rebuild(())));
    group.finish();
    summary.compare_interleaved(
        "to_openai_100",
        "floor_clone_schemas",
        "to_openai",
        Some(1.5),
        || (),
        floor_clone,
        to_openai,
    );
    summary.compare_interleaved(
        "to_openai_100",
        "floor_clone_schemas",
        "hand_built",
        None,
        || (),
        floor_clone,
        hand_built,
    );
    summary.compare_interleaved(
        "to_openai_100",
        "floor_clone_schemas",
        "rebuild_schemas",
        None,
        || (),
        floor_clone,
        rebuild,
    );

    profiles(&mut c, &mut summary, &toolkit);

    c.final_summary();
    summary.print();
}

/// (e) Each profile for 100 tools, against a clone of its own result: what a call costs once
/// every tool's profile is built. `check` runs on tools that also take a map, so that it has
/// an issue per tool to report.
fn profiles(c: &mut criterion::Criterion, summary: &mut common::Summary, toolkit: &Toolkit) {
    let mut schema = ForecastTool.input_schema().clone();
    schema["properties"].as_object_mut().unwrap().insert(
        "tags".to_owned(),
        serde_json::json!({"type": "object", "additionalProperties": {"type": "string"}}),
    );
    let with_maps = (0..100).fold(Toolkit::new(), |toolkit, i| {
        let tool = define_tool(
            format!("tagged_{i:03}"),
            "Tagged forecast.",
            Value::Object(schema.clone()),
        )
        .unwrap()
        .sync(|_: Value, _: &ToolContext| "sunny");
        toolkit.with(tool)
    });
    let strict = toolkit.to_openai_strict();
    let gemini = toolkit.to_gemini();
    let issues = with_maps.check(Profile::OpenAiStrict);
    assert_eq!(toolkit.to_openai_strict(), strict);
    assert_eq!(strict[99]["function"]["strict"], true);
    assert_eq!(issues.len(), 100);
    let floor_strict = |()| black_box(&strict).clone();
    let floor_gemini = |()| black_box(&gemini).clone();
    let floor_issues = |()| black_box(&issues).clone();
    let to_strict = |()| black_box(toolkit).to_openai_strict();
    let to_gemini = |()| black_box(toolkit).to_gemini();
    let check = |()| black_box(&with_maps).check(Profile::OpenAiStrict);
    let mut group = c.benchmark_group("profiles_100");
    group.bench_function("floor_clone_strict", |b| b.iter(|| floor_strict(())));
    group.bench_function("to_openai_strict", |b| b.iter(|| to_strict(())));
    group.bench_function("floor_clone_gemini", |b| b.iter(|| floor_gemini(())));
    group.bench_function("to_gemini", |b| b.iter(|| to_gemini(())));
    group.bench_function("floor_clone_issues", |b| b.iter(|| floor_issues(())));
    group.bench_function("check", |b| b.iter(|| check(())));
    group.finish();
    summary.compare_interleaved(
        "profiles_100",
        "floor_clone_strict",
        "to_openai_strict",
        None,
        || (),
        floor_strict,
        to_strict,
    );
    summary.compare_interleaved(
        "profiles_100",
        "floor_clone_gemini",
        "to_gemini",
        None,
        || (),
        floor_gemini,
        to_gemini,
    );
    summary.compare_interleaved(
        "profiles_100",
        "floor_clone_issues",
        "check",
        None,
        || (),
        floor_issues,
        check,
    );
}

/// The `input_schema()` floor: a hand-written trait object borrowing a lazily built static.
trait Cached {
    fn schema(&self) -> &Map<String, Value>;
}

struct HandWritten;

impl Cached for HandWritten {
    fn schema(&self) -> &Map<String, Value> {
        static SCHEMA: OnceLock<Map<String, Value>> = OnceLock::new();
        SCHEMA.get_or_init(|| ForecastTool.input_schema().clone())
    }
}

/// The same entries as `to_openai()`, built by hand with one clone of each cached schema.
fn hand_built_entries(toolkit: &Toolkit) -> Value {
    let entries = toolkit.tools().iter().map(|tool| {
        let mut function = Map::new();
        function.insert("name".to_owned(), tool.name().into());
        function.insert("description".to_owned(), tool.description().into());
        function.insert(
            "parameters".to_owned(),
            Value::Object(tool.input_schema().clone()),
        );
        let mut entry = Map::new();
        entry.insert("type".to_owned(), "function".into());
        entry.insert("function".to_owned(), Value::Object(function));
        Value::Object(entry)
    });
    Value::Array(entries.collect())
}

/// The floor: the 100 cached schema maps, cloned into a `Vec`.
fn clone_schemas(toolkit: &Toolkit) -> Vec<Map<String, Value>> {
    toolkit
        .tools()
        .iter()
        .map(|tool| tool.input_schema().clone())
        .collect()
}

/// A hand-written twin of `forecast`'s arguments, only to time a schema rebuild.
#[derive(schemars::JsonSchema)]
#[allow(dead_code)]
struct ForecastArgs {
    city: String,
    days: u8,
    units: Option<String>,
    include: Vec<String>,
}
