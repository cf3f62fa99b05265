//! Anthropic's strict tool use: the rewrite of a portable input schema to the JSON Schema
//! subset `"strict": true` tools accept, and the list of what that subset cannot say.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

use crate::decode::pointer::definition_name;
use crate::provider::distribute_over_branches;
use crate::provider::loss::Loss;
use crate::provider::rewrite::{
    Definitions, Dialect, SENT_PLAIN, STRICT_FORMATS, Walk, drop_absent_properties, is_object,
    map_entries, one_of_as_any_of, reference_alone,
};

/// Limits strict tool use has no keyword for but the tool enforces: each is written into the
/// description.
const DESCRIBED: [&str; 12] = [
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
];

/// What each schema may keep as it is: the keywords strict tool use documents.
const KEPT: [&str; 13] = [
    "$ref",
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
];

/// Rewrites an input schema to the subset Anthropic's strict tool use accepts (what
/// [`Toolkit::to_anthropic_strict`](crate::Toolkit::to_anthropic_strict) sends for a tool
/// [`Toolkit::check`](crate::Toolkit::check) finds nothing unsaid in).
///
/// The result is what Anthropic's own SDK makes of a schema for strict mode
/// (`transform_schema`), left unchanged by it: every object gets `"additionalProperties":
/// false` (its `required` list is kept: strict tool use has optional properties); a type list
/// `["T", "null"]` becomes `anyOf` of `T` and `null`; a property whose schema is `false` (it
/// must be absent) is left out unless required, which the closed object says exactly; `oneOf`
/// becomes `anyOf`; an `enum` or `const` stands without a `type`; a `$ref` stands alone (its
/// siblings move beside an `anyOf` of it); `default` is dropped; an object's own properties
/// beside an `anyOf` of objects (a flattened enum) move into each branch. Kept: `enum`,
/// `const`, `anyOf`, `$ref`/`$defs`, `minItems` of 0 or 1, and the string formats
/// `date-time`, `time`, `date`, `duration`, `email`, `hostname`, `uri`, `ipv4`, `ipv6`, `uuid`.
///
/// Limits strict tool use has no keyword for, but the tool enforces — numeric bounds,
/// `multipleOf`, string lengths, `pattern`, `minItems` above 1, `maxItems`, `uniqueItems`,
/// other formats, property counts — are written into the description in words
/// ([`IssueKind::EnforcedByTool`](crate::IssueKind::EnforcedByTool)). What it cannot say at
/// all ([`IssueKind::Unsaid`](crate::IssueKind::Unsaid)) — a map, a tuple of different types,
/// a free-form value, a recursive type, `allOf`, keywords no tool enforces — sends the tool
/// non-strict, with its plain schema.
///
/// ```
/// use serde_json::json;
///
/// let schema = json!({
///     "type": "object",
///     "properties": {
///         "code": {"type": "string", "maxLength": 8},
///         "days": {"type": ["integer", "null"], "minimum": 1, "default": 3},
///     },
///     "required": ["code"],
/// });
/// let strict = toolnexus::Profile::AnthropicStrict.rewrite(schema.as_object().unwrap()).0;
/// assert_eq!(serde_json::Value::Object(strict), json!({
///     "type": "object",
///     "properties": {
///         "code": {"type": "string", "description": "at most 8 characters"},
///         "days": {"description": "at least 1", "anyOf": [{"type": "integer"}, {"type": "null"}]},
///     },
///     "required": ["code"],
///     "additionalProperties": false,
/// }));
/// ```
///
/// Returns the rewritten schema and what it could not say ([`Profile::rewrite`](crate::Profile::rewrite) reports each as a [`SchemaIssue`](crate::SchemaIssue)).
pub(crate) fn rewrite(schema: &Map<String, Value>) -> (Map<String, Value>, Vec<Loss>) {
    let (rewritten, mut losses) = Walk::<AnthropicStrict>::run(schema);
    if let Some(Value::Object(defs)) = schema.get("$defs") {
        if let Some(name) = recursive(defs) {
            // Said first: it is about the whole schema.
            let lost = format!("the recursive type `{name}`");
            let why = format!("strict tool use does not support recursive schemas, {SENT_PLAIN}");
            losses.insert(0, Loss::new("", lost, why));
        }
    }
    (rewritten, losses)
}

