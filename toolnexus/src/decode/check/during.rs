//! The schema check made while serde reads a nested argument from text, so that the text is
//! read once.
//!
//! A [`Judge`] wraps serde_json's deserializer: every value serde reads passes through it on
//! the way to the type's visitor and is judged against its subschema's node, in the terms of
//! the one-pass check (`stream.rs`): type, listed values, a scalar's limits, properties,
//! `required`, the other keys, items. What needs a whole value first (`anyOf`, `oneOf`,
//! `allOf`, a `$ref` beside other keywords, an array's or object's own limits), what serde
//! reads in a form this does not follow (an enum, bytes, a key read as a number), and a budget
//! run out leave the judge unsure, and the text takes the check after decoding as before. A
//! value that misfits fails the decoding, and the caller decodes the text again the way it
//! did before this existed, so the outcome and the words of a refusal never depend on it.

use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Number;

use super::shape::{Node, OtherKeys, ROOT, Shape};
use super::stream::{ANY, allows};
use super::tree::{Kind, Text, Tree};
use super::{BUDGET, scalar_problem};

/// The check made during one decoding: whether everything read was judged, and fit.
#[doc(hidden)]
pub struct Judge<'s> {
    shape: &'s Shape,
    unsure: Cell<bool>,
    budget: Cell<usize>,
}

/// What a misfit fails the decoding with; the caller never shows it.
const MISFIT: &str = "the schema refuses this value";

impl<'s> Judge<'s> {
    pub(crate) fn new(shape: &'s Shape) -> Self {
        Self {
            shape,
            unsure: Cell::new(false),
            budget: Cell::new(BUDGET),
        }
    }

    /// A judge of the values of an arguments object's keys one at a time (what the text walk
    /// of `params.rs` reads), when its schema's root states nothing beyond its properties and
    /// `required`; `None` otherwise.
    pub(crate) fn of_parameters(shape: &'s Shape) -> Option<Self> {
        shape.parameters_judged.then(|| Self::new(shape))
    }

    /// The node of the arguments object's property `key`.
    pub(crate) fn property(&self, key: &str) -> Option<usize> {
        let root = &self.shape.nodes[ROOT];
        let (_, at) = root.properties.iter().find(|(name, _)| name == key)?;
        Some(*at)
    }

    /// The keys the arguments object must have.
    pub(crate) fn required(&self) -> &'s [String] {
        &self.shape.nodes[ROOT].required
    }

    /// Whether every value decoded so far was judged and fit its subschema.
    pub(crate) fn vouches(&self) -> bool {
        !self.unsure.get()
    }

    /// Decodes the JSON value at the start of `text` as a `T`, judging it against the node at
    /// `index`; the value and how many bytes it took.
    pub(crate) fn decode_prefix<'de, T: de::Deserialize<'de>>(
        &self,
        text: &'de str,
        index: usize,
    ) -> Result<(T, usize), serde_json::Error> {
        let mut deserializer = serde_json::Deserializer::from_str(text);
        let value = T::deserialize(Checked {
            inner: &mut deserializer,
            judging: self.judging(index, false),
        })?;
        // A stream made now starts where the value ended.
        let read = deserializer.into_iter::<de::IgnoredAny>().byte_offset();
        Ok((value, read))
    }

    /// Decodes the JSON value that is all of `text` as a `T`, judging it against the node at
    /// `index`; `top` when it is the arguments object, whose `null`s may stand for absent keys.
    pub(crate) fn decode<'de, T: de::Deserialize<'de>>(
        &self,
        text: &'de str,
        index: usize,
        top: bool,
    ) -> Result<T, serde_json::Error> {
        let mut deserializer = serde_json::Deserializer::from_str(text);
        let value = T::deserialize(Checked {
            inner: &mut deserializer,
            judging: self.judging(index, top),
        })?;
        deserializer.end()?;
        Ok(value)
    }

    fn judging(&self, index: usize, top: bool) -> Option<Judging<'_, 's>> {
        match self.shape.nodes[index].streamed {
            Some(at) => Some(Judging {
                judge: self,
                node: &self.shape.nodes[at],
                absent_ok: false,
                top,
            }),
            None => self.leave(),
        }
    }

    /// Leaves what follows unjudged.
    fn leave<T>(&self) -> Option<T> {
        self.unsure.set(true);
        None
    }

    fn spend(&self, steps: usize) {
        match self.budget.get().checked_sub(steps) {
            Some(left) => self.budget.set(left),
            None => self.unsure.set(true),
        }
    }
}

