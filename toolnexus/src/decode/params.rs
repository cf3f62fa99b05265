//! Argument decoding one parameter at a time, for the `#[tool]`s whose parameters carry no
//! `#[serde]` attributes (nearly all of them): the same outcome as decoding a derived
//! arguments struct with [`decode_args`] and [`decode_args_json`] (`derived.rs`), errors
//! included, at a fraction of the compile time.
//!
//! A derived struct instantiates serde's code for each tool and each deserializer (text, a
//! borrowed `Value`, `serde_path_to_error`'s wrapper): thousands of lines of LLVM IR per tool.
//! Here the walk over the arguments object is written once, and what is instantiated is the
//! [`Slot`] of each parameter *type*, shared by every tool of a crate with a parameter of that
//! type.

use serde::de::{self, DeserializeOwned, Deserializer, Visitor};
use serde_json::{Map, Value};

use super::check::{Check, Judge, TextCheck, Verdict, check_args, check_flat, check_text};
use super::error::{at_path, invalid_args, without_position};
use super::lex::{Cursor, Integer, integer};
use super::{
    Form, MAX_ARGUMENT_BYTES, MAX_NESTING, Nesting, arguments_object, decode_other_forms,
    in_schema_words, integers_for_integral_floats, parse_args_strictly,
};
#[cfg(doc)]
use super::{decode_args, decode_args_json};
use crate::decode::schema::ToolSchema;
use crate::result::ToolResult;

/// Where one parameter's decoded value goes: `Option<T>`, empty until decoded.
///
/// Each way of decoding a value is a method, so a tool's parameters can sit side by side in
/// one list (`&mut [&mut dyn Slot]`) that the non-generic walk fills.
#[expect(
    private_interfaces,
    reason = "implemented here alone, for `Option<T>`; generated code only hands slots over"
)]
pub trait Slot {
    /// Decodes a value of the arguments object, borrowed.
    fn decode_value(&mut self, value: &Value) -> Result<(), serde_json::Error>;
    /// Decodes an owned value, tracking the path to a failure inside it.
    fn decode_owned(
        &mut self,
        value: Value,
    ) -> Result<(), serde_path_to_error::Error<serde_json::Error>>;
    /// Decodes the JSON value at the start of `text`; returns how many bytes it took.
    fn decode_prefix(&mut self, text: &str) -> Result<usize, serde_json::Error>;
    /// [`Self::decode_prefix`], judging the value against the schema's node at `node` as it
    /// is read (the check made during decoding); a value the schema refuses fails.
    fn decode_judged(
        &mut self,
        text: &str,
        judge: &Judge<'_>,
        node: usize,
    ) -> Result<usize, serde_json::Error>;
    /// Fills the slot for a key the arguments lack, as serde does for a struct field: an
    /// `Option` is `None`, anything else is a ``missing field `NAME` `` error.
    fn missing(&mut self, name: &'static str) -> Result<(), serde_json::Error>;
    /// Whether a value has been decoded into it.
    fn is_filled(&self) -> bool;
    /// Empties it again.
    fn clear(&mut self);
}

#[expect(
    private_interfaces,
    reason = "implemented here alone, for `Option<T>`; generated code only hands slots over"
)]
impl<T: DeserializeOwned> Slot for Option<T> {
    fn decode_value(&mut self, value: &Value) -> Result<(), serde_json::Error> {
        *self = Some(T::deserialize(value)?);
        Ok(())
    }

    fn decode_owned(
        &mut self,
        value: Value,
    ) -> Result<(), serde_path_to_error::Error<serde_json::Error>> {
        *self = Some(serde_path_to_error::deserialize(value)?);
        Ok(())
    }

    fn decode_prefix(&mut self, text: &str) -> Result<usize, serde_json::Error> {
        let mut deserializer = serde_json::Deserializer::from_str(text);
        *self = Some(T::deserialize(&mut deserializer)?);
        // A stream made now starts where the value ended.
        Ok(deserializer.into_iter::<de::IgnoredAny>().byte_offset())
    }

    fn decode_judged(
        &mut self,
        text: &str,
        judge: &Judge<'_>,
        node: usize,
    ) -> Result<usize, serde_json::Error> {
        let (value, read) = judge.decode_prefix(text, node)?;
        *self = Some(value);
        Ok(read)
    }

    fn missing(&mut self, name: &'static str) -> Result<(), serde_json::Error> {
        *self = Some(T::deserialize(Missing(name))?);
        Ok(())
    }

    fn is_filled(&self) -> bool {
        self.is_some()
    }

