//! Hostile input: property tests and extremes that must give an error, never a panic, a stack
//! overflow or an unbounded allocation.

use crate::common;

use proptest::prelude::*;
use serde_json::{Map, Value};
use toolnexus::{
    Answer, ContentPart, Reason, Request, Tool, ToolContext, ToolResult, Toolkit,
    parts::{attach, attach_with, from_bytes, part_bytes},
    tool, tools,
};

use common::block_on;

/// Adds two numbers.
#[tool]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

/// Greets someone.
#[tool]
fn greet(name: Option<String>, #[param(default = 1)] times: u8, tags: Vec<String>) -> String {
    format!("{}{}{}", name.unwrap_or_default(), times, tags.len())
}

/// Stores any JSON value.
#[tool]
fn store(value: Value) -> usize {
    value.to_string().len()
}

/// Stores any JSON value, once a human agrees.
#[tool(approval = "Store it?")]
fn store_approved(value: Value) -> usize {
    value.to_string().len()
}

fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        ".{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map("[a-z]{1,6}", inner, 0..6)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

fn any_map() -> impl Strategy<Value = Option<Map<String, Value>>> {
    prop::option::of(
        prop::collection::btree_map("[a-zA-Z]{1,8}", any_json(), 0..4)
            .prop_map(|map| map.into_iter().collect()),
    )
}

fn any_part() -> impl Strategy<Value = ContentPart> {
    prop_oneof![
        ".{0,20}".prop_map(ContentPart::text),
        (
            prop::collection::vec(any::<u8>(), 0..64),
            "(image|audio|application|text)/[a-z]{1,8}"
        )
            .prop_map(|(bytes, mime)| from_bytes(&bytes, &mime)),
        ("https://[a-z]{1,10}\\.com/[a-z]{1,8}\\.(png|pdf|mp3)")
            .prop_map(|url| attach(url).unwrap()),
    ]
}

fn any_request() -> impl Strategy<Value = Request> {
    (
        ".{0,10}",
        ".{0,10}",
        ".{0,20}",
        prop::option::of(".{0,20}"),
        any_map(),
        prop::option::of(".{0,20}"),
    )
        .prop_map(|(id, kind, prompt, url, data, expires_at)| Request {
            id,
            kind,
            prompt,
            url,
            data,
            expires_at,
        })
}

fn roundtrip<T: serde::Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug>(
    value: &T,
) {
    let text = serde_json::to_string(value).unwrap();
    let back: T = serde_json::from_str(&text).unwrap();
    assert_eq!(&back, value, "{text}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn part_bytes_of_from_bytes_is_the_byte_count(bytes in prop::collection::vec(any::<u8>(), 0..2048)) {
        prop_assert_eq!(part_bytes(&from_bytes(&bytes, "application/octet-stream")), bytes.len());
    }

    #[test]
    fn wire_types_round_trip(
        part in any_part(),
        request in any_request(),
        output in ".{0,30}",
        is_error in any::<bool>(),
        metadata in any_map(),
        ok in any::<bool>(),
        reason in prop::option::of(prop_oneof![Just(Reason::Declined), Just(Reason::Cancelled), Just(Reason::Expired)]),
    ) {
        roundtrip(&part);
        roundtrip(&request);
        let result = ToolResult { output, is_error, parts: vec![part], metadata: metadata.clone().unwrap_or_default() };
        roundtrip(&result);
        roundtrip(&Answer { id: request.id.clone(), ok, data: metadata, reason });
    }

    #[test]
    fn arbitrary_arguments_never_panic(args in any_json()) {
        let toolkit = Toolkit::new().with_all(tools![add, greet, store]);
        let ctx = ToolContext::default();
        for name in ["add", "greet", "store"] {
            let result = block_on(toolkit.execute(name, args.clone(), &ctx));
            let prefix = format!("invalid arguments for `{name}`: ");
            prop_assert!(!result.is_error || result.output.starts_with(&prefix), "{}", result.output);
            let raw = block_on(toolkit.execute_json(name, &args.to_string(), &ctx));
            prop_assert_eq!(raw, result);
        }
    }

    #[test]
    fn arbitrary_attach_sources_never_panic(source in prop_oneof![
        ".{0,40}",
        "data:[a-z/+;=,%0-9A-Za-z]{0,40}",
        "https?://[ -~]{0,30}",
    ]) {
        let _ = attach(&source);
        let _ = attach_with(&source, toolnexus::parts::AttachOptions { max_part_bytes: Some(4), ..Default::default() });
    }
}

