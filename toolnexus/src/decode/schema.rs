//! The portable schemas of a `#[tool]`: its input schema (SPEC §5) and, for a fn returning
//! `Json<T>`, its MCP output schema (SPEC §8), each built once per tool.

use std::sync::OnceLock;

use schemars::generate::{SchemaGenerator, SchemaSettings};
use schemars::transform::{RestrictFormats, Transform};
use schemars::{JsonSchema, Schema};
use serde_json::{Map, Value};

use crate::decode::align;
use crate::decode::{Shape, named_keys};
// Where the schema check finds it; the resolver itself is the leaf `pointer`.
pub(crate) use crate::decode::pointer::resolve_reference;

/// Builds the input schema of a macro-generated arguments struct.
///
/// Shape: `{"type":"object","properties":{…},"required":[…],"additionalProperties":false}` in
/// that key order (`properties` present even when empty, `required` only when not), then
/// `$defs` only when a recursive type needs them; no `$schema`, no root
/// `title`/`description`; every `$ref` that can be inlined is; `format`s outside JSON Schema
/// 2020-12 (`int64`, `uint8`, `double`, …) are dropped because strict validators reject them,
/// after the ranges they stand for became `minimum`/`maximum`. The schema says what decodes
/// (SPEC §11): every fixed-width integer carries its real bounds, a set admits duplicates
/// (serde keeps one), a tuple names its elements' schemas in `items` as well.
pub fn input_schema_for<T: JsonSchema>() -> Map<String, Value> {
    tool_schema_from(
        portable_root_and_width(root_schema::<T>(settings()), true),
        false,
    )
    .input
}

/// What a `#[tool]` builds once from its arguments' schema: the input schema, and whether its
/// raw argument text must be read through a `serde_json::Value` (see
/// [`decode_args_json`](crate::decode::decode_args_json)).
#[derive(Debug)]
pub struct ToolSchema {
    /// The input schema, as [`input_schema_for`] describes it.
    pub input: Map<String, Value>,
    /// Some argument is an `i128`/`u128`, which text can carry beyond the 64 bits a `Value`
    /// holds: reading such text straight into the arguments would accept what
    /// `Tool::execute` refuses.
    pub text_via_value: bool,
    /// The input schema read for checking decoded arguments, knowing which of its bounds the
    /// decoder enforces (see [`align::align_marking`]).
    shape: Shape,
    /// A parameter is flattened: its keys sit beside the others, where serde's map would keep
    /// the last of a key given twice, so its text is read the reference way.
    pub(crate) flattened: bool,
    /// [`Self::required_params`], worked out at the first call.
    required_params: OnceLock<Option<u64>>,
}

impl ToolSchema {
    /// The input schema's structure, for the schema check of decoded arguments (`decode/check/`).
    pub(crate) fn shape(&self) -> &Shape {
        &self.shape
    }

    /// The required parameters, a bit each at its position in `keys` (the tool's own, so the
    /// same at every call); `None` when one is past the 64th or no parameter has its key.
    pub(crate) fn required_params(&self, keys: &[&str]) -> Option<u64> {
        *(self.required_params).get_or_init(|| self.shape.required_bits(keys))
    }
}

/// [`ToolSchema`] of the macro-generated schema struct whose `JsonSchema::json_schema` is
/// `json_schema`: the schema [`input_schema_for`] gives for the struct, without instantiating
/// schemars' generic root-schema code for every tool. The struct is never a part of its own
/// schema, so generating its root by hand gives what
/// [`SchemaGenerator::into_root_schema_for`] gives.
///
/// `flattened` says a parameter is `#[serde(flatten)]`ed: serde then cannot deny unknown
/// fields (it would refuse a flattened enum's own), so the struct does not ask it to, and the
/// root is closed here instead, over every key the schema names, unless a flattened map takes
/// the other keys; decoding then refuses the keys it does not name.
pub fn tool_schema_of(
    json_schema: fn(&mut SchemaGenerator) -> Schema,
    flattened: bool,
) -> ToolSchema {
    tool_schema_built(json_schema, flattened)
}

/// [`tool_schema_of`] for the schema of the arguments `json_schema` writes as schemars' derive
/// would, a struct's or a parameter list's (`param_schema.rs`).
pub(crate) fn tool_schema_built(
    json_schema: impl FnOnce(&mut SchemaGenerator) -> Schema,
    flattened: bool,
) -> ToolSchema {
    let mut generator = settings().into_generator();
    let mut schema = json_schema(&mut generator);
    let meta_schema = generator.settings().meta_schema.clone();
    let definitions = generator.take_definitions(false);
    let root = schema.ensure_object();
    if let Some(meta_schema) = meta_schema {
        root.insert("$schema".to_owned(), meta_schema.into());
    }
    if !definitions.is_empty() {
        // Where draft 2020-12's settings keep them (`definitions_path`).
        root.insert("$defs".to_owned(), Value::Object(definitions));
    }
    let (mut root, wide) = portable_root_and_width(schema, true);
    let closed_here = flattened && close_flattened(&mut root);
    let mut tool_schema = tool_schema_from((root, wide), closed_here);
    tool_schema.flattened = flattened;
    tool_schema
}