    fn clear(&mut self) {
        *self = None;
    }
}

/// The slot of a parameter of an integer type (`#[tool]` knows it by the type's name): its
/// text is read as an integer first, without a serde_json reader, and by serde_json when that
/// fails. Only such parameters try it, so a value of another type pays nothing for it.
pub struct IntegerSlot<'a, T>(pub(crate) &'a mut Option<T>);

#[expect(
    private_interfaces,
    reason = "implemented here alone; generated code only hands slots over"
)]
impl<T: DeserializeOwned> Slot for IntegerSlot<'_, T> {
    fn decode_value(&mut self, value: &Value) -> Result<(), serde_json::Error> {
        self.0.decode_value(value)
    }

    fn decode_owned(
        &mut self,
        value: Value,
    ) -> Result<(), serde_path_to_error::Error<serde_json::Error>> {
        self.0.decode_owned(value)
    }

    fn decode_prefix(&mut self, text: &str) -> Result<usize, serde_json::Error> {
        if let Some((number, read)) = integer(text.as_bytes())
            && let Ok(value) = T::deserialize(IntegerValue(number))
        {
            *self.0 = Some(value);
            return Ok(read);
        }
        self.0.decode_prefix(text)
    }

    fn decode_judged(
        &mut self,
        text: &str,
        judge: &Judge<'_>,
        node: usize,
    ) -> Result<usize, serde_json::Error> {
        self.0.decode_judged(text, judge, node)
    }

    fn missing(&mut self, name: &'static str) -> Result<(), serde_json::Error> {
        self.0.missing(name)
    }

    fn is_filled(&self) -> bool {
        self.0.is_filled()
    }

    fn clear(&mut self) {
        self.0.clear();
    }
}

/// A decoded parameter, out of the slot [`decode_params`] filled.
///
/// # Panics
///
/// When the slot is empty, which a successful [`decode_params`] rules out.
pub fn take<T>(slot: Option<T>) -> T {
    slot.expect("decode_params fills every slot")
}

/// Decodes a model's arguments into the slots of a tool's parameters, whose keys are `keys`
/// (in the same order): the semantics of [`decode_args`] for a
/// struct with those fields and `deny_unknown_fields`.
pub fn decode_params(
    tool: &str,
    mut args: Value,
    schema: &ToolSchema,
    keys: &'static [&'static str],
    slots: &mut [&mut dyn Slot],
) -> Result<(), ToolResult> {
    let (object, nesting) = arguments_object(tool, &mut args)?;
    // A borrowed walk tracks no path, so it costs nothing beyond what the types need; only a
    // failure takes the reference walk, which finds where it failed.
    if borrowed_walk(object, keys, slots).is_err() {
        slots.iter_mut().for_each(|slot| slot.clear());
        reference_walk(tool, object, keys, slots)
            .map_err(|refused| in_schema_words(tool, schema.shape(), &args, refused))?;
    }
    let shape = schema.shape();
    match shape.check_for(matches!(nesting, Nesting::Nested), false) {
        Check::Nothing => Ok(()),
        Check::Judge => check_flat(tool, shape, &args),
        Check::Tree => check_args(tool, shape, &args),
    }
}

/// [`decode_params`] for the raw argument text a model produced, with the same outcome for
/// the same arguments, as [`decode_args_json`] is for [`decode_args`]: the text is walked
/// straight into the slots when it fits (judged as it is read where the schema needs a
/// check, and what the judge cannot vouch for checked after), and otherwise parsed into a
/// `Value` and decoded by [`decode_params`].
pub fn decode_params_json(
    tool: &str,
    text: &str,
    schema: &ToolSchema,
    keys: &'static [&'static str],
    slots: &mut [&mut dyn Slot],
) -> Result<(), ToolResult> {
    if !schema.text_via_value && text.len() <= MAX_ARGUMENT_BYTES {
        let shape = schema.shape();
        match text_walk(text, keys, slots, schema) {
            Ok(Verdict::Vouched(())) => return Ok(()),
            Ok(Verdict::Unsure(())) => match check_text(tool, shape, text) {
                TextCheck::Fits => return Ok(()),
                TextCheck::Refused(refused) => return Err(refused),
                TextCheck::Reread => {}
            },
            Ok(Verdict::Refused) | Err(()) => {}
        }
        slots.iter_mut().for_each(|slot| slot.clear());
    }
    decode_params(tool, parse_args_strictly(tool, text)?, schema, keys, slots)
}

