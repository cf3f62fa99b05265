//! The forms serde reads beyond a schema — a struct sent as an array of its fields, a struct
//! variant as an array, a key given twice — are refused, alike on both entry points, naming
//! the place (SPEC §11: nothing the schema refuses gets through).

use crate::common;

use std::collections::{BTreeMap, HashMap};

use serde::Deserialize;
use serde_json::{Value, json};
use toolnexus::{JsonSchema, Tool, ToolResult, tool};

use common::{both, from_text};

#[derive(Deserialize, JsonSchema)]
enum Command {
    Move { x: i32, y: i32 },
    Stop,
}

/// Steers a robot.
#[tool]
fn steer(command: Command) -> String {
    match command {
        Command::Move { x, y } => format!("move {x} {y}"),
        Command::Stop => "stop".to_owned(),
    }
}

/// serde_json's text deserializer takes a struct variant as an array and its `Value`
/// deserializer does not; the schema says an object, so both entry points refuse the array,
/// with one message.
#[test]
fn forms_only_one_serde_json_deserializer_takes_decode_alike() {
    assert_eq!(
        both(&SteerTool, json!({"command": {"Move": [1, 2]}})),
        ToolResult::error(
            "invalid arguments for `steer`: field `command.Move`: invalid type: array, \
             expected object"
        )
    );
    assert_eq!(
        both(&SteerTool, json!({"command": {"Move": {"x": 1, "y": 2}}})),
        ToolResult::ok("move 1 2")
    );
    assert!(both(&SteerTool, json!({"command": {"Move": [1]}})).is_error);
}

#[derive(Deserialize, JsonSchema)]
struct Point {
    x: i32,
    y: i32,
}

#[derive(Deserialize, JsonSchema)]
#[serde(untagged)]
enum Target {
    At(Point),
    Named(String),
}

/// Plots points.
#[tool]
fn plot(points: Vec<Point>, origin: Option<Point>, target: Option<Target>) -> String {
    let xy = |point: &Point| format!("({}, {})", point.x, point.y);
    let target = match target {
        Some(Target::At(point)) => xy(&point),
        Some(Target::Named(name)) => name,
        None => "-".to_owned(),
    };
    let points: Vec<String> = points.iter().map(xy).collect();
    let origin = origin.as_ref().map_or_else(|| "-".to_owned(), xy);
    format!("{} {origin} {target}", points.join(" "))
}

/// serde's derived `Deserialize` reads a struct from an array of its fields in order; no
/// schema says so, so decoded arguments are checked against the schema and the array is
/// refused where the schema wants an object, naming the place and what it expected.
#[test]
fn a_struct_sent_as_an_array_is_refused_where_the_schema_wants_an_object() {
    let cases = [
        (
            json!({"points": [{"x": 1, "y": 2}, [3, 4]]}),
            "field `points[1]`: invalid type: array, expected object",
        ),
        (
            json!({"points": [], "origin": [0, 0]}),
            "field `origin`: invalid type: array, expected object",
        ),
        (
            json!({"points": [], "target": [1, 2]}),
            "field `target`: invalid type: array, expected string or object",
        ),
    ];
    for (args, message) in cases {
        assert_eq!(
            both(&PlotTool, args.clone()),
            ToolResult::error(format!("invalid arguments for `plot`: {message}")),
            "{args}"
        );
        let schema = Value::Object(PlotTool.input_schema().clone());
        assert!(
            !jsonschema::draft202012::new(&schema)
                .unwrap()
                .is_valid(&args)
        );
    }
    let fine = json!({"points": [{"x": 1, "y": 2}], "origin": null, "target": "home"});
    assert_eq!(both(&PlotTool, fine), ToolResult::ok("(1, 2) - home"));
}

/// Counts per key, decoded straight from text on the fast path.
#[tool]
fn per_key(counts: HashMap<String, u32>, nested: Option<BTreeMap<String, Vec<u8>>>) -> usize {
    counts.len() + nested.map_or(0, |nested| nested.len())
}

/// Counts per key under a renamed key: a `#[serde]` attribute keeps the derived decoder.
#[tool]
fn per_key_renamed(#[serde(rename = "c")] counts: HashMap<String, u32>) -> usize {
    counts.len()
}

