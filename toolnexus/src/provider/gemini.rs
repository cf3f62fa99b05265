//! Gemini: function declarations, and the lowering of a tool's portable input schema to the
//! OpenAPI 3.0 subset they accept. The lowering works on a copy of the cached schema; the
//! tool's own schema is never rebuilt or changed.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::{is_null_schema, name_and_description};
use crate::tool::Tool;

/// The `tools` list: `[{"functionDeclarations":[{name, description, parameters}]}]`, without
/// `parameters` for a tool whose lowered schema has no properties (Gemini rejects an `OBJECT`
/// with no properties).
pub(crate) fn definitions(tools: &[Arc<dyn Tool>]) -> Value {
    let declarations = tools
        .iter()
        .map(|tool| {
            let parameters = gemini_schema(tool.input_schema());
            let empty = parameters
                .get("properties")
                .and_then(Value::as_object)
                .is_none_or(Map::is_empty);
            let mut declaration = name_and_description(tool.as_ref());
            if !empty {
                declaration.insert("parameters".to_owned(), Value::Object(parameters));
            }
            Value::Object(declaration)
        })
        .collect::<Vec<_>>();
    let mut entry = Map::new();
    entry.insert(
        "functionDeclarations".to_owned(),
        Value::Array(declarations),
    );
    Value::Array(vec![Value::Object(entry)])
}

/// How many times [`gemini_schema`] expands one recursive definition along any path before it
/// stops.
///
/// Gemini has no `$ref`, so a recursive type (which the portable schema keeps as `$defs` +
/// `$ref`) is unrolled: the definition is inlined at most this many times, nested; the
/// reference that would inline it once more is removed with whatever needs it (the property,
/// an array of it, or an `anyOf` branch). A `Node { children: Vec<Node> }` argument therefore
/// accepts trees three levels deep.
pub const GEMINI_RECURSION_DEPTH: usize = 3;

/// Lowers an input schema to the OpenAPI 3.0 subset Gemini's function declarations accept
/// (what [`Toolkit::to_gemini`](crate::Toolkit::to_gemini) sends).
///
/// The output keeps only `type`, `format`, `title`, `description`, `nullable`, `enum`,
/// `properties`, `required`, `items`, `anyOf` and the numeric, string, array and object
/// bounds; everything else (`$schema`, `$defs`, `additionalProperties`, `default`,
/// `examples`, …) is dropped. On the way:
///
/// - `$ref` is inlined; a recursive definition is unrolled [`GEMINI_RECURSION_DEPTH`] times
///   and the deeper reference removed, so no `$ref` is ever left dangling. A reference that
///   does not resolve is removed the same way.
/// - A type array or an `anyOf`/`oneOf` branch of `null` becomes `"nullable": true`; other
///   type arrays become `anyOf` branches; `oneOf` becomes `anyOf`; an `anyOf` left with one
///   branch is merged into its parent; `allOf` is merged into its parent.
/// - A string `const` becomes a one-value `enum`. Gemini enums are strings only, so a
///   non-string `enum` is dropped and the `type` kept, and a boolean or number `const`
///   becomes its type (`boolean`, `integer` or `number`).
/// - `format` is kept only where Gemini documents it: `date-time`/`enum` on strings,
///   `int32`/`int64` on integers, `float`/`double` on numbers.
/// - `required` names only properties that survived.
///
/// ```
/// use serde_json::json;
///
/// let schema = json!({
///     "type": "object",
///     "properties": {"unit": {"type": ["string", "null"], "enum": ["c", "f", null], "default": "c"}},
///     "additionalProperties": false,
/// });
/// let gemini = toolnexus::gemini_schema(schema.as_object().unwrap());
/// assert_eq!(serde_json::Value::Object(gemini), json!({
///     "type": "object",
///     "properties": {"unit": {"type": "string", "nullable": true, "enum": ["c", "f"]}},
/// }));
/// ```
pub fn gemini_schema(schema: &Map<String, Value>) -> Map<String, Value> {
    let lowering = Lowering { root: schema };
    lowering
        .lower_map(schema, &mut Vec::new())
        // Only a root that is nothing but an unresolvable reference gets here.
        .unwrap_or_else(|| {
            let mut empty = Map::new();
            empty.insert("type".to_owned(), Value::from("object"));
            empty.insert("properties".to_owned(), Value::Object(Map::new()));
            empty
        })
}

