//! The validation keywords of a subschema, compiled once per tool with its [`Shape`]
//! (`super::shape`): numeric bounds, `multipleOf`, string lengths and `pattern`, item counts,
//! `uniqueItems`, property counts. Each is read exactly as JSON Schema 2020-12 reads it, so a
//! value the schema admits is never refused, and one it refuses never reaches the tool.
//!
//! `pattern` is an ECMA-262 regular expression, as JSON Schema says, compiled by the
//! `regress` crate (ECMAScript 2018 syntax: lookaround, named groups, backreferences,
//! `\p{…}` classes), in Unicode mode where the pattern allows it. What differs from a
//! JavaScript engine: strings are matched as code points, never as UTF-16 halves (even without
//! the `u` flag, where JavaScript would split a surrogate pair); and regress is a backtracking
//! engine, so a pattern written to backtrack exponentially (`^(a+)+$`) costs what it costs in
//! JavaScript — the tool's author chooses the pattern, the model only the string, which the
//! argument size limit bounds. A remote MCP tool's patterns are not matched here at all: they
//! are left to the server that wrote them ([`Origin::Remote`]). A pattern regress cannot
//! compile does not panic: every string it reaches is refused with ``the schema's pattern `…`
//! cannot be checked: …``, and [`broken_patterns`] lists such patterns, for `check` to report
//! before any call.
//!
//! [`Shape`]: super::Shape

use std::cmp::Ordering;

use serde_json::{Map, Number, Value};

use super::tree::{Tree, View};

mod equality;
mod multiple;

use crate::decode::align::DECODED;
use crate::decode::error::quoted;
use equality::first_repeat;
pub(super) use equality::listed_in;
pub(super) use multiple::Step;

/// Who wrote a schema, which decides what of it the check reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Origin {
    /// This crate, marking the bounds its decoder enforces (`align::align_marking`).
    Generated,
    /// Code in this process: the schema a question asks with (SPEC §10B).
    Given,
    /// An MCP server (SPEC §13), whose `pattern`s are left to it (`Shape::of_remote`).
    #[cfg_attr(not(feature = "mcp-client"), allow(dead_code))]
    Remote,
}

/// What one subschema limits, beyond the structure the check reads elsewhere.
#[derive(Debug, Default)]
pub(super) struct Keywords {
    minimum: Option<Bound>,
    maximum: Option<Bound>,
    exclusive_minimum: Option<Bound>,
    exclusive_maximum: Option<Bound>,
    multiple_of: Option<Step>,
    min_length: Option<u64>,
    max_length: Option<u64>,
    pattern: Option<Pattern>,
    min_items: Option<u64>,
    max_items: Option<u64>,
    unique_items: bool,
    min_properties: Option<u64>,
    max_properties: Option<u64>,
}

/// A numeric bound: as written, for messages, and as compared.
#[derive(Debug)]
struct Bound {
    written: Number,
    value: Num,
}

/// A JSON number as compared: exactly, as the integer or the float it holds.
#[derive(Clone, Copy, Debug)]
enum Num {
    Integer(i128),
    Float(f64),
}

impl Num {
    fn of(number: &Number) -> Self {
        match integer(number) {
            Some(integer) => Num::Integer(integer),
            None => Num::Float(number.as_f64().unwrap_or(0.0)),
        }
    }
}

/// A `pattern`, compiled; or why it could not be.
#[derive(Debug)]
struct Pattern {
    source: String,
    compiled: Result<regress::Regex, String>,
}

impl Keywords {
    /// The limits `schema` states, or `None` when it states none (most subschemas), so a
    /// tool without limits carries nothing to check. From a schema this crate generated, the
    /// bounds it marks as the decoder's (`align::align_marking`) are left out: serde enforces
    /// them; from a server's, the `pattern` ([`Origin::Remote`]).
    pub(super) fn read(schema: &Map<String, Value>, origin: Origin) -> Option<Box<Self>> {
        let number = |key: &str| match schema.get(key) {
            Some(Value::Number(number)) => Some(number.clone()),
            _ => None,
        };
        let decoded = |key: &str| match schema.get(DECODED) {
            Some(Value::Array(keys)) if origin == Origin::Generated => {
                keys.iter().any(|k| k == key)
            }
            _ => false,
        };
        let bound = |key: &str| {
            let number = number(key).filter(|_| !decoded(key));
            number.map(|written| Bound {
                value: Num::of(&written),
                written,
            })
        };
        // A count is a non-negative integer, which `2.0` is too.
        let count = |key: &str| match schema.get(key)? {
            Value::Number(count) => count.as_u64().or_else(|| {
                let count = count.as_f64()?;
                (count >= 0.0 && count.fract() == 0.0).then_some(count as u64)
            }),
            _ => None,
        };
        let limits = Self {
            minimum: bound("minimum"),
            maximum: bound("maximum"),
            exclusive_minimum: bound("exclusiveMinimum"),
            exclusive_maximum: bound("exclusiveMaximum"),
            multiple_of: number("multipleOf").and_then(Step::of),
            min_length: count("minLength"),
            max_length: count("maxLength"),
            pattern: match schema.get("pattern") {
                Some(Value::String(source)) if origin != Origin::Remote => Some(Pattern {
                    source: source.clone(),
                    compiled: compile(source),
                }),
                _ => None,
            },
            min_items: count("minItems"),
            max_items: count("maxItems"),
            unique_items: schema.get("uniqueItems") == Some(&Value::Bool(true)),
            min_properties: count("minProperties"),
            max_properties: count("maxProperties"),
        };
        let none = limits.minimum.is_none()
            && limits.maximum.is_none()
            && limits.exclusive_minimum.is_none()
            && limits.exclusive_maximum.is_none()
            && limits.multiple_of.is_none()
            && limits.min_length.is_none()
            && limits.max_length.is_none()
            && limits.pattern.is_none()
            && limits.min_items.is_none()
            && limits.max_items.is_none()
            && !limits.unique_items
            && limits.min_properties.is_none()
            && limits.max_properties.is_none();
        (!none).then(|| Box::new(limits))
    }

