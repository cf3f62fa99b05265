//! Provider adapters: the OpenAI, Anthropic, Gemini and MCP definitions, and the OpenAI strict
//! and Gemini schema profiles checked against what each provider documents.

use crate::common;

use std::sync::Arc;

use serde_json::Map;
use serde_json::{Value, json};
use toolnexus::{FnTool, Profile, SchemaIssue, Tool, ToolContext, Toolkit, define_tool};

use common::profile_checks::{check_gemini, check_strict, depth};
use common::{add_tool, golden};

#[test]
fn adapters_match_the_golden_shapes() {
    let golden = golden();
    let tk = Toolkit::new().with(add_tool());
    assert_eq!(tk.to_openai(), golden["adapters"]["openai"]);
    assert_eq!(tk.to_anthropic(), golden["adapters"]["anthropic"]);
    assert_eq!(tk.to_gemini(), golden["adapters"]["gemini"]);
    assert_eq!(
        tk.to_mcp(),
        json!([{
            "name": "add",
            "description": "Add two numbers",
            "inputSchema": golden["adapters"]["anthropic"][0]["input_schema"],
        }])
    );
    let strict = tk.to_openai_strict();
    assert_eq!(strict[0]["type"], "function");
    assert_eq!(strict[0]["function"]["strict"], true);
    assert_eq!(
        strict[0]["function"]["parameters"],
        json!({
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"],
            "additionalProperties": false,
        })
    );
}

#[test]
fn adapters_clone_the_cached_schema_and_leave_it_unchanged() {
    let tk = Toolkit::new().with(schema_tool("weather", weather_schema()));
    let before = tk.get("weather").unwrap().input_schema().clone();
    let _ = (
        tk.to_openai(),
        tk.to_openai_strict(),
        tk.to_gemini(),
        tk.to_anthropic(),
        tk.to_mcp(),
    );
    assert_eq!(tk.get("weather").unwrap().input_schema(), &before);
    assert_eq!(
        tk.to_openai()[0]["function"]["parameters"],
        Value::Object(before.clone())
    );
    assert_eq!(tk.to_mcp()[0]["inputSchema"], Value::Object(before));
}

#[test]
fn a_tool_without_parameters_is_declared_without_parameters_for_gemini() {
    let tk = Toolkit::new().with(
        define_tool(
            "now",
            "Current time",
            json!({"type": "object", "properties": {}}),
        )
        .unwrap()
        .sync(|_: Value, _: &ToolContext| "noon"),
    );
    assert_eq!(
        tk.to_gemini(),
        json!([{"functionDeclarations": [{"name": "now", "description": "Current time"}]}])
    );
    assert_eq!(
        tk.to_openai_strict()[0]["function"]["parameters"],
        json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false})
    );
}

// ---------------------------------------------------------------------------------------------
// Schema profiles: OpenAI strict and Gemini, on schemas shaped the way `#[tool]` emits them.

/// Gemini's recursion cut-off, as `Profile::Gemini` documents it: a recursive type is unrolled
/// three levels below the argument.
const GEMINI_RECURSION_DEPTH: usize = 3;

/// The schema OpenAI strict mode is sent for `schema`.
fn openai_strict_schema(schema: &Map<String, Value>) -> Map<String, Value> {
    Profile::OpenAiStrict.rewrite(schema).0
}

/// The schema Gemini is sent for `schema`.
fn gemini_schema(schema: &Map<String, Value>) -> Map<String, Value> {
    Profile::Gemini.rewrite(schema).0
}

/// What [`Toolkit::check`] reports for `tool` alone.
fn check(tool: FnTool, profile: Profile) -> Vec<SchemaIssue> {
    Toolkit::new().with(tool).check(profile)
}

fn schema_tool(name: &str, schema: Value) -> FnTool {
    define_tool(name, format!("The {name} tool"), schema)
        .unwrap()
        .sync(|_: Value, _: &ToolContext| "ok")
}

/// Optional, defaulted, enum and nested fields, the way `#[tool]` + schemars emit them.
fn weather_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "City name"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "description": "Unit"},
            "days": {"type": "integer", "minimum": 0, "maximum": 255, "default": 3},
            "at": {"type": ["string", "null"], "format": "date-time"},
            "place": {
                "type": "object",
                "description": "Where exactly",
                "properties": {
                    "lat": {"type": "number", "format": "double"},
                    "lon": {"type": "number"},
                    "label": {"type": ["string", "null"], "default": null},
                },
                "required": ["lat", "lon"],
                "additionalProperties": false,
            },
            "tags": {"type": "array", "items": {"type": "string", "format": "uuid"}},
        },
        "required": ["city"],
        "additionalProperties": false,
    })
}

