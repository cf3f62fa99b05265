//! Argument decoding: the raw text or `Value` a model sent becomes a tool's typed arguments,
//! or an ``invalid arguments for `NAME`: …`` result naming the path of the offending value.
//! Size ([`MAX_ARGUMENT_BYTES`]) and nesting are bounded, so hostile arguments cost an error,
//! never a crash. Both entry points (`Tool::execute` with a `Value`, `Tool::execute_json` with
//! text) have one semantics, [`decode_args`]'s: text takes a fast path only where it cannot
//! change the outcome. `#[tool]`s without `#[serde]` attributes reach the same semantics one
//! parameter at a time (`params.rs`); these functions decode a derived arguments struct.

use std::fmt;

use serde::de::{self, Deserialize, DeserializeOwned, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use serde_path_to_error::{Path, Segment};

use crate::conform::{MAX_CHECKED_VALUES, TextCheck, check_args, check_keys, check_text};
use crate::result::ToolResult;
use crate::schema::ToolSchema;

/// Decodes a model's arguments into the generated arguments struct: the reference semantics
/// both entry points share.
///
/// `null` means `{}`; any other non-object, and every decode failure, becomes an `is_error`
/// result ``invalid arguments for `NAME`: …`` naming the full path of the offending value
/// (``field `order.items[0].quantity`: …``; a problem with the arguments object itself, such
/// as a missing or unknown key, has no `field` prefix), so the fn is never called with bad
/// input. Nested arguments that decoded are also checked against `schema`
/// (`conform.rs`), which refuses the forms serde takes beyond it.
#[expect(
    clippy::result_large_err,
    reason = "the error is the tool's final result; boxing it would only add an allocation"
)]
pub fn decode_args<T: DeserializeOwned>(
    tool: &str,
    args: Value,
    schema: &ToolSchema,
) -> Result<T, ToolResult> {
    let (object, nesting) = check_shape(tool, args)?;
    let args = Value::Object(object);
    let decoded = match accepted_form(&args) {
        Some(decoded) => decoded,
        // Decoded again, owned, to find where it failed.
        None => serde_path_to_error::deserialize(args.clone())
            .map_err(|error| at_path(tool, None, error.path(), error.inner()))?,
    };
    let shape = schema.shape();
    check_keys(tool, shape, &args)?;
    let checked = match nesting {
        Nesting::Nested => true,
        Nesting::Flat => shape.checks_flat_arguments(),
        Nesting::Large | Nesting::TooDeep => false,
    };
    if checked {
        check_args(tool, shape, &args)?;
    }
    Ok(decoded)
}

/// The arguments decoded in any form either entry point takes, tracking no path (so it
/// costs nothing beyond what `T` needs).
fn accepted_form<T: DeserializeOwned>(args: &Value) -> Option<T> {
    if let Ok(decoded) = T::deserialize(args) {
        return Some(decoded);
    }
    // serde_json's text and `Value` deserializers accept slightly different forms (text takes
    // a struct variant as an array, `{"Move": [1, 2]}`; a `Value` does not). `execute_json`
    // accepts what its text path accepts, so this path does too, and the two entry points
    // stay one semantics. A `Value`'s text never holds an integer past 64 bits, so the
    // `i128` case that makes `execute_json` skip its text path cannot arise here.
    if let Ok(decoded) = serde_json::from_str(&args.to_string()) {
        return Some(decoded);
    }
    let mut integral = args.clone();
    if integers_for_integral_floats(&mut integral) {
        if let Ok(decoded) = T::deserialize(&integral) {
            return Some(decoded);
        }
    }
    None
}