/// The parameter a key names. Parameter names are short: comparing them here, byte by byte
/// after their lengths, is cheaper than a call to `memcmp` for each.
fn position(keys: &'static [&'static str], key: &[u8]) -> Option<usize> {
    keys.iter().position(|candidate| {
        candidate.len() == key.len() && candidate.bytes().zip(key).all(|(a, b)| a == *b)
    })
}

/// Fills the slots no key named, when `filled` (the keys found, each once) are fewer than
/// the slots; `Err` if one is required.
fn fill_missing(
    filled: usize,
    keys: &'static [&'static str],
    slots: &mut [&mut dyn Slot],
) -> Result<(), serde_json::Error> {
    if filled == slots.len() {
        return Ok(());
    }
    for (key, slot) in keys.iter().zip(slots) {
        if !slot.is_filled() {
            slot.missing(key)?;
        }
    }
    Ok(())
}

fn borrowed_walk(
    args: &Map<String, Value>,
    keys: &'static [&'static str],
    slots: &mut [&mut dyn Slot],
) -> Result<(), ()> {
    for (key, value) in args {
        if !decode_into(
            &mut *slots[position(keys, key.as_bytes()).ok_or(())?],
            value,
        ) {
            return Err(());
        }
    }
    // The keys of a map are distinct, so each filled its own slot.
    fill_missing(args.len(), keys, slots).map_err(drop)
}

/// Decodes `value` into `slot` in any form either entry point takes; whether it did.
#[inline(always)]
fn decode_into(slot: &mut dyn Slot, value: &Value) -> bool {
    // The value as sent first, without the closure: what nearly every call takes.
    if slot.decode_value(value).is_ok() {
        return true;
    }
    decode_other_forms(value, true, |form| match form {
        Form::Value(value) => slot.decode_value(value).is_ok(),
        // A value's text is one value, all of which must be read.
        Form::Text(text) => slot
            .decode_prefix(text)
            .is_ok_and(|read| read == text.len()),
    })
}

/// The reference walk, in the order serde's derive takes: the entries as they come (an
/// unknown key or a bad value stops it there), then the keys that are missing. A value is
/// reported only if no form of it decodes, so the message names the value that is wrong,
/// not a `3.0` that decodes as the integer it is.
fn reference_walk(
    tool: &str,
    args: &Map<String, Value>,
    keys: &'static [&'static str],
    slots: &mut [&mut dyn Slot],
) -> Result<(), ToolResult> {
    for (key, value) in args {
        let Some(at) = position(keys, key.as_bytes()) else {
            let error = <serde_json::Error as de::Error>::unknown_field(key, keys);
            return Err(invalid_args(tool, error));
        };
        if decode_into(&mut *slots[at], value) {
            continue;
        }
        // Whole floats as integers, so the path names a value that is wrong, not a `3.0`.
        let mut value = value.clone();
        integers_for_integral_floats(&mut value);
        if let Err(error) = slots[at].decode_owned(value) {
            return Err(at_path(tool, Some(key), error.path(), error.inner()));
        }
    }
    fill_missing(0, keys, slots).map_err(|error| invalid_args(tool, without_position(&error)))
}