/// Closes the root of a struct with flattened fields over the keys it names: with
/// `additionalProperties: false` when its own `properties` name them all, else (a flattened
/// enum's keys are in its `oneOf`) `unevaluatedProperties: false`, as schemars writes for a
/// struct that denies unknown fields. Whether it closed it: not when something takes keys it
/// does not name (a flattened map's `additionalProperties`).
fn close_flattened(root: &mut Map<String, Value>) -> bool {
    let open = [
        "additionalProperties",
        "patternProperties",
        "unevaluatedProperties",
    ]
    .iter()
    .any(|key| root.contains_key(*key));
    if open || named_keys(&Value::Object(root.clone())).is_none() {
        return false;
    }
    let applied = ["allOf", "anyOf", "oneOf", "$ref"]
        .iter()
        .any(|key| root.contains_key(*key));
    let key = if applied {
        "unevaluatedProperties"
    } else {
        "additionalProperties"
    };
    root.insert(key.to_owned(), Value::Bool(false));
    true
}

/// A value a `#[tool]` builds once, on first use, and then lends: its schemas. One
/// instantiation per value type serves every tool.
#[derive(Debug)]
pub struct Built<T>(OnceLock<T>);

impl<T> Built<T> {
    /// Not built yet.
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        Self(OnceLock::new())
    }

    /// The value, built by `build` on the first call.
    pub fn get(&self, build: fn() -> T) -> &T {
        self.0.get_or_init(build)
    }
}

/// The [`ToolSchema`] of a root marked by [`align::align_marking`]: its shape is read with
/// the marks, which are then removed from the input schema; `checks_keys` when the root was
/// closed by [`tool_schema_of`], not by serde, so decoding checks the keys.
fn tool_schema_from(
    (mut root, text_via_value): (Map<String, Value>, bool),
    checks_keys: bool,
) -> ToolSchema {
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
    // The tool's own description says what the arguments are for.
    root.remove("description");
    ordered.extend(root);
    let shape = Shape::of_generated(&ordered, checks_keys);
    let mut input = Schema::from(ordered);
    align::unmark(&mut input);
    ToolSchema {
        input: into_map(input),
        text_via_value,
        shape,
        flattened: false,
        required_params: OnceLock::new(),
    }
}

/// The root schema of an output `T` as every profile starts from it: `$ref`s inlined where
/// they can be, integer bounds made explicit ([`align::align`]), non-standard `format`s
/// dropped, then `$schema` and the root `title` removed.
///
/// This is the schema of what `T` *writes* (schemars' serialize contract): an output is
/// serialized by the tool, so a field serde always writes (an `Option` without
/// `skip_serializing_if`, a `#[serde(default)]` one) is required, and one it never writes
/// (`skip_serializing`) is absent.
fn output_root<T: JsonSchema>() -> Map<String, Value> {
    portable_root_and_width(root_schema::<T>(settings().for_serialize()), false).0
}

/// Draft 2020-12 with subschemas inlined where they can be, for what a model's arguments must
/// be (the deserialize contract, schemars' default).
fn settings() -> SchemaSettings {
    let mut settings = SchemaSettings::draft2020_12();
    settings.inline_subschemas = true;
    settings
}

fn root_schema<T: JsonSchema>(settings: SchemaSettings) -> Schema {
    settings.into_generator().into_root_schema_for::<T>()
}

/// The portable root of a root schema (see [`output_root`]), and whether it had an
/// `int128`/`uint128` format (schemars' mark for `i128`/`u128`) before the non-standard
/// formats were dropped. `mark`: the bounds the decoder enforces are marked (see
/// [`align::align_marking`]), for an input schema's shape.
fn portable_root_and_width(mut schema: Schema, mark: bool) -> (Map<String, Value>, bool) {
    let wide = has_wide_integer(schema.as_value());
    // Reads the integer `format`s, so it must run before `RestrictFormats` drops them, and
    // after `has_wide_integer`, because it removes the ones it reads.
    align::align_marking(&mut schema, mark);
    // Infers the allowed formats from `$schema`, so it must run before `$schema` is removed.
    RestrictFormats::default().transform(&mut schema);
    let mut root = into_map(schema);
    for key in ["$schema", "title"] {
        root.remove(key);
    }
    (root, wide)
}

