//! Argument decoding one parameter at a time, for the `#[tool]`s whose parameters carry no
//! `#[serde]` attributes (nearly all of them): the same outcome as decoding a derived
//! arguments struct with [`decode_args`](crate::decode::decode_args) and
//! [`decode_args_json`](crate::decode::decode_args_json), errors included, at a fraction of the
//! compile time.
//!
//! A derived struct instantiates serde's code for each tool and each deserializer (text, a
//! borrowed `Value`, `serde_path_to_error`'s wrapper): thousands of lines of LLVM IR per tool.
//! Here the walk over the arguments object is written once, and what is instantiated is the
//! [`Slot`] of each parameter *type*, shared by every tool of a crate with a parameter of that
//! type.

use serde::de::{self, DeserializeOwned, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::decode::{
    MAX_ARGUMENT_BYTES, at_path, check_shape, invalid_args, parse_args_strictly, without_position,
};
use crate::result::ToolResult;

/// Where one parameter's decoded value goes: `Option<T>`, empty until decoded.
///
/// Each way of decoding a value is a method, so a tool's parameters can sit side by side in
/// one list (`&mut [&mut dyn Slot]`) that the non-generic walk fills.
pub trait Slot {
    /// Decodes a value of the arguments object, borrowed.
    fn from_value(&mut self, value: &Value) -> Result<(), serde_json::Error>;
    /// Decodes an owned value, tracking the path to a failure inside it.
    fn from_owned(
        &mut self,
        value: Value,
    ) -> Result<(), serde_path_to_error::Error<serde_json::Error>>;
    /// Decodes the JSON text of one value.
    fn from_text(&mut self, text: &str) -> Result<(), serde_json::Error>;
    /// Fills the slot for a key the arguments lack, as serde does for a struct field: an
    /// `Option` is `None`, anything else is a ``missing field `NAME` `` error.
    fn missing(&mut self, name: &'static str) -> Result<(), serde_json::Error>;
    /// Whether a value has been decoded into it.
    fn is_filled(&self) -> bool;
    /// Empties it again.
    fn clear(&mut self);
}

impl<T: DeserializeOwned> Slot for Option<T> {
    fn from_value(&mut self, value: &Value) -> Result<(), serde_json::Error> {
        *self = Some(T::deserialize(value)?);
        Ok(())
    }

    fn from_owned(
        &mut self,
        value: Value,
    ) -> Result<(), serde_path_to_error::Error<serde_json::Error>> {
        *self = Some(serde_path_to_error::deserialize(value)?);
        Ok(())
    }

    fn from_text(&mut self, text: &str) -> Result<(), serde_json::Error> {
        *self = Some(serde_json::from_str(text)?);
        Ok(())
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

/// A decoded parameter, out of the slot [`decode_params`] filled.
///
/// # Panics
///
/// When the slot is empty, which a successful [`decode_params`] rules out.
pub fn take<T>(slot: Option<T>) -> T {
    slot.expect("decode_params fills every slot")
}

/// Decodes a model's arguments into the slots of a tool's parameters, whose keys are `keys`
/// (in the same order): the semantics of [`decode_args`](crate::decode::decode_args) for a
/// struct with those fields and `deny_unknown_fields`.
#[expect(
    clippy::result_large_err,
    reason = "the error is the tool's final result; boxing it would only add an allocation"
)]
pub fn decode_params(
    tool: &str,
    args: Value,
    keys: &'static [&'static str],
    slots: &mut [&mut dyn Slot],
) -> Result<(), ToolResult> {
    let args = check_shape(tool, args)?;
    // A borrowed walk tracks no path, so it costs nothing beyond what the types need; only a
    // failure is walked again, owned, to find where it failed.
    if borrowed_walk(&args, keys, slots).is_ok() {
        return Ok(());
    }
    slots.iter_mut().for_each(|slot| slot.clear());
    owned_walk(tool, args, keys, slots)
}

/// [`decode_params`] for the raw argument text a model produced, with the same outcome for
/// the same arguments, as [`decode_args_json`](crate::decode::decode_args_json) is for
/// [`decode_args`](crate::decode::decode_args): the text is walked straight into the slots
/// when it fits, and otherwise parsed into a `Value` and decoded by [`decode_params`].
#[expect(
    clippy::result_large_err,
    reason = "the error is the tool's final result; boxing it would only add an allocation"
)]
pub fn decode_params_json(
    tool: &str,
    text: &str,
    via_value: bool,
    keys: &'static [&'static str],
    slots: &mut [&mut dyn Slot],
) -> Result<(), ToolResult> {
    if !via_value && text.len() <= MAX_ARGUMENT_BYTES && text.trim_start().starts_with('{') {
        if text_walk(text, keys, slots).is_ok() {
            return Ok(());
        }
        slots.iter_mut().for_each(|slot| slot.clear());
    }
    decode_params(tool, parse_args_strictly(tool, text)?, keys, slots)
}

