//! What each provider documents for its schemas, as assertions: OpenAI strict mode, Gemini's
//! OpenAPI 3.0 subset and its JSON Schema field, and Anthropic's strict tool use. Used on
//! hand-written schemas (`adapters.rs`) and on the ones `#[tool]` emits
//! (`toolkit_of_macro_tools.rs`).

use serde_json::{Map, Value, json};

/// Visits every schema position under `schema`, the root included.
fn walk(schema: &Value, path: &str, visit: &mut dyn FnMut(&Map<String, Value>, &str)) {
    let Value::Object(map) = schema else { return };
    visit(map, path);
    for key in ["properties", "$defs", "definitions", "patternProperties"] {
        if let Some(Value::Object(children)) = map.get(key) {
            for (name, child) in children {
                walk(child, &format!("{path}/{key}/{name}"), visit);
            }
        }
    }
    for key in ["anyOf", "oneOf", "allOf", "prefixItems"] {
        if let Some(Value::Array(children)) = map.get(key) {
            for (at, child) in children.iter().enumerate() {
                walk(child, &format!("{path}/{key}/{at}"), visit);
            }
        }
    }
    for key in ["items", "additionalProperties", "not"] {
        if let Some(child) = map.get(key) {
            walk(child, &format!("{path}/{key}"), visit);
        }
    }
}

fn is_object(map: &Map<String, Value>) -> bool {
    map.get("type") == Some(&json!("object"))
        || map
            .get("type")
            .and_then(Value::as_array)
            .is_some_and(|t| t.contains(&json!("object")))
        || map.contains_key("properties")
}

fn admits_null(schema: &Value) -> bool {
    let Value::Object(map) = schema else {
        return schema == &Value::Bool(true);
    };
    if map
        .get("enum")
        .and_then(Value::as_array)
        .is_some_and(|e| e.contains(&Value::Null))
        && !map.contains_key("type")
    {
        return true;
    }
    match map.get("type") {
        Some(Value::String(t)) => t == "null",
        Some(Value::Array(types)) => {
            types.contains(&json!("null"))
                && map
                    .get("enum")
                    .is_none_or(|e| e.as_array().unwrap().contains(&Value::Null))
        }
        _ => map
            .get("anyOf")
            .and_then(Value::as_array)
            .is_some_and(|branches| branches.iter().any(admits_null)),
    }
}

/// OpenAI strict mode, as documented: every object closed and fully required, no `default`,
/// no `oneOf`, no `allOf`, no keyword beside `$ref`, every `$ref` resolvable. A property that
/// was optional admits `null` where `null` decodes: among the tool's parameters (the root's
/// properties, which `#[tool]` reads as absent when `null`), and wherever its portable schema
/// already admitted it.
pub fn check_strict(name: &str, portable: &Value, strict: &Value) {
    let root = strict.as_object().unwrap();
    walk(strict, "#", &mut |map, path| {
        assert!(!map.contains_key("default"), "{name} {path}: default left");
        assert!(!map.contains_key("oneOf"), "{name} {path}: oneOf left");
        assert!(!map.contains_key("allOf"), "{name} {path}: allOf left");
        if let Some(Value::String(reference)) = map.get("$ref") {
            assert_eq!(map.len(), 1, "{name} {path}: a keyword beside $ref");
            let target = reference.strip_prefix('#').unwrap();
            assert!(
                strict.pointer(target).is_some(),
                "{name} {path}: dangling {reference}"
            );
        }
        if is_object(map) {
            assert_eq!(
                map.get("additionalProperties"),
                Some(&json!(false)),
                "{name} {path}: object not closed"
            );
            let properties = map["properties"].as_object().unwrap();
            let required: Vec<&str> = map["required"]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| n.as_str().unwrap())
                .collect();
            let names: Vec<&str> = properties.keys().map(String::as_str).collect();
            assert_eq!(required, names, "{name} {path}: not fully required");
        }
    });
    walk(portable, "#", &mut |map, path| {
        let Some(Value::Object(properties)) = map.get("properties") else {
            return;
        };
        let required = map
            .get("required")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        for (property, schema) in properties {
            if required.contains(&json!(property)) {
                continue;
            }
            let strict_path = format!("{}/properties/{}", &path[1..], property);
            // Merged `allOf` parts and closed maps have no counterpart to compare.
            let Some(rewritten) = strict.pointer(&strict_path) else {
                continue;
            };
            let decodes_null = path == "#" || admits_null(schema);
            assert_eq!(
                admits_null(rewritten),
                decodes_null,
                "{name} {strict_path}: nullable where null does not decode, or the reverse: {rewritten}"
            );
        }
    });
    assert_eq!(root.get("type"), Some(&json!("object")));
}