fn into_map(schema: Schema) -> Map<String, Value> {
    match schema.to_value() {
        Value::Object(root) => root,
        _ => Map::new(),
    }
}

/// Whether any subschema says `"format": "int128"` or `"uint128"`; iterative, as schemas of
/// recursive types can be deep.
fn has_wide_integer(root: &Value) -> bool {
    let mut pending = vec![root];
    while let Some(value) = pending.pop() {
        match value {
            Value::Object(map) => {
                let format = map.get("format").and_then(Value::as_str);
                if matches!(format, Some("int128" | "uint128")) {
                    return true;
                }
                pending.extend(map.values());
            }
            Value::Array(items) => pending.extend(items),
            _ => {}
        }
    }
    false
}

/// The key an output schema carries when it wraps a non-object result as `{"result": …}`
/// (MCP requires an object at the root of `outputSchema` and of `structuredContent`).
pub const WRAPPED_RESULT: &str = "x-toolnexus-wrap-result";

/// The MCP `outputSchema` of a tool whose fn returns `R` (see [`StructuredOutput`]).
///
/// The schema describes what the value *writes* (serde's serialize side, as rmcp does), and an
/// object schema is used as it is (cleaned like an input schema: `$ref`s inlined, no
/// `$schema`, no root `title`, non-standard `format`s dropped). Anything else — a number, a
/// list, an `Option<Json<T>>` that may be absent — is wrapped as
/// `{"type":"object","properties":{"result":…},"required":["result"],
/// "x-toolnexus-wrap-result":true}`, and its structured results are wrapped the same way.
pub fn output_schema_for<R: StructuredOutput>() -> Map<String, Value> {
    R::output_schema()
}

/// A return type whose successful results are JSON with a known schema: `Json<T>` with
/// `T: JsonSchema`, and `Option`/`Result` of one. `#[tool]` asks every return type whether it
/// is one (see [`OutputSchemaProbe`]), so no attribute is needed.
pub trait StructuredOutput {
    /// The `outputSchema` for this return type.
    fn output_schema() -> Map<String, Value>;
}

impl<T: JsonSchema> StructuredOutput for crate::Json<T> {
    fn output_schema() -> Map<String, Value> {
        let root = output_root::<T>();
        if root.get("type").and_then(Value::as_str) == Some("object") {
            root
        } else {
            wrap_result(root, false)
        }
    }
}

impl<S: StructuredOutput> StructuredOutput for Option<S> {
    fn output_schema() -> Map<String, Value> {
        // `None` lowers to an empty output, structured as `{"result": null}`.
        let (Ok(inner) | Err(inner)) = unwrap_result(S::output_schema());
        wrap_result(inner, true)
    }
}

impl<S: StructuredOutput, E> StructuredOutput for Result<S, E> {
    fn output_schema() -> Map<String, Value> {
        // An `Err` is an error result, which carries no structured content.
        S::output_schema()
    }
}

/// `{"type":"object","properties":{"result": schema},"required":["result"]}` plus the marker;
/// `$defs` stay at the root, where their `$ref`s point.
pub(crate) fn wrap_result(mut schema: Map<String, Value>, nullable: bool) -> Map<String, Value> {
    let defs = schema.remove("$defs");
    let result = if nullable {
        let mut any_of = Map::new();
        any_of.insert(
            "anyOf".to_owned(),
            Value::Array(vec![
                Value::Object(schema),
                serde_json::json!({"type": "null"}),
            ]),
        );
        any_of
    } else {
        schema
    };
    let mut properties = Map::new();
    properties.insert("result".to_owned(), Value::Object(result));
    let mut wrapped = Map::new();
    wrapped.insert("type".to_owned(), "object".into());
    wrapped.insert("properties".to_owned(), Value::Object(properties));
    wrapped.insert("required".to_owned(), serde_json::json!(["result"]));
    wrapped.insert(WRAPPED_RESULT.to_owned(), Value::Bool(true));
    if let Some(defs) = defs {
        wrapped.insert("$defs".to_owned(), defs);
    }
    wrapped
}

/// The `result` schema of a wrapped output schema (with its root `$defs` moved back onto it),
/// or the unwrapped object schema itself.
fn unwrap_result(mut schema: Map<String, Value>) -> Result<Map<String, Value>, Map<String, Value>> {
    if schema.get(WRAPPED_RESULT) != Some(&Value::Bool(true)) {
        return Err(schema);
    }
    let defs = schema.remove("$defs");
    let Some(Value::Object(mut result)) = schema
        .get_mut("properties")
        .and_then(Value::as_object_mut)
        .and_then(|properties| properties.remove("result"))
    else {
        return Err(schema);
    };
    if let Some(defs) = defs {
        result.insert("$defs".to_owned(), defs);
    }
    Ok(result)
}

