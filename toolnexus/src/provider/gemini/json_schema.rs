//! Gemini's JSON Schema field: the rewrite of a portable schema to what function
//! declarations accept as `parametersJsonSchema` (and `responseJsonSchema`). Unlike the
//! OpenAPI subset of `parameters`, this one has `$ref`/`$defs`, `anyOf`, type lists,
//! `additionalProperties` and `prefixItems`, so maps, tuples and recursive types pass as
//! they are.

use serde_json::{Map, Value};

use crate::provider::described::{in_words, with_words};
use crate::provider::loss::Loss;
use crate::provider::rewrite::{Definitions, Dialect, Walk};

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

/// Rewrites an input schema to the JSON Schema Gemini's function declarations accept as
/// `parametersJsonSchema` (what
/// [`Toolkit::to_gemini_json_schema`](crate::Toolkit::to_gemini_json_schema) sends).
///
/// Everything Gemini documents for that field is kept — `$ref`/`$defs` (recursion included),
/// `anyOf` (and `oneOf`, which Gemini reads as `anyOf`), type lists, `additionalProperties`
/// (maps), `prefixItems` (tuples), `enum`, the string, number, array and object bounds — so a
/// map, a tuple and a recursive type lose nothing. A `const` becomes a one-value `enum`.
/// `exclusiveMinimum`, `exclusiveMaximum` and `multipleOf`, which it has no keyword for but
/// the tool enforces, are written into the description ([`Toolkit::check`](crate::Toolkit::check) reports them
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
/// let sent = toolnexus::Profile::GeminiJsonSchema.rewrite(schema.as_object().unwrap()).0;
/// assert_eq!(serde_json::Value::Object(sent), json!({
///     "type": "object",
///     "properties": {
///         "prices": {"type": "object", "additionalProperties": {"type": "number", "description": "greater than 0"}},
///         "step": {"enum": [5]},
///     },
///     "required": ["prices"],
/// }));
/// ```
///
/// Returns the rewritten schema and what it could not say ([`Profile::rewrite`](crate::Profile::rewrite) reports each as a [`SchemaIssue`](crate::SchemaIssue)).
pub(crate) fn rewrite(schema: &Map<String, Value>) -> (Map<String, Value>, Vec<Loss>) {
    Walk::<GeminiJsonSchema>::run(schema)
}

/// The rules of Gemini's JSON Schema fields for one node; `$defs` stay where they are, as
/// this dialect has them.
struct GeminiJsonSchema;

impl Dialect for GeminiJsonSchema {
    const STRICT: bool = false;
    const DEFINITIONS: Definitions = Definitions::InPlace;
    const SUBSCHEMAS: &'static [&'static str] = &[
        "properties",
        "$defs",
        "items",
        "additionalProperties",
        "anyOf",
        "oneOf",
        "prefixItems",
    ];

    fn enter(walk: &mut Walk<Self>, node: &mut Map<String, Value>, path: &str) -> bool {
        if let Some(constant) = node.shift_remove("const") {
            if constant.is_string() || constant.is_number() {
                node.insert("enum".to_owned(), Value::Array(vec![constant]));
            } else if let Some(words) = in_words("const", &constant) {
                if let Some(description) = with_words(node.get("description"), &[words]) {
                    node.insert("description".to_owned(), description);
                }
                walk.lose_described(
                    path,
                    format!("the constant {constant}"),
                    "Gemini's enums hold strings and numbers only; the constant is written \
                     into the description, and the tool refuses any other value",
                );
            }
        }
        walk.describe(node, &DESCRIBED, path);
        // An annotation here: it names the dialect, which the field already does.
        node.shift_remove("$schema");
        walk.keep_only(
            node,
            &KEPT,
            path,
            "Gemini's JSON Schema has no such keywords; they are dropped",
        );
        true
    }
}