/// A recursive type: schemars keeps `$defs` + `$ref` for it.
fn tree_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "root": {"$ref": "#/$defs/Node", "description": "The tree"},
            "spare": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]},
        },
        "required": ["root"],
        "additionalProperties": false,
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {
                    "value": {"type": "integer"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                    "parent": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]},
                },
                "required": ["value", "children"],
            },
        },
    })
}

/// An externally tagged enum (oneOf of const-tagged objects) and a `const`.
fn shape_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "shape": {
                "oneOf": [
                    {
                        "type": "object",
                        "properties": {"kind": {"type": "string", "const": "circle"}, "r": {"type": "number"}},
                        "required": ["kind", "r"],
                    },
                    {
                        "type": "object",
                        "properties": {"kind": {"type": "string", "const": "square"}, "side": {"type": "number"}},
                        "required": ["kind", "side"],
                    },
                ],
            },
            "version": {"const": 2},
            "mode": {"enum": ["fast", "slow", null]},
            "level": {"enum": [1, 2, 3], "type": "integer"},
            "either": {"type": ["string", "integer"], "description": "A name or an id"},
            "limits": {"type": "object", "additionalProperties": {"type": "integer"}},
            "merged": {"allOf": [{"$ref": "#/$defs/Base"}, {"properties": {"extra": {"type": "boolean"}}}]},
        },
        "required": ["shape", "merged"],
        "$defs": {
            "Base": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
        },
    })
}

fn schemas() -> Vec<(&'static str, Value)> {
    vec![
        (
            "add",
            golden()["adapters"]["anthropic"][0]["input_schema"].clone(),
        ),
        ("weather", weather_schema()),
        ("tree", tree_schema()),
        ("shape", shape_schema()),
    ]
}

fn all_tools() -> Toolkit {
    Toolkit::new().with_all(
        schemas()
            .into_iter()
            .map(|(name, schema)| Arc::new(schema_tool(name, schema)) as Arc<dyn Tool>),
    )
}

#[test]
fn every_strict_schema_follows_openai_strict_rules() {
    let tk = all_tools();
    let strict = tk.to_openai_strict();
    for ((name, portable), entry) in schemas().iter().zip(strict.as_array().unwrap()) {
        assert_eq!(entry["function"]["name"], *name);
        // What `to_openai_strict` sends rather than a strict schema that would say less.
        let exact = Toolkit::new()
            .with_all([Arc::clone(tk.get(name).unwrap())])
            .check(Profile::OpenAiStrict)
            .is_empty();
        assert_eq!(entry["function"]["strict"], exact, "{name}");
        if !exact {
            assert_eq!(&entry["function"]["parameters"], portable, "{name}");
        }
        let rewritten = Value::Object(openai_strict_schema(portable.as_object().unwrap()));
        check_strict(name, portable, &rewritten);
    }
    // Only the shape schema holds something strict mode cannot say: a map.
    let issues = tk.check(Profile::OpenAiStrict);
    assert_eq!(issues.len(), 1, "{issues:?}");
    assert_eq!(
        (issues[0].tool.as_str(), issues[0].path.as_str()),
        ("shape", "limits")
    );
}

#[test]
fn every_gemini_schema_is_in_the_openapi_subset() {
    let tk = all_tools();
    let declarations = tk.to_gemini()[0]["functionDeclarations"].clone();
    for ((name, _), declaration) in schemas().iter().zip(declarations.as_array().unwrap()) {
        assert_eq!(declaration["name"], *name);
        check_gemini(name, &declaration["parameters"]);
    }
}

#[test]
fn strict_rewrites_optional_nested_and_enum_fields() {
    let strict = Value::Object(openai_strict_schema(weather_schema().as_object().unwrap()));
    assert_eq!(
        strict["properties"]["unit"],
        json!({"type": ["string", "null"], "enum": ["celsius", "fahrenheit", null], "description": "Unit"})
    );
    assert_eq!(
        strict["properties"]["days"],
        json!({"type": ["integer", "null"], "minimum": 0, "maximum": 255})
    );
    assert_eq!(
        strict["properties"]["at"]["type"],
        json!(["string", "null"])
    );
    assert_eq!(
        strict["properties"]["place"]["type"],
        json!(["object", "null"])
    );
    assert_eq!(
        strict["properties"]["place"]["required"],
        json!(["lat", "lon", "label"])
    );
    assert_eq!(
        strict["properties"]["place"]["properties"]["label"],
        json!({"type": ["string", "null"]})
    );
    assert_eq!(
        strict["properties"]["city"],
        json!({"type": "string", "description": "City name"})
    );
}

