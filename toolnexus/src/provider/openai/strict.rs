//! OpenAI's strict mode: the rewrite of a portable input schema to the JSON Schema subset
//! strict structured outputs accept, and the list of what that subset cannot say.

use serde_json::{Map, Value, json};

use crate::decode::align::list_of_any;
use crate::provider::loss::Loss;
use crate::provider::rewrite::{
    Definitions, Dialect, STRICT_FORMATS, Walk, drop_absent_properties, drop_not_enforced,
    is_object, map_entries, merge_into, one_of_as_any_of, reference_alone,
};
use crate::provider::{distribute_over_branches, is_null_schema};

/// Rewrites an input schema to OpenAI's strict structured-outputs rules (what
/// [`Toolkit::to_openai_strict`](crate::Toolkit::to_openai_strict) sends for every tool that
/// [`Toolkit::check`](crate::Toolkit::check) finds nothing to report on).
///
/// Every object schema — the root, nested objects, array items, `anyOf` branches and `$defs`
/// — gets `"additionalProperties": false`, a `properties` object and a `required` list naming
/// all its properties. A property marked nullable is one where `null` decodes: a parameter of
/// the tool that was not required (`#[tool]` reads `null` there as absent) becomes nullable —
/// `"type": T` ⇒ `["T", "null"]` (with `null` added to an `enum`), and a `$ref`, `const` or
/// composite schema ⇒ `{"anyOf": [schema, {"type": "null"}]}`, its `description` moved
/// outside. A nested property that was not required becomes required as it is: its own schema
/// admits `null` where it decodes (an `Option` field), and a serde-defaulted field the model
/// must now send is still one the tool accepts. A property whose schema is `false` (it must be
/// absent) is left out unless required, so the closed object refuses it as the schema does,
/// rather than requiring a value nothing fits. Every `default` is removed; `oneOf` becomes
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
/// words (`"exactly 1 character"`, `"City name (at most 5 characters)"`); [`Toolkit::check`](crate::Toolkit::check)
/// reports it as [`IssueKind::EnforcedByTool`](crate::IssueKind::EnforcedByTool), and the tool
/// stays strict.
///
/// What strict mode cannot say at all is approximated, and [`Toolkit::check`](crate::Toolkit::check) lists each
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
/// let strict = toolnexus::Profile::OpenAiStrict.rewrite(schema.as_object().unwrap()).0;
/// assert_eq!(serde_json::Value::Object(strict), json!({
///     "type": "object",
///     "properties": {"city": {"type": "string"}, "days": {"type": ["integer", "null"]}},
///     "required": ["city", "days"],
///     "additionalProperties": false,
/// }));
/// ```
///
/// Returns the rewritten schema and what it could not say ([`Profile::rewrite`](crate::Profile::rewrite) reports each as a [`SchemaIssue`](crate::SchemaIssue)).
pub(crate) fn rewrite(schema: &Map<String, Value>) -> (Map<String, Value>, Vec<Loss>) {
    Walk::<OpenAiStrict>::run(schema)
}

/// Limits strict mode rejects but the tool enforces: each is written into the description.
const DESCRIBED: [&str; 5] = [
    "minLength",
    "maxLength",
    "uniqueItems",
    "minProperties",
    "maxProperties",
];

const WHY_CLOSED: &str = "strict mode requires `additionalProperties: false` on every object";

/// OpenAI strict mode's rules for one node; each definition is rewritten at the path of the
/// first reference that reaches it.
struct OpenAiStrict;

impl Dialect for OpenAiStrict {
    const STRICT: bool = true;
    const DEFINITIONS: Definitions = Definitions::AtFirstReference;

    fn enter(walk: &mut Walk<Self>, node: &mut Map<String, Value>, path: &str) -> bool {
        node.shift_remove("default");
        one_of_as_any_of(node);
        merge_all_of(walk, node, path);
        drop_absent_properties(node);
        distribute_over_branches(node);
        // Before the `$ref` is wrapped: a description written beside it is a sibling too.
        drop_unsupported(walk, node, path);
        if let Some(Value::String(reference)) = node.get("$ref").cloned() {
            walk.follow(&reference, path);
            reference_alone(node);
        }
        walk.list_tuple(
            node,
            path,
            "strict mode has no `prefixItems`; approximated as a list of any of its elements' types",
            |prefix| Some(list_of_any(prefix)),
        );
        true
    }

