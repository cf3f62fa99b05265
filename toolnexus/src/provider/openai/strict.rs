//! OpenAI's strict mode: the rewrite of a portable input schema to the JSON Schema subset
//! strict structured outputs accept, and the list of what that subset cannot say.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

use crate::decode::align::list_of_any;
use crate::pointer::definition_name;
use crate::provider::described::describe;
use crate::provider::loss::{Loss, items_path, property_path};
use crate::provider::{distribute_over_branches, is_null_schema};

/// Rewrites an input schema to OpenAI's strict structured-outputs rules (what
/// [`Toolkit::to_openai_strict`](crate::Toolkit::to_openai_strict) sends for every tool that
/// [`check`](crate::check) finds nothing to report on).
///
/// Every object schema — the root, nested objects, array items, `anyOf` branches and `$defs`
/// — gets `"additionalProperties": false`, a `properties` object and a `required` list naming
/// all its properties. A property marked nullable is one where `null` decodes: a parameter of
/// the tool that was not required (`#[tool]` reads `null` there as absent) becomes nullable —
/// `"type": T` ⇒ `["T", "null"]` (with `null` added to an `enum`), and a `$ref`, `const` or
/// composite schema ⇒ `{"anyOf": [schema, {"type": "null"}]}`, its `description` moved
/// outside. A nested property that was not required becomes required as it is: its own schema
/// admits `null` where it decodes (an `Option` field), and a serde-defaulted field the model
/// must now send is still one the tool accepts. Every `default` is removed; `oneOf` becomes
/// `anyOf` (the branches serde's tagged enums produce are disjoint, so nothing is added);
/// `allOf` parts are merged into one object; an object's own properties beside an `anyOf` of
/// objects (a flattened enum) move into each branch, so closing them does not make them
/// exclude each other; a `$ref` with siblings moves into an `anyOf` of one; a tuple whose
/// elements share one schema becomes a list of that schema with its length.
/// `$defs` and `$ref` are kept: strict mode supports them, recursion included. What strict
/// mode documents is kept (fine-tuned models may refuse it): `pattern` and the formats
/// `date-time`, `time`, `date`, `duration`, `email`, `hostname`, `ipv4`, `ipv6` and `uuid` on
/// strings; `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum` and `multipleOf` on
/// numbers; `minItems` and `maxItems` on arrays.
///
/// A limit strict mode has no keyword for, but the tool enforces — `minLength`/`maxLength`
/// (a `char` is a string of exactly one character), `uniqueItems`, `minProperties`,
/// `maxProperties`, another `format` — is taken out and written into the description in
/// words (`"exactly 1 character"`, `"City name (at most 5 characters)"`); [`check`](crate::check)
/// reports it as [`IssueKind::EnforcedByTool`](crate::IssueKind::EnforcedByTool), and the tool
/// stays strict.
///
/// What strict mode cannot say at all is approximated, and [`check`](crate::check) lists each
/// place as [`IssueKind::Unsaid`](crate::IssueKind::Unsaid):
///
/// - a map (`additionalProperties` as a schema, from a `HashMap` or `BTreeMap`) is closed like
///   every other object, so only its declared keys (usually none) validate;
/// - a tuple of different types becomes a list of any of its elements' schemas, with its
///   length;
/// - a free-form value (`serde_json::Value`, a schema without a `type`) admits strings,
///   numbers, booleans and `null`;
/// - keywords strict mode does not support and no tool enforces (`not`, `patternProperties`,
///   `if`/`then`/`else`, …) are dropped.
///
/// ```
/// use serde_json::json;
///
/// let schema = json!({
///     "type": "object",
///     "properties": {"city": {"type": "string"}, "days": {"type": "integer", "default": 3}},
///     "required": ["city"],
/// });
/// let strict = toolnexus::openai_strict_schema(schema.as_object().unwrap());
/// assert_eq!(serde_json::Value::Object(strict), json!({
///     "type": "object",
///     "properties": {"city": {"type": "string"}, "days": {"type": ["integer", "null"]}},
///     "required": ["city", "days"],
///     "additionalProperties": false,
/// }));
/// ```
pub fn openai_strict_schema(schema: &Map<String, Value>) -> Map<String, Value> {
    rewrite(schema).0
}