/// The fast path for text: the object's keys, colons and commas are read here, and each
/// value straight from the text into its slot (so it is read once, by serde_json). Any
/// failure — bad JSON, a bad value, an unknown, repeated or missing key, a value that might
/// nest too deep, a value the judge refuses — sends the caller to the reference path, which
/// reports it. What this accepts is exactly a JSON object whose values the reference path
/// decodes alike. A value that needs a check is judged as it decodes ([`Judge`]), so the text
/// is read again for the check only when the judge is unsure ([`Verdict::Unsure`]).
fn text_walk(
    text: &str,
    keys: &'static [&'static str],
    slots: &mut [&mut dyn Slot],
    schema: &ToolSchema,
) -> Result<Verdict<()>, ()> {
    let shape = schema.shape();
    // What a scalar needs; a nested value needs the same or more.
    let scalars = shape.check_for(false, true);
    let mut filled = 0;
    // The parameters given so far, a bit each up to the 64th (a later one's slot is asked):
    // a key given twice is refused without a virtual call per key.
    let mut given = 0_u64;
    let judge = Judge::new(shape);
    let mut judged = false;
    let mut text = Cursor::new(text);
    text.expect(b'{')?;
    if text.peek() == Some(b'}') {
        text.at += 1;
    } else {
        loop {
            let at = key(&mut text, keys)?;
            let bit = if at < 64 { 1_u64 << at } else { 0 };
            let slot = &mut slots[at];
            if given & bit != 0 || (bit == 0 && slot.is_filled()) {
                return Err(());
            }
            given |= bit;
            text.expect(b':')?;
            text.skip_whitespace();
            let rest = text.rest();
            let nested = matches!(rest.as_bytes().first(), Some(b'[' | b'{'));
            // A scalar of a schema without limits fits whatever it is; anything else is
            // judged as it decodes.
            let read = if nested || scalars != Check::Nothing {
                let check = shape.check_for(nested, true);
                judged |= check == Check::Judge;
                decode_judged(&mut **slot, rest, &judge, keys[at], check)?
            } else {
                slot.decode_prefix(rest).map_err(drop)?
            };
            // Decoded on its own, a value may open one level more than inside the arguments
            // object; one that might is left to the reference path, which refuses it. A
            // value opens a bracket per level, so only a long one is counted.
            if read >= TOO_DEEP && opens_too_many_levels(&rest.as_bytes()[..read]) {
                return Err(());
            }
            text.at += read;
            filled += 1;
            match text.next() {
                Some(b',') => {}
                Some(b'}') => break,
                _ => return Err(()),
            }
        }
    }
    text.skip_whitespace();
    if !text.at_end() {
        return Err(());
    }
    // What was judged while decoding vouches for the arguments only with the whole object in
    // view: every key the schema requires given.
    let verdict = if judged {
        // A parameter's bit is set once its value decoded.
        let all_given = match schema.required_params(keys) {
            Some(required) => given & required == required,
            None => judge.required().iter().all(|name| {
                position(keys, name.as_bytes()).is_some_and(|at| slots[at].is_filled())
            }),
        };
        judge.verdict(all_given.then_some(()))
    } else {
        Verdict::Vouched(())
    };
    fill_missing(filled, keys, slots).map_err(drop)?;
    Ok(verdict)
}

/// Decodes the value at the start of `rest` for the parameter `key` as `check` says: judged
/// as it is read, its length; `Err` when the schema names no such property, the judged
/// decoding failed (a value the schema refuses, or one serde refuses), or only the tree check
/// can tell. Out of line: the flat arguments of a schema without limits never come here.
#[inline(never)]
fn decode_judged(
    slot: &mut dyn Slot,
    rest: &str,
    judge: &Judge<'_>,
    key: &str,
    check: Check,
) -> Result<usize, ()> {
    if check != Check::Judge {
        return Err(());
    }
    let node = judge.property(key);
    let read = node.and_then(|node| slot.decode_judged(rest, judge, node).ok());
    if read.is_none() {
        judge.verdict::<()>(None);
    }
    read.ok_or(())
}

/// Whether a long value opens [`TOO_DEEP`] brackets. Out of line: few values are long, and
/// counting inline costs every value of the walk registers.
#[cold]
#[inline(never)]
fn opens_too_many_levels(value: &[u8]) -> bool {
    value.iter().filter(|b| matches!(b, b'[' | b'{')).count() >= TOO_DEEP
}

/// The levels a value may not open inside the arguments object, which is the first of the
/// reference path's [`MAX_NESTING`]; decoded on its own, a value could open them all.
const TOO_DEEP: usize = MAX_NESTING;

/// The key at the cursor, as the position of its parameter. One with escapes is decoded by
/// serde_json.
fn key(text: &mut Cursor<'_>, keys: &'static [&'static str]) -> Result<usize, ()> {
    let (quoted, escaped) = text.string()?;
    if escaped {
        let key: String = serde_json::from_slice(quoted).map_err(drop)?;
        position(keys, key.as_bytes()).ok_or(())
    } else {
        position(keys, &quoted[1..quoted.len() - 1]).ok_or(())
    }
}

/// What a struct field that is absent deserializes from in serde's derive: `None` for an
/// `Option`, a ``missing field `NAME` `` error for anything else.
struct Missing(&'static str);

impl<'de> Deserializer<'de> for Missing {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::missing_field(self.0))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_none()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier
        ignored_any
    }
}

/// An integer the text walk read itself ([`integer`]), handed to a parameter's type as
/// serde_json hands it: `visit_u64` or `visit_i64` whatever the type asks for, `Some` of it
/// for an `Option`, the newtype's own for a newtype struct.
struct IntegerValue(Integer);

impl<'de> Deserializer<'de> for IntegerValue {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.0 {
            Integer::Unsigned(number) => visitor.visit_u64(number),
            Integer::Negative(number) => visitor.visit_i64(number),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_newtype_struct(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}