/// Rewrites every float with no fractional part (`3.0`, `1e5`) as the integer it equals, where
/// one holds it; whether anything changed.
///
/// JSON Schema counts `3.0` as an `integer`, so a schema that says `{"type": "integer"}`
/// admits it, but serde refuses a float for an integer type. Decoding retries with this
/// rewrite only after it failed, so a value that decoded as sent is never changed (`-0.0`
/// becomes `0`, as JSON Schema reads it). Only floats up to 2^53 in size are rewritten: past
/// that a float may be an integer the text wrote exactly and the parser rounded
/// (`-9223372036854775809`), which must not decode as a neighbour.
pub(crate) fn integers_for_integral_floats(value: &mut Value) -> bool {
    // Every integer up to 2^53 is a float exactly, and no other integer rounds to one.
    const EXACT: f64 = 9_007_199_254_740_992.0;
    let mut changed = false;
    let mut pending = vec![value];
    while let Some(value) = pending.pop() {
        match value {
            Value::Number(number) if number.is_f64() => {
                let float = number.as_f64().unwrap_or(f64::NAN);
                if float.fract() != 0.0 {
                    continue;
                }
                if float.abs() < EXACT {
                    *value = Value::from(float as i64);
                    changed = true;
                }
            }
            Value::Array(items) => pending.extend(items),
            Value::Object(map) => pending.extend(map.values_mut()),
            _ => {}
        }
    }
    changed
}

/// The arguments object: `null` means `{}`; any other non-object, and arguments nested too
/// deep, are refused.
#[expect(
    clippy::result_large_err,
    reason = "the error is the tool's final result; boxing it would only add an allocation"
)]
pub(crate) fn check_shape(
    tool: &str,
    args: Value,
) -> Result<(Map<String, Value>, Nesting), ToolResult> {
    let args = match args {
        Value::Object(args) => args,
        Value::Null => Map::new(),
        other => {
            return Err(invalid_args(
                tool,
                format_args!("expected a JSON object, found {}", json_kind(&other)),
            ));
        }
    };
    match nesting(&args) {
        Nesting::TooDeep => {
            dismantle(Value::Object(args));
            Err(too_deep(tool))
        }
        nesting => Ok((args, nesting)),
    }
}

/// [`decode_args`] for the raw argument text a model produced, with the same outcome for the
/// same arguments, errors included.
///
/// An object is first decoded straight into `T` (no intermediate `Value`: the fast path). When
/// that fails, or when `via_value` says `T` holds what a `Value` cannot (`i128`/`u128` beyond
/// 64 bits), the text is parsed into a `Value` and decoded by [`decode_args`], whose result is
/// returned: one semantics, whichever way the arguments arrived. A key given twice in an
/// object is refused on that path, so text cannot hide a second value behind the first.
#[expect(
    clippy::result_large_err,
    reason = "the error is the tool's final result; boxing it would only add an allocation"
)]
pub fn decode_args_json<T: DeserializeOwned>(
    tool: &str,
    text: &str,
    schema: &ToolSchema,
) -> Result<T, ToolResult> {
    // A flattened parameter's keys (which the schema may close, where a key may be given
    // twice, whose enum's schema checks even flat arguments) are read from a `Value`.
    if !schema.text_via_value
        && !schema.flattened
        && text.len() <= MAX_ARGUMENT_BYTES
        && text.trim_start().starts_with('{')
    {
        // The parser's own recursion limit bounds nesting here.
        if let Ok(args) = serde_json::from_str(text) {
            // A bracket past the object's own brace may open a nested value (or sit in a
            // string, which only costs the check).
            let maybe_nested = text.bytes().filter(|b| matches!(b, b'[' | b'{')).nth(1);
            let check = match maybe_nested {
                Some(_) => check_text(tool, schema.shape(), text),
                None => TextCheck::Fits,
            };
            match check {
                TextCheck::Fits => return Ok(args),
                TextCheck::Refused(refused) => return Err(refused),
                TextCheck::Reread => {}
            }
        }
    }
    decode_args(tool, parse_args_strictly(tool, text)?, schema)
}