    /// The integers these limits admit, when the only ones a number can break are whole
    /// `minimum`/`maximum` bounds (a fixed-width integer's range, a `range` of whole numbers):
    /// what the check during decoding (`super::during`) compares an integer with directly.
    pub(super) fn integer_range(&self) -> Option<(i128, i128)> {
        if self.exclusive_minimum.is_some()
            || self.exclusive_maximum.is_some()
            || self.multiple_of.is_some()
        {
            return None;
        }
        // Every integer an `i128` holds below 2^63 in size is a float exactly.
        const EXACT: f64 = 9_223_372_036_854_775_808.0;
        let bound = |bound: &Option<Bound>, open: i128| match bound {
            None => Some(open),
            Some(Bound {
                value: Num::Integer(value),
                ..
            }) => Some(*value),
            Some(Bound {
                value: Num::Float(value),
                ..
            }) => (value.fract() == 0.0 && value.abs() < EXACT).then_some(*value as i128),
        };
        Some((
            bound(&self.minimum, i128::MIN)?,
            bound(&self.maximum, i128::MAX)?,
        ))
    }

    /// How `value` breaks these limits, as the message says it; `None` if it keeps them.
    /// `properties` is how many keys an object counts as having (its `null`s may mean absent).
    pub(super) fn check<T: Tree>(&self, value: &T, properties: Option<usize>) -> Option<String> {
        match value.view() {
            View::Number(number) => self.number(number),
            View::String(text) => self.string(text),
            View::Array(items) => self.array(items),
            View::Object => self.object(properties?),
            View::Null | View::Bool(_) => None,
        }
    }

    fn number(&self, number: &Number) -> Option<String> {
        let value = Num::of(number);
        fn beyond(
            value: Num,
            bound: &Option<Bound>,
            refused: fn(Ordering) -> bool,
        ) -> Option<&Bound> {
            bound
                .as_ref()
                .filter(|bound| refused(compare_num(value, bound.value)))
        }
        if let Some(bound) = beyond(value, &self.maximum, Ordering::is_gt) {
            return Some(format!(
                "{number} is greater than the maximum of {}",
                bound.written
            ));
        }
        if let Some(bound) = beyond(value, &self.minimum, Ordering::is_lt) {
            return Some(format!(
                "{number} is less than the minimum of {}",
                bound.written
            ));
        }
        if let Some(bound) = beyond(value, &self.exclusive_maximum, Ordering::is_ge) {
            return Some(format!(
                "{number} is not less than the exclusive maximum of {}",
                bound.written
            ));
        }
        if let Some(bound) = beyond(value, &self.exclusive_minimum, Ordering::is_le) {
            return Some(format!(
                "{number} is not greater than the exclusive minimum of {}",
                bound.written
            ));
        }
        let step = self.multiple_of.as_ref()?;
        (!step.admits(number)).then(|| format!("{number} is not a multiple of {}", step.written))
    }

    fn string(&self, text: &str) -> Option<String> {
        if self.min_length.is_some() || self.max_length.is_some() {
            // JSON Schema counts code points, as `chars` does.
            let length = text.chars().count() as u64;
            if let Some(min) = self.min_length.filter(|min| length < *min) {
                return Some(format!(
                    "{} is {}, fewer than the minimum of {min}",
                    quoted(text),
                    characters(length)
                ));
            }
            if let Some(max) = self.max_length.filter(|max| length > *max) {
                return Some(format!(
                    "{} is {}, more than the maximum of {max}",
                    quoted(text),
                    characters(length)
                ));
            }
        }
        let pattern = self.pattern.as_ref()?;
        match &pattern.compiled {
            // `pattern` is not anchored: a match anywhere in the string is enough.
            Ok(regex) if regex.find(text).is_some() => None,
            Ok(_) => Some(format!(
                "{} does not match the pattern `{}`",
                quoted(text),
                pattern.source
            )),
            Err(error) => Some(format!(
                "the schema's pattern `{}` cannot be checked: {error}",
                pattern.source
            )),
        }
    }