/// One value being judged against its (resolved) node.
#[derive(Clone, Copy)]
struct Judging<'j, 's> {
    judge: &'j Judge<'s>,
    node: &'s Node,
    /// A `null` here stands for an absent key (at the top of the arguments).
    absent_ok: bool,
    /// This is the arguments object: a `null` for a key it does not require is no value.
    top: bool,
}

impl<'s> Judging<'_, 's> {
    fn judged(self) -> bool {
        self.node.listed.is_some() || self.node.limits.is_some()
    }

    #[inline(always)]
    fn string<E: de::Error>(self, text: &str) -> Result<(), E> {
        if self.judged() {
            return self.scalar(&Text::String(Cow::Borrowed(text)));
        }
        fit(allows(self.node, Kind::String as u8))
    }

    #[inline(always)]
    fn integer<E: de::Error>(
        self,
        integer: i128,
        number: impl FnOnce() -> Number,
    ) -> Result<(), E> {
        match self.node.integers {
            Some((low, high)) => {
                let integral = Kind::Integer as u8 | Kind::Number as u8;
                fit(allows(self.node, integral) && low <= integer && integer <= high)
            }
            None => self.scalar(&Text::Number(number())),
        }
    }

    fn scalar<E: de::Error>(self, value: &Text<'_>) -> Result<(), E> {
        self.judge.spend(1);
        if self.absent_ok && matches!(value, Text::Null) {
            return Ok(());
        }
        let node = self.node;
        fit(allows(node, value.kinds()) && scalar_problem(node, value).is_none())
    }

    /// Whether an array or object may be judged entry by entry: its own node neither lists
    /// values nor limits it as a whole, and admits its kind.
    fn container<E: de::Error>(self, kind: Kind) -> Result<Option<Self>, E> {
        self.judge.spend(1);
        if self.node.listed.is_some() || self.node.limits.is_some() {
            return Ok(self.judge.leave());
        }
        fit(allows(self.node, kind as u8)).map(|()| Some(self))
    }

    /// The judging of a value inside this one, at the node at `index`.
    #[inline(always)]
    fn inner(self, index: usize) -> Option<Self> {
        let shape = self.judge.shape;
        match shape.nodes[index].streamed {
            Some(at) => Some(Judging {
                node: &shape.nodes[at],
                absent_ok: false,
                top: false,
                ..self
            }),
            None => self.judge.leave(),
        }
    }
}

fn fit<E: de::Error>(fits: bool) -> Result<(), E> {
    if fits { Ok(()) } else { Err(E::custom(MISFIT)) }
}

/// serde_json's deserializer with each value judged; unjudged when `judging` is `None`.
struct Checked<'j, 's, D> {
    inner: D,
    judging: Option<Judging<'j, 's>>,
}

/// The visitor serde gave, seeing each value after it is judged.
struct Visit<'j, 's, V> {
    inner: V,
    judging: Judging<'j, 's>,
}

