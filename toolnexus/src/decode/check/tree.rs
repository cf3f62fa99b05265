//! The two forms checked arguments come in: a `serde_json::Value` (what `Tool::execute` is
//! given), and [`Text`], argument text read for the check alone.

use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Number, Value};

/// The JSON types, as bits of `Node::kinds`.
#[derive(Clone, Copy)]
pub(super) enum Kind {
    Null = 1,
    Boolean = 2,
    Integer = 4,
    Number = 8,
    String = 16,
    Array = 32,
    Object = 64,
}

pub(super) const KINDS: [(Kind, &str); 7] = [
    (Kind::Null, "null"),
    (Kind::Boolean, "boolean"),
    (Kind::Integer, "integer"),
    (Kind::Number, "number"),
    (Kind::String, "string"),
    (Kind::Array, "array"),
    (Kind::Object, "object"),
];

/// A JSON value as the check reads it: each form says what it holds ([`Tree::view`]), and the
/// check's questions are answered once, from that.
pub(super) trait Tree: Sized {
    fn view(&self) -> View<'_, Self>;
    fn entries(&self) -> Option<impl Iterator<Item = (&str, &Self)>>;

    /// The [`Kind`] bits it has: an integer is a number too, and `3.0` is an integer.
    fn kinds(&self) -> u8 {
        match self.view() {
            View::Null => Kind::Null as u8,
            View::Bool(_) => Kind::Boolean as u8,
            View::Number(number) => {
                let integral = number.is_i64()
                    || number.is_u64()
                    || number
                        .as_f64()
                        .is_some_and(|float| float.is_finite() && float.fract() == 0.0);
                if integral {
                    Kind::Number as u8 | Kind::Integer as u8
                } else {
                    Kind::Number as u8
                }
            }
            View::String(_) => Kind::String as u8,
            View::Array(_) => Kind::Array as u8,
            View::Object => Kind::Object as u8,
        }
    }

    /// The value as messages name it: `array`, `object`, `integer `0``, `string "a"`.
    fn describe(&self) -> String {
        match self.view() {
            View::Null => "null".to_owned(),
            View::Bool(flag) => format!("boolean `{flag}`"),
            View::Number(number) if number.is_f64() => format!("number `{number}`"),
            View::Number(number) => format!("integer `{number}`"),
            View::String(text) => format!("string {}", Value::from(text)),
            View::Array(_) => "array".to_owned(),
            View::Object => "object".to_owned(),
        }
    }

    fn is_null(&self) -> bool {
        matches!(self.view(), View::Null)
    }

    fn items(&self) -> Option<&[Self]> {
        match self.view() {
            View::Array(items) => Some(items),
            _ => None,
        }
    }
}

/// What a [`Tree`] holds, borrowed.
pub(super) enum View<'t, T> {
    Null,
    Bool(bool),
    Number(&'t Number),
    String(&'t str),
    Array(&'t [T]),
    Object,
}

impl Tree for Value {
    fn view(&self) -> View<'_, Self> {
        match self {
            Value::Null => View::Null,
            Value::Bool(flag) => View::Bool(*flag),
            Value::Number(number) => View::Number(number),
            Value::String(text) => View::String(text),
            Value::Array(items) => View::Array(items),
            Value::Object(_) => View::Object,
        }
    }

    fn entries(&self) -> Option<impl Iterator<Item = (&str, &Self)>> {
        Some(
            self.as_object()?
                .iter()
                .map(|(key, value)| (key.as_str(), value)),
        )
    }
}

/// Argument text read for the check alone: objects as lists of entries, strings borrowed
/// where the text has no escapes. Reading it costs no hashing and an allocation per array
/// or object, where a `Value` hashes every key and allocates for each.
pub(super) enum TextTree<'a> {
    Null,
    Bool(bool),
    Number(Number),
    String(Cow<'a, str>),
    Array(Vec<TextTree<'a>>),
    Object(Vec<(Cow<'a, str>, TextTree<'a>)>),
}

impl Tree for TextTree<'_> {
    fn view(&self) -> View<'_, Self> {
        match self {
            TextTree::Null => View::Null,
            TextTree::Bool(flag) => View::Bool(*flag),
            TextTree::Number(number) => View::Number(number),
            TextTree::String(text) => View::String(text),
            TextTree::Array(items) => View::Array(items),
            TextTree::Object(_) => View::Object,
        }
    }

    fn entries(&self) -> Option<impl Iterator<Item = (&str, &Self)>> {
        match self {
            TextTree::Object(entries) => {
                Some(entries.iter().map(|(key, value)| (key.as_ref(), value)))
            }
            _ => None,
        }
    }
}