/// The strict rewrite of `schema`, and what it could not say.
pub(crate) fn rewrite(schema: &Map<String, Value>) -> (Map<String, Value>, Vec<Loss>) {
    let mut root = schema.clone();
    let defs = match root.shift_remove("$defs") {
        Some(Value::Object(defs)) => defs,
        _ => Map::new(),
    };
    let mut strict = OpenAiRewrite {
        defs,
        visited: BTreeSet::new(),
        losses: Vec::new(),
    };
    strict.rewrite_map(&mut root, "", true);
    // Definitions no reference reaches still have to follow the rules.
    let names: Vec<String> = strict.defs.keys().cloned().collect();
    for name in names {
        strict.rewrite_definition(&name, "");
    }
    if !strict.defs.is_empty() {
        root.insert("$defs".to_owned(), Value::Object(strict.defs));
    }
    (root, strict.losses)
}

/// Limits strict mode rejects but the tool enforces: each is written into the description.
const DESCRIBED: [&str; 5] = [
    "minLength",
    "maxLength",
    "uniqueItems",
    "minProperties",
    "maxProperties",
];

/// Keywords strict mode rejects that no tool enforces; each is dropped, which lets more
/// through.
const UNSUPPORTED: [&str; 12] = [
    "not",
    "propertyNames",
    "contains",
    "minContains",
    "maxContains",
    "unevaluatedItems",
    "unevaluatedProperties",
    "dependentRequired",
    "dependentSchemas",
    "if",
    "then",
    "else",
];

