//! The check of flat arguments (every value a scalar): each value against its own
//! parameter's limits, without a walk of the schema.

use serde_json::{Number, Value};

use super::shape::{OtherKeys, ROOT, Shape};
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

/// What a flat (scalar) value of one top-level property is checked against.
#[derive(Debug)]
pub(super) enum Flat {
    /// Nothing below the property limits values: nothing to check.
    Free,
    /// The property's own node, whose limits and listed values are all a scalar meets.
    Own(usize),
    /// A node that applies others (`$ref`, `allOf`, `anyOf`, `oneOf`): the whole check.
    Applied,
}

impl Shape {
    /// How each top-level property of a limited schema whose root is a plain object is
    /// checked when the arguments are flat; `None` when flat arguments take the whole check.
    pub(super) fn flat_properties(&self) -> Option<Vec<(String, Flat)>> {
        let root = &self.nodes[ROOT];
        let plain_root = root.limits.is_none()
            && root.listed.is_none()
            && !root.applies_others()
            && !root.nothing;
        if !self.limited || !plain_root {
            return None;
        }
        let flat = root
            .properties
            .iter()
            .map(|(name, at)| {
                let node = &self.nodes[*at];
                let check = if !self.limits_below(*at) {
                    Flat::Free
                } else if node.applies_others() {
                    Flat::Applied
                } else {
                    Flat::Own(*at)
                };
                (name.clone(), check)
            })
            .collect();
        Some(flat)
    }

    /// Whether the node at `at`, or one it leads to, limits values.
    fn limits_below(&self, at: usize) -> bool {
        let mut seen = vec![false; self.nodes.len()];
        let mut pending = vec![at];
        while let Some(at) = pending.pop() {
            if std::mem::replace(&mut seen[at], true) {
                continue;
            }
            let node = &self.nodes[at];
            if node.limits.is_some() || node.listed.is_some() {
                return true;
            }
            pending.extend(node.reference);
            pending.extend(&node.all_of);
            pending.extend(node.alternatives.iter().flatten());
            pending.extend(node.properties.iter().map(|(_, child)| *child));
            if let OtherKeys::Schema(other) = node.other_keys {
                pending.push(other);
            }
            pending.extend(&node.prefix_items);
            pending.extend(node.items);
        }
        false
    }
}
