//! Argument decoding: the raw text or `Value` a model sent becomes a tool's typed arguments,
//! or an ``invalid arguments for `NAME`: …`` result naming the path of the offending value.
//!
//! Both entry points (`Tool::execute` with a `Value`, `Tool::execute_json` with text) have one
//! semantics, a derived arguments struct's (`derived.rs`): text takes a fast path only where it
//! cannot change the outcome. `#[tool]`s without `#[serde]` attributes reach the same semantics
//! one parameter at a time (`params.rs`), as the macro's two strategies do. What serde takes
//! beyond the schema is refused by the schema check (`check/`); every message is worded in
//! `error.rs`; `align.rs` makes the schema say what the decoder accepts.
//!
//! Here: what both strategies share. Size ([`MAX_ARGUMENT_BYTES`]) and nesting are bounded, so
//! hostile arguments cost an error, never a crash; text is parsed strictly (a key given twice
//! is refused); and one value is decoded leniently ([`decode_leniently`]) in every form either
//! entry point accepts.

// Every error here is a tool's final result; boxing it would only add an allocation.
#![expect(
    clippy::result_large_err,
    reason = "the error is the tool's final result; boxing it would only add an allocation"
)]

pub(crate) mod align;
pub(crate) mod answers;
// Crate-visible: the checker of arguments against a schema, for answers (SPEC §10B) and remote
// tools (SPEC §13) too: `check::check_args(tool, &check::Shape::of(schema, false), &args)`, or
// `Shape::of_remote(schema)` for a server's schema.
pub(crate) mod check;
mod derived;
mod error;
mod lex;
pub(crate) mod param_schema;
mod params;
pub(crate) mod pointer;
pub(crate) mod schema;

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use crate::result::ToolResult;
#[cfg(debug_assertions)]
pub use check::judged_text_verdicts;
pub(crate) use check::limits::broken_patterns;
pub(crate) use check::{Shape, check_args, named_keys, unread_type};
pub use derived::{decode_args, decode_args_json};
use error::at_path;
pub(crate) use error::{invalid_args, json_kind, too_deep, without_position};
pub use params::{IntegerSlot, Slot, decode_params, decode_params_json, take};

