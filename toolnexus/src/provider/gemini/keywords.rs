//! Gemini's keywords: what each JSON Schema keyword becomes in the OpenAPI 3.0 subset
//! function declarations accept, and what is lost on the way. The structural walk — references,
//! properties, items, branches — is in `gemini`.

use serde_json::{Map, Value};

use crate::provider::described::{described, in_words};
use crate::provider::loss::Loss;
use crate::provider::rewrite::{map_entries, not_enforced, tuple_positions};

/// Limits Gemini has no field for but the tool enforces: each is written into the
/// description.
const DESCRIBED: [&str; 4] = [
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "uniqueItems",
];

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

/// Reports into `losses` what this schema says that the rewritten one will not: a map's
/// entries, a tuple's positions, keywords and formats Gemini has no field for. Returns the
/// limits among them that go into the description instead, in words.
pub(super) fn report_unsaid(
    map: &Map<String, Value>,
    kind: Option<&str>,
    path: &str,
    losses: &mut Vec<Loss>,
) -> Vec<String> {
    let mut lose = |lost: String, why: &str| losses.push(Loss::new(path, lost, why));
    if let Some(entries) = map_entries(map) {
        lose(
            entries,
            "Gemini has no `additionalProperties`; sent as {\"type\": \"object\"}",
        );
    }
    if let Some(Value::Array(prefix)) = map.get("prefixItems") {
        if let Some(positions) = tuple_positions(prefix) {
            lose(
                positions.to_owned(),
                "Gemini has no `prefixItems`; sent as a list of any of its elements' types",
            );
        }
    }
    // Without a word on `propertyNames`: Gemini reads an object as holding only the
    // properties it declares.
    if let Some(dropped) = not_enforced(map, "propertyNames") {
        lose(dropped, "Gemini has no field for these; they are dropped");
    }
    let mut keywords = DESCRIBED.to_vec();
    if let (Some(kind), Some(Value::String(format))) = (kind, map.get("format")) {
        if !documented_format(kind, format) {
            keywords.push("format");
        }
    }
    let (words, loss) = described(map, &keywords, path).unzip();
    losses.extend(loss);
    words.unwrap_or_default()
}

/// What a schema's `enum` or `const` leaves once rewritten (Gemini enums are strings only).
pub(super) struct Choices<'a> {
    /// The `type` to declare: the schema's own, or one the choices imply.
    pub(super) kind: Option<&'a str>,
    /// The `enum` to declare.
    pub(super) values: Option<Vec<Value>>,
    /// Whether the `enum` listed `null`.
    pub(super) null: bool,
    /// Choices Gemini cannot list, in words for the description.
    pub(super) words: Option<String>,
}

/// The schema's `type`s other than `null`, and whether `null` was one of them; `None` when it
/// was the only one, since a schema that only admits null leaves the model nothing to fill in.
pub(super) fn non_null_types(map: &Map<String, Value>) -> Option<(Vec<&str>, bool)> {
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

/// Rewrites `enum` (kept only when every non-null value is a string) or `const` (a string
/// becomes a one-value `enum`; a boolean or number, lacking a declared type, becomes its
/// type). A schema with choices but no type is a string.
pub(super) fn rewrite_choices<'a>(
    map: &Map<String, Value>,
    declared: Option<&'a str>,
    path: &str,
    losses: &mut Vec<Loss>,
) -> Choices<'a> {
    let mut choices = Choices {
        kind: declared,
        values: None,
        null: false,
        words: None,
    };
    let why = "Gemini enums are strings only; the type is kept and the choices are written \
               into the description, and the tool refuses any other value";
    if let Some(Value::Array(values)) = map.get("enum") {
        choices.null = values.contains(&Value::Null);
        let values: Vec<Value> = values.iter().filter(|v| !v.is_null()).cloned().collect();
        if !values.is_empty() && values.iter().all(Value::is_string) {
            choices.values = Some(values);
        } else if !values.is_empty() {
            let values = Value::Array(values);
            choices.words = in_words("enum", &values);
            losses.push(Loss::described(path, format!("the choices {values}"), why));
        }
    } else if let Some(constant) = map.get("const") {
        match constant {
            Value::String(constant) => {
                choices.values = Some(vec![Value::String(constant.clone())]);
            }
            Value::Null => choices.null = true,
            other => {
                choices.words = in_words("const", other);
                losses.push(Loss::described(path, format!("the constant {other}"), why));
                if choices.kind.is_none() {
                    choices.kind = Some(match other {
                        Value::Bool(_) => "boolean",
                        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
                        Value::Number(_) => "number",
                        Value::Array(_) => "array",
                        _ => "object",
                    });
                }
            }
        }
    }
    if choices.values.is_some() && choices.kind.is_none() {
        choices.kind = Some("string");
    }
    choices
}

/// `type`, and `format` where Gemini documents that format for that type.
pub(super) fn insert_type_and_format(
    out: &mut Map<String, Value>,
    map: &Map<String, Value>,
    kind: &str,
) {
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

pub(super) fn copy_plain_keywords(out: &mut Map<String, Value>, map: &Map<String, Value>) {
    for key in PLAIN_KEYWORDS {
        if let Some(value) = map.get(key) {
            out.insert(key.to_owned(), value.clone());
        }
    }
}