/// Why text was not read.
pub(super) enum Unread {
    /// Some object names a key twice. The reference decoding refuses that (a `Value` could
    /// not hold it), which the fast text paths, reading straight into a map, did not notice.
    DuplicateKey,
    /// More values than the limit (or text that does not parse, which cannot happen to text
    /// that decoded).
    Other,
}

impl<'a> TextTree<'a> {
    /// Reads `text`, if it holds at most `limit` values and no object names a key twice.
    pub(super) fn read(text: &'a str, limit: usize) -> Result<Self, Unread> {
        let reading = Reading {
            left: Cell::new(limit),
            duplicate_key: Cell::new(false),
        };
        let mut deserializer = serde_json::Deserializer::from_str(text);
        let read = TextSeed { reading: &reading }
            .deserialize(&mut deserializer)
            .and_then(|read| deserializer.end().map(|()| read));
        read.map_err(|_| {
            if reading.duplicate_key.get() {
                Unread::DuplicateKey
            } else {
                Unread::Other
            }
        })
    }
}

/// What reading one text has found so far.
struct Reading {
    /// Values still allowed.
    left: Cell<usize>,
    duplicate_key: Cell<bool>,
}

/// Reads one value, counting it against the values left.
#[derive(Clone, Copy)]
struct TextSeed<'r> {
    reading: &'r Reading,
}

impl TextSeed<'_> {
    fn count<E: de::Error>(self) -> Result<(), E> {
        let left = self
            .reading
            .left
            .get()
            .checked_sub(1)
            .ok_or_else(|| E::custom("more values than are checked"))?;
        self.reading.left.set(left);
        Ok(())
    }
}

/// Whether some key appears twice: pairwise for the few keys of a struct, sorted for a map.
fn has_duplicate_key(entries: &[(Cow<'_, str>, TextTree<'_>)]) -> bool {
    if entries.len() <= 16 {
        return entries
            .iter()
            .enumerate()
            .any(|(at, (key, _))| entries[..at].iter().any(|(earlier, _)| earlier == key));
    }
    let mut keys: Vec<&str> = entries.iter().map(|(key, _)| key.as_ref()).collect();
    keys.sort_unstable();
    keys.windows(2).any(|pair| pair[0] == pair[1])
}

impl<'de> DeserializeSeed<'de> for TextSeed<'_> {
    type Value = TextTree<'de>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<TextTree<'de>, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for TextSeed<'_> {
    type Value = TextTree<'de>;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, flag: bool) -> Result<TextTree<'de>, E> {
        self.count()?;
        Ok(TextTree::Bool(flag))
    }

    fn visit_i64<E: de::Error>(self, number: i64) -> Result<TextTree<'de>, E> {
        self.count()?;
        Ok(TextTree::Number(number.into()))
    }

    fn visit_u64<E: de::Error>(self, number: u64) -> Result<TextTree<'de>, E> {
        self.count()?;
        Ok(TextTree::Number(number.into()))
    }

    fn visit_f64<E: de::Error>(self, number: f64) -> Result<TextTree<'de>, E> {
        self.count()?;
        Number::from_f64(number)
            .map(TextTree::Number)
            .ok_or_else(|| E::custom("a number JSON cannot hold"))
    }

    fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<TextTree<'de>, E> {
        self.count()?;
        Ok(TextTree::String(Cow::Borrowed(text)))
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<TextTree<'de>, E> {
        self.count()?;
        Ok(TextTree::String(Cow::Owned(text.to_owned())))
    }

    fn visit_unit<E: de::Error>(self) -> Result<TextTree<'de>, E> {
        self.count()?;
        Ok(TextTree::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<TextTree<'de>, A::Error> {
        self.count()?;
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element_seed(self)? {
            items.push(item);
        }
        Ok(TextTree::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TextTree<'de>, A::Error> {
        self.count()?;
        let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(0));
        while let Some(key) = map.next_key_seed(KeySeed)? {
            entries.push((key, map.next_value_seed(self)?));
        }
        if has_duplicate_key(&entries) {
            self.reading.duplicate_key.set(true);
            return Err(de::Error::custom("a key given twice"));
        }
        Ok(TextTree::Object(entries))
    }
}

/// A key, borrowed from the text when it has no escapes (serde's own `Cow<str>` always
/// copies).
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Cow<'de, str>;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a key")
    }

    fn visit_borrowed_str<E>(self, key: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(key))
    }

    fn visit_str<E>(self, key: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(key.to_owned()))
    }
}
