//! Values compared as JSON Schema compares them (`enum`, `const`, `uniqueItems`): `1` and
//! `1.0` are one number, and an object's keys have no order.

use std::cmp::Ordering;
use std::fmt::Write as _;

use serde_json::Value;

use super::{compare, integer};
use crate::decode::check::tree::{Tree, View};

/// The first two positions whose items are equal as JSON Schema compares values (`1` and
/// `1.0` are one number; an object's keys have no order): each item is written in a
/// canonical form, and the forms are sorted, so a long array costs `n log n`, not `n²`.
pub(super) fn first_repeat<T: Tree>(items: &[T]) -> Option<(usize, usize)> {
    let forms: Vec<String> = items.iter().map(canonical).collect();
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by(|a, b| forms[*a].cmp(&forms[*b]).then(a.cmp(b)));
    order
        .windows(2)
        .filter(|pair| forms[pair[0]] == forms[pair[1]])
        .map(|pair| (pair[0], pair[1]))
        .min_by_key(|(_, second)| *second)
}

/// A value's text with one spelling per value: whole numbers as integers, keys sorted.
fn canonical<T: Tree>(value: &T) -> String {
    let mut text = String::new();
    write_canonical(value, &mut text);
    text
}

fn write_canonical<T: Tree>(value: &T, text: &mut String) {
    match value.view() {
        View::Null => text.push_str("null"),
        View::Bool(flag) => {
            let _ = write!(text, "{flag}");
        }
        View::Number(number) => match (integer(number), number.as_f64()) {
            (Some(integer), _) => {
                let _ = write!(text, "{integer}");
            }
            (None, Some(float)) if float.fract() == 0.0 && float.abs() < 1e38 => {
                let _ = write!(text, "{}", float as i128);
            }
            _ => {
                let _ = write!(text, "{number}");
            }
        },
        View::String(string) => text.push_str(&Value::from(string).to_string()),
        View::Array(items) => {
            text.push('[');
            for item in items {
                write_canonical(item, text);
                text.push(',');
            }
            text.push(']');
        }
        View::Object => {
            let mut entries: Vec<(&str, &T)> = value.entries().into_iter().flatten().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            text.push('{');
            for (key, child) in entries {
                text.push_str(&Value::from(key).to_string());
                text.push(':');
                write_canonical(child, text);
                text.push(',');
            }
            text.push('}');
        }
    }
}

/// Whether `listed` (an `enum`, or a `const` alone) holds `value`, as JSON Schema compares
/// values: `1` and `1.0` are one number, an object's keys have no order.
pub(in crate::decode::check) fn listed_in<T: Tree>(value: &T, listed: &[Value]) -> bool {
    listed.iter().any(|option| equal(value, option))
}

/// Whether two values are equal as JSON Schema compares them (`enum`, `const`).
fn equal<A: Tree, B: Tree>(a: &A, b: &B) -> bool {
    match (a.view(), b.view()) {
        (View::Null, View::Null) => true,
        (View::Bool(a), View::Bool(b)) => a == b,
        (View::Number(a), View::Number(b)) => compare(a, b) == Ordering::Equal,
        (View::String(a), View::String(b)) => a == b,
        (View::Array(a), View::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| equal(a, b))
        }
        (View::Object, View::Object) => {
            let (Some(a_entries), Some(b_entries)) = (a.entries(), b.entries()) else {
                return false;
            };
            let b_entries: Vec<(&str, &B)> = b_entries.collect();
            let mut count = 0;
            for (key, value) in a_entries {
                count += 1;
                let Some((_, other)) = b_entries.iter().find(|(other, _)| *other == key) else {
                    return false;
                };
                if !equal(value, *other) {
                    return false;
                }
            }
            count == b_entries.len()
        }
        _ => false,
    }
}