/// Gemini's OpenAPI 3.0 subset: known keywords only, no references, no type arrays, string
/// enums, and objects that list their properties.
pub fn check_gemini(name: &str, lowered: &Value) {
    const ALLOWED: [&str; 19] = [
        "type",
        "format",
        "title",
        "description",
        "nullable",
        "enum",
        "properties",
        "required",
        "items",
        "anyOf",
        "minItems",
        "maxItems",
        "minLength",
        "maxLength",
        "pattern",
        "minimum",
        "maximum",
        "minProperties",
        "maxProperties",
    ];
    walk(lowered, "#", &mut |map, path| {
        for key in map.keys() {
            assert!(
                ALLOWED.contains(&key.as_str()),
                "{name} {path}: `{key}` is not OpenAPI 3.0 for Gemini"
            );
        }
        if let Some(kind) = map.get("type") {
            let kind = kind
                .as_str()
                .unwrap_or_else(|| panic!("{name} {path}: type array {kind}"));
            assert!(
                ["string", "number", "integer", "boolean", "array", "object"].contains(&kind),
                "{name} {path}: type {kind}"
            );
            if kind == "array" {
                assert!(
                    map.contains_key("items"),
                    "{name} {path}: array without items"
                );
            }
        }
        if let Some(Value::Array(values)) = map.get("enum") {
            assert!(
                values.iter().all(Value::is_string),
                "{name} {path}: non-string enum"
            );
        }
        if let Some(Value::Array(required)) = map.get("required") {
            let properties = map["properties"].as_object().unwrap();
            for field in required {
                assert!(
                    properties.contains_key(field.as_str().unwrap()),
                    "{name} {path}: required {field} missing"
                );
            }
        }
    });
}

/// Gemini's `parametersJsonSchema`: only the keywords Gemini documents for it (its SDK's
/// `JSONSchema`, `prefixItems`, `propertyOrdering`), every `$ref` resolvable.
pub fn check_gemini_json_schema(name: &str, schema: &Value) {
    const ALLOWED: [&str; 27] = [
        "type",
        "format",
        "title",
        "description",
        "enum",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "prefixItems",
        "minItems",
        "maxItems",
        "uniqueItems",
        "minProperties",
        "maxProperties",
        "minimum",
        "maximum",
        "minLength",
        "maxLength",
        "pattern",
        "anyOf",
        "oneOf",
        "$ref",
        "$defs",
        "$id",
        "$anchor",
        "propertyOrdering",
    ];
    walk(schema, "#", &mut |map, path| {
        for key in map.keys() {
            assert!(
                ALLOWED.contains(&key.as_str()),
                "{name} {path}: `{key}` is not in Gemini's JSON Schema"
            );
        }
        if let Some(Value::String(reference)) = map.get("$ref") {
            let target = reference.strip_prefix('#').unwrap();
            assert!(
                schema.pointer(target).is_some(),
                "{name} {path}: dangling {reference}"
            );
        }
    });
}

/// Anthropic's strict tool use, as its SDK's `transform_schema` leaves a schema unchanged:
/// one `type` per schema (none beside `enum`/`const`), every object closed, nothing beside a
/// `$ref`, `minItems` 0 or 1, documented string formats only, no keyword it moves into the
/// description.
pub fn check_anthropic_strict(name: &str, schema: &Value) {
    const ALLOWED: [&str; 14] = [
        "type",
        "description",
        "title",
        "enum",
        "const",
        "anyOf",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "minItems",
        "format",
        "$ref",
        "$defs",
    ];
    const FORMATS: [&str; 10] = [
        "date-time",
        "time",
        "date",
        "duration",
        "email",
        "hostname",
        "uri",
        "ipv4",
        "ipv6",
        "uuid",
    ];
    walk(schema, "#", &mut |map, path| {
        for key in map.keys() {
            assert!(
                ALLOWED.contains(&key.as_str()),
                "{name} {path}: `{key}` is not in Anthropic's strict subset"
            );
        }
        if map.contains_key("$ref") {
            assert_eq!(map.len(), 1, "{name} {path}: a keyword beside $ref");
        }
        if let Some(kind) = map.get("type") {
            assert!(kind.is_string(), "{name} {path}: type list {kind}");
            assert!(
                !map.contains_key("enum") && !map.contains_key("const"),
                "{name} {path}: a type beside a literal"
            );
        }
        if is_object(map) {
            assert_eq!(map.get("type"), Some(&json!("object")), "{name} {path}");
            assert_eq!(
                map.get("additionalProperties"),
                Some(&json!(false)),
                "{name} {path}: object not closed"
            );
        }
        if let Some(min) = map.get("minItems") {
            assert!(min == 0 || min == 1, "{name} {path}: minItems {min}");
        }
        if let Some(Value::String(format)) = map.get("format") {
            assert!(
                FORMATS.contains(&format.as_str()),
                "{name} {path}: format {format}"
            );
        }
        let typed = ["type", "anyOf", "enum", "const", "$ref"];
        assert!(
            typed.iter().any(|key| map.contains_key(*key)),
            "{name} {path}: no type"
        );
    });
}

/// How deep `children` nests in a lowered tree.
pub fn depth(node: &Value) -> usize {
    match node.pointer("/properties/children/items") {
        Some(child) => 1 + depth(child),
        None => 1,
    }
}