    fn array<T: Tree>(&self, items: &[T]) -> Option<String> {
        let length = items.len() as u64;
        if let Some(min) = self.min_items.filter(|min| length < *min) {
            return Some(format!(
                "{}, fewer than the minimum of {min}",
                count_of(length, "item")
            ));
        }
        if let Some(max) = self.max_items.filter(|max| length > *max) {
            return Some(format!(
                "{}, more than the maximum of {max}",
                count_of(length, "item")
            ));
        }
        if !self.unique_items {
            return None;
        }
        let (first, second) = first_repeat(items)?;
        Some(format!(
            "items {first} and {second} are equal, and the items must be unique"
        ))
    }

    fn object(&self, properties: usize) -> Option<String> {
        let length = properties as u64;
        if let Some(min) = self.min_properties.filter(|min| length < *min) {
            return Some(format!(
                "{}, fewer than the minimum of {min}",
                count_of(length, "key")
            ));
        }
        if let Some(max) = self.max_properties.filter(|max| length > *max) {
            return Some(format!(
                "{}, more than the maximum of {max}",
                count_of(length, "key")
            ));
        }
        None
    }
}

fn characters(length: u64) -> String {
    match length {
        1 => "1 character long".to_owned(),
        _ => format!("{length} characters long"),
    }
}

/// `the array has 3 items`, `the object has 1 key`.
fn count_of(length: u64, noun: &str) -> String {
    let container = if noun == "item" { "array" } else { "object" };
    match length {
        1 => format!("the {container} has 1 {noun}"),
        _ => format!("the {container} has {length} {noun}s"),
    }
}

/// Compiles a `pattern` as ECMA-262 reads it, in Unicode mode (the `u` flag, as JSON Schema's
/// own test suite expects: `\p{L}`, code points rather than UTF-16 halves); a pattern only the
/// older, looser syntax admits (`\-` outside a class, a lone `{`) is compiled without it.
fn compile(source: &str) -> Result<regress::Regex, String> {
    regress::Regex::with_flags(source, "u")
        .or_else(|_| regress::Regex::new(source))
        .map_err(|error| error.to_string())
}

/// Why each `pattern` of `schema` (and every subschema) does not compile, as `(JSON pointer,
/// pattern, error)`: a tool whose schema holds one refuses every string that reaches it, with
/// that error, so `check` can report it before any call. Empty when every pattern compiles.
pub(crate) fn broken_patterns(schema: &Value) -> Vec<(String, String, String)> {
    let mut broken = Vec::new();
    // Each value with whether it is a schema; else it maps names to schemas (`properties`).
    let mut pending = vec![(String::new(), schema, true)];
    while let Some((pointer, value, is_schema)) = pending.pop() {
        match value {
            Value::Object(map) => {
                if let (true, Some(Value::String(source))) = (is_schema, map.get("pattern")) {
                    if let Err(error) = compile(source) {
                        broken.push((pointer.clone(), source.clone(), error));
                    }
                }
                // Values, not schemas: a `pattern` key in one is data. A property may still
                // be named `default`.
                let children = map.iter().filter(|(key, _)| {
                    !is_schema || !matches!(key.as_str(), "enum" | "const" | "default" | "examples")
                });
                for (key, child) in children.rev() {
                    let names = is_schema
                        && matches!(
                            key.as_str(),
                            "properties"
                                | "patternProperties"
                                | "$defs"
                                | "definitions"
                                | "dependentSchemas"
                        );
                    pending.push((format!("{pointer}/{}", escape(key)), child, !names));
                }
            }
            Value::Array(items) => {
                for (index, child) in items.iter().enumerate().rev() {
                    pending.push((format!("{pointer}/{index}"), child, true));
                }
            }
            _ => {}
        }
    }
    broken
}

/// A key as one step of a JSON pointer (RFC 6901).
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// Compares two JSON numbers exactly: an integer past 2^53 does not survive a trip through
/// `f64`, so an integer and a float are compared as the numbers they are.
pub(super) fn compare(a: &Number, b: &Number) -> Ordering {
    compare_num(Num::of(a), Num::of(b))
}

fn compare_num(a: Num, b: Num) -> Ordering {
    match (a, b) {
        (Num::Integer(a), Num::Integer(b)) => a.cmp(&b),
        (Num::Integer(a), Num::Float(b)) => compare_integer(a, b),
        (Num::Float(a), Num::Integer(b)) => compare_integer(b, a).reverse(),
        (Num::Float(a), Num::Float(b)) => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
    }
}

fn integer(number: &Number) -> Option<i128> {
    if number.is_f64() {
        return None;
    }
    number
        .as_i64()
        .map(i128::from)
        .or_else(|| number.as_u64().map(i128::from))
}

fn compare_integer(integer: i128, float: f64) -> Ordering {
    match (integer as f64).partial_cmp(&float) {
        // The nearest float is the bound itself: the bound is a whole number, within an
        // `i128`, and the two compare exactly as integers.
        Some(Ordering::Equal) => integer.cmp(&(float as i128)),
        Some(order) => order,
        None => Ordering::Equal,
    }
}