/// Asks, at compile time, whether a return type is a [`StructuredOutput`] without requiring
/// it: `#[tool]` calls `(&OutputSchemaProbe::<R>::new()).output_schema()` with both traits
/// below in scope. Method lookup tries [`ProbeStructured`] on `&OutputSchemaProbe<R>` first
/// (it applies only when `R: StructuredOutput`), then auto-refs to [`ProbeUnstructured`],
/// which always applies and answers `None`.
pub struct OutputSchemaProbe<R>(std::marker::PhantomData<fn() -> R>);

impl<R> OutputSchemaProbe<R> {
    /// A probe for `R`.
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        Self(std::marker::PhantomData)
    }
}

/// The probe's answer for a structured return type.
pub trait ProbeStructured {
    /// `Some(schema)`.
    fn output_schema(&self) -> Option<Map<String, Value>>;
}

impl<R: StructuredOutput> ProbeStructured for OutputSchemaProbe<R> {
    fn output_schema(&self) -> Option<Map<String, Value>> {
        Some(R::output_schema())
    }
}

/// The probe's answer for any other return type.
pub trait ProbeUnstructured {
    /// `None`.
    fn output_schema(&self) -> Option<Map<String, Value>> {
        None
    }
}

impl<R> ProbeUnstructured for &OutputSchemaProbe<R> {}

#[cfg(test)]
mod tests {
    use crate::Json;
    use crate::decode::schema::*;
    use serde_json::json;

    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Point {
        x: i32,
    }

    #[test]
    fn an_object_is_its_own_output_schema() {
        let schema = output_schema_for::<Json<Point>>();
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["required"], json!(["x"]));
        assert!(!schema.contains_key(WRAPPED_RESULT));
        assert!(!schema.contains_key("title"));
        assert_eq!(output_schema_for::<Result<Json<Point>, String>>(), schema);
    }

    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Written {
        always: Option<u32>,
        #[serde(default)]
        defaulted: u32,
        #[serde(skip_serializing)]
        never: u32,
    }

    /// Recursive (so the schema keeps `$defs`), with a wide integer and a documented field.
    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Tree {
        /// The label
        label: String,
        weight: Option<u128>,
        children: Vec<Tree>,
    }

    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    #[serde(deny_unknown_fields)]
    struct Args {
        tree: Tree,
        point: Option<Point>,
        #[serde(default)]
        depth: u8,
    }

    #[test]
    fn a_root_built_by_hand_is_the_one_schemars_builds() {
        let by_hand = tool_schema_of(<Args as schemars::JsonSchema>::json_schema, false);
        assert_eq!(by_hand.input, input_schema_for::<Args>());
        assert!(by_hand.input.contains_key("$defs"));
        assert!(by_hand.text_via_value);
    }

    #[test]
    fn an_output_schema_describes_what_serde_writes() {
        let schema = output_schema_for::<Json<Written>>();
        assert_eq!(schema["required"], json!(["always", "defaulted"]));
        assert!(
            !schema["properties"]
                .as_object()
                .unwrap()
                .contains_key("never")
        );
    }

    #[test]
    fn anything_else_is_wrapped_as_result() {
        let list = Value::Object(output_schema_for::<Json<Vec<u8>>>());
        assert_eq!(list["properties"]["result"]["type"], "array");
        assert_eq!(list["required"], json!(["result"]));
        assert_eq!(list[WRAPPED_RESULT], true);
        let maybe = Value::Object(output_schema_for::<Option<Json<Point>>>());
        assert_eq!(maybe["properties"]["result"]["anyOf"][0]["type"], "object");
        assert_eq!(
            maybe["properties"]["result"]["anyOf"][1],
            json!({"type": "null"})
        );
    }

    #[test]
    // The borrow is the trick: without it the fallback's `&&OutputSchemaProbe` is never tried.
    #[allow(clippy::needless_borrow)]
    fn the_probe_answers_for_structured_types_only() {
        #[allow(unused_imports)]
        use super::{ProbeStructured as _, ProbeUnstructured as _};
        assert!(
            (&OutputSchemaProbe::<Json<Point>>::new())
                .output_schema()
                .is_some()
        );
        assert!(
            (&OutputSchemaProbe::<Option<Json<u8>>>::new())
                .output_schema()
                .is_some()
        );
        assert!(
            (&OutputSchemaProbe::<String>::new())
                .output_schema()
                .is_none()
        );
        assert!(
            (&OutputSchemaProbe::<Json<std::time::Duration>>::new())
                .output_schema()
                .is_some()
        );
    }
}