/// ``field `order.items[0].quantity`: message``, or the bare message when the problem is the
/// arguments object itself (a missing or unknown key). `key` is the argument the path is
/// inside, when it is relative to one.
pub(crate) fn at_path(
    tool: &str,
    key: Option<&str>,
    path: &Path,
    error: &serde_json::Error,
) -> ToolResult {
    let message = without_position(error);
    let key = key.map(|key| Segment::Map {
        key: key.to_owned(),
    });
    let mut segments: Vec<&Segment> = key.iter().chain(path.iter()).collect();
    // serde_path_to_error counts the key of an unknown field as a step into it; the field is
    // not there, so the path stops at the object that refused it.
    if let Some(Segment::Map { key }) = segments.last() {
        if message.starts_with(&format!("unknown field `{key}`")) {
            segments.pop();
        }
    }
    if segments.is_empty() {
        return invalid_args(tool, message);
    }
    let mut text = String::new();
    for segment in segments {
        if !text.is_empty() && !matches!(segment, Segment::Seq { .. }) {
            text.push('.');
        }
        text.push_str(&segment.to_string());
    }
    invalid_args(tool, format_args!("field `{text}`: {message}"))
}

pub(crate) fn too_deep(tool: &str) -> ToolResult {
    invalid_args(
        tool,
        format_args!("arguments are nested more than {MAX_NESTING} levels deep"),
    )
}

/// serde_json's message for a value that does not fit, without its ` at line L column C`
/// suffix, so it reads the same whether the arguments arrived as text or as a `Value`; a
/// syntax error keeps its position, which is what the model needs to fix it.
pub(crate) fn without_position(error: &serde_json::Error) -> String {
    let message = error.to_string();
    if !error.is_data() {
        return message;
    }
    let suffix = format!(" at line {} column {}", error.line(), error.column());
    match message.strip_suffix(&suffix) {
        Some(bare) => bare.to_owned(),
        None => message,
    }
}

/// [`parse_args`], refusing a key given twice in any object (``field `shape`: duplicate field
/// `radius```), and reporting nesting past serde_json's limit as [`decode_args`] does.
#[expect(
    clippy::result_large_err,
    reason = "the error is the tool's final result; boxing it would only add an allocation"
)]
pub(crate) fn parse_args_strictly(tool: &str, text: &str) -> Result<Value, ToolResult> {
    check_size(tool, text)?;
    if text.trim().is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let error = match serde_path_to_error::deserialize(&mut deserializer) {
        Ok(Strict(value)) => match deserializer.end() {
            Ok(()) => return Ok(value),
            Err(trailing) => return Err(invalid_args(tool, trailing)),
        },
        Err(error) => error,
    };
    let inner = error.inner();
    if inner.is_data() {
        return Err(at_path(tool, None, error.path(), inner));
    }
    // Broken text: the position says where, whatever value was being read.
    if inner.to_string().starts_with("recursion limit exceeded") {
        return Err(too_deep(tool));
    }
    Err(invalid_args(tool, inner))
}