/// The string `format`s strict mode documents.
const FORMATS: [&str; 9] = [
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

const WHY_CLOSED: &str = "strict mode requires `additionalProperties: false` on every object";
const WHY_SENT_PLAIN: &str = "so the tool is sent with \"strict\": false and its plain schema";

/// One rewrite: the root's `$defs`, taken out so that each definition is rewritten once, at
/// the path of the first reference that reaches it.
struct OpenAiRewrite {
    defs: Map<String, Value>,
    visited: BTreeSet<String>,
    losses: Vec<Loss>,
}

impl OpenAiRewrite {
    fn lose(&mut self, path: &str, lost: impl Into<String>, why: &str) {
        self.losses
            .push(Loss::new(path, lost, format!("{why}, {WHY_SENT_PLAIN}")));
    }

    fn rewrite(&mut self, schema: &mut Value, path: &str) {
        match schema {
            Value::Object(map) => self.rewrite_map(map, path, false),
            // `false` admits nothing, which strict mode can say as it is.
            Value::Bool(false) => {}
            other => {
                *other = Value::Object(Map::new());
                if let Value::Object(map) = other {
                    self.rewrite_map(map, path, false);
                }
            }
        }
    }

    /// Rewrites one schema object; `root` is the arguments object, whose optional properties
    /// become nullable.
    fn rewrite_map(&mut self, map: &mut Map<String, Value>, path: &str, root: bool) {
        map.shift_remove("default");
        if !map.contains_key("anyOf") {
            if let Some(one_of) = map.shift_remove("oneOf") {
                map.insert("anyOf".to_owned(), one_of);
            }
        }
        self.merge_all_of(map, path);
        distribute_over_branches(map);
        // Before the `$ref` is wrapped: a description written beside it is a sibling too.
        self.drop_unsupported(map, path);
        if let Some(Value::String(reference)) = map.get("$ref").cloned() {
            self.follow(&reference, path);
            if map.len() > 1 {
                // Strict mode takes no keyword beside `$ref`; beside `anyOf` it does.
                let reference = map.shift_remove("$ref").unwrap_or_default();
                map.insert("anyOf".to_owned(), json!([{ "$ref": reference }]));
            }
        }
        self.list_tuple(map, path);
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
        if is_object_schema(map) {
            self.close_object(map, path, root);
        } else if is_free_form(map) {
            self.lose(
                path,
                "any JSON value",
                "strict mode requires a `type` on every schema; approximated as a string, number, boolean or null",
            );
            map.insert(
                "anyOf".to_owned(),
                json!([{"type": "string"}, {"type": "number"}, {"type": "boolean"}, {"type": "null"}]),
            );
        }
    }

    /// Rewrites the definition a `#/$defs/NAME` reference points at, once.
    fn follow(&mut self, reference: &str, path: &str) {
        if let Some(name) = definition_name(reference) {
            self.rewrite_definition(&name, path);
        }
    }

    fn rewrite_definition(&mut self, name: &str, path: &str) {
        if !self.visited.insert(name.to_owned()) {
            return;
        }
        let Some(slot) = self.defs.get_mut(name) else {
            return;
        };
        // Taken out and put back, so a definition that refers to others (or to itself) can
        // be rewritten meanwhile, and the key order stays.
        let mut definition = std::mem::take(slot);
        self.rewrite(&mut definition, path);
        if let Some(slot) = self.defs.get_mut(name) {
            *slot = definition;
        }
    }

    /// Merges `allOf` parts that are objects (directly or through a `$ref`) into `map`;
    /// strict mode has no `allOf`.
    fn merge_all_of(&mut self, map: &mut Map<String, Value>, path: &str) {
        let Some(Value::Array(parts)) = map.shift_remove("allOf") else {
            return;
        };
        for part in parts {
            let resolved = part
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|reference| self.resolve(reference));
            let part = resolved.unwrap_or(part);
            let Value::Object(part) = part else {
                self.lose(
                    path,
                    format!("the `allOf` part {part}"),
                    "strict mode has no `allOf`",
                );
                continue;
            };
            for (key, value) in part {
                match (key.as_str(), map.get_mut(&key), value) {
                    ("properties", Some(Value::Object(mine)), Value::Object(theirs)) => {
                        for (name, property) in theirs {
                            mine.entry(name).or_insert(property);
                        }
                    }
                    ("required", Some(Value::Array(mine)), Value::Array(theirs)) => {
                        for name in theirs {
                            if !mine.contains(&name) {
                                mine.push(name);
                            }
                        }
                    }
                    (_, None, value) => {
                        map.insert(key, value);
                    }
                    // The first part's keyword wins; the rest must agree for the merge to be
                    // exact, which is what schemars' flattened structs produce.
                    _ => {}
                }
            }
        }
    }

    /// A copy of the definition a `#/$defs/NAME` reference points at, as the portable schema
    /// has it.
    fn resolve(&self, reference: &str) -> Option<Value> {
        self.defs.get(&definition_name(reference)?).cloned()
    }

    /// Writes the limits strict mode has no keyword for into the description, and drops the
    /// keywords it rejects.
    fn drop_unsupported(&mut self, map: &mut Map<String, Value>, path: &str) {
        let mut dropped = Vec::new();
        for key in UNSUPPORTED {
            if let Some(value) = map.shift_remove(key) {
                dropped.push(format!("`{key}: {value}`"));
            }
        }
        let mut described = DESCRIBED.to_vec();
        if let Some(Value::String(format)) = map.get("format") {
            if !FORMATS.contains(&format.as_str()) {
                // `double` says no more than `"type": "number"` does, so it goes unsaid.
                if format == "double" {
                    map.shift_remove("format");
                } else {
                    described.push("format");
                }
            }
        }
        self.losses.extend(describe(map, &described, path));
        if !dropped.is_empty() {
            self.lose(
                path,
                dropped.join(", "),
                "strict mode does not support these keywords; they are dropped",
            );
        }
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
                "strict mode has no `prefixItems`; approximated as a list of any of its elements' types",
            );
        }
        if !map.contains_key("items") {
            map.insert("items".to_owned(), list_of_any(&prefix));
        }
    }

    /// Closes an object: every property listed in `required`, `additionalProperties: false`.
    fn close_object(&mut self, map: &mut Map<String, Value>, path: &str, root: bool) {
        let entries = match map.get("additionalProperties") {
            Some(Value::Object(values)) => Some(Value::Object(values.clone()).to_string()),
            Some(Value::Bool(true)) => Some("{}".to_owned()),
            _ => None,
        };
        if let Some(values) = entries {
            self.lose(
                path,
                format!("the entries of a map (any key, each value {values})"),
                WHY_CLOSED,
            );
        }
        if map.shift_remove("patternProperties").is_some() {
            self.lose(path, "the entries `patternProperties` allows", WHY_CLOSED);
        }
        if !map.contains_key("type") {
            map.insert("type".to_owned(), Value::from("object"));
        }
        let originally_required: Vec<Value> = match map.get("required") {
            Some(Value::Array(names)) => names.clone(),
            _ => Vec::new(),
        };
        let properties = map
            .entry("properties")
            .or_insert_with(|| Value::Object(Map::new()));
        let mut all = Vec::new();
        if let Value::Object(properties) = properties {
            for (name, property) in properties.iter_mut() {
                let name = Value::String(name.clone());
                if root && !originally_required.contains(&name) {
                    make_nullable(property);
                }
                all.push(name);
            }
        }
        map.insert("required".to_owned(), Value::Array(all));
        map.insert("additionalProperties".to_owned(), Value::Bool(false));
    }
}

