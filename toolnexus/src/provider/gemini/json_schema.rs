//! Gemini's JSON Schema field: the rewrite of a portable schema to what function
//! declarations accept as `parametersJsonSchema` (and `responseJsonSchema`). Unlike the
//! OpenAPI subset of `parameters`, this one has `$ref`/`$defs`, `anyOf`, type lists,
//! `additionalProperties` and `prefixItems`, so maps, tuples and recursive types pass as
//! they are.

use serde_json::{Map, Value};

use crate::provider::described::{describe, in_words, with_words};
use crate::provider::loss::{Loss, items_path, property_path};

/// Keywords Gemini documents for its JSON Schema fields (the `JSONSchema` of its SDKs, and
/// `prefixItems` and `propertyOrdering` from the API reference), kept as they are.
const KEPT: [&str; 27] = [
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

/// Limits Gemini's JSON Schema has no keyword for but the tool enforces: each is written into
/// the description.
const DESCRIBED: [&str; 3] = ["exclusiveMinimum", "exclusiveMaximum", "multipleOf"];

/// Annotations that say nothing about what validates; dropped without a word.
const ANNOTATIONS: [&str; 7] = [
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
    "$schema",
];

/// Rewrites an input schema to the JSON Schema Gemini's function declarations accept as
/// `parametersJsonSchema` (what
/// [`Toolkit::to_gemini_json_schema`](crate::Toolkit::to_gemini_json_schema) sends).
///
/// Everything Gemini documents for that field is kept — `$ref`/`$defs` (recursion included),
/// `anyOf` (and `oneOf`, which Gemini reads as `anyOf`), type lists, `additionalProperties`
/// (maps), `prefixItems` (tuples), `enum`, the string, number, array and object bounds — so a
/// map, a tuple and a recursive type lose nothing. A `const` becomes a one-value `enum`.
/// `exclusiveMinimum`, `exclusiveMaximum` and `multipleOf`, which it has no keyword for but
/// the tool enforces, are written into the description ([`check`](crate::check) reports them
/// as [`IssueKind::EnforcedByTool`](crate::IssueKind::EnforcedByTool)); annotations
/// (`default`, `examples`, …) are dropped; any other keyword (`not`, `allOf`,
/// `unevaluatedProperties`, …) is dropped and reported as
/// [`IssueKind::Unsaid`](crate::IssueKind::Unsaid).
///
/// ```
/// use serde_json::json;
///
/// let schema = json!({
///     "type": "object",
///     "properties": {
///         "prices": {"type": "object", "additionalProperties": {"type": "number", "exclusiveMinimum": 0}},
///         "step": {"const": 5, "default": 5},
///     },
///     "required": ["prices"],
/// });
/// let sent = toolnexus::gemini_json_schema(schema.as_object().unwrap());
/// assert_eq!(serde_json::Value::Object(sent), json!({
///     "type": "object",
///     "properties": {
///         "prices": {"type": "object", "additionalProperties": {"type": "number", "description": "greater than 0"}},
///         "step": {"enum": [5]},
///     },
///     "required": ["prices"],
/// }));
/// ```
pub fn gemini_json_schema(schema: &Map<String, Value>) -> Map<String, Value> {
    rewrite(schema).0
}

/// The `parametersJsonSchema` rewrite of `schema`, and what it could not say.
pub(crate) fn rewrite(schema: &Map<String, Value>) -> (Map<String, Value>, Vec<Loss>) {
    let mut root = schema.clone();
    let mut losses = Vec::new();
    rewrite_map(&mut root, "", &mut losses);
    (root, losses)
}

fn rewrite_value(schema: &mut Value, path: &str, losses: &mut Vec<Loss>) {
    // `true` and `false` are schemas too, and JSON Schema says them as they are.
    if let Value::Object(map) = schema {
        rewrite_map(map, path, losses);
    }
}

fn rewrite_map(map: &mut Map<String, Value>, path: &str, losses: &mut Vec<Loss>) {
    if let Some(constant) = map.shift_remove("const") {
        if constant.is_string() || constant.is_number() {
            map.insert("enum".to_owned(), Value::Array(vec![constant]));
        } else if let Some(words) = in_words("const", &constant) {
            if let Some(description) = with_words(map.get("description"), &[words]) {
                map.insert("description".to_owned(), description);
            }
            losses.push(Loss::described(
                path,
                format!("the constant {constant}"),
                "Gemini's enums hold strings and numbers only; the constant is written into \
                 the description, and the tool refuses any other value",
            ));
        }
    }
    losses.extend(describe(map, &DESCRIBED, path));
    let mut dropped = Vec::new();
    map.retain(|key, value| {
        if KEPT.contains(&key.as_str()) {
            return true;
        }
        if !ANNOTATIONS.contains(&key.as_str()) && !key.starts_with("x-") {
            dropped.push(format!("`{key}: {value}`"));
        }
        false
    });
    if !dropped.is_empty() {
        losses.push(Loss::new(
            path,
            dropped.join(", "),
            "Gemini's JSON Schema has no such keywords; they are dropped",
        ));
    }
    if let Some(Value::Object(properties)) = map.get_mut("properties") {
        for (name, property) in properties.iter_mut() {
            rewrite_value(property, &property_path(path, name), losses);
        }
    }
    if let Some(Value::Object(definitions)) = map.get_mut("$defs") {
        // Reported where a reference reaches them; here, where they are written.
        for (name, definition) in definitions.iter_mut() {
            rewrite_value(definition, &format!("$defs.{name}"), losses);
        }
    }
    for key in ["items", "additionalProperties"] {
        if let Some(schema) = map.get_mut(key) {
            let at = if key == "items" {
                items_path(path)
            } else {
                format!("{path}.*")
            };
            rewrite_value(schema, &at, losses);
        }
    }
    for key in ["anyOf", "oneOf", "prefixItems"] {
        if let Some(Value::Array(schemas)) = map.get_mut(key) {
            for (at, schema) in schemas.iter_mut().enumerate() {
                let at = if key == "prefixItems" {
                    format!("{path}[{at}]")
                } else {
                    path.to_owned()
                };
                rewrite_value(schema, &at, losses);
            }
        }
    }
}