/// Keywords copied unchanged: their OpenAPI 3.0 meaning is the JSON Schema one.
const PLAIN_KEYWORDS: [&str; 11] = [
    "title",
    "description",
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

/// One lowering of one root schema, which every `$ref` resolves against.
///
/// Every step that returns `Option` uses `None` for "this cannot be expressed": the caller
/// removes whatever needs it. `refs` is the stack of references being inlined, which bounds
/// recursion.
struct Lowering<'a> {
    root: &'a Map<String, Value>,
}

impl Lowering<'_> {
    /// Lowers a subschema: an object, or `true`; `false` admits nothing and cannot be
    /// expressed.
    fn lower(&self, schema: &Value, refs: &mut Vec<String>) -> Option<Value> {
        match schema {
            Value::Object(map) => self.lower_map(map, refs).map(Value::Object),
            // `true` (anything) has no OpenAPI spelling closer than an empty schema.
            Value::Bool(true) => Some(Value::Object(Map::new())),
            _ => None,
        }
    }

    /// Lowers one schema object. The steps run in the order their keys appear in the output,
    /// which is part of the wire form.
    fn lower_map(
        &self,
        map: &Map<String, Value>,
        refs: &mut Vec<String>,
    ) -> Option<Map<String, Value>> {
        if let Some(Value::String(reference)) = map.get("$ref") {
            return self.inline(reference, map, refs);
        }
        let (types, null_type) = non_null_types(map)?;
        if types.len() > 1 {
            return self.split_types(map, &types, null_type, refs);
        }
        let branches = self.lower_branches(map, refs)?;
        let choices = lower_choices(map, types.first().copied());

        let mut out = Map::new();
        if let Some(kind) = choices.kind {
            insert_type_and_format(&mut out, map, kind);
        }
        copy_plain_keywords(&mut out, map);
        if null_type || branches.null || choices.null {
            out.insert("nullable".to_owned(), Value::Bool(true));
        }
        if let Some(values) = choices.values {
            out.insert("enum".to_owned(), Value::Array(values));
        }
        self.lower_properties(&mut out, map, refs);
        self.lower_items(&mut out, map, refs)?;
        merge_branches(&mut out, branches.lowered);
        self.merge_all_of(&mut out, map, refs)?;
        Some(out)
    }

    /// Inlines a `$ref`, its siblings (a `description`, say) overriding the target's keys.
    fn inline(
        &self,
        reference: &str,
        map: &Map<String, Value>,
        refs: &mut Vec<String>,
    ) -> Option<Map<String, Value>> {
        let expanded = refs.iter().filter(|seen| *seen == reference).count();
        if expanded >= GEMINI_RECURSION_DEPTH {
            return None;
        }
        let mut merged = self.resolve(reference)?.clone();
        for (key, value) in map {
            if key != "$ref" {
                merged.insert(key.clone(), value.clone());
            }
        }
        refs.push(reference.to_owned());
        let lowered = self.lower_map(&merged, refs);
        refs.pop();
        lowered
    }

    /// Resolves `#` or a `#/…` JSON pointer against the root schema.
    fn resolve(&self, reference: &str) -> Option<&Map<String, Value>> {
        let pointer = reference.strip_prefix('#')?;
        let mut segments = pointer
            .split('/')
            .skip(1)
            .map(|segment| segment.replace("~1", "/").replace("~0", "~"));
        let Some(first) = segments.next() else {
            return Some(self.root);
        };
        let mut at = self.root.get(&first)?;
        for segment in segments {
            at = match at {
                Value::Object(map) => map.get(&segment)?,
                Value::Array(list) => list.get(segment.parse::<usize>().ok()?)?,
                _ => return None,
            };
        }
        at.as_object()
    }

    /// A schema with several non-null types becomes one `anyOf` branch per type.
    fn split_types(
        &self,
        map: &Map<String, Value>,
        types: &[&str],
        nullable: bool,
        refs: &mut Vec<String>,
    ) -> Option<Map<String, Value>> {
        let mut out = Map::new();
        if let Some(description) = map.get("description") {
            out.insert("description".to_owned(), description.clone());
        }
        if nullable {
            out.insert("nullable".to_owned(), Value::Bool(true));
        }
        let mut branches = Vec::new();
        for kind in types {
            let mut branch = map.clone();
            branch.remove("description");
            branch.insert("type".to_owned(), Value::from(*kind));
            if let Some(lowered) = self.lower_map(&branch, refs) {
                branches.push(Value::Object(lowered));
            }
        }
        if branches.is_empty() {
            return None;
        }
        out.insert("anyOf".to_owned(), Value::Array(branches));
        Some(out)
    }

    /// The `anyOf` and `oneOf` branches, lowered, a `null` branch counting as nullability;
    /// `None` when there are branches but none can be expressed.
    fn lower_branches(&self, map: &Map<String, Value>, refs: &mut Vec<String>) -> Option<Branches> {
        let mut branches = Branches {
            lowered: Vec::new(),
            null: false,
        };
        let mut has_branches = false;
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(list)) = map.get(key) {
                has_branches = true;
                for branch in list {
                    if is_null_schema(branch) {
                        branches.null = true;
                    } else if let Some(lowered) = self.lower(branch, refs) {
                        branches.lowered.push(lowered);
                    }
                }
            }
        }
        if has_branches && branches.lowered.is_empty() {
            return None;
        }
        Some(branches)
    }

    /// `properties`, each lowered (one that cannot be expressed is dropped), and `required`
    /// naming only the properties that survived.
    fn lower_properties(
        &self,
        out: &mut Map<String, Value>,
        map: &Map<String, Value>,
        refs: &mut Vec<String>,
    ) {
        let Some(Value::Object(properties)) = map.get("properties") else {
            return;
        };
        let mut lowered = Map::new();
        for (name, property) in properties {
            if let Some(property) = self.lower(property, refs) {
                lowered.insert(name.clone(), property);
            }
        }
        let required: Vec<Value> = match map.get("required") {
            Some(Value::Array(required)) => required
                .iter()
                .filter(|name| name.as_str().is_some_and(|name| lowered.contains_key(name)))
                .cloned()
                .collect(),
            _ => Vec::new(),
        };
        out.insert("properties".to_owned(), Value::Object(lowered));
        if !required.is_empty() {
            out.insert("required".to_owned(), Value::Array(required));
        }
    }

    /// `items`, lowered; `None` when they cannot be expressed, because an array of something
    /// inexpressible is itself inexpressible.
    fn lower_items(
        &self,
        out: &mut Map<String, Value>,
        map: &Map<String, Value>,
        refs: &mut Vec<String>,
    ) -> Option<()> {
        if let Some(items @ Value::Object(_)) = map.get("items") {
            out.insert("items".to_owned(), self.lower(items, refs)?);
        }
        Some(())
    }

    /// Merges every `allOf` part into `out`; `None` when one cannot be expressed, because
    /// every part must hold, so losing one loses the whole schema.
    fn merge_all_of(
        &self,
        out: &mut Map<String, Value>,
        map: &Map<String, Value>,
        refs: &mut Vec<String>,
    ) -> Option<()> {
        if let Some(Value::Array(all_of)) = map.get("allOf") {
            for part in all_of {
                if let Value::Object(part) = self.lower(part, refs)? {
                    merge_into(out, part);
                }
            }
        }
        Some(())
    }
}

