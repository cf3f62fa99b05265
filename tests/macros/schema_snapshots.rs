//! Input schemas of `#[tool]` fns, snapshot-tested against committed JSON (`tests/snapshots/`),
//! each validated against the JSON Schema 2020-12 meta-schema and exercised with an argument
//! object the fn accepts and one it rejects.
//!
//! To regenerate after an intended change:
//! `UPDATE_SNAPSHOTS=1 cargo test -p toolnexus-tests --test macros schema_snapshots`.

use crate::common;

use std::collections::HashMap;
use std::path::PathBuf;

use serde::Deserialize;
use serde_json::{Value, json};
use toolnexus::{JsonSchema, Tool, ToolContext, tool};

use common::Unit;

#[derive(Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Shape {
    Circle { radius: f64 },
    Rect { width: f64, height: f64 },
}

/// A price window.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Filter {
    /// Lowest price, inclusive
    min: f64,
    /// Highest price, inclusive; unbounded when absent
    max: Option<f64>,
    /// Where to look
    region: Region,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Region {
    country: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Node {
    name: String,
    children: Vec<Node>,
}

/// Every primitive.
#[tool]
fn primitives(
    i: i32,
    big: i64,
    small: u8,
    ratio: f32,
    precise: f64,
    flag: bool,
    letter: char,
) -> String {
    format!("{i} {big} {small} {ratio} {precise} {flag} {letter}")
}

/// A string.
#[tool]
fn echo(text: String) -> String {
    text
}

/// Optional parameters.
#[tool]
fn optional(name: Option<String>, count: Option<u32>) -> String {
    format!("{name:?} {count:?}")
}

/// Defaulted parameters.
#[tool]
fn defaulted(
    #[param(default = 3)] days: u8,
    #[param(default)] verbose: bool,
    #[param(default = "metric")] system: String,
) -> String {
    format!("{days} {verbose} {system}")
}

/// Lists.
#[tool]
fn lists(tags: Vec<String>, matrix: Vec<Vec<i64>>) -> usize {
    tags.len() + matrix.len()
}

/// A map.
#[tool]
fn map(counts: HashMap<String, u32>) -> u32 {
    counts.values().sum()
}

/// A nested struct.
#[tool]
fn nested(filter: Filter) -> String {
    format!("{} {:?} {}", filter.min, filter.max, filter.region.country)
}

/// A unit enum.
#[tool]
fn unit_enum(unit: Unit) -> &'static str {
    match unit {
        Unit::Celsius => "C",
        Unit::Fahrenheit => "F",
    }
}

/// A data enum.
#[tool]
fn data_enum(shape: Shape) -> f64 {
    match shape {
        Shape::Circle { radius } => radius,
        Shape::Rect { width, height } => width * height,
    }
}

/// A recursive type.
#[tool]
fn recursive(tree: Node) -> usize {
    fn count(node: &Node) -> usize {
        usize::from(!node.name.is_empty()) + node.children.iter().map(count).sum::<usize>()
    }
    count(&tree)
}

/// A renamed parameter.
#[tool]
fn renamed(
    #[param(rename = "q")] query: String,
    #[param(rename = "max-results")] limit: u32,
) -> String {
    format!("{query} {limit}")
}

/// Documented parameters.
///
/// # Arguments
///
/// * `city` - City name, e.g. "Paris"
#[tool]
fn documented(
    city: String,
    /// Temperature unit;
    /// Celsius when omitted
    unit: Option<Unit>,
    #[param(description = "How many days ahead")] days: u8,
) -> String {
    let _ = unit;
    format!("{city} {days}")
}

struct Case {
    tool: &'static dyn Tool,
    accepts: Value,
    rejects: Value,
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            tool: &PrimitivesTool,
            accepts: json!({"i": -1, "big": 9_000_000_000i64, "small": 255, "ratio": 0.5, "precise": 1.25, "flag": true, "letter": "x"}),
            rejects: json!({"i": -1, "big": 1, "small": 256, "ratio": 0.5, "precise": 1.25, "flag": true, "letter": "x"}),
        },
        Case {
            tool: &EchoTool,
            accepts: json!({"text": "hi"}),
            rejects: json!({"text": 1}),
        },
        Case {
            tool: &OptionalTool,
            accepts: json!({"count": 2}),
            rejects: json!({"count": -2}),
        },
        Case {
            tool: &DefaultedTool,
            accepts: json!({}),
            rejects: json!({"days": "three"}),
        },
        Case {
            tool: &ListsTool,
            accepts: json!({"tags": ["a"], "matrix": [[1, 2], []]}),
            rejects: json!({"tags": "a", "matrix": []}),
        },
        Case {
            tool: &MapTool,
            accepts: json!({"counts": {"a": 1, "b": 2}}),
            rejects: json!({"counts": {"a": "one"}}),
        },
        Case {
            tool: &NestedTool,
            accepts: json!({"filter": {"min": 1.0, "region": {"country": "FR"}}}),
            rejects: json!({"filter": {"min": 1.0}}),
        },
        Case {
            tool: &UnitEnumTool,
            accepts: json!({"unit": "celsius"}),
            rejects: json!({"unit": "kelvin"}),
        },
        Case {
            tool: &DataEnumTool,
            accepts: json!({"shape": {"kind": "rect", "width": 2.0, "height": 3.0}}),
            rejects: json!({"shape": {"kind": "triangle"}}),
        },
        Case {
            tool: &RecursiveTool,
            accepts: json!({"tree": {"name": "a", "children": [{"name": "b", "children": []}]}}),
            rejects: json!({"tree": {"name": "a", "children": [{"name": "b"}]}}),
        },
        Case {
            tool: &RenamedTool,
            accepts: json!({"q": "rust", "max-results": 5}),
            rejects: json!({"query": "rust", "max-results": 5}),
        },
        Case {
            tool: &DocumentedTool,
            accepts: json!({"city": "Paris", "days": 2}),
            rejects: json!({"city": "Paris", "days": 2, "extra": true}),
        },
    ]
}

