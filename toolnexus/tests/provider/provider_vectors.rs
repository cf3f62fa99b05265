//! What `to_anthropic_strict()` and `to_gemini_json_schema()` send for tools of every shape,
//! held against `vectors/provider_schemas.json`, which `scripts/provider-schema-checks.py`
//! runs through the providers' own SDKs (Anthropic's strict-mode `transform_schema` must
//! leave each strict schema unchanged; google-genai's `FunctionDeclaration` must take each
//! declaration), so these tests need no Python.
//!
//! After changing a profile: `UPDATE_PROVIDER_VECTORS=1 cargo test -p toolnexus --test
//! provider_vectors`, then `python3 scripts/provider-schema-checks.py`.

use crate::common;

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use serde_json::{Value, json};
use toolnexus::{IssueKind, Json, JsonSchema, Profile, Toolkit, tool, tools};

use common::profile_checks::{check_anthropic_strict, check_gemini_json_schema};

const VECTORS: &str = "tests/vectors/provider_schemas.json";

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Unit {
    Celsius,
    Fahrenheit,
}

/// Current weather for a city.
#[tool]
fn weather(city: String, #[param(default = 3)] days: u8, unit: Option<Unit>) -> String {
    format!("{city} {days} {}", unit.is_some())
}

#[derive(Deserialize, JsonSchema)]
struct Code {
    #[schemars(length(min = 3, max = 8), regex(pattern = r"^[A-Z]+$"))]
    value: String,
    #[schemars(range(min = 1, max = 10))]
    qty: u32,
}

/// Limits the dialects cannot all say.
#[tool]
fn limited(letter: char, code: Code, #[schemars(length(max = 5))] note: Option<String>) -> String {
    format!("{letter} {} {} {note:?}", code.value, code.qty)
}

#[derive(Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Shape {
    Circle { radius: f64 },
    Rect { width: f64, height: f64 },
}

fn area(shape: &Shape) -> f64 {
    match shape {
        Shape::Circle { radius } => radius * radius * std::f64::consts::PI,
        Shape::Rect { width, height } => width * height,
    }
}

/// An internally tagged enum and a list of them.
#[tool]
fn shapes(first: Shape, rest: Vec<Shape>) -> f64 {
    area(&first) + rest.iter().map(area).sum::<f64>()
}

/// A map.
#[tool]
fn prices(prices: BTreeMap<String, f64>) -> f64 {
    prices.values().sum()
}

#[derive(Deserialize, JsonSchema)]
struct Node {
    name: String,
    children: Vec<Node>,
}

/// A recursive type.
#[tool]
fn tree(root: Node) -> usize {
    root.children.len() + root.name.len()
}

/// A tuple and a free-form value.
#[tool]
fn loose(pair: (u8, String), payload: Value) -> String {
    format!("{pair:?} {payload}")
}

#[derive(Serialize, JsonSchema)]
struct Item {
    id: u64,
    label: String,
}

/// A tool with an output schema.
#[tool]
fn lookup(id: u64) -> Json<Item> {
    Json(Item {
        id,
        label: "x".to_owned(),
    })
}