/// The first definition that reaches itself through `$ref`s, if any.
fn recursive(defs: &Map<String, Value>) -> Option<&String> {
    // The definitions `schema` names in a `$ref`, at any depth.
    let refers = |schema: Option<&Value>| {
        let mut names = Vec::new();
        let mut pending: Vec<&Value> = schema.into_iter().collect();
        while let Some(value) = pending.pop() {
            match value {
                Value::Object(map) => {
                    let reference = map.get("$ref").and_then(Value::as_str);
                    names.extend(reference.and_then(definition_name));
                    pending.extend(map.values());
                }
                Value::Array(list) => pending.extend(list),
                _ => {}
            }
        }
        names
    };
    defs.keys().find(|start| {
        let mut seen = BTreeSet::new();
        let mut pending = refers(defs.get(*start));
        while let Some(name) = pending.pop() {
            if &name == *start {
                return true;
            }
            if seen.insert(name.clone()) {
                pending.extend(refers(defs.get(&name)));
            }
        }
        false
    })
}

/// Anthropic strict tool use's rules for one node; the definitions are rewritten after the
/// root, each at its own path.
struct AnthropicStrict;

impl Dialect for AnthropicStrict {
    const STRICT: bool = true;
    const DEFINITIONS: Definitions = Definitions::AfterRoot;

    /// Rewrites the node's own keywords; a `$ref` stands alone, its target rewritten where
    /// it is defined.
    fn enter(walk: &mut Walk<Self>, node: &mut Map<String, Value>, path: &str) -> bool {
        one_of_as_any_of(node);
        drop_absent_properties(node);
        distribute_over_branches(node);
        walk.list_tuple(
            node,
            path,
            "strict tool use has no `prefixItems`",
            |prefix| prefix.first().cloned(),
        );
        let mut described = DESCRIBED.to_vec();
        if node
            .get("format")
            .and_then(Value::as_str)
            // Strict tool use documents `uri` too.
            .is_some_and(|format| format != "uri" && !STRICT_FORMATS.contains(&format))
        {
            described.push("format");
        }
        if node
            .get("minItems")
            .and_then(Value::as_f64)
            .is_some_and(|n| n > 1.0)
        {
            described.push("minItems");
        }
        walk.describe(node, &described, path);
        walk.keep_only(
            node,
            &KEPT,
            path,
            "strict tool use does not support these keywords",
        );
        if let Some(Value::String(_)) = node.get("$ref") {
            reference_alone(node);
            return false;
        }
        if node.contains_key("enum") || node.contains_key("const") {
            // The SDK's transform sends a literal without its `type`.
            node.shift_remove("type");
        }
        split_type_list(node);
        true
    }

    /// Closes an object schema; reports one without a type.
    fn leave(walk: &mut Walk<Self>, node: &mut Map<String, Value>, path: &str, _root: bool) {
        let typed = ["type", "anyOf", "enum", "const"]
            .iter()
            .any(|key| node.contains_key(*key));
        if is_object(node) {
            if let Some(entries) = map_entries(node) {
                walk.lose(
                    path,
                    entries,
                    "strict tool use requires `additionalProperties: false` on every object",
                );
            }
            node.entry("type").or_insert_with(|| Value::from("object"));
            node.entry("properties")
                .or_insert_with(|| Value::Object(Map::new()));
            node.insert("additionalProperties".to_owned(), Value::Bool(false));
        } else if !typed {
            walk.lose(
                path,
                "any JSON value",
                "strict tool use needs a `type` in every schema",
            );
        }
    }

    fn other(walk: &mut Walk<Self>, schema: &mut Value, path: &str) {
        walk.lose(
            path,
            format!("the schema {schema}"),
            "strict tool use needs a `type`, `anyOf`, `enum` or `const` in every schema",
        );
    }
}

/// `"type": ["T", "null"]` ⇒ `anyOf` of `T` (with the rest of the schema) and `null`; the
/// SDK's transform has one `type` per schema.
fn split_type_list(node: &mut Map<String, Value>) {
    let Some(Value::Array(types)) = node.get("type").cloned() else {
        return;
    };
    let mut rest = std::mem::take(node);
    if let Some(description) = rest.shift_remove("description") {
        node.insert("description".to_owned(), description);
    }
    let branches: Vec<Value> = types
        .iter()
        .map(|kind| {
            if kind == "null" {
                return json!({"type": "null"});
            }
            let mut branch = rest.clone();
            branch.insert("type".to_owned(), kind.clone());
            Value::Object(branch)
        })
        .collect();
    node.insert("anyOf".to_owned(), Value::Array(branches));
}