/// A schema's `anyOf`/`oneOf` branches once lowered.
struct Branches {
    /// The branches that are not `null` and can be expressed.
    lowered: Vec<Value>,
    /// Whether one of them was `null`.
    null: bool,
}

/// What a schema's `enum` or `const` leaves once lowered (Gemini enums are strings only).
struct Choices<'a> {
    /// The `type` to declare: the schema's own, or one the choices imply.
    kind: Option<&'a str>,
    /// The `enum` to declare.
    values: Option<Vec<Value>>,
    /// Whether the `enum` listed `null`.
    null: bool,
}

/// The schema's `type`s other than `null`, and whether `null` was one of them; `None` when it
/// was the only one, since a schema that only admits null leaves the model nothing to fill in.
fn non_null_types(map: &Map<String, Value>) -> Option<(Vec<&str>, bool)> {
    let mut types: Vec<&str> = match map.get("type") {
        Some(Value::String(single)) => vec![single.as_str()],
        Some(Value::Array(types)) => types.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    if !types.contains(&"null") {
        return Some((types, false));
    }
    types.retain(|t| *t != "null");
    if types.is_empty() {
        return None;
    }
    Some((types, true))
}

/// Lowers `enum` (kept only when every non-null value is a string) or `const` (a string
/// becomes a one-value `enum`; a boolean or number, lacking a declared type, becomes its
/// type). A schema with choices but no type is a string.
fn lower_choices<'a>(map: &Map<String, Value>, declared: Option<&'a str>) -> Choices<'a> {
    let mut choices = Choices {
        kind: declared,
        values: None,
        null: false,
    };
    if let Some(Value::Array(values)) = map.get("enum") {
        choices.null = values.contains(&Value::Null);
        let values: Vec<Value> = values.iter().filter(|v| !v.is_null()).cloned().collect();
        if !values.is_empty() && values.iter().all(Value::is_string) {
            choices.values = Some(values);
        }
    } else if let Some(constant) = map.get("const") {
        match constant {
            Value::String(constant) => {
                choices.values = Some(vec![Value::String(constant.clone())]);
            }
            // Gemini enums are strings only; the value's type is the most left to say.
            Value::Bool(_) if choices.kind.is_none() => choices.kind = Some("boolean"),
            Value::Number(number) if choices.kind.is_none() => {
                let integral = number.is_i64() || number.is_u64();
                choices.kind = Some(if integral { "integer" } else { "number" });
            }
            _ => {}
        }
    }
    if choices.values.is_some() && choices.kind.is_none() {
        choices.kind = Some("string");
    }
    choices
}

