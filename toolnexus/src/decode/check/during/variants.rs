//! An enum, judged as serde_json reads it: a unit variant's name alone, or an object of one
//! entry, the name of a variant and its value.

use std::fmt;
use std::marker::PhantomData;

use serde::de::value::{BorrowedStrDeserializer, StrDeserializer, StringDeserializer};
use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, IgnoredAny, MapAccess, VariantAccess, Visitor,
};

use super::entries::Seed;
use super::{Judging, MISFIT};
use crate::decode::check::tree::Kind;

/// The visitor serde gave for an enum, seeing the value serde_json reads it from.
pub(super) struct Tagged<'j, 's, V> {
    pub(super) inner: V,
    pub(super) judging: Judging<'j, 's>,
}

impl<'j, 's> Judging<'j, 's> {
    /// The judging of the value of the variant `name`, sent as an object of one entry.
    fn variant_value<E: de::Error>(self, name: &str) -> Result<Option<Self>, E> {
        match &self.node.variants {
            Some(variants) => match variants.iter().find(|(variant, _)| variant == name) {
                Some((_, Some(value))) => Ok(self.inner(*value)),
                _ => Err(E::custom(MISFIT)),
            },
            // An object the node admits, whose entry is left unjudged.
            None => {
                self.container::<E>(Kind::Object)?;
                Ok(self.judge.leave())
            }
        }
    }
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Tagged<'_, '_, V> {
    type Value = V::Value;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        self.inner.expecting(formatter)
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<V::Value, E> {
        self.judging.string(name)?;
        self.inner.visit_enum(StrDeserializer::new(name))
    }

    fn visit_borrowed_str<E: de::Error>(self, name: &'de str) -> Result<V::Value, E> {
        self.judging.string(name)?;
        self.inner.visit_enum(BorrowedStrDeserializer::new(name))
    }

    fn visit_string<E: de::Error>(self, name: String) -> Result<V::Value, E> {
        self.judging.string(&name)?;
        self.inner.visit_enum(StringDeserializer::new(name))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<V::Value, A::Error> {
        let value = self.inner.visit_enum(Entry {
            map: &mut map,
            judging: self.judging,
        })?;
        // serde_json refuses a second entry too.
        match map.next_key::<IgnoredAny>()? {
            None => Ok(value),
            Some(_) => Err(de::Error::custom(MISFIT)),
        }
    }
}

/// The one entry of an object an enum is read from.
struct Entry<'m, 'j, 's, A> {
    map: &'m mut A,
    judging: Judging<'j, 's>,
}

impl<'de, 'm, 'j, 's, A: MapAccess<'de>> EnumAccess<'de> for Entry<'m, 'j, 's, A> {
    type Error = A::Error;
    type Variant = Variant<'m, 'j, 's, A>;

    fn variant_seed<T: DeserializeSeed<'de>>(
        self,
        seed: T,
    ) -> Result<(T::Value, Self::Variant), A::Error> {
        let Some(name) = self.map.next_key::<String>()? else {
            return Err(de::Error::custom(MISFIT));
        };
        let judging = self.judging.variant_value(&name)?;
        let variant = seed.deserialize(StringDeserializer::new(name))?;
        let map = self.map;
        Ok((variant, Variant { map, judging }))
    }
}

/// The value of the variant an object's entry names, judged against its node.
struct Variant<'m, 'j, 's, A> {
    map: &'m mut A,
    judging: Option<Judging<'j, 's>>,
}

impl<'de, A: MapAccess<'de>> VariantAccess<'de> for Variant<'_, '_, '_, A> {
    type Error = A::Error;

    fn unit_variant(self) -> Result<(), A::Error> {
        self.read(PhantomData::<()>)
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, A::Error> {
        self.read(seed)
    }

    fn tuple_variant<V: Visitor<'de>>(
        self,
        length: usize,
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        self.read(Form::Tuple(length, visitor))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        self.read(Form::Struct(fields, visitor))
    }
}

impl<'de, A: MapAccess<'de>> Variant<'_, '_, '_, A> {
    fn read<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, A::Error> {
        self.map.next_value_seed(Seed {
            inner: seed,
            judging: self.judging,
        })
    }
}

/// A tuple or struct variant's value, read as serde_json reads it.
enum Form<V> {
    Tuple(usize, V),
    Struct(&'static [&'static str], V),
}

impl<'de, V: Visitor<'de>> DeserializeSeed<'de> for Form<V> {
    type Value = V::Value;

    fn deserialize<D: Deserializer<'de>>(self, inner: D) -> Result<V::Value, D::Error> {
        match self {
            Form::Tuple(length, visitor) => inner.deserialize_tuple(length, visitor),
            Form::Struct(fields, visitor) => inner.deserialize_struct("", fields, visitor),
        }
    }
}