fn snapshot_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("snapshots/{name}.json"))
}

#[test]
fn schemas_match_their_snapshots() {
    let update = std::env::var_os("UPDATE_SNAPSHOTS").is_some();
    let mut mismatched = Vec::new();
    for case in cases() {
        let actual = serde_json::to_string_pretty(case.tool.input_schema()).unwrap() + "\n";
        let path = snapshot_path(case.tool.name());
        if update {
            std::fs::write(&path, &actual).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&path).unwrap_or_default();
        if expected != actual {
            mismatched.push(format!("{}:\n{actual}", path.display()));
        }
    }
    assert!(
        mismatched.is_empty(),
        "schemas differ from their snapshots:\n{}",
        mismatched.join("\n")
    );
}

#[test]
fn schemas_are_valid_json_schema_2020_12() {
    for case in cases() {
        let schema = Value::Object(case.tool.input_schema().clone());
        if let Err(error) = jsonschema::draft202012::meta::validate(&schema) {
            panic!("{}: {error}", case.tool.name());
        }
    }
}

#[tokio::test]
async fn the_schema_and_the_decoder_agree() {
    let ctx = ToolContext::default();
    for case in cases() {
        let name = case.tool.name();
        let schema = Value::Object(case.tool.input_schema().clone());
        let validator = jsonschema::draft202012::new(&schema).unwrap();

        assert!(
            validator.is_valid(&case.accepts),
            "{name}: schema rejects {}",
            case.accepts
        );
        let accepted = case.tool.execute(case.accepts.clone(), &ctx).await;
        assert!(
            !accepted.is_error,
            "{name}: fn rejects {}: {}",
            case.accepts, accepted.output
        );

        assert!(
            !validator.is_valid(&case.rejects),
            "{name}: schema accepts {}",
            case.rejects
        );
        let rejected = case.tool.execute(case.rejects.clone(), &ctx).await;
        assert!(rejected.is_error, "{name}: fn accepts {}", case.rejects);
        assert!(
            rejected
                .output
                .starts_with(&format!("invalid arguments for `{name}`: ")),
            "{name}: {}",
            rejected.output
        );
    }
}

#[test]
fn schemas_follow_the_portable_shape() {
    for case in cases() {
        let schema = case.tool.input_schema();
        let keys: Vec<&str> = schema.keys().map(String::as_str).collect();
        let name = case.tool.name();
        assert_eq!(&keys[..2], ["type", "properties"], "{name}");
        assert_eq!(schema["additionalProperties"], json!(false), "{name}");
        for banned in ["$schema", "title", "description"] {
            assert!(!schema.contains_key(banned), "{name} has a root `{banned}`");
        }
        let text = Value::Object(schema.clone()).to_string();
        for format in ["int32", "int64", "uint8", "uint32", "float", "double"] {
            assert!(
                !text.contains(&format!("\"format\":\"{format}\"")),
                "{name} keeps format {format}"
            );
        }
        for (key, property) in schema["properties"].as_object().unwrap() {
            let null_type = property["type"]
                .as_array()
                .is_some_and(|types| types.contains(&json!("null")));
            let null_branch = property["anyOf"]
                .as_array()
                .is_some_and(|branches| branches.contains(&json!({"type": "null"})));
            assert!(
                !null_type && !null_branch,
                "{name}.{key} is described as nullable"
            );
        }
        // Only recursive types keep references.
        assert_eq!(schema.contains_key("$defs"), name == "recursive", "{name}");
        // Built once, then borrowed.
        assert!(std::ptr::eq(schema, case.tool.input_schema()), "{name}");
    }
}

/// Takes nothing.
#[tool]
fn no_parameters() -> &'static str {
    "ok"
}

#[test]
fn a_tool_without_parameters_still_has_properties() {
    assert_eq!(
        serde_json::to_string(NoParametersTool.input_schema()).unwrap(),
        r#"{"type":"object","properties":{},"additionalProperties":false}"#
    );
}