fn position(keys: &'static [&'static str], key: &str) -> Option<usize> {
    keys.iter().position(|candidate| *candidate == key)
}

/// Fills the slots no key named; `Err` if one is required.
fn fill_missing(
    keys: &'static [&'static str],
    slots: &mut [&mut dyn Slot],
) -> Result<(), serde_json::Error> {
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
        let at = position(keys, key).ok_or(())?;
        slots[at].from_value(value).map_err(drop)?;
    }
    fill_missing(keys, slots).map_err(drop)
}

/// The reference walk, in the order serde's derive takes: the entries as they come (an
/// unknown key or a bad value stops it there), then the keys that are missing.
#[expect(
    clippy::result_large_err,
    reason = "the error is the tool's final result; boxing it would only add an allocation"
)]
fn owned_walk(
    tool: &str,
    args: Map<String, Value>,
    keys: &'static [&'static str],
    slots: &mut [&mut dyn Slot],
) -> Result<(), ToolResult> {
    for (key, value) in args {
        let Some(at) = position(keys, &key) else {
            let error = <serde_json::Error as de::Error>::unknown_field(&key, keys);
            return Err(invalid_args(tool, error));
        };
        if let Err(error) = slots[at].from_owned(value) {
            return Err(at_path(tool, Some(&key), error.path(), error.inner()));
        }
    }
    fill_missing(keys, slots).map_err(|error| invalid_args(tool, without_position(&error)))
}

/// The fast path for text: each value of the object is found in place and decoded from its
/// own text. Any failure — bad JSON, a bad value, an unknown, repeated or missing key —
/// sends the caller to the reference path, which reports it.
fn text_walk(
    text: &str,
    keys: &'static [&'static str],
    slots: &mut [&mut dyn Slot],
) -> Result<(), ()> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    deserializer
        .deserialize_map(TextObject { keys, slots })
        .map_err(drop)?;
    deserializer.end().map_err(drop)?;
    fill_missing(keys, slots).map_err(drop)
}

struct TextObject<'s, 'r> {
    keys: &'static [&'static str],
    slots: &'s mut [&'r mut dyn Slot],
}

impl<'de> Visitor<'de> for TextObject<'_, '_> {
    type Value = ();

    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        formatter.write_str("the arguments object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(at) = map.next_key_seed(Key(self.keys))? {
            let slot = &mut self.slots[at];
            if slot.is_filled() {
                return Err(de::Error::custom("duplicate key"));
            }
            let value: &RawValue = map.next_value()?;
            // Decoded on its own, a value may nest one level deeper than inside the
            // arguments object; one that might is left to the reference path, which
            // refuses it. A value needs an opening bracket per level, so only a long one
            // is counted.
            let text = value.get();
            if text.len() >= TOO_DEEP
                && text.bytes().filter(|b| matches!(b, b'[' | b'{')).count() >= TOO_DEEP
            {
                return Err(de::Error::custom("deeply nested"));
            }
            slot.from_text(text).map_err(de::Error::custom)?;
        }
        Ok(())
    }
}

/// The levels a value may not open inside the arguments object: serde_json refuses text that
/// opens a 128th level, and the object is the first (the reference path's limit, 127 in
/// all). On its own, a value could open 127.
const TOO_DEEP: usize = 127;

/// A key of the arguments object, as the position of its parameter.
struct Key(&'static [&'static str]);

impl<'de> DeserializeSeed<'de> for Key {
    type Value = usize;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<usize, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Key {
    type Value = usize;

    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        formatter.write_str("a parameter name")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<usize, E> {
        position(self.0, key).ok_or_else(|| E::unknown_field(key, self.0))
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
