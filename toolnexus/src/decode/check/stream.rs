//! The check's common verdict, "the arguments fit", reached in one pass over the argument
//! text, without reading it into a [`Text`] first.
//!
//! Reading the tree cost more than decoding the arguments did (an allocation per array and
//! object, serde's machinery per value), and nearly every call fits its schema. So the text is
//! walked here beside the [`Shape`]: a value whose subschema states only types, properties,
//! items and limits is judged as it is read. Where a verdict needs the whole value first (a
//! subschema with `anyOf`, `oneOf` or `allOf`, a `$ref` beside other keywords, an array's or
//! object's own limits, a string with escapes under limits), that one value is read into a
//! [`Text`] and judged by the tree check itself. Anything else — a mismatch, a key given
//! twice, a key with escapes — ends the pass unsure, and the whole tree check decides and
//! words the refusal, so this pass can only make a verdict cheaper, never different.

use crate::decode::lex::{self, string_end};
use std::borrow::Cow;

use serde_json::Number;

use super::shape::{ANY, Node, OtherKeys, ROOT, Shape};
use super::tree::{Kind, TextTree, Tree, json_number_length, number};
use super::{BUDGET, Checker, MAX_CHECKED_VALUES, NullMeansAbsent, scalar_problem};
use crate::decode::MAX_NESTING;

/// Whether `text`, argument text that decoded, certainly fits `shape`; `false` when only the
/// tree check can tell.
pub(super) fn fits(shape: &Shape, text: &str) -> bool {
    let mut pass = Pass {
        shape,
        text,
        at: 0,
        budget: BUDGET,
    };
    pass.skip_whitespace();
    let fits = pass.value(ROOT, 1, NullMeansAbsent::Yes).is_ok();
    pass.skip_whitespace();
    fits && pass.at == text.len()
}

/// The pass cannot vouch for the arguments: the tree check decides.
struct Unsure;

type Verdict = Result<(), Unsure>;

struct Pass<'s, 't> {
    shape: &'s Shape,
    text: &'t str,
    at: usize,
    /// What is left of the tree check's [`BUDGET`]; spent alike, so the pass never works
    /// longer than the check would.
    budget: usize,
}