/// `type`, and `format` where Gemini documents that format for that type.
fn insert_type_and_format(out: &mut Map<String, Value>, map: &Map<String, Value>, kind: &str) {
    out.insert("type".to_owned(), Value::from(kind));
    if let Some(Value::String(format)) = map.get("format") {
        if documented_format(kind, format) {
            out.insert("format".to_owned(), Value::String(format.clone()));
        }
    }
}

fn documented_format(kind: &str, format: &str) -> bool {
    matches!(
        (kind, format),
        ("string", "date-time" | "enum")
            | ("integer", "int32" | "int64")
            | ("number", "float" | "double")
    )
}

fn copy_plain_keywords(out: &mut Map<String, Value>, map: &Map<String, Value>) {
    for key in PLAIN_KEYWORDS {
        if let Some(value) = map.get(key) {
            out.insert(key.to_owned(), value.clone());
        }
    }
}

/// One remaining branch is merged into its parent; several become `anyOf`.
fn merge_branches(out: &mut Map<String, Value>, mut branches: Vec<Value>) {
    match branches.len() {
        0 => {}
        1 => {
            if let Some(Value::Object(only)) = branches.pop() {
                merge_into(out, only);
            }
        }
        _ => {
            out.insert("anyOf".to_owned(), Value::Array(branches));
        }
    }
}

/// Merges an already-lowered schema into `out`: `out`'s keys win, except that `properties`
/// and `required` are unions.
fn merge_into(out: &mut Map<String, Value>, other: Map<String, Value>) {
    for (key, value) in other {
        let Some(mine) = out.get_mut(&key) else {
            out.insert(key, value);
            continue;
        };
        match (key.as_str(), mine, value) {
            ("properties", Value::Object(mine), Value::Object(theirs)) => {
                for (name, property) in theirs {
                    mine.entry(name).or_insert(property);
                }
            }
            ("required", Value::Array(mine), Value::Array(theirs)) => {
                for name in theirs {
                    if !mine.contains(&name) {
                        mine.push(name);
                    }
                }
            }
            _ => {}
        }
    }
}
