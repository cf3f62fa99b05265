//! What the schema refuses, the tool refuses (SPEC §11): every validation keyword the plain
//! schema carries — bounds, `multipleOf`, lengths, `pattern`, item and key counts,
//! `uniqueItems`, `enum`/`const` — holds at any depth, on both entry points alike, and the
//! message names the path and the limit.
#![allow(
    dead_code,
    reason = "the fields are read through their `Debug` output, which the lint does not count"
)]

use crate::common;

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;
use serde_json::{Value, json};
use toolnexus::{JsonSchema, Tool, tool};

use common::{both, from_text};

#[derive(Debug, Deserialize, JsonSchema)]
struct Item {
    #[schemars(range(min = 1, max = 10))]
    qty: u32,
    #[schemars(length(min = 3, max = 8), regex(pattern = r"^[A-Z]+$"))]
    code: String,
}

/// Places an order.
#[tool]
fn order(
    items: Vec<Item>,
    #[schemars(range(min = 0.0, max = 1.0))] discount: f64,
    #[schemars(length(max = 5))] note: Option<String>,
) -> String {
    format!("{items:?} {discount} {note:?}")
}

fn refused(tool: &dyn Tool, args: Value) -> String {
    let result = both(tool, args);
    assert!(result.is_error, "{}", result.output);
    result.output
}

/// The issue's example: every limit the schema advertises is refused before the fn runs.
#[test]
fn the_advertised_limits_are_refused() {
    let tool = OrderTool;
    let schema = Value::Object(tool.input_schema().clone());
    assert_eq!(schema["properties"]["discount"]["maximum"], json!(1.0));
    assert_eq!(schema["properties"]["note"]["maxLength"], json!(5));
    let ok = both(
        &tool,
        json!({"items": [{"code": "ABC", "qty": 10}], "discount": 1.0, "note": "short"}),
    );
    assert!(!ok.is_error, "{}", ok.output);
    let cases = [
        (
            json!({"items": [{"code": "ABC", "qty": 11}], "discount": 0.5}),
            "field `items[0].qty`: 11 is greater than the maximum of 10",
        ),
        (
            json!({"items": [{"code": "ABC", "qty": 0}], "discount": 0.5}),
            "field `items[0].qty`: 0 is less than the minimum of 1",
        ),
        (
            json!({"items": [{"code": "ab", "qty": 1}], "discount": 0.5}),
            "field `items[0].code`: \"ab\" is 2 characters long, fewer than the minimum of 3",
        ),
        (
            json!({"items": [{"code": "abc", "qty": 1}], "discount": 0.5}),
            "field `items[0].code`: \"abc\" does not match the pattern `^[A-Z]+$`",
        ),
        (
            json!({"items": [], "discount": 1.5}),
            "field `discount`: 1.5 is greater than the maximum of 1.0",
        ),
        (
            json!({"items": [], "discount": 0.5, "note": "toolong"}),
            "field `note`: \"toolong\" is 7 characters long, more than the maximum of 5",
        ),
    ];
    for (args, message) in cases {
        assert_eq!(
            refused(&tool, args),
            format!("invalid arguments for `order`: {message}")
        );
    }
    // `null` for an optional parameter is absent, whatever its limits.
    assert!(!both(&tool, json!({"items": [], "discount": 0, "note": null})).is_error);
    // Lengths count code points, as JSON Schema does: five characters, ten bytes.
    assert!(!both(&tool, json!({"items": [], "discount": 0, "note": "ééééé"})).is_error);
}