impl<'t> Pass<'_, 't> {
    /// Judges the value at `at` against the node at `index`, and reads past it.
    #[inline(always)]
    fn value(&mut self, index: usize, depth: usize, nulls: NullMeansAbsent) -> Verdict {
        match self.common_scalar(index) {
            Some(verdict) => verdict,
            None => self.other_value(index, depth, nulls),
        }
    }

    /// The commonest values, judged without a call: a string whose node reads only its type,
    /// an integer whose node bounds it by whole numbers at most.
    #[inline(always)]
    fn common_scalar(&mut self, index: usize) -> Option<Verdict> {
        let node = &self.shape.nodes[self.shape.nodes[index].streamed?];
        let bytes = self.text.as_bytes().get(self.at..)?;
        match *bytes.first()? {
            b'"' if node.listed.is_none() && node.limits.is_none() => {
                let (end, _) = string_end(bytes)?;
                Some(self.read_scalar(node.allows(Kind::String as u8), end))
            }
            b'-' | b'0'..=b'9' => {
                let (low, high) = node.integers?;
                let (length, Some(integer)) = integer_literal(bytes)? else {
                    return None;
                };
                let integral = Kind::Integer as u8 | Kind::Number as u8;
                let within = low <= integer && integer <= high;
                Some(self.read_scalar(within && node.allows(integral), length))
            }
            _ => None,
        }
    }

    /// [`Self::value`] for every other value.
    #[inline(never)]
    fn other_value(&mut self, index: usize, depth: usize, nulls: NullMeansAbsent) -> Verdict {
        self.spend(1)?;
        if self.shape.nodes[index].null_fits && self.text[self.at..].starts_with("null") {
            self.at += "null".len();
            return Ok(());
        }
        let Some(at) = self.shape.nodes[index].streamed else {
            return self.whole(index, nulls);
        };
        let node = &self.shape.nodes[at];
        let judged = node.listed.is_some() || node.limits.is_some();
        let kinds = match self.byte()? {
            b'{' | b'[' if judged => {
                return self.whole(index, nulls);
            }
            b'{' => Kind::Object as u8,
            b'[' => Kind::Array as u8,
            _ => return self.scalar(node, index),
        };
        if node.kinds.is_some_and(|allowed| allowed & kinds == 0) || depth > MAX_NESTING {
            return Err(Unsure);
        }
        self.at += 1;
        if kinds == Kind::Object as u8 {
            self.object(node, depth, nulls)
        } else {
            self.items(node, depth)
        }
    }

    /// A string, number, boolean or `null` against its node's type, list and limits.
    fn scalar(&mut self, node: &Node, index: usize) -> Verdict {
        let judged = node.listed.is_some() || node.limits.is_some();
        let allows = |kinds: u8| node.allows(kinds);
        let bytes = &self.text.as_bytes()[self.at..];
        let (value, length) = match bytes[0] {
            b'"' => {
                let (end, escaped) = string_end(bytes).ok_or(Unsure)?;
                if !judged {
                    return self.read_scalar(allows(Kind::String as u8), end);
                }
                if escaped {
                    return self.whole(index, NullMeansAbsent::No);
                }
                let text = &self.text[self.at + 1..self.at + end - 1];
                (TextTree::String(Cow::Borrowed(text)), end)
            }
            b'-' | b'0'..=b'9' => {
                // JSON Schema counts a whole number (`3`, `3.0`) as an integer.
                let integer = Kind::Integer as u8 | Kind::Number as u8;
                match integer_literal(bytes) {
                    Some((length, _)) if !judged => {
                        return self.read_scalar(allows(integer), length);
                    }
                    Some((length, Some(integer))) => {
                        let number = match u64::try_from(integer) {
                            Ok(integer) => Number::from(integer),
                            Err(_) => Number::from(integer as i64),
                        };
                        (TextTree::Number(number), length)
                    }
                    // Past 64 bits, read as the tree check reads it.
                    Some((_, None)) => return self.whole(index, NullMeansAbsent::No),
                    None => {
                        let (length, integral) = json_number_length(bytes).ok_or(Unsure)?;
                        if !judged && allows(Kind::Number as u8) {
                            return self.read_scalar(true, length);
                        }
                        let text = &self.text[self.at..self.at + length];
                        match number(text, integral) {
                            Some(number) => (TextTree::Number(number), length),
                            None => return self.whole(index, NullMeansAbsent::No),
                        }
                    }
                }
            }
            _ if bytes.starts_with(b"true") => (TextTree::Bool(true), 4),
            _ if bytes.starts_with(b"false") => (TextTree::Bool(false), 5),
            _ if bytes.starts_with(b"null") => (TextTree::Null, 4),
            _ => return Err(Unsure),
        };
        if !allows(value.kinds()) || scalar_problem(node, &value).is_some() {
            return Err(Unsure);
        }
        self.at += length;
        Ok(())
    }

    /// Reads past a scalar of `length` bytes whose type its node `allowed`.
    fn read_scalar(&mut self, allowed: bool, length: usize) -> Verdict {
        if !allowed {
            return Err(Unsure);
        }
        self.at += length;
        Ok(())
    }

    /// An object's entries after its `{`, each against its property's node.
    fn object(&mut self, node: &Node, depth: usize, nulls: NullMeansAbsent) -> Verdict {
        // Keys given are told apart by a bit per property; struct-sized objects only.
        let Some(required) = node.required_properties else {
            return Err(Unsure);
        };
        let mut given: u64 = 0;
        let mut others: Vec<&'t str> = Vec::new();
        // Models send a struct's keys in the schema's order: the next name is tried first.
        let mut next = 0;
        let mut entries = 0;
        self.skip_whitespace();
        if self.byte()? == b'}' {
            self.at += 1;
        } else {
            loop {
                entries += 1;
                let property = match self.key(node, next)? {
                    Key::Property(at) if given & 1 << at != 0 => return Err(Unsure),
                    Key::Property(at) => {
                        given |= 1 << at;
                        next = at + 1;
                        Some(at)
                    }
                    Key::Other(key) if others.contains(&key) => return Err(Unsure),
                    Key::Other(key) => {
                        others.push(key);
                        None
                    }
                };
                // At the top, a `null` for a key that is not required stands for its absence.
                let absent = matches!(nulls, NullMeansAbsent::Yes)
                    && self.text[self.at..].starts_with("null")
                    && property.is_none_or(|at| required & 1 << at == 0);
                match (property, &node.other_keys) {
                    _ if absent => self.scalar(&ANY, ROOT)?,
                    (Some(at), _) => {
                        self.value(node.properties[at].1, depth + 1, NullMeansAbsent::No)?;
                    }
                    (None, OtherKeys::Anything) => self.free()?,
                    (None, OtherKeys::Nothing) => return Err(Unsure),
                    (None, OtherKeys::Schema(other)) => {
                        self.value(*other, depth + 1, NullMeansAbsent::No)?;
                    }
                }
                if self.after_entry(b'}')? {
                    break;
                }
            }
        }
        // Each key was compared with the names `node` has, as the tree check compares them.
        self.spend(entries * (1 + node.required.len() + node.properties.len()))?;
        if given & required == required {
            Ok(())
        } else {
            Err(Unsure)
        }
    }

    /// An array's items after its `[`, each against its node's `prefixItems` or `items`.
    fn items(&mut self, node: &Node, depth: usize) -> Verdict {
        self.skip_whitespace();
        if self.byte()? == b']' {
            self.at += 1;
            return Ok(());
        }
        for index in 0.. {
            match node.prefix_items.get(index).copied().or(node.items) {
                Some(item) => self.value(item, depth + 1, NullMeansAbsent::No)?,
                None => self.free()?,
            }
            if self.after_entry(b']')? {
                break;
            }
        }
        Ok(())
    }

    /// Reads past the `,` after an entry (`false`) or the `close` that ends them (`true`).
    fn after_entry(&mut self, close: u8) -> Result<bool, Unsure> {
        // Compact text first: no whitespace to look for.
        match self.text.as_bytes().get(self.at) {
            Some(b',') if self.text.as_bytes().get(self.at + 1) == Some(&b'"') => {
                self.at += 1;
                return Ok(false);
            }
            Some(byte) if *byte == close => {
                self.at += 1;
                return Ok(true);
            }
            _ => {}
        }
        self.skip_whitespace();
        let byte = self.byte()?;
        self.at += 1;
        match byte {
            b',' => {
                self.skip_whitespace();
                Ok(false)
            }
            _ if byte == close => Ok(true),
            _ => Err(Unsure),
        }
    }

    /// A key and its `:`. One with escapes is left to the tree check, which compares keys as
    /// the strings they stand for.
    fn key(&mut self, node: &Node, next: usize) -> Result<Key<'t>, Unsure> {
        let bytes = &self.text.as_bytes()[self.at..];
        if bytes.first() != Some(&b'"') {
            return Err(Unsure);
        }
        // A property's name then a quote is that key: an escape would show as a backslash.
        let names = &node.properties;
        let is = |at: usize| {
            let name = names[at].0.as_bytes();
            bytes.get(name.len() + 1) == Some(&b'"') && bytes[1..=name.len()] == *name
        };
        let named = if next < names.len() && is(next) {
            Some(next)
        } else {
            (0..names.len()).find(|at| *at != next && is(*at))
        };
        let (key, end) = match named {
            Some(at) => (Key::Property(at), node.properties[at].0.len() + 2),
            None => match string_end(bytes).ok_or(Unsure)? {
                (_, true) => return Err(Unsure),
                (end, false) => (Key::Other(&self.text[self.at + 1..self.at + end - 1]), end),
            },
        };
        if bytes.get(end) == Some(&b':') {
            self.at += end + 1;
        } else {
            self.at += end;
            self.skip_whitespace();
            if self.byte()? != b':' {
                return Err(Unsure);
            }
            self.at += 1;
        }
        self.skip_whitespace();
        Ok(key)
    }

    /// A value no subschema reads: only a key given twice inside could refuse it.
    fn free(&mut self) -> Verdict {
        match self.byte()? {
            b'{' | b'[' => self.read_whole().map(drop),
            _ => self.scalar(&ANY, ROOT),
        }
    }

    /// The value at `at`, read into a [`Text`] and judged by the tree check against the node
    /// at `index`.
    // Rare: kept out of line, so the hot loops stay small.
    #[cold]
    #[inline(never)]
    fn whole(&mut self, index: usize, nulls: NullMeansAbsent) -> Verdict {
        let value = self.read_whole()?;
        let checker = Checker::new(self.shape, self.budget);
        let mismatch = checker.value(&self.shape.nodes[index], &value, 0, nulls);
        self.budget = checker.budget.get();
        if mismatch.is_some() || checker.exhausted.get() {
            return Err(Unsure);
        }
        Ok(())
    }

    /// The value at `at` as a [`Text`] (which refuses a key given twice), read past.
    #[cold]
    #[inline(never)]
    fn read_whole(&mut self) -> Result<TextTree<'t>, Unsure> {
        let end = self.at + value_length(&self.text.as_bytes()[self.at..]).ok_or(Unsure)?;
        let value =
            TextTree::read(&self.text[self.at..end], MAX_CHECKED_VALUES).map_err(|_| Unsure)?;
        self.at = end;
        Ok(value)
    }

    fn spend(&mut self, steps: usize) -> Verdict {
        self.budget = self.budget.checked_sub(steps).ok_or(Unsure)?;
        Ok(())
    }

    fn byte(&self) -> Result<u8, Unsure> {
        self.text.as_bytes().get(self.at).copied().ok_or(Unsure)
    }

    /// JSON's whitespace, as serde_json reads it.
    fn skip_whitespace(&mut self) {
        self.at = lex::skip_whitespace(self.text.as_bytes(), self.at);
    }
}