/// A key given twice inside an argument: serde, reading text into a map, keeps the last, a
/// `Value` cannot hold both, and the reference decoding refuses it. Every path refuses it
/// alike: parameter by parameter (`per_key`), a derived struct (`per_key_renamed`), and
/// through a `Value` (what a tool with an `i128` does).
#[test]
fn a_key_given_twice_inside_an_argument_is_refused_on_every_path() {
    let per_key = from_text(&PerKeyTool, r#"{"counts": {"a": 1, "a": 2}}"#);
    assert_eq!(
        per_key.output,
        "invalid arguments for `per_key`: field `counts`: duplicate field `a`"
    );
    let nested = from_text(
        &PerKeyTool,
        r#"{"counts": {}, "nested": {"x": [1], "y": [2], "x": [3]}}"#,
    );
    assert_eq!(
        nested.output,
        "invalid arguments for `per_key`: field `nested`: duplicate field `x`"
    );
    let derived = from_text(&PerKeyRenamedTool, r#"{"c": {"1": 1, "1": 2}}"#);
    assert_eq!(
        derived.output,
        "invalid arguments for `per_key_renamed`: field `c`: duplicate field `1`"
    );
    assert_eq!(
        from_text(&PerKeyTool, r#"{"counts": {"a": 1, "b": 2}}"#),
        ToolResult::ok("2")
    );
    // Past the 100,000 values the schema check reads, whatever comes first.
    let zeros = vec!["0"; 100_000].join(",");
    for args in [
        format!(r#"{{"nested": {{"x": [{zeros}]}}, "counts": {{"a": 1, "a": 2}}}}"#),
        format!(r#"{{"counts": {{"a": 1, "a": 2}}, "nested": {{"x": [{zeros}]}}}}"#),
    ] {
        assert_eq!(
            from_text(&PerKeyTool, &args).output,
            "invalid arguments for `per_key`: field `counts`: duplicate field `a`"
        );
    }
}

#[derive(Deserialize, JsonSchema)]
struct Paging {
    page: u32,
}

#[derive(Deserialize, JsonSchema)]
#[serde(tag = "order", rename_all = "lowercase")]
enum Sort {
    Newest,
    Cheapest { max: u32 },
}

/// Lists offers.
#[tool]
fn offers(topic: String, #[serde(flatten)] paging: Paging, #[serde(flatten)] sort: Sort) -> String {
    let sort = match sort {
        Sort::Newest => "newest".to_owned(),
        Sort::Cheapest { max } => format!("cheapest under {max}"),
    };
    format!("{topic} p{} {sort}", paging.page)
}

/// A flattened enum among the parameters: serde cannot deny unknown fields beside it (it
/// refused the enum's own), so the schema's closed object is checked instead, with serde's
/// wording; its tag is a name, never a variant's index.
#[test]
fn a_flattened_enum_parameter_takes_what_its_schema_says() {
    assert_eq!(
        both(
            &OffersTool,
            json!({"topic": "tea", "page": 2, "order": "cheapest", "max": 5})
        ),
        ToolResult::ok("tea p2 cheapest under 5")
    );
    assert_eq!(
        both(
            &OffersTool,
            json!({"topic": "tea", "page": 1, "order": "newest"})
        ),
        ToolResult::ok("tea p1 newest")
    );
    assert_eq!(
        both(
            &OffersTool,
            json!({"topic": "tea", "page": 1, "order": "newest", "colour": "red"})
        ),
        ToolResult::error(
            "invalid arguments for `offers`: unknown field `colour`, expected one of `topic`, \
             `page`, `order`, `max`"
        )
    );
    assert_eq!(
        both(&OffersTool, json!({"topic": "tea", "page": 1, "order": 0})),
        ToolResult::error(
            "invalid arguments for `offers`: field `order`: invalid type: integer `0`, expected \
             string"
        )
    );
}

/// Tags a topic with scores.
#[tool]
fn scores(topic: String, #[serde(flatten)] scores: HashMap<String, Vec<u8>>) -> String {
    let total: u32 = scores
        .values()
        .flatten()
        .map(|score| u32::from(*score))
        .sum();
    format!("{topic} {total}")
}

/// Pages a topic.
#[tool]
fn paged(topic: String, #[serde(flatten)] paging: Paging) -> String {
    format!("{topic} p{}", paging.page)
}

/// A flattened map takes every other key, and its schema says so (`additionalProperties` is
/// the map's values); a flattened struct's keys are all named, and any other is refused.
#[test]
fn a_flattened_map_takes_other_keys_and_a_flattened_struct_does_not() {
    let schema = Value::Object(ScoresTool.input_schema().clone());
    assert_eq!(schema["additionalProperties"]["type"], "array");
    assert_eq!(
        both(&ScoresTool, json!({"topic": "tea", "a": [1, 2], "b": [3]})),
        ToolResult::ok("tea 6")
    );
    assert!(both(&ScoresTool, json!({"topic": "tea", "a": 1})).is_error);
    assert_eq!(
        from_text(&ScoresTool, r#"{"topic": "tea", "a": [1], "a": [2]}"#).output,
        "invalid arguments for `scores`: duplicate field `a`"
    );

    let schema = Value::Object(PagedTool.input_schema().clone());
    assert_eq!(schema["additionalProperties"], false);
    assert_eq!(
        both(&PagedTool, json!({"topic": "tea", "page": 3})),
        ToolResult::ok("tea p3")
    );
    assert_eq!(
        both(&PagedTool, json!({"topic": "tea", "page": 3, "size": 9})),
        ToolResult::error(
            "invalid arguments for `paged`: unknown field `size`, expected `topic` or `page`"
        )
    );
}