macro_rules! judged {
    ($($method:ident($($argument:ident: $type:ty),*);)*) => {$(
        fn $method<V: Visitor<'de>>(self, $($argument: $type,)* visitor: V) -> Result<V::Value, D::Error> {
            match self.judging {
                Some(judging) => self.inner.$method($($argument,)* Visit { inner: visitor, judging }),
                None => self.inner.$method($($argument,)* visitor),
            }
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Checked<'_, '_, D> {
    type Error = D::Error;

    judged! {
        deserialize_any(); deserialize_bool(); deserialize_i8(); deserialize_i16();
        deserialize_i32(); deserialize_i64(); deserialize_i128(); deserialize_u8();
        deserialize_u16(); deserialize_u32(); deserialize_u64(); deserialize_u128();
        deserialize_f32(); deserialize_f64(); deserialize_char(); deserialize_str();
        deserialize_string(); deserialize_bytes(); deserialize_byte_buf(); deserialize_option();
        deserialize_unit(); deserialize_unit_struct(name: &'static str); deserialize_seq();
        deserialize_tuple(length: usize);
        deserialize_tuple_struct(name: &'static str, length: usize); deserialize_map();
        deserialize_struct(name: &'static str, fields: &'static [&'static str]);
        deserialize_identifier();
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        match self.judging {
            // serde_json's own types (`RawValue`) read the text under a name of its own.
            Some(judging) if name.starts_with("$serde_json::private::") => {
                judging.judge.leave::<()>();
                self.inner.deserialize_newtype_struct(name, visitor)
            }
            Some(judging) => self.inner.deserialize_newtype_struct(
                name,
                Visit {
                    inner: visitor,
                    judging,
                },
            ),
            None => self.inner.deserialize_newtype_struct(name, visitor),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        // serde_json hands an enum's text to the visitor in no form judged here.
        if let Some(judging) = self.judging {
            judging.judge.leave::<()>();
        }
        self.inner.deserialize_enum(name, variants, visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        // A value serde skips is still one the schema may refuse: it is read, judged, and
        // then skipped as serde_json skips it.
        match self.judging {
            Some(judging) => {
                self.inner.deserialize_any(Visit {
                    inner: de::IgnoredAny,
                    judging,
                })?;
                visitor.visit_unit()
            }
            None => self.inner.deserialize_ignored_any(visitor),
        }
    }

    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Visit<'_, '_, V> {
    type Value = V::Value;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        self.inner.expecting(formatter)
    }

    fn visit_bool<E: de::Error>(self, flag: bool) -> Result<V::Value, E> {
        self.judging.scalar(&Text::Bool(flag))?;
        self.inner.visit_bool(flag)
    }

    fn visit_i64<E: de::Error>(self, number: i64) -> Result<V::Value, E> {
        self.judging.integer(number.into(), || number.into())?;
        self.inner.visit_i64(number)
    }

    fn visit_u64<E: de::Error>(self, number: u64) -> Result<V::Value, E> {
        self.judging.integer(number.into(), || number.into())?;
        self.inner.visit_u64(number)
    }

    fn visit_i128<E: de::Error>(self, number: i128) -> Result<V::Value, E> {
        self.judging.judge.leave::<()>();
        self.inner.visit_i128(number)
    }

    fn visit_u128<E: de::Error>(self, number: u128) -> Result<V::Value, E> {
        self.judging.judge.leave::<()>();
        self.inner.visit_u128(number)
    }

    fn visit_f64<E: de::Error>(self, number: f64) -> Result<V::Value, E> {
        match Number::from_f64(number) {
            Some(number) => self.judging.scalar(&Text::Number(number))?,
            None => {
                self.judging.judge.leave::<()>();
            }
        }
        self.inner.visit_f64(number)
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<V::Value, E> {
        self.judging.string(text)?;
        self.inner.visit_str(text)
    }

    fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<V::Value, E> {
        self.judging.string(text)?;
        self.inner.visit_borrowed_str(text)
    }

    fn visit_string<E: de::Error>(self, text: String) -> Result<V::Value, E> {
        self.judging.string(&text)?;
        self.inner.visit_string(text)
    }

    fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<V::Value, E> {
        self.judging.judge.leave::<()>();
        self.inner.visit_bytes(bytes)
    }

    fn visit_borrowed_bytes<E: de::Error>(self, bytes: &'de [u8]) -> Result<V::Value, E> {
        self.judging.judge.leave::<()>();
        self.inner.visit_borrowed_bytes(bytes)
    }

    fn visit_byte_buf<E: de::Error>(self, bytes: Vec<u8>) -> Result<V::Value, E> {
        self.judging.judge.leave::<()>();
        self.inner.visit_byte_buf(bytes)
    }

    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.judging.scalar(&Text::Null)?;
        self.inner.visit_none()
    }

    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.judging.scalar(&Text::Null)?;
        self.inner.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, inner: D) -> Result<V::Value, D::Error> {
        let judging = Some(self.judging);
        self.inner.visit_some(Checked { inner, judging })
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, inner: D) -> Result<V::Value, D::Error> {
        let judging = Some(self.judging);
        self.inner.visit_newtype_struct(Checked { inner, judging })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        match self.judging.container(Kind::Array)? {
            Some(judging) => self.inner.visit_seq(Items {
                inner: seq,
                judging,
                index: 0,
            }),
            None => self.inner.visit_seq(seq),
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        let judging = self.judging.container(Kind::Object)?;
        match judging.zip(self.judging.node.required_properties) {
            Some((judging, required)) => self.inner.visit_map(Entries {
                inner: map,
                judging,
                required,
                given: 0,
                others: Vec::new(),
                next: 0,
                key: Key::Unread,
            }),
            None => {
                self.judging.judge.leave::<()>();
                self.inner.visit_map(map)
            }
        }
    }

    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        self.judging.judge.leave::<()>();
        self.inner.visit_enum(data)
    }
}

/// An array's items, each judged against its `prefixItems` or `items` node.
struct Items<'j, 's, A> {
    inner: A,
    judging: Judging<'j, 's>,
    index: usize,
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for Items<'_, '_, A> {
    type Error = A::Error;

    #[inline(always)]
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, A::Error> {
        let node = self.judging.node;
        let item = node.prefix_items.get(self.index).copied().or(node.items);
        self.index += 1;
        self.inner.next_element_seed(ItemSeed {
            inner: seed,
            judging: self.judging,
            item,
        })
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

/// A seed for an array's next item, if there is one: its node is looked up only then, so
/// that the end of an array past its `prefixItems` (whose `items` may be `false`) is no item.
struct ItemSeed<'j, 's, T> {
    inner: T,
    judging: Judging<'j, 's>,
    item: Option<usize>,
}

impl<'de, T: DeserializeSeed<'de>> DeserializeSeed<'de> for ItemSeed<'_, '_, T> {
    type Value = T::Value;

    #[inline(always)]
    fn deserialize<D: Deserializer<'de>>(self, inner: D) -> Result<T::Value, D::Error> {
        let judging = match self.item {
            Some(item) => self.judging.inner(item),
            None => Some(Judging {
                node: &ANY,
                absent_ok: false,
                top: false,
                ..self.judging
            }),
        };
        self.inner.deserialize(Checked { inner, judging })
    }
}

/// What the last key read names.
enum Key {
    Property(usize),
    Other,
    /// Read in a form whose text is not seen here (a map's integer key).
    Unread,
}

/// An object's entries: each key told apart from the others, each value judged against its
/// property's node, `required` checked at the end.
struct Entries<'j, 's, A> {
    inner: A,
    judging: Judging<'j, 's>,
    required: u64,
    given: u64,
    /// The keys no property names, to find one given twice.
    others: Vec<String>,
    /// The property the next key most likely names: models keep the schema's order.
    next: usize,
    key: Key,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Entries<'_, '_, A> {
    type Error = A::Error;

    #[inline(always)]
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        let node = self.judging.node;
        let mut key = Key::Unread;
        let mut named = Named {
            node,
            next: self.next,
            key: &mut key,
            others: &mut self.others,
        };
        let read = self.inner.next_key_seed(KeySeed {
            inner: seed,
            named: &mut named,
        })?;
        if read.is_none() {
            return fit(self.given & self.required == self.required).map(|()| None);
        }
        self.judging
            .judge
            .spend(1 + node.required.len() + node.properties.len());
        match key {
            Key::Property(at) if self.given & 1 << at != 0 => {
                return Err(de::Error::custom(MISFIT));
            }
            Key::Property(at) => {
                self.given |= 1 << at;
                self.next = at + 1;
            }
            // `Named` refused a key given twice, and one no schema allows is judged with its
            // value (its `null` may stand for its absence).
            Key::Other => {}
            Key::Unread => {
                self.judging.judge.leave::<()>();
            }
        }
        self.key = key;
        Ok(read)
    }

    #[inline(always)]
    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, A::Error> {
        let node = self.judging.node;
        let judging = match self.key {
            Key::Property(at) => self.judging.inner(node.properties[at].1),
            Key::Other => match node.other_keys {
                OtherKeys::Anything => Some(Judging {
                    node: &ANY,
                    top: false,
                    ..self.judging
                }),
                OtherKeys::Nothing => Some(Judging {
                    node: &NOTHING,
                    top: false,
                    ..self.judging
                }),
                OtherKeys::Schema(other) => self.judging.inner(other),
            },
            Key::Unread => None,
        };
        // At the top, a `null` for a key that is not required stands for its absence.
        let absent_ok = self.judging.top
            && match self.key {
                Key::Property(at) => self.required & 1 << at == 0,
                _ => true,
            };
        let judging = judging.map(|judging| Judging {
            absent_ok,
            ..judging
        });
        self.inner.next_value_seed(Seed {
            inner: seed,
            judging,
        })
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

/// A seed whose value is judged.
struct Seed<'j, 's, T> {
    inner: T,
    judging: Option<Judging<'j, 's>>,
}

impl<'de, T: DeserializeSeed<'de>> DeserializeSeed<'de> for Seed<'_, '_, T> {
    type Value = T::Value;

    #[inline(always)]
    fn deserialize<D: Deserializer<'de>>(self, inner: D) -> Result<T::Value, D::Error> {
        self.inner.deserialize(Checked {
            inner,
            judging: self.judging,
        })
    }
}

/// Tells what a key names as serde reads it.
struct Named<'n> {
    node: &'n Node,
    next: usize,
    key: &'n mut Key,
    others: &'n mut Vec<String>,
}

impl Named<'_> {
    #[inline(always)]
    fn name<E: de::Error>(&mut self, key: &str) -> Result<(), E> {
        let names = &self.node.properties;
        let is = |at: usize| names[at].0 == key;
        let named = if self.next < names.len() && is(self.next) {
            Some(self.next)
        } else {
            (0..names.len()).find(|at| is(*at))
        };
        *self.key = match named {
            Some(at) => Key::Property(at),
            // Pairwise for a few keys; past that the check after decoding sorts them.
            None if self.others.len() == 16 => Key::Unread,
            None if self.others.iter().any(|other| other == key) => {
                return Err(E::custom(MISFIT));
            }
            None => {
                self.others.push(key.to_owned());
                Key::Other
            }
        };
        Ok(())
    }
}

struct KeySeed<'k, 'n, K> {
    inner: K,
    named: &'k mut Named<'n>,
}

impl<'de, K: DeserializeSeed<'de>> DeserializeSeed<'de> for KeySeed<'_, '_, K> {
    type Value = K::Value;

    #[inline(always)]
    fn deserialize<D: Deserializer<'de>>(self, inner: D) -> Result<K::Value, D::Error> {
        self.inner.deserialize(KeyReader {
            inner,
            named: self.named,
        })
    }
}

/// serde_json's reader of one key, telling the key's name to [`Named`] on the way.
struct KeyReader<'k, 'n, D> {
    inner: D,
    named: &'k mut Named<'n>,
}

struct KeyVisit<'k, 'n, V> {
    inner: V,
    named: &'k mut Named<'n>,
}

macro_rules! named {
    ($($method:ident($($argument:ident: $type:ty),*);)*) => {$(
        fn $method<V: Visitor<'de>>(self, $($argument: $type,)* visitor: V) -> Result<V::Value, D::Error> {
            self.inner.$method($($argument,)* KeyVisit { inner: visitor, named: self.named })
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for KeyReader<'_, '_, D> {
    type Error = D::Error;

    named! {
        deserialize_any(); deserialize_bool(); deserialize_i8(); deserialize_i16();
        deserialize_i32(); deserialize_i64(); deserialize_i128(); deserialize_u8();
        deserialize_u16(); deserialize_u32(); deserialize_u64(); deserialize_u128();
        deserialize_f32(); deserialize_f64(); deserialize_char(); deserialize_str();
        deserialize_string(); deserialize_bytes(); deserialize_byte_buf(); deserialize_option();
        deserialize_unit(); deserialize_unit_struct(name: &'static str);
        deserialize_newtype_struct(name: &'static str); deserialize_seq();
        deserialize_tuple(length: usize);
        deserialize_tuple_struct(name: &'static str, length: usize); deserialize_map();
        deserialize_struct(name: &'static str, fields: &'static [&'static str]);
        deserialize_enum(name: &'static str, variants: &'static [&'static str]);
        deserialize_identifier(); deserialize_ignored_any();
    }

    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }
}

impl<'de, V: Visitor<'de>> Visitor<'de> for KeyVisit<'_, '_, V> {
    type Value = V::Value;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        self.inner.expecting(formatter)
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<V::Value, E> {
        self.named.name(key)?;
        self.inner.visit_str(key)
    }

    fn visit_borrowed_str<E: de::Error>(self, key: &'de str) -> Result<V::Value, E> {
        self.named.name(key)?;
        self.inner.visit_borrowed_str(key)
    }

    fn visit_string<E: de::Error>(self, key: String) -> Result<V::Value, E> {
        self.named.name(&key)?;
        self.inner.visit_string(key)
    }

    // A key read in any other form stays `Key::Unread`.
    fn visit_bool<E: de::Error>(self, flag: bool) -> Result<V::Value, E> {
        self.inner.visit_bool(flag)
    }

    fn visit_i64<E: de::Error>(self, number: i64) -> Result<V::Value, E> {
        self.inner.visit_i64(number)
    }

    fn visit_u64<E: de::Error>(self, number: u64) -> Result<V::Value, E> {
        self.inner.visit_u64(number)
    }

    fn visit_f64<E: de::Error>(self, number: f64) -> Result<V::Value, E> {
        self.inner.visit_f64(number)
    }

    fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<V::Value, E> {
        self.inner.visit_bytes(bytes)
    }

    fn visit_borrowed_bytes<E: de::Error>(self, bytes: &'de [u8]) -> Result<V::Value, E> {
        self.inner.visit_borrowed_bytes(bytes)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, inner: D) -> Result<V::Value, D::Error> {
        self.inner.visit_newtype_struct(KeyReader {
            inner,
            named: self.named,
        })
    }

    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        self.inner.visit_enum(data)
    }
}

/// The node no value fits, for a key that `additionalProperties: false` refuses.
static NOTHING: Node = Node::only(Some(0));
