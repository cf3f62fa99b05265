//! How a decode failure reads: ``invalid arguments for `NAME`: field `PATH`: MESSAGE``, the
//! same words whichever part of decoding refused the arguments (serde, the strict parse, the
//! schema check).

use std::fmt::Write as _;

use serde_json::Value;
use serde_path_to_error::{Path, Segment};

use super::MAX_NESTING;
use crate::result::ToolResult;

/// The error every port returns for arguments that do not fit the schema.
///
/// A value the detail quotes (serde's ``invalid type: string "…"``, an unknown key, a string
/// past its `maxLength`) is cut to its first [`QUOTED_CHARACTERS`] characters, followed by
/// `…" (N characters)`: the message goes into a model's context, and a 4 MB string sent for a
/// number must not come back whole.
pub fn invalid_args(tool: &str, detail: impl std::fmt::Display) -> ToolResult {
    ToolResult::error(format!(
        "invalid arguments for `{tool}`: {}",
        shorten(&detail.to_string())
    ))
}

/// The characters of a quoted value an error message keeps.
pub(crate) const QUOTED_CHARACTERS: usize = 200;

/// A string as an error message quotes it: as a JSON string, cut to [`QUOTED_CHARACTERS`] by
/// [`invalid_args`].
pub(crate) fn quoted(text: &str) -> String {
    Value::from(text).to_string()
}

/// `message` with every quoted span (`"…"`, with `\"` escapes, or `` `…` ``) longer than
/// [`QUOTED_CHARACTERS`] characters cut to that many, then `…` and the span's full length.
fn shorten(message: &str) -> String {
    // The common case, a short message, is returned as it is.
    if message.len() <= QUOTED_CHARACTERS {
        return message.to_owned();
    }
    let mut out = String::with_capacity(QUOTED_CHARACTERS * 2);
    let mut chars = message.chars();
    while let Some(open) = chars.next() {
        out.push(open);
        if open != '"' && open != '`' {
            continue;
        }
        let (mut kept, mut total) = (0, 0);
        // Whether the character before was a backslash that escapes this one, and was kept.
        let (mut escaped, mut kept_last) = (false, false);
        let mut closed = false;
        for c in chars.by_ref() {
            if c == open && !escaped {
                closed = true;
                break;
            }
            total += 1;
            // An escape is not cut in two.
            kept_last = kept < QUOTED_CHARACTERS || (escaped && kept_last);
            if kept_last {
                out.push(c);
                kept += 1;
            }
            escaped = open == '"' && c == '\\' && !escaped;
        }
        if total > kept {
            out.push('…');
        }
        if closed {
            out.push(open);
        }
        if total > kept {
            let _ = write!(out, " ({total} characters)");
        }
    }
    out
}

/// ``field `PATH`: message``, or the bare message when `path` is empty (the problem is the
/// arguments object itself). `path` is spelled as serde's paths are: `order.items[0].quantity`.
pub(crate) fn at_field(tool: &str, path: &str, message: impl std::fmt::Display) -> ToolResult {
    if path.is_empty() {
        return invalid_args(tool, message);
    }
    // The path is no quoted value: it is kept whole up to a length only a hostile key reaches.
    let path = match path.char_indices().nth(MAX_PATH_CHARACTERS) {
        Some((cut, _)) => format!("{}… ({} characters)", &path[..cut], path.chars().count()),
        None => path.to_owned(),
    };
    ToolResult::error(format!(
        "invalid arguments for `{tool}`: field `{path}`: {}",
        shorten(&message.to_string())
    ))
}

/// The characters of a path an error message keeps: 127 levels of short keys fit.
const MAX_PATH_CHARACTERS: usize = 2_000;

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