/// Makes a strict-mode property schema also accept `null`, the strict way of saying
/// "optional".
fn make_nullable(schema: &mut Value) {
    let Value::Object(map) = schema else {
        // `false` accepts nothing either way.
        return;
    };
    if accepts_null(map) {
        return;
    }
    let composite = ["$ref", "anyOf", "const"]
        .iter()
        .any(|key| map.contains_key(*key));
    match map.get_mut("type") {
        Some(Value::String(single)) if !composite => {
            let single = std::mem::take(single);
            map.insert("type".to_owned(), json!([single, "null"]));
            add_null_to_enum(map);
            return;
        }
        Some(Value::Array(types)) if !composite => {
            types.push(Value::from("null"));
            add_null_to_enum(map);
            return;
        }
        _ => {}
    }
    let plain_any_of = ["$ref", "const", "type"]
        .iter()
        .all(|key| !map.contains_key(*key));
    if let (true, Some(Value::Array(branches))) = (plain_any_of, map.get_mut("anyOf")) {
        branches.push(json!({"type": "null"}));
        return;
    }
    let mut inner = std::mem::take(map);
    if let Some(description) = inner.shift_remove("description") {
        map.insert("description".to_owned(), description);
    }
    map.insert(
        "anyOf".to_owned(),
        json!([Value::Object(inner), {"type": "null"}]),
    );
}

fn accepts_null(map: &Map<String, Value>) -> bool {
    match map.get("type") {
        Some(Value::String(single)) => single == "null",
        Some(Value::Array(types)) => types.iter().any(|t| t == "null"),
        // Without a `type`, an `enum` that lists null, or an `anyOf` branch of null, admits it.
        _ => {
            let null_choice = match map.get("enum") {
                Some(Value::Array(values)) => values.contains(&Value::Null),
                _ => false,
            };
            let null_branch = match map.get("anyOf") {
                Some(Value::Array(branches)) => branches.iter().any(is_null_schema),
                _ => false,
            };
            null_choice || null_branch
        }
    }
}

fn add_null_to_enum(map: &mut Map<String, Value>) {
    if let Some(Value::Array(values)) = map.get_mut("enum") {
        if !values.contains(&Value::Null) {
            values.push(Value::Null);
        }
    }
}

fn is_object_schema(schema: &Map<String, Value>) -> bool {
    let typed_object = match schema.get("type") {
        Some(Value::String(single)) => single == "object",
        Some(Value::Array(types)) => types.iter().any(|t| t == "object"),
        _ => false,
    };
    typed_object || schema.contains_key("properties")
}

/// A schema that constrains nothing strict mode can express: no `type`, no choices, no
/// branches, no reference.
fn is_free_form(schema: &Map<String, Value>) -> bool {
    ["type", "anyOf", "$ref", "enum", "const", "items"]
        .iter()
        .all(|key| !schema.contains_key(*key))
}
