//! An object's keys, told apart as serde reads them: which property each names, and whether
//! one is given twice.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, Visitor};

use super::MISFIT;
use crate::decode::check::shape::Node;

/// What the last key read names.
pub(super) enum Key {
    Property(usize),
    Other,
    /// Read in a form whose text is not seen here (a map's integer key).
    Unread,
}

/// Tells what each key of one object names as serde reads it.
pub(super) struct Named<'n> {
    pub(super) node: &'n Node,
    /// The property the next key most likely names: models keep the schema's order.
    pub(super) next: usize,
    /// What the last key read names.
    pub(super) key: Key,
    /// The keys no property names, to find one given twice.
    pub(super) others: Vec<String>,
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
        self.key = match named {
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

/// The seed of a key, whose name [`Named`] learns as serde reads it.
pub(super) struct KeySeed<'k, 'n, K> {
    pub(super) inner: K,
    pub(super) named: &'k mut Named<'n>,
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