/// Schemas as MCP servers write them, which `#[tool]` never does: draft-07 `definitions`, and
/// a reference into a property (zod-to-json-schema's for a schema used twice).
fn remote_style() -> Vec<toolnexus::FnTool> {
    let point =
        json!({"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]});
    let schemas = [
        (
            "draft_07",
            json!({
                "type": "object",
                "properties": {
                    "a": {"$ref": "#/definitions/P"},
                    "b": {"type": "array", "items": {"$ref": "#/definitions/P"}},
                },
                "required": ["a"],
                "definitions": {"P": point},
            }),
        ),
        (
            "zod_pointer",
            json!({
                "type": "object",
                "properties": {"from": point, "to": {"$ref": "#/properties/from"}},
                "required": ["to"],
            }),
        ),
    ];
    schemas
        .into_iter()
        .map(|(name, schema)| {
            toolnexus::define_tool(name, "A schema as a server wrote it", schema)
                .unwrap()
                .sync(|_: Value, _: &toolnexus::ToolContext| "ok")
        })
        .collect()
}

fn toolkit() -> Toolkit {
    let toolkit = Toolkit::new().with_all(tools![
        weather, limited, shapes, prices, tree, loose, lookup
    ]);
    remote_style().into_iter().fold(toolkit, Toolkit::with)
}

/// What is sent, per tool, as the vectors file holds it.
fn sent(toolkit: &Toolkit) -> Value {
    let anthropic = toolkit.to_anthropic_strict();
    let gemini = toolkit.to_gemini_json_schema();
    let tools: Vec<Value> = toolkit
        .tools()
        .iter()
        .enumerate()
        .map(|(at, tool)| {
            json!({
                "name": tool.name(),
                "anthropic_strict": anthropic[at],
                "gemini_json_schema": gemini[0]["functionDeclarations"][at],
            })
        })
        .collect();
    json!({ "tools": tools })
}

#[test]
fn what_is_sent_matches_the_vectors_the_sdks_checked() {
    let sent = sent(&toolkit());
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(VECTORS);
    if std::env::var_os("UPDATE_PROVIDER_VECTORS").is_some() {
        let text = serde_json::to_string_pretty(&sent).unwrap() + "\n";
        std::fs::write(&path, text).unwrap();
    }
    let vectors: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(
        sent, vectors,
        "regenerate the vectors and rerun the SDK script"
    );
}

#[test]
fn every_schema_follows_the_documented_rules() {
    let toolkit = toolkit();
    let anthropic = toolkit.to_anthropic_strict();
    let gemini = toolkit.to_gemini_json_schema();
    for (at, tool) in toolkit.tools().iter().enumerate() {
        let issues = Toolkit::new()
            .with_all([Arc::clone(tool)])
            .check(Profile::AnthropicStrict);
        let exact = issues
            .iter()
            .all(|issue| issue.kind == IssueKind::EnforcedByTool);
        assert_eq!(
            anthropic[at]["strict"],
            exact,
            "{}: {issues:?}",
            tool.name()
        );
        if exact {
            check_anthropic_strict(tool.name(), &anthropic[at]["input_schema"]);
        }
        let declaration = &gemini[0]["functionDeclarations"][at];
        check_gemini_json_schema(tool.name(), &declaration["parametersJsonSchema"]);
        if let Some(response) = declaration.get("responseJsonSchema") {
            check_gemini_json_schema(tool.name(), response);
        }
    }
}

#[test]
fn gemini_json_schema_says_maps_tuples_and_recursion() {
    let toolkit = toolkit();
    for name in ["prices", "tree", "loose"] {
        let tool = toolkit.get(name).unwrap();
        assert_eq!(
            Toolkit::new()
                .with_all([Arc::clone(tool)])
                .check(Profile::GeminiJsonSchema),
            [],
            "{name}"
        );
        assert!(
            !Toolkit::new()
                .with_all([Arc::clone(tool)])
                .check(Profile::Gemini)
                .is_empty(),
            "{name}"
        );
    }
    let declarations = toolkit.to_gemini_json_schema()[0]["functionDeclarations"].clone();
    let prices = &declarations[3]["parametersJsonSchema"]["properties"]["prices"];
    assert_eq!(prices["additionalProperties"], json!({"type": "number"}));
    let tree = &declarations[4]["parametersJsonSchema"];
    assert!(tree.get("$defs").is_some(), "{tree}");
    // A `Json<T>` tool declares what it returns.
    let lookup = &declarations[6];
    assert!(lookup.get("parameters").is_none());
    assert_eq!(
        lookup["responseJsonSchema"]["required"],
        json!(["id", "label"])
    );
    assert!(declarations[0].get("responseJsonSchema").is_none());
}

#[test]
fn anthropic_strict_falls_back_only_for_what_it_cannot_say() {
    let toolkit = toolkit();
    let strict: BTreeMap<String, bool> = toolkit
        .to_anthropic_strict()
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| {
            (
                entry["name"].as_str().unwrap().to_owned(),
                entry["strict"] == true,
            )
        })
        .collect();
    let expected = [
        ("draft_07", true),
        ("limited", true),
        ("lookup", true),
        ("loose", false),
        ("prices", false),
        ("shapes", true),
        ("tree", false),
        ("weather", true),
        ("zod_pointer", true),
    ];
    assert_eq!(
        strict,
        expected
            .iter()
            .map(|(name, strict)| ((*name).to_owned(), *strict))
            .collect()
    );
    let limited = &toolkit.to_anthropic_strict()[1]["input_schema"]["properties"];
    assert_eq!(limited["letter"]["description"], "exactly 1 character");
}