#[test]
fn strict_wraps_references_and_composites_in_any_of() {
    let strict = Value::Object(openai_strict_schema(tree_schema().as_object().unwrap()));
    // Strict mode takes no keyword beside `$ref`; optional references are already nullable.
    assert_eq!(
        strict["properties"]["root"],
        json!({"description": "The tree", "anyOf": [{"$ref": "#/$defs/Node"}]})
    );
    assert_eq!(
        strict["properties"]["spare"],
        json!({"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]})
    );
    let node = &strict["$defs"]["Node"];
    assert_eq!(node["additionalProperties"], false);
    assert_eq!(node["required"], json!(["value", "children", "parent"]));

    let strict = Value::Object(openai_strict_schema(shape_schema().as_object().unwrap()));
    assert_eq!(
        strict["properties"]["version"],
        json!({"anyOf": [{"const": 2}, {"type": "null"}]})
    );
    // Strict mode has no `allOf`: the parts merge into one closed object.
    assert_eq!(
        strict["properties"]["merged"],
        json!({
            "type": "object",
            "properties": {"id": {"type": "string"}, "extra": {"type": "boolean"}},
            "required": ["id", "extra"],
            "additionalProperties": false,
        })
    );
    assert_eq!(
        strict["properties"]["mode"],
        json!({"enum": ["fast", "slow", null]})
    );
    assert_eq!(
        strict["properties"]["level"],
        json!({"enum": [1, 2, 3, null], "type": ["integer", "null"]})
    );
    assert_eq!(
        strict["properties"]["limits"],
        json!({"type": ["object", "null"], "additionalProperties": false, "properties": {}, "required": []})
    );
    assert!(strict["properties"]["shape"]["anyOf"].is_array());
}

#[test]
fn gemini_unrolls_recursion_to_the_documented_depth() {
    let lowered = Value::Object(gemini_schema(tree_schema().as_object().unwrap()));
    assert!(!lowered.to_string().contains("$ref"));
    let root = &lowered["properties"]["root"];
    assert_eq!(root["description"], "The tree");
    // Three nodes deep, then a list that must stay empty: the decoder still gets `children`.
    assert_eq!(depth(root), GEMINI_RECURSION_DEPTH + 1);
    let mut deepest = root;
    for _ in 1..GEMINI_RECURSION_DEPTH {
        deepest = &deepest["properties"]["children"]["items"];
    }
    assert_eq!(
        deepest["properties"]["children"],
        json!({"type": "array", "maxItems": 0, "items": {}})
    );
    assert_eq!(deepest["required"], json!(["value", "children"]));
    // The optional recursive field is left out where it would go deeper.
    assert!(deepest["properties"].get("parent").is_none());
    // An optional reference becomes a nullable object.
    let spare = &lowered["properties"]["spare"];
    assert_eq!(spare["nullable"], true);
    assert_eq!(spare["type"], "object");
    assert_eq!(depth(spare), GEMINI_RECURSION_DEPTH + 1);
    assert_eq!(lowered["required"], json!(["root"]));
    // Every cut is reported, at the path of the argument it cuts.
    let tk = Toolkit::new().with(schema_tool("tree", tree_schema()));
    let paths: Vec<String> = tk
        .check(Profile::Gemini)
        .into_iter()
        .map(|issue| issue.path)
        .collect();
    assert!(
        paths.contains(&"root.children[].children[].children[]".to_owned()),
        "{paths:?}"
    );
}

#[test]
fn gemini_lowers_nullables_enums_consts_and_composites() {
    let lowered = Value::Object(gemini_schema(weather_schema().as_object().unwrap()));
    assert_eq!(
        lowered["properties"]["at"],
        json!({"type": "string", "format": "date-time", "nullable": true})
    );
    assert_eq!(
        lowered["properties"]["days"],
        json!({"type": "integer", "minimum": 0, "maximum": 255})
    );
    assert_eq!(
        lowered["properties"]["place"]["properties"]["lat"],
        json!({"type": "number", "format": "double"})
    );
    assert_eq!(
        lowered["properties"]["tags"],
        json!({"type": "array", "items": {"type": "string", "description": "in the `uuid` format"}})
    );

    let lowered = Value::Object(gemini_schema(shape_schema().as_object().unwrap()));
    let shape = &lowered["properties"]["shape"];
    assert_eq!(
        shape["anyOf"][0]["properties"]["kind"],
        json!({"type": "string", "enum": ["circle"]})
    );
    // What Gemini has no keyword for, but the tool refuses, is said in words.
    assert_eq!(
        lowered["properties"]["version"],
        json!({"type": "integer", "description": "exactly 2"})
    );
    assert_eq!(
        lowered["properties"]["mode"],
        json!({"type": "string", "nullable": true, "enum": ["fast", "slow"]})
    );
    assert_eq!(
        lowered["properties"]["level"],
        json!({"type": "integer", "description": "one of 1, 2, 3"})
    );
    assert_eq!(
        lowered["properties"]["either"],
        json!({"description": "A name or an id", "anyOf": [{"type": "string"}, {"type": "integer"}]})
    );
    assert_eq!(lowered["properties"]["limits"], json!({"type": "object"}));
    assert_eq!(
        lowered["properties"]["merged"],
        json!({"type": "object", "properties": {"id": {"type": "string"}, "extra": {"type": "boolean"}}, "required": ["id"]})
    );
}

#[test]
fn gemini_sends_dangling_references_as_any_value_and_reports_them() {
    let schema = json!({
        "type": "object",
        "properties": {
            "ok": {"type": "string"},
            "gone": {"$ref": "#/$defs/Missing"},
            "elsewhere": {"$ref": "https://example.com/schema.json"},
        },
        "required": ["ok", "gone"],
    });
    let lowered = Value::Object(gemini_schema(schema.as_object().unwrap()));
    assert_eq!(
        lowered,
        json!({
            "type": "object",
            "properties": {"ok": {"type": "string"}, "gone": {}, "elsewhere": {}},
            "required": ["ok", "gone"],
        })
    );
    let tk = Toolkit::new().with(schema_tool("dangling", schema));
    let paths: Vec<String> = tk
        .check(Profile::Gemini)
        .into_iter()
        .map(|issue| issue.path)
        .collect();
    assert_eq!(paths, ["gone", "elsewhere"]);
}

#[test]
fn gemini_unrolls_a_schema_that_refers_to_its_own_root() {
    let schema = json!({
        "type": "object",
        "properties": {"name": {"type": "string"}, "next": {"$ref": "#"}},
    });
    let lowered = Value::Object(gemini_schema(schema.as_object().unwrap()));
    assert!(!lowered.to_string().contains("$ref"));
    let mut levels = 1;
    let mut at = &lowered;
    while let Some(next) = at.pointer("/properties/next") {
        levels += 1;
        at = next;
    }
    assert_eq!(levels, GEMINI_RECURSION_DEPTH + 1);
}

/// Definitions that all refer to one another, three fields each: unrolled per definition, the
/// lowering grew exponentially (211 MB for this schema). The allowance is shared along a path,
/// so it stays small, and still follows Gemini's rules.
#[test]
fn gemini_unrolls_mutually_recursive_definitions_within_a_shared_allowance() {
    let def = |others: [&str; 3]| {
        let fields: serde_json::Map<String, Value> = others
            .iter()
            .enumerate()
            .map(|(i, other)| (format!("f{i}"), json!({"$ref": format!("#/$defs/{other}")})))
            .collect();
        json!({"type": "object", "properties": fields})
    };
    let schema = json!({
        "type": "object",
        "properties": {"root": {"$ref": "#/$defs/A"}},
        "$defs": {"A": def(["B", "C", "A"]), "B": def(["C", "A", "B"]), "C": def(["A", "B", "C"])},
    });
    let lowered = Value::Object(gemini_schema(schema.as_object().unwrap()));
    check_gemini("mutual", &lowered);
    // A path goes through A, B and C, then comes back at most GEMINI_RECURSION_DEPTH - 1 times.
    fn levels(schema: &Value) -> usize {
        let deepest = schema["properties"].as_object().map_or(0, |properties| {
            properties.values().map(levels).max().unwrap_or(0)
        });
        1 + deepest
    }
    assert_eq!(
        levels(&lowered["properties"]["root"]),
        3 + GEMINI_RECURSION_DEPTH - 1
    );
    let size = lowered.to_string().len();
    assert!(size < 100_000, "{size} bytes");
}

/// Many definitions that refer to one another come back to none of them for a long way down;
/// the budget of inlined definitions bounds the lowering and `check` says what it cut.
#[test]
fn gemini_inlines_a_bounded_number_of_definitions() {
    let names: Vec<String> = (0..8).map(|i| format!("D{i}")).collect();
    let defs: serde_json::Map<String, Value> = names
        .iter()
        .map(|name| {
            let fields: serde_json::Map<String, Value> = names
                .iter()
                .map(|other| {
                    (
                        other.to_lowercase(),
                        json!({"$ref": format!("#/$defs/{other}")}),
                    )
                })
                .collect();
            (
                name.clone(),
                json!({"type": "object", "properties": fields}),
            )
        })
        .collect();
    let schema = json!({
        "type": "object",
        "properties": {"root": {"$ref": "#/$defs/D0"}},
        "$defs": defs,
    });
    let lowered = Value::Object(gemini_schema(schema.as_object().unwrap()));
    check_gemini("many", &lowered);
    let inlined = lowered.to_string().matches("\"properties\"").count() - 1;
    assert!(
        inlined <= 1_000, // the most definitions Gemini's rewrite inlines in one schema
        "{inlined} definitions inlined"
    );
    let tool = schema_tool("many", schema);
    let issues = check(tool, Profile::Gemini);
    assert!(
        issues
            .iter()
            .any(|issue| issue.to_string().contains("past the 1000 definitions")),
        "{issues:?}"
    );
}
