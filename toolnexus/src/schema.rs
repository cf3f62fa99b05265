//! The portable input schema of a `#[tool]` (SPEC §5), built once per tool.

use schemars::generate::SchemaSettings;
use schemars::transform::{RestrictFormats, Transform};
use schemars::{JsonSchema, Schema};
use serde_json::{Map, Value};

/// Builds the input schema of a macro-generated arguments struct.
///
/// Shape: `{"type":"object","properties":{…},"required":[…],"additionalProperties":false}` in
/// that key order (`properties` present even when empty, `required` only when not), then `$defs` only when a recursive type needs them; no `$schema`, no root
/// `title`/`description`; every `$ref` that can be inlined is; `format`s outside JSON Schema
/// 2020-12 (`int64`, `uint8`, `double`, …) are dropped because strict validators reject them.
pub fn input_schema_for<T: JsonSchema>() -> Map<String, Value> {
    let mut settings = SchemaSettings::draft2020_12();
    settings.inline_subschemas = true;
    let mut schema: Schema = settings.into_generator().into_root_schema_for::<T>();
    // Infers the allowed formats from `$schema`, so it must run before `$schema` is removed.
    RestrictFormats::default().transform(&mut schema);
    let mut root = match schema.to_value() {
        Value::Object(root) => root,
        _ => Map::new(),
    };
    // Some clients reject an object schema without `properties`, so a tool without
    // parameters still says `"properties": {}`.
    root.entry("properties")
        .or_insert_with(|| Value::Object(Map::new()));
    let mut ordered = Map::new();
    for key in ["type", "properties", "required", "additionalProperties"] {
        if let Some(value) = root.remove(key) {
            ordered.insert(key.to_owned(), value);
        }
    }
    for key in ["$schema", "title", "description"] {
        root.remove(key);
    }
    ordered.extend(root);
    ordered
}