/// A `serde_json::Value` read from text, refusing duplicate keys (serde_json's own `Value`
/// keeps the last one silently).
struct Strict(Value);

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_bool<E>(self, value: bool) -> Result<Value, E> {
        Ok(Value::Bool(value))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Value, E> {
        Ok(Value::from(value))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Value, E> {
        Ok(Value::from(value))
    }

    fn visit_f64<E>(self, value: f64) -> Result<Value, E> {
        // What serde_json's own `Value` does with a float it cannot hold.
        Ok(serde_json::Number::from_f64(value).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, value: &str) -> Result<Value, E> {
        Ok(Value::String(value.to_owned()))
    }

    fn visit_string<E>(self, value: String) -> Result<Value, E> {
        Ok(Value::String(value))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(Strict(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                return Err(de::Error::custom(format_args!("duplicate field `{key}`")));
            }
            let Strict(value) = map.next_value()?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

/// Parses the raw argument text a model produced: empty or all-whitespace means `{}` (models
/// send that for tools without parameters); text over [`MAX_ARGUMENT_BYTES`] is refused before
/// parsing, so a runaway model cannot make the process allocate without bound.
#[expect(
    clippy::result_large_err,
    reason = "the error is the tool's final result; boxing it would only add an allocation"
)]
pub(crate) fn parse_args(tool: &str, text: &str) -> Result<Value, ToolResult> {
    check_size(tool, text)?;
    if text.trim().is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    serde_json::from_str(text).map_err(|error| invalid_args(tool, without_position(&error)))
}

#[expect(
    clippy::result_large_err,
    reason = "the error is the tool's final result; boxing it would only add an allocation"
)]
fn check_size(tool: &str, text: &str) -> Result<(), ToolResult> {
    if text.len() > MAX_ARGUMENT_BYTES {
        return Err(invalid_args(
            tool,
            format_args!(
                "the arguments are {} bytes, over the {MAX_ARGUMENT_BYTES}-byte limit",
                text.len()
            ),
        ));
    }
    Ok(())
}

/// The largest raw argument text [`Toolkit::execute_json`](crate::Toolkit::execute_json)
/// accepts: 16 MiB, far above any real tool call, far below what hurts a server.
pub const MAX_ARGUMENT_BYTES: usize = 16 * 1024 * 1024;

/// The deepest arguments accepted, in levels of arrays and objects (the arguments object
/// itself is the first): serde_json refuses text that opens a 128th level, and a `Value` built
/// in code gets the same bound here, because decoding it recurses once per level and could
/// overflow the stack.
pub(crate) const MAX_NESTING: usize = 127;

/// Whether an arguments object nests arrays/objects at most [`MAX_NESTING`] levels deep.
pub(crate) fn within_nesting(object: &Map<String, Value>) -> bool {
    !matches!(nesting(object), Nesting::TooDeep)
}

/// How an arguments object nests.
pub(crate) enum Nesting {
    /// Every value is a scalar.
    Flat,
    /// Some value is an array or an object, none deeper than [`MAX_NESTING`] levels, and
    /// there are at most [`MAX_CHECKED_VALUES`] values in all.
    Nested,
    /// Nested, within [`MAX_NESTING`], with more than [`MAX_CHECKED_VALUES`] values.
    Large,
    TooDeep,
}

/// How `object` nests, found without recursion, and without allocating or walking for flat
/// arguments (the common case on the hot path).
pub(crate) fn nesting(object: &Map<String, Value>) -> Nesting {
    fn nested_children(value: &Value) -> impl Iterator<Item = &Value> {
        let (items, fields) = match value {
            Value::Array(items) => (Some(items.iter()), None),
            Value::Object(map) => (None, Some(map.values())),
            _ => (None, None),
        };
        items
            .into_iter()
            .flatten()
            .chain(fields.into_iter().flatten())
            .filter(|child| child.is_array() || child.is_object())
    }
    let nested = |child: &&Value| child.is_array() || child.is_object();
    if !object.values().any(|child| nested(&child)) {
        return Nesting::Flat;
    }
    let mut pending: Vec<(&Value, usize)> = object
        .values()
        .filter(nested)
        .map(|child| (child, 2))
        .collect();
    // The object itself and its values, then the values of each array and object inside.
    let mut values = 1 + object.len();
    while let Some((value, depth)) = pending.pop() {
        if depth > MAX_NESTING {
            return Nesting::TooDeep;
        }
        values += match value {
            Value::Array(items) => items.len(),
            Value::Object(map) => map.len(),
            _ => 0,
        };
        pending.extend(nested_children(value).map(|child| (child, depth + 1)));
    }
    if values > MAX_CHECKED_VALUES {
        return Nesting::Large;
    }
    Nesting::Nested
}

/// Drops a value without recursion: `Value`'s own drop recurses once per level, which
/// overflows the stack on hostile nesting.
pub(crate) fn dismantle(value: Value) {
    let mut pending = vec![value];
    while let Some(value) = pending.pop() {
        match value {
            Value::Array(items) => pending.extend(items),
            Value::Object(map) => pending.extend(map.into_iter().map(|(_, child)| child)),
            _ => {}
        }
    }
}

/// The error every port returns for arguments that do not fit the schema.
pub fn invalid_args(tool: &str, detail: impl std::fmt::Display) -> ToolResult {
    ToolResult::error(format!("invalid arguments for `{tool}`: {detail}"))
}

/// How a JSON value is named in error messages: "a string", "an array", ….
pub(crate) fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