/// One form of a value that [`decode_leniently`] offers.
pub(crate) enum Form<'v> {
    Value(&'v Value),
    /// The value's JSON text.
    Text(&'v str),
}

/// Offers `decode` each form of `value` that either entry point accepts, until it takes one;
/// whether one was taken. The forms, in order:
///
/// - the value itself;
/// - its text, when `text`: serde_json's text and `Value` deserializers accept slightly
///   different forms (text takes a struct variant as an array, `{"Move": [1, 2]}`; a `Value`
///   does not), and `execute_json` accepts what its text path accepts, so decoding a `Value`
///   does too and the two entry points stay one semantics;
/// - the value with its whole floats as integers (see [`integers_for_integral_floats`]).
pub(crate) fn decode_leniently(
    value: &Value,
    text: bool,
    mut decode: impl FnMut(Form<'_>) -> bool,
) -> bool {
    decode(Form::Value(value)) || decode_other_forms(value, text, decode)
}

/// [`decode_leniently`] past its first form, the value itself (which a caller on the hot path
/// tries directly).
pub(crate) fn decode_other_forms(
    value: &Value,
    text: bool,
    mut decode: impl FnMut(Form<'_>) -> bool,
) -> bool {
    if text && decode(Form::Text(&value.to_string())) {
        return true;
    }
    let mut integral = value.clone();
    integers_for_integral_floats(&mut integral) && decode(Form::Value(&integral))
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
fn integers_for_integral_floats(value: &mut Value) -> bool {
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

/// The arguments object and how it nests, read in place: `null` means `{}` (and `args` is
/// left `{}`); any other non-object, and arguments nested too deep, are refused. Borrowed, so
/// the arguments are never moved on the hot path.
#[inline]
pub(crate) fn arguments_object<'v>(
    tool: &str,
    args: &'v mut Value,
) -> Result<(&'v Map<String, Value>, Nesting), ToolResult> {
    if args.is_null() {
        *args = Value::Object(Map::new());
    }
    let object = match args {
        Value::Object(object) => object,
        other => {
            return Err(invalid_args(
                tool,
                format_args!("expected a JSON object, found {}", json_kind(other)),
            ));
        }
    };
    match nesting(object) {
        Some(nesting) => Ok((object, nesting)),
        None => {
            dismantle(Value::Object(std::mem::take(object)));
            Err(too_deep(tool))
        }
    }
}

/// serde's words for a value that no enum variant takes, ``expected string or map``, are the
/// decoder's, not the schema's: an enum of unit variants is a string in its schema. Where
/// serde said them, the schema check's message (``expected string``) is given instead when it
/// refuses `args` too. Only this failure is rewritten: every other message stays serde's, as
/// the other ports' vectors have them.
pub(crate) fn in_schema_words(
    tool: &str,
    shape: &Shape,
    args: &Value,
    refused: ToolResult,
) -> ToolResult {
    if !refused.output.ends_with("expected string or map") {
        return refused;
    }
    check_args(tool, shape, args).err().unwrap_or(refused)
}

/// [`parse_args`], refusing a key given twice in any object (``field `shape`: duplicate field
/// `radius```), and reporting nesting past serde_json's limit as [`decode_args`] does.
pub(crate) fn parse_args_strictly(tool: &str, text: &str) -> Result<Value, ToolResult> {
    check_size(tool, text)?;
    if text.trim().is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let error = match serde_path_to_error::deserialize(&mut deserializer) {
        Ok(UniqueKeys(value)) => match deserializer.end() {
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
struct UniqueKeys(Value);

impl<'de> Deserialize<'de> for UniqueKeys {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer
            .deserialize_any(UniqueKeysVisitor)
            .map(UniqueKeys)
    }
}

struct UniqueKeysVisitor;

impl<'de> Visitor<'de> for UniqueKeysVisitor {
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
        while let Some(UniqueKeys(item)) = seq.next_element()? {
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
            let UniqueKeys(value) = map.next_value()?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

/// Parses the raw argument text a model produced: empty or all-whitespace means `{}` (models
/// send that for tools without parameters); text over [`MAX_ARGUMENT_BYTES`] is refused before
/// parsing, so a runaway model cannot make the process allocate without bound.
pub(crate) fn parse_args(tool: &str, text: &str) -> Result<Value, ToolResult> {
    check_size(tool, text)?;
    if text.trim().is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    serde_json::from_str(text).map_err(|error| invalid_args(tool, without_position(&error)))
}

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
    nesting(object).is_some()
}

/// How an arguments object nests.
pub(crate) enum Nesting {
    /// Every value is a scalar.
    Flat,
    /// Some value is an array or an object, none deeper than [`MAX_NESTING`] levels.
    Nested,
}

/// How `object` nests, `None` past [`MAX_NESTING`] levels; found without recursion, and
/// without allocating or walking for flat arguments (the common case on the hot path).
#[inline]
pub(crate) fn nesting(object: &Map<String, Value>) -> Option<Nesting> {
    if object
        .values()
        .any(|child| child.is_array() || child.is_object())
    {
        nested_depth(object)
    } else {
        Some(Nesting::Flat)
    }
}

/// [`nesting`] for an object with an array or object inside.
#[inline(never)]
fn nested_depth(object: &Map<String, Value>) -> Option<Nesting> {
    let nested = |child: &&Value| child.is_array() || child.is_object();
    let mut pending: Vec<(&Value, usize)> = object
        .values()
        .filter(nested)
        .map(|child| (child, 2))
        .collect();
    while let Some((value, depth)) = pending.pop() {
        if depth > MAX_NESTING {
            return None;
        }
        let (items, fields) = match value {
            Value::Array(items) => (Some(items.iter()), None),
            Value::Object(map) => (None, Some(map.values())),
            _ => (None, None),
        };
        let children = items
            .into_iter()
            .flatten()
            .chain(fields.into_iter().flatten());
        pending.extend(children.filter(nested).map(|child| (child, depth + 1)));
    }
    Some(Nesting::Nested)
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