/// A newtype carrying limits of its own.
#[derive(Debug, Deserialize, JsonSchema)]
struct Percent(#[schemars(range(min = 0, max = 100))] u8);

#[derive(Debug, Deserialize, JsonSchema)]
enum Shape {
    Square {
        #[schemars(extend("exclusiveMinimum" = 0.0))]
        side: f64,
    },
    Label(#[schemars(length(min = 1))] String),
}

/// Limits wherever a value can sit.
#[tool]
fn everywhere(
    share: Option<Percent>,
    #[schemars(length(min = 1, max = 3))] shares: Vec<Percent>,
    #[serde(default)] scores: BTreeMap<String, Percent>,
    shape: Option<Shape>,
    #[serde(default)] tags: BTreeSet<String>,
    #[schemars(extend("multipleOf" = 5))]
    #[serde(default)]
    step: u32,
) -> String {
    format!("{share:?} {shares:?} {scores:?} {shape:?} {tags:?} {step}")
}

#[test]
fn limits_hold_inside_newtypes_options_lists_maps_and_variants() {
    let tool = EverywhereTool;
    let ok = both(
        &tool,
        json!({"share": 100, "shares": [0, 50], "scores": {"a": 1}, "shape": {"Square": {"side": 0.5}},
               "tags": ["a", "b"], "step": 15}),
    );
    assert!(!ok.is_error, "{}", ok.output);
    let cases = [
        (
            json!({"share": 101, "shares": [1]}),
            "field `share`: 101 is greater than the maximum of 100",
        ),
        (
            json!({"shares": []}),
            "field `shares`: the array has 0 items, fewer than the minimum of 1",
        ),
        (
            json!({"shares": [1, 2, 3, 4]}),
            "field `shares`: the array has 4 items, more than the maximum of 3",
        ),
        (
            json!({"shares": [1, 200]}),
            "field `shares[1]`: 200 is greater than the maximum of 100",
        ),
        (
            json!({"shares": [1], "scores": {"a": 1, "b": 101}}),
            "field `scores.b`: 101 is greater than the maximum of 100",
        ),
        (
            json!({"shares": [1], "shape": {"Square": {"side": 0}}}),
            "field `shape.Square.side`: 0 is not greater than the exclusive minimum of 0.0",
        ),
        (
            json!({"shares": [1], "shape": {"Label": ""}}),
            "field `shape.Label`: \"\" is 0 characters long, fewer than the minimum of 1",
        ),
        (
            json!({"shares": [1], "tags": ["a", "b", "a"]}),
            "field `tags`: items 0 and 2 are equal, and the items must be unique",
        ),
        (
            json!({"shares": [1], "step": 7}),
            "field `step`: 7 is not a multiple of 5",
        ),
    ];
    for (args, message) in cases {
        assert_eq!(
            refused(&tool, args),
            format!("invalid arguments for `everywhere`: {message}")
        );
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
struct Ratio {
    #[schemars(extend("multipleOf" = 0.25))]
    value: f64,
}

/// Floats, listed values and key counts.
#[tool]
fn listed(
    ratio: Ratio,
    #[schemars(extend("enum" = [1, 2.5, "x"]))] pick: Value,
    #[schemars(extend("const" = {"a": [1, 2]}))] fixed: Option<Value>,
    #[schemars(extend("minProperties" = 1, "maxProperties" = 2))] bag: BTreeMap<String, u8>,
) -> String {
    format!("{ratio:?} {pick} {fixed:?} {bag:?}")
}

#[test]
fn multiples_listed_values_and_key_counts_are_read_as_json_schema_reads_them() {
    let tool = ListedTool;
    for args in [
        json!({"ratio": {"value": 0.75}, "pick": 1.0, "fixed": {"a": [1.0, 2]}, "bag": {"a": 1}}),
        json!({"ratio": {"value": -2}, "pick": "x", "bag": {"a": 1, "b": 2}}),
        json!({"ratio": {"value": 0}, "pick": 2.5, "fixed": null, "bag": {"a": 1}}),
    ] {
        let result = both(&tool, args);
        assert!(!result.is_error, "{}", result.output);
    }
    let cases = [
        (
            json!({"ratio": {"value": 0.3}, "pick": 1, "bag": {"a": 1}}),
            "field `ratio.value`: 0.3 is not a multiple of 0.25",
        ),
        (
            json!({"ratio": {"value": 1}, "pick": 3, "bag": {"a": 1}}),
            "field `pick`: invalid value: integer `3`, expected 1 or 2.5 or \"x\"",
        ),
        (
            json!({"ratio": {"value": 1}, "pick": 1, "fixed": {"a": [2, 1]}, "bag": {"a": 1}}),
            "field `fixed`: invalid value: object, expected {\"a\":[1,2]}",
        ),
        (
            json!({"ratio": {"value": 1}, "pick": 1, "bag": {}}),
            "field `bag`: the object has 0 keys, fewer than the minimum of 1",
        ),
        (
            json!({"ratio": {"value": 1}, "pick": 1, "bag": {"a": 1, "b": 2, "c": 3}}),
            "field `bag`: the object has 3 keys, more than the maximum of 2",
        ),
    ];
    for (args, message) in cases {
        assert_eq!(
            refused(&tool, args),
            format!("invalid arguments for `listed`: {message}")
        );
    }
}

/// A pattern regress cannot compile.
#[tool]
fn broken(#[schemars(regex(pattern = "(unclosed"))] name: String) -> String {
    name
}

/// A pattern that does not compile refuses every string it reaches with a message saying
/// so, and never panics.
#[test]
fn a_pattern_that_does_not_compile_is_a_clear_error() {
    let output = refused(&BrokenTool, json!({"name": "x"}));
    assert!(
        output.starts_with(
            "invalid arguments for `broken`: field `name`: the schema's pattern `(unclosed` \
             cannot be checked: "
        ),
        "{output}"
    );
}

/// `check` reports such a pattern under every profile, before any call is made.
#[test]
fn check_reports_a_pattern_that_does_not_compile() {
    let toolkit = toolnexus::Toolkit::new().with(BrokenTool);
    for profile in toolnexus::Profile::ALL {
        let issues: Vec<_> = toolkit
            .check(profile)
            .into_iter()
            .filter(|issue| issue.kind == toolnexus::IssueKind::Unenforceable)
            .collect();
        assert_eq!(issues.len(), 1, "{profile}: {issues:?}");
        assert_eq!(
            (issues[0].tool.as_str(), issues[0].path.as_str()),
            ("broken", "name")
        );
        assert!(issues[0].lost.contains("(unclosed"), "{}", issues[0]);
    }
}

/// A long value is quoted in part: the message stays small, and says how long it was.
#[test]
fn long_values_are_cut_in_messages() {
    let long = "x".repeat(4 * 1024 * 1024);
    let output = refused(
        &OrderTool,
        json!({"items": [], "discount": 0, "note": long}),
    );
    assert!(output.len() < 400, "{} bytes", output.len());
    assert_eq!(
        output,
        format!(
            "invalid arguments for `order`: field `note`: \"{}…\" (4194304 characters) is \
             4194304 characters long, more than the maximum of 5",
            "x".repeat(200)
        )
    );
    // serde's own messages too: a string sent for a number, an unknown key.
    let output = from_text(
        &OrderTool,
        &json!({"items": [], "discount": long}).to_string(),
    );
    assert!(output.output.len() < 400, "{}", output.output);
    assert!(
        output.output.contains("(4194304 characters)"),
        "{}",
        output.output
    );
    let output = from_text(&OrderTool, &json!({ &long: 1 }).to_string());
    assert!(output.output.len() < 600, "{}", output.output);
}