/// What a key names.
enum Key<'t> {
    Property(usize),
    Other(&'t str),
}

/// The length of the integer literal at the start of `bytes` (no fraction, no exponent), and
/// its value when a `u64` or an `i64` holds it; `None` when `bytes` starts with another number.
#[inline(always)]
fn integer_literal(bytes: &[u8]) -> Option<(usize, Option<i128>)> {
    let negative = bytes[0] == b'-';
    let digits = &bytes[usize::from(negative)..];
    let count = digits
        .iter()
        .take_while(|byte| byte.is_ascii_digit())
        .count();
    let length = usize::from(negative) + count;
    let whole = match (digits.first(), bytes.get(length)) {
        (Some(b'0'), _) if count > 1 => false,
        (_, Some(b'.' | b'e' | b'E')) => false,
        _ => count > 0,
    };
    if !whole {
        return None;
    }
    let magnitude = digits[..count].iter().try_fold(0_u64, |value, digit| {
        value.checked_mul(10)?.checked_add(u64::from(digit - b'0'))
    });
    let integer = match magnitude {
        Some(magnitude) if !negative => Some(i128::from(magnitude)),
        Some(magnitude) => 0_i64.checked_sub_unsigned(magnitude).map(i128::from),
        None => None,
    };
    Some((length, integer))
}

/// The length of the JSON value at the start of `bytes`.
fn value_length(bytes: &[u8]) -> Option<usize> {
    match *bytes.first()? {
        b'"' => string_end(bytes).map(|(end, _)| end),
        b'{' | b'[' => {
            let mut depth = 0_usize;
            let mut at = 0;
            loop {
                match *bytes.get(at)? {
                    b'"' => at += string_end(&bytes[at..])?.0,
                    b'{' | b'[' => {
                        depth += 1;
                        at += 1;
                    }
                    b'}' | b']' => {
                        depth -= 1;
                        at += 1;
                        if depth == 0 {
                            return Some(at);
                        }
                    }
                    _ => at += 1,
                }
            }
        }
        _ => Some(
            bytes
                .iter()
                .position(|byte| matches!(byte, b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t'))
                .unwrap_or(bytes.len()),
        ),
    }
}