    /// Closes an object schema; approximates a free-form one.
    fn leave(walk: &mut Walk<Self>, node: &mut Map<String, Value>, path: &str, root: bool) {
        if is_object(node) {
            close_object(walk, node, path, root);
        } else if is_free_form(node) {
            walk.lose(
                path,
                "any JSON value",
                "strict mode requires a `type` on every schema; approximated as a string, number, boolean or null",
            );
            node.insert(
                "anyOf".to_owned(),
                json!([{"type": "string"}, {"type": "number"}, {"type": "boolean"}, {"type": "null"}]),
            );
        }
    }

    /// `false` admits nothing, which strict mode can say as it is; anything else becomes a
    /// schema object.
    fn other(walk: &mut Walk<Self>, schema: &mut Value, path: &str) {
        if *schema != Value::Bool(false) {
            *schema = Value::Object(Map::new());
            walk.rewrite(schema, path);
        }
    }
}

/// Merges `allOf` parts that are objects (directly or through a `$ref`) into `node`; strict
/// mode has no `allOf`. The first part's keyword wins; the rest must agree for the merge to be
/// exact, which is what schemars' flattened structs produce.
fn merge_all_of(walk: &mut Walk<OpenAiStrict>, node: &mut Map<String, Value>, path: &str) {
    let Some(Value::Array(parts)) = node.shift_remove("allOf") else {
        return;
    };
    for part in parts {
        let resolved = part
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|reference| walk.definition(reference, path));
        // Past a bound nothing more is copied in: the cut is reported and the tool sent plain.
        if walk.is_cut() {
            return;
        }
        match resolved.unwrap_or(part) {
            Value::Object(part) => merge_into(node, part),
            part => walk.lose(
                path,
                format!("the `allOf` part {part}"),
                "strict mode has no `allOf`",
            ),
        }
    }
}

/// Writes the limits strict mode has no keyword for into the description, and drops the
/// keywords it rejects.
fn drop_unsupported(walk: &mut Walk<OpenAiStrict>, node: &mut Map<String, Value>, path: &str) {
    // `patternProperties` is reported where its object is closed.
    let dropped = drop_not_enforced(node, "patternProperties");
    let mut described = DESCRIBED.to_vec();
    if let Some(Value::String(format)) = node.get("format") {
        if !STRICT_FORMATS.contains(&format.as_str()) {
            // `double` says no more than `"type": "number"` does, so it goes unsaid.
            if format == "double" {
                node.shift_remove("format");
            } else {
                described.push("format");
            }
        }
    }
    walk.describe(node, &described, path);
    if let Some(dropped) = dropped {
        walk.lose(
            path,
            dropped,
            "strict mode does not support these keywords; they are dropped",
        );
    }
}

/// Closes an object: every property listed in `required`, `additionalProperties: false`; the
/// arguments object's optional properties become nullable.
fn close_object(
    walk: &mut Walk<OpenAiStrict>,
    node: &mut Map<String, Value>,
    path: &str,
    root: bool,
) {
    if let Some(entries) = map_entries(node) {
        walk.lose(path, entries, WHY_CLOSED);
    }
    if node.shift_remove("patternProperties").is_some() {
        walk.lose(path, "the entries `patternProperties` allows", WHY_CLOSED);
    }
    node.entry("type").or_insert_with(|| Value::from("object"));
    let originally_required: Vec<Value> = match node.get("required") {
        Some(Value::Array(names)) => names.clone(),
        _ => Vec::new(),
    };
    let properties = node
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
    node.insert("required".to_owned(), Value::Array(all));
    node.insert("additionalProperties".to_owned(), Value::Bool(false));
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

/// A schema that constrains nothing strict mode can express: no `type`, no choices, no
/// branches, no reference.
fn is_free_form(schema: &Map<String, Value>) -> bool {
    ["type", "anyOf", "$ref", "enum", "const", "items"]
        .iter()
        .all(|key| !schema.contains_key(*key))
}