fn nested(depth: usize) -> (String, Value) {
    let text = "[".repeat(depth) + &"]".repeat(depth);
    let mut value = Value::Array(Vec::new());
    for _ in 1..depth {
        value = Value::Array(vec![value]);
    }
    (text, value)
}

#[test]
fn ten_thousand_levels_of_nesting_are_an_error() {
    let (text, value) = nested(10_000);
    let toolkit = Toolkit::new().with_all(tools![store]);
    let ctx = ToolContext::default();
    let raw = block_on(toolkit.execute_json("store", &format!(r#"{{"value":{text}}}"#), &ctx));
    assert!(raw.is_error, "{}", raw.output);
    assert!(
        raw.output.starts_with("invalid arguments for `store`: "),
        "{}",
        raw.output
    );
    // Not `json!`: it would serialize `value` recursively before the tool ever sees it.
    let args = Value::Object(Map::from_iter([("value".to_owned(), value)]));
    let direct = block_on(StoreTool.execute(args, &ctx));
    assert!(direct.is_error, "{}", direct.output);
    assert!(direct.output.contains("nested"), "{}", direct.output);
}

#[test]
fn a_100_mib_argument_string_is_refused_before_parsing() {
    let huge = format!(r#"{{"name":"{}"}}"#, "x".repeat(100 * 1024 * 1024));
    let toolkit = Toolkit::new().with_all(tools![greet]);
    let result = block_on(toolkit.execute_json("greet", &huge, &ToolContext::default()));
    assert!(result.is_error);
    assert!(
        result.output.starts_with("invalid arguments for `greet`: "),
        "{}",
        &result.output[..80.min(result.output.len())]
    );
    assert!(result.output.len() < 200, "the error echoes the payload");
}

#[cfg(unix)]
#[test]
fn a_device_that_never_ends_is_refused() {
    let opts = toolnexus::parts::AttachOptions {
        mime_type: Some("application/octet-stream".into()),
        ..Default::default()
    };
    let error = attach_with("/dev/zero", opts).unwrap_err();
    assert_eq!(error.code(), "io");
    assert!(error.to_string().contains("not a regular file"), "{error}");
}

/// The approval gate copies the arguments for its request before they decode; hostile nesting
/// must be refused like everywhere else, not overflow the stack while being copied.
#[test]
fn hostile_nesting_is_an_error_for_a_tool_behind_approval_too() {
    let (text, value) = nested(200_000);
    let ctx = ToolContext::default();
    let args = Value::Object(Map::from_iter([("value".to_owned(), value)]));
    let direct = block_on(StoreApprovedTool.execute(args, &ctx));
    assert!(direct.is_error, "{}", direct.output);
    assert!(direct.output.contains("nested"), "{}", direct.output);
    let raw = block_on(StoreApprovedTool.execute_json(&format!(r#"{{"value":{text}}}"#), &ctx));
    assert!(
        raw.output
            .starts_with("invalid arguments for `store_approved`: "),
        "{}",
        raw.output
    );

    // A tool built at run time decodes nothing itself; its arguments are held to the same limit.
    let (_, value) = nested(200_000);
    let schema = serde_json::json!({"type": "object", "properties": {"value": {}}});
    let guarded = toolnexus::define_tool("store_later", "Stores a value", schema)
        .unwrap()
        .approval("Store {value}?")
        .sync(|_: Value, _: &ToolContext| "stored");
    let args = Value::Object(Map::from_iter([("value".to_owned(), value)]));
    let refused = block_on(guarded.execute(args, &ctx));
    assert_eq!(
        refused.output,
        "invalid arguments for `store_later`: arguments are nested more than 127 levels deep"
    );
}

#[derive(serde::Deserialize, toolnexus::JsonSchema)]
struct Point {
    x: i32,
    y: i32,
}

/// Sums points.
#[tool]
fn sum_points(points: Vec<Point>) -> i64 {
    points
        .iter()
        .map(|point| i64::from(point.x) + i64::from(point.y))
        .sum()
}

/// Decoded arguments are checked against the schema (a point sent as `[1, 2]` is refused)
/// at any size: past 100,000 values, text is checked as the `Value` it is decoded from rather
/// than read again for the check, with the same outcome on both entry points.
#[test]
fn the_schema_check_holds_at_any_size_on_both_entry_points() {
    let points = |count: usize| {
        let mut points = vec![serde_json::json!([1, 2])];
        points.resize(count, serde_json::json!({"x": 1, "y": 2}));
        serde_json::json!({ "points": points })
    };
    // The arguments object, the list, then 3 values per point.
    let read = points((100_000 - 2) / 3);
    let past_reading = points((100_000 - 2) / 3 + 1);
    let ctx = ToolContext::default();
    for args in [read, past_reading] {
        let direct = block_on(SumPointsTool.execute(args.clone(), &ctx));
        let raw = block_on(SumPointsTool.execute_json(&args.to_string(), &ctx));
        assert_eq!(direct, raw);
        assert_eq!(
            direct.output,
            "invalid arguments for `sum_points`: field `points[0]`: invalid type: array, \
             expected object"
        );
    }
}

#[derive(serde::Deserialize, toolnexus::JsonSchema)]
struct Leaf {
    name: String,
}

#[derive(serde::Deserialize, toolnexus::JsonSchema)]
#[serde(untagged)]
enum Tree {
    Branch { a: Vec<Tree> },
    Tagged { a: Vec<Tree>, b: Option<u8> },
    Leaf(Leaf),
}

/// Counts a tree's named leaves and tags.
#[tool]
fn leaves(tree: Tree) -> usize {
    fn count(tree: &Tree) -> usize {
        match tree {
            Tree::Branch { a } => a.iter().map(count).sum(),
            Tree::Tagged { a, b } => a.iter().map(count).sum::<usize>() + usize::from(b.is_some()),
            Tree::Leaf(leaf) => usize::from(!leaf.name.is_empty()),
        }
    }
    count(&tree)
}

/// Under `anyOf`, every branch of a recursive type reads the same children: checked anew at
/// each level, a 16-level tree whose deepest object has 20,000 keys took minutes. Each value
/// is now checked once per definition, and every key counts against the check's budget.
#[test]
fn a_deep_untagged_tree_with_a_wide_object_is_checked_once() {
    let keys: Vec<String> = (0..20_000).map(|key| format!(r#""k{key}":0"#)).collect();
    let mut tree = format!(r#"{{{}, "a": [["x"]]}}"#, keys.join(","));
    for _ in 1..16 {
        tree = format!(r#"{{"a": [{tree}]}}"#);
    }
    let text = format!(r#"{{"tree": {tree}}}"#);
    let value: Value = serde_json::from_str(&text).unwrap();
    let ctx = ToolContext::default();
    let direct = block_on(LeavesTool.execute(value, &ctx));
    assert_eq!(block_on(LeavesTool.execute_json(&text, &ctx)), direct);
    let path = "a[0].".repeat(15);
    assert_eq!(
        direct.output,
        format!(
            "invalid arguments for `leaves`: field `tree.{path}a[0]`: invalid type: array, \
             expected object"
        )
    );
}

/// Nested argument text cut anywhere (a model's output stopped mid-call) is an error that
/// names the tool, never a panic: the text is judged as it decodes and read again for the
/// check, and neither may run past its end.
#[test]
fn nested_argument_text_cut_anywhere_is_an_error() {
    let toolkit = Toolkit::new().with_all(tools![sum_points, greet]);
    let ctx = ToolContext::default();
    for (name, text) in [
        (
            "sum_points",
            r#"{"points": [{"x": 1, "y": -2}, {"x": 30, "y": 4}]}"#,
        ),
        (
            "greet",
            r#"{"name":"A\"b","tags":["x","\u00e9",""],"times":2}"#,
        ),
    ] {
        let whole = block_on(toolkit.execute_json(name, text, &ctx));
        assert!(!whole.is_error, "{}", whole.output);
        for cut in (1..text.len()).filter(|cut| text.is_char_boundary(*cut)) {
            let result = block_on(toolkit.execute_json(name, &text[..cut], &ctx));
            let prefix = format!("invalid arguments for `{name}`: ");
            assert!(
                result.is_error && result.output.starts_with(&prefix),
                "{cut}: {result:?}"
            );
        }
    }
}
