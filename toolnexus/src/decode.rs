//! Argument decoding: the raw text or `Value` a model sent becomes a tool's typed arguments,
//! or an ``invalid arguments for `NAME`: …`` result. Size ([`MAX_ARGUMENT_BYTES`]) and
//! nesting are bounded, so hostile arguments cost an error, never a crash.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::result::ToolResult;

/// Decodes a model's arguments into the generated arguments struct.
///
/// `null` means `{}`; any other non-object, and every decode failure, becomes an `is_error`
/// result `invalid arguments for `NAME`: …` that names the field, so the fn is never called
/// with bad input.
#[expect(
    clippy::result_large_err,
    reason = "the error is the tool's final result; boxing it would only add an allocation"
)]
pub fn decode_args<T: DeserializeOwned>(tool: &str, args: Value) -> Result<T, ToolResult> {
    let args = match args {
        Value::Object(_) => args,
        Value::Null => Value::Object(Map::new()),
        other => {
            return Err(invalid_args(
                tool,
                format_args!("expected a JSON object, found {}", json_kind(&other)),
            ));
        }
    };
    // Flat arguments (the common case) skip the walk.
    let nested = args.as_object().is_some_and(|map| {
        map.values()
            .any(|value| value.is_array() || value.is_object())
    });
    if nested && nesting_exceeds(&args, MAX_NESTING) {
        dismantle(args);
        return Err(invalid_args(
            tool,
            format_args!("arguments are nested more than {MAX_NESTING} levels deep"),
        ));
    }
    serde_json::from_value(args).map_err(|error| invalid_args(tool, error))
}

/// [`decode_args`] for the raw argument text a model produced: an object is decoded straight
/// into `T` (no intermediate `Value`); anything else is parsed into a `Value` first, so both
/// entry points report the same errors.
#[expect(
    clippy::result_large_err,
    reason = "the error is the tool's final result; boxing it would only add an allocation"
)]
pub fn decode_args_json<T: DeserializeOwned>(tool: &str, text: &str) -> Result<T, ToolResult> {
    if text.len() <= MAX_ARGUMENT_BYTES && text.trim_start().starts_with('{') {
        // The parser's own recursion limit (128) bounds nesting here.
        return serde_json::from_str(text)
            .map_err(|error| invalid_args(tool, without_position(&error)));
    }
    decode_args(tool, parse_args(tool, text)?)
}

/// serde_json's message for a value that does not fit, without its ` at line L column C`
/// suffix, so it reads the same whether the arguments arrived as text or as a `Value`; a
/// syntax error keeps its position, which is what the model needs to fix it.
fn without_position(error: &serde_json::Error) -> String {
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

/// Parses the raw argument text a model produced: empty or all-whitespace means `{}` (models
/// send that for tools without parameters); text over [`MAX_ARGUMENT_BYTES`] is refused before
/// parsing, so a runaway model cannot make the process allocate without bound.
#[expect(
    clippy::result_large_err,
    reason = "the error is the tool's final result; boxing it would only add an allocation"
)]
pub(crate) fn parse_args(tool: &str, text: &str) -> Result<Value, ToolResult> {
    if text.len() > MAX_ARGUMENT_BYTES {
        return Err(invalid_args(
            tool,
            format_args!(
                "the arguments are {} bytes, over the {MAX_ARGUMENT_BYTES}-byte limit",
                text.len()
            ),
        ));
    }
    if text.trim().is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    serde_json::from_str(text).map_err(|error| invalid_args(tool, without_position(&error)))
}

/// The largest raw argument text [`Toolkit::execute_json`](crate::Toolkit::execute_json)
/// accepts: 16 MiB, far above any real tool call, far below what hurts a server.
pub const MAX_ARGUMENT_BYTES: usize = 16 * 1024 * 1024;

/// serde_json's own recursion limit when parsing text; a `Value` built in code gets the same
/// bound here, because decoding it recurses once per level and could overflow the stack.
const MAX_NESTING: usize = 128;

/// Whether `root` nests arrays/objects deeper than `limit`, checked without recursion and
/// without allocating for flat arguments (the common case on the hot path).
fn nesting_exceeds(root: &Value, limit: usize) -> bool {
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
    let mut pending: Vec<(&Value, usize)> = nested_children(root).map(|child| (child, 2)).collect();
    while let Some((value, depth)) = pending.pop() {
        if depth > limit {
            return true;
        }
        pending.extend(nested_children(value).map(|child| (child, depth + 1)));
    }
    false
}

/// Drops a value without recursion: `Value`'s own drop recurses once per level, which
/// overflows the stack on hostile nesting.
fn dismantle(value: Value) {
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
