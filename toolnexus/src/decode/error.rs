//! How a decode failure reads: ``invalid arguments for `NAME`: field `PATH`: MESSAGE``, the
//! same words whichever part of decoding refused the arguments (serde, the strict parse, the
//! schema check).

use serde_json::Value;
use serde_path_to_error::{Path, Segment};

use super::MAX_NESTING;
use crate::result::ToolResult;

/// The error every port returns for arguments that do not fit the schema.
pub fn invalid_args(tool: &str, detail: impl std::fmt::Display) -> ToolResult {
    ToolResult::error(format!("invalid arguments for `{tool}`: {detail}"))
}

/// ``field `PATH`: message``, or the bare message when `path` is empty (the problem is the
/// arguments object itself). `path` is spelled as serde's paths are: `order.items[0].quantity`.
pub(crate) fn at_field(tool: &str, path: &str, message: impl std::fmt::Display) -> ToolResult {
    if path.is_empty() {
        return invalid_args(tool, message);
    }
    invalid_args(tool, format_args!("field `{path}`: {message}"))
}

/// [`at_field`] for a serde failure at `path`, inside the argument `key` when the path is
/// relative to one.
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
    let mut text = String::new();
    for segment in segments {
        if !text.is_empty() && !matches!(segment, Segment::Seq { .. }) {
            text.push('.');
        }
        text.push_str(&segment.to_string());
    }
    at_field(tool, &text, message)
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

/// serde's message for an unknown field, word for word.
pub(crate) fn unknown_field(key: &str, known: &[String]) -> String {
    let quoted: Vec<String> = known.iter().map(|key| format!("`{key}`")).collect();
    let expected = match quoted.as_slice() {
        [] => "there are no fields".to_owned(),
        [only] => format!("expected {only}"),
        [first, second] => format!("expected {first} or {second}"),
        all => format!("expected one of {}", all.join(", ")),
    };
    format!("unknown field `{key}`, {expected}")
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
