//! Anthropic's strict tool use: the rewrite of a portable input schema to the JSON Schema
//! subset `"strict": true` tools accept, and the list of what that subset cannot say.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

use crate::pointer::definition_name;
use crate::provider::described::describe;
use crate::provider::distribute_over_branches;
use crate::provider::loss::{Loss, items_path, property_path};

/// The string formats strict tool use documents.
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
const KEPT: [&str; 12] = [
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

/// Annotations that say nothing about what validates; dropped without a word.
const ANNOTATIONS: [&str; 6] = [
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
];

const WHY_SENT_PLAIN: &str = "so the tool is sent with \"strict\": false and its plain schema";

/// Rewrites an input schema to the subset Anthropic's strict tool use accepts (what
/// [`Toolkit::to_anthropic_strict`](crate::Toolkit::to_anthropic_strict) sends for a tool
/// [`check`](crate::check) finds nothing unsaid in).
///
/// The result is what Anthropic's own SDK makes of a schema for strict mode
/// (`transform_schema`), left unchanged by it: every object gets `"additionalProperties":
/// false` (its `required` list is kept: strict tool use has optional properties); a type list
/// `["T", "null"]` becomes `anyOf` of `T` and `null`; `oneOf` becomes `anyOf`; an `enum` or
/// `const` stands without a `type`; a `$ref` stands alone (its siblings move beside an `anyOf`
/// of it); `default` is dropped; an object's own properties beside an `anyOf` of objects (a
/// flattened enum) move into each branch. Kept: `enum`, `const`, `anyOf`, `$ref`/`$defs`,
/// `minItems` of 0 or 1, and the string formats `date-time`, `time`, `date`, `duration`,
/// `email`, `hostname`, `uri`, `ipv4`, `ipv6`, `uuid`.
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
/// let strict = toolnexus::anthropic_strict_schema(schema.as_object().unwrap());
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
pub fn anthropic_strict_schema(schema: &Map<String, Value>) -> Map<String, Value> {
    rewrite(schema).0
}

/// The strict rewrite of `schema`, and what it could not say.
pub(crate) fn rewrite(schema: &Map<String, Value>) -> (Map<String, Value>, Vec<Loss>) {
    let mut root = schema.clone();
    let mut strict = AnthropicRewrite { losses: Vec::new() };
    let defs = root.shift_remove("$defs");
    if let Some(Value::Object(defs)) = &defs {
        if let Some(name) = recursive(defs) {
            strict.lose(
                "",
                format!("the recursive type `{name}`"),
                "strict tool use does not support recursive schemas",
            );
        }
    }
    strict.rewrite_map(&mut root, "");
    if let Some(Value::Object(mut defs)) = defs {
        for (name, definition) in defs.iter_mut() {
            strict.rewrite(definition, &format!("$defs.{name}"));
        }
        root.insert("$defs".to_owned(), Value::Object(defs));
    }
    (root, strict.losses)
}

/// The first definition that reaches itself through `$ref`s, if any.
fn recursive(defs: &Map<String, Value>) -> Option<String> {
    let refers = |schema: &Value| {
        let mut names = BTreeSet::new();
        let mut pending = vec![schema];
        while let Some(value) = pending.pop() {
            match value {
                Value::Object(map) => {
                    if let Some(name) = map
                        .get("$ref")
                        .and_then(Value::as_str)
                        .and_then(definition_name)
                    {
                        names.insert(name);
                    }
                    pending.extend(map.values());
                }
                Value::Array(list) => pending.extend(list),
                _ => {}
            }
        }
        names
    };
    for start in defs.keys() {
        let mut seen = BTreeSet::new();
        let mut pending: Vec<String> = defs
            .get(start)
            .map(refers)
            .unwrap_or_default()
            .into_iter()
            .collect();
        while let Some(name) = pending.pop() {
            if &name == start {
                return Some(name);
            }
            if seen.insert(name.clone()) {
                pending.extend(defs.get(&name).map(refers).unwrap_or_default());
            }
        }
    }
    None
}

struct AnthropicRewrite {
    losses: Vec<Loss>,
}

impl AnthropicRewrite {
    fn lose(&mut self, path: &str, lost: impl Into<String>, why: &str) {
        self.losses
            .push(Loss::new(path, lost, format!("{why}, {WHY_SENT_PLAIN}")));
    }

    fn rewrite(&mut self, schema: &mut Value, path: &str) {
        match schema {
            Value::Object(map) => self.rewrite_map(map, path),
            other => {
                self.lose(
                    path,
                    format!("the schema {other}"),
                    "strict tool use needs a `type`, `anyOf`, `enum` or `const` in every schema",
                );
            }
        }
    }

    fn rewrite_map(&mut self, map: &mut Map<String, Value>, path: &str) {
        if !map.contains_key("anyOf") {
            if let Some(one_of) = map.shift_remove("oneOf") {
                map.insert("anyOf".to_owned(), one_of);
            }
        }
        distribute_over_branches(map);
        self.list_tuple(map, path);
        let mut described = DESCRIBED.to_vec();
        if map
            .get("format")
            .and_then(Value::as_str)
            .is_some_and(|format| !FORMATS.contains(&format))
        {
            described.push("format");
        }
        if map
            .get("minItems")
            .and_then(Value::as_u64)
            .is_some_and(|n| n > 1)
        {
            described.push("minItems");
        }
        self.losses.extend(describe(map, &described, path));
        self.drop_unknown(map, path);
        if let Some(Value::String(_)) = map.get("$ref") {
            if map.len() > 1 {
                // Strict tool use reads nothing beside a `$ref`; beside an `anyOf` of it, it does.
                let reference = map.shift_remove("$ref").unwrap_or_default();
                map.insert("anyOf".to_owned(), json!([{ "$ref": reference }]));
            }
            return;
        }
        if map.contains_key("enum") || map.contains_key("const") {
            // The SDK's transform sends a literal without its `type`.
            map.shift_remove("type");
        }
        Self::split_type_list(map);
        if let Some(Value::Object(properties)) = map.get_mut("properties") {
            for (name, property) in properties.iter_mut() {
                self.rewrite(property, &property_path(path, name));
            }
        }
        if let Some(items) = map.get_mut("items") {
            self.rewrite(items, &items_path(path));
        }
        if let Some(Value::Array(branches)) = map.get_mut("anyOf") {
            for branch in branches {
                self.rewrite(branch, path);
            }
        }
        let typed = ["type", "anyOf", "enum", "const"]
            .iter()
            .any(|key| map.contains_key(*key));
        if is_object(map) {
            self.close_object(map, path);
        } else if !typed {
            self.lose(
                path,
                "any JSON value",
                "strict tool use needs a `type` in every schema",
            );
        }
    }

    /// Drops what strict tool use has no keyword for and no tool enforces (reported) and
    /// annotations (not reported).
    fn drop_unknown(&mut self, map: &mut Map<String, Value>, path: &str) {
        let mut dropped = Vec::new();
        map.retain(|key, value| {
            if KEPT.contains(&key.as_str()) || key == "$ref" {
                return true;
            }
            if !ANNOTATIONS.contains(&key.as_str()) && !key.starts_with("x-") {
                dropped.push(format!("`{key}: {value}`"));
            }
            false
        });
        if !dropped.is_empty() {
            self.lose(
                path,
                dropped.join(", "),
                "strict tool use does not support these keywords",
            );
        }
    }

    /// `"type": ["T", "null"]` ⇒ `anyOf` of `T` (with the rest of the schema) and `null`; the
    /// SDK's transform has one `type` per schema.
    fn split_type_list(map: &mut Map<String, Value>) {
        let Some(Value::Array(types)) = map.get("type").cloned() else {
            return;
        };
        let mut rest = std::mem::take(map);
        if let Some(description) = rest.shift_remove("description") {
            map.insert("description".to_owned(), description);
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
        map.insert("anyOf".to_owned(), Value::Array(branches));
    }

    /// `prefixItems` ⇒ `items`: exact when every element has the same schema.
    fn list_tuple(&mut self, map: &mut Map<String, Value>, path: &str) {
        let Some(Value::Array(prefix)) = map.shift_remove("prefixItems") else {
            return;
        };
        if prefix.iter().any(|element| element != &prefix[0]) {
            self.lose(
                path,
                "the type of each position of a tuple",
                "strict tool use has no `prefixItems`",
            );
        }
        if let (false, Some(first)) = (map.contains_key("items"), prefix.first()) {
            map.insert("items".to_owned(), first.clone());
        }
    }

    fn close_object(&mut self, map: &mut Map<String, Value>, path: &str) {
        let entries = match map.get("additionalProperties") {
            Some(Value::Object(values)) => Some(Value::Object(values.clone()).to_string()),
            Some(Value::Bool(true)) => Some("{}".to_owned()),
            _ => None,
        };
        if let Some(values) = entries {
            self.lose(
                path,
                format!("the entries of a map (any key, each value {values})"),
                "strict tool use requires `additionalProperties: false` on every object",
            );
        }
        map.entry("type").or_insert_with(|| Value::from("object"));
        map.entry("properties")
            .or_insert_with(|| Value::Object(Map::new()));
        map.insert("additionalProperties".to_owned(), Value::Bool(false));
    }
}

fn is_object(map: &Map<String, Value>) -> bool {
    map.get("type") == Some(&Value::from("object")) || map.contains_key("properties")
}
