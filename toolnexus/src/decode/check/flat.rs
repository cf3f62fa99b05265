//! The check of flat arguments (every value a scalar): each value against its own
//! parameter's limits, without a walk of the schema.

use serde_json::{Number, Value};

use super::shape::{Flat, ROOT, Shape};
use super::tree::{self, TextTree};
use super::{Mismatch, NullMeansAbsent, Step, absent, check_args, scalar_problem};
use crate::result::ToolResult;

/// [`check_args`] for flat arguments (every value a scalar): where the schema allows, each
/// value is checked against its own property's limits alone, without a walk of the schema.
pub(crate) fn check_flat(tool: &str, shape: &Shape, args: &Value) -> Result<(), ToolResult> {
    let (Some(flat), Value::Object(object)) = (&shape.flat, args) else {
        return check_args(tool, shape, args);
    };
    let root = &shape.nodes[ROOT];
    for (key, value) in object {
        let at = match flat.iter().find(|(name, _)| name == key) {
            Some((_, Flat::Own(at))) => *at,
            Some((_, Flat::Free)) => continue,
            // An unknown key, or a property checked the whole way.
            Some((_, Flat::Applied)) | None => return check_args(tool, shape, args),
        };
        if absent(root, NullMeansAbsent::Yes, key, value) {
            continue;
        }
        if let Some(problem) = scalar_problem(&shape.nodes[at], value) {
            return Err(Mismatch::here(problem)
                .inside(Step::Key(key.clone()))
                .into_result(tool));
        }
    }
    Ok(())
}

/// For one value of flat argument text: `Some(true)` when it keeps its property's limits,
/// `Some(false)` when it may not (the reference path then decides, and words the error), and
/// `None` when only the whole check can tell.
pub(crate) fn flat_value_fits(shape: &Shape, key: &str, text: &str) -> Option<bool> {
    let at = match shape.flat.as_ref()?.iter().find(|(name, _)| name == key)? {
        (_, Flat::Own(at)) => *at,
        (_, Flat::Free) => return Some(true),
        (_, Flat::Applied) => return None,
    };
    let Some(value) = TextTree::scalar(text) else {
        // `null` (for a key that may be absent, absent), or text read the reference way.
        return Some(false);
    };
    Some(scalar_problem(&shape.nodes[at], &value).is_none())
}

/// The number at the start of `text`, the value of the flat argument `key`, read once and
/// checked against its parameter's limits: `Ok` with the length it took and the number (to
/// decode from, so the text is not read again), `Err` when it breaks a limit or is no JSON
/// number (the reference path then decides), `None` when `key` has no limits of its own or the
/// value is no number.
pub(crate) fn flat_number(
    shape: &Shape,
    key: &str,
    text: &str,
) -> Option<Result<(usize, Number), ()>> {
    let (_, Flat::Own(at)) = shape.flat.as_ref()?.iter().find(|(name, _)| name == key)? else {
        return None;
    };
    if !matches!(text.as_bytes().first()?, b'-' | b'0'..=b'9') {
        return None;
    }
    let Some((length, integral)) = tree::json_number_length(text.as_bytes()) else {
        return Some(Err(()));
    };
    let Some(number) = tree::number(&text[..length], integral).map(TextTree::Number) else {
        return Some(Err(()));
    };
    if scalar_problem(&shape.nodes[*at], &number).is_some() {
        return Some(Err(()));
    }
    match number {
        TextTree::Number(number) => Some(Ok((length, number))),
        _ => Some(Err(())),
    }
}
