//! `$ref` resolution: the one place that reads a JSON pointer inside a schema, for every
//! profile's rewrite and for the schema check.

use serde_json::{Map, Value};

/// The schema a `$ref` names inside `root`: `#` itself or a `#/…` JSON pointer, its `~1` and
/// `~0` escapes undone; `None` for any other reference, or one that names no object schema.
pub(crate) fn resolve_reference<'s>(
    root: &'s Map<String, Value>,
    reference: &str,
) -> Option<&'s Map<String, Value>> {
    let pointer = reference.strip_prefix('#')?;
    let mut segments = pointer.split('/').skip(1).map(unescape);
    let Some(first) = segments.next() else {
        return Some(root);
    };
    let mut at = root.get(&first)?;
    for segment in segments {
        at = match at {
            Value::Object(map) => map.get(&segment)?,
            Value::Array(list) => list.get(segment.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    at.as_object()
}

/// The definition a `#/$defs/NAME` reference names, its escapes undone; `None` for a
/// reference anywhere else.
pub(crate) fn definition_name(reference: &str) -> Option<String> {
    reference.strip_prefix("#/$defs/").map(unescape)
}

/// One JSON-pointer segment with `~1` (`/`) and `~0` (`~`) undone, in that order (RFC 6901).
fn unescape(segment: &str) -> String {
    segment.replace("~1", "/").replace("~0", "~")
}
