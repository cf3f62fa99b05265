//! The schema check made while serde reads a nested argument from text, so that the text is
//! read once.
//!
//! A [`Judge`] wraps serde_json's deserializer: every value serde reads passes through it on
//! the way to the type's visitor and is judged against its subschema's node: type, listed
//! values, a scalar's limits, properties, `required`, the other keys, items, and an
//! externally tagged enum's variants (`variants.rs`). What needs a whole value first (other
//! `anyOf`, `oneOf` and `allOf`, a `$ref` beside other keywords, an array's or object's own
//! limits), what serde reads in a form this does not follow (bytes, a key read as a number,
//! an `f32`), and a budget run out leave the judge unsure, and the text takes the check
//! after decoding as before. A value that misfits fails the decoding, and the caller decodes
//! the text again the way it did before this existed, so the outcome and the words of a
//! refusal never depend on it.

use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

use super::shape::{Node, ROOT, Shape};
use super::tree::{Kind, TextTree, Tree, View};
use super::{BUDGET, scalar_problem};

mod entries;
mod keys;
mod variants;
#[cfg(debug_assertions)]
mod verdicts;

use entries::{Entries, Items};
#[cfg(debug_assertions)]
pub use verdicts::judged_text_verdicts;

/// The check made during one decoding: whether everything read was judged, and fit.
pub(crate) struct Judge<'s> {
    shape: &'s Shape,
    unsure: Cell<bool>,
    budget: Cell<usize>,
}

/// What the judge says of a judged decoding of text.
pub(crate) enum Verdict<T> {
    /// Everything read was judged, and fit: nothing is left to check.
    Vouched(T),
    /// It decoded, but not everything in it was judged: the tree check decides.
    Unsure(T),
    /// It did not decode (a value the schema refuses, or one serde refuses): the text is
    /// decoded the reference way, which decides and words the refusal.
    Refused,
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

    /// The node of the arguments object's property `key`.
    pub(crate) fn property(&self, key: &str) -> Option<usize> {
        let root = &self.shape.nodes[ROOT];
        let (_, at) = root.properties.iter().find(|(name, _)| name == key)?;
        Some(*at)
    }

    /// The keys the arguments object must have.
    pub(crate) fn required(&self) -> &'s [String] {
        self.shape.required()
    }

    /// Whether flat arguments (every value a scalar, as decoded) certainly fit: each value
    /// judged against its property's node, as it would be while decoding; `false` when only
    /// the tree check can tell. For a shape whose flat arguments are judged
    /// ([`Check::Judge`](super::Check::Judge)).
    pub(crate) fn vouches_for_flat(shape: &'s Shape, args: &Map<String, Value>) -> bool {
        let judge = Self::new(shape);
        let root = &shape.nodes[ROOT];
        // A judge of parameters has them: at most 64 properties, a bit each.
        let Some(required) = root.required_properties else {
            return false;
        };
        let mut given = 0_u64;
        for (key, value) in args {
            if matches!(value, Value::Array(_) | Value::Object(_)) {
                return false;
            }
            let Some(at) = root.properties.iter().position(|(name, _)| name == key) else {
                return false;
            };
            given |= 1 << at;
            let Some(judging) = judge.judging(root.properties[at].1, false) else {
                return false;
            };
            if judging.scalar::<serde_json::Error, _>(value).is_err() {
                return false;
            }
        }
        given & required == required && !judge.unsure.get()
    }

    /// What the judge says of `decoded`, the judged decoding of some text (`None` when it
    /// failed). Counted in debug builds ([`judged_text_verdicts`]).
    pub(crate) fn verdict<T>(&self, decoded: Option<T>) -> Verdict<T> {
        let verdict = match decoded {
            Some(decoded) if self.unsure.get() => Verdict::Unsure(decoded),
            Some(decoded) => Verdict::Vouched(decoded),
            None => Verdict::Refused,
        };
        #[cfg(debug_assertions)]
        verdicts::count(match verdict {
            Verdict::Vouched(_) => 0,
            Verdict::Unsure(_) => 1,
            Verdict::Refused => 2,
        });
        verdict
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
        let node = &self.shape.nodes[index];
        match node.judged_by {
            Some(at) => Some(Judging {
                judge: self,
                node: &self.shape.nodes[at],
                absent_ok: node.null_fits,
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
    /// A `null` here fits whatever `node` says: it stands for an absent key (at the top of the
    /// arguments), or the node is a nullable `anyOf` (`Node::null_fits`).
    absent_ok: bool,
    /// This is the arguments object: a `null` for a key it does not require is no value.
    top: bool,
}

impl<'s> Judging<'_, 's> {
    /// Whether a string is judged by more than its kind.
    fn judged(self) -> bool {
        self.node.listed.is_some() || self.node.limits.is_some() || self.node.variants.is_some()
    }

    #[inline(always)]
    fn string<E: de::Error>(self, text: &str) -> Result<(), E> {
        if self.judged() {
            return self.judged_string(text);
        }
        fit(self.node.allows(Kind::String as u8))
    }

    /// A string judged by more than its kind. Out of line, so that the visitor of a string
    /// judged by its kind alone stays small enough for serde's own code to be inlined in it.
    #[inline(never)]
    fn judged_string<E: de::Error>(self, text: &str) -> Result<(), E> {
        self.scalar(&TextTree::String(Cow::Borrowed(text)))
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
                fit(self.node.allows(integral) && low <= integer && integer <= high)
            }
            None => self.scalar(&TextTree::Number(number())),
        }
    }

    fn scalar<E: de::Error, T: Tree>(self, value: &T) -> Result<(), E> {
        self.judge.spend(1);
        if self.absent_ok && value.is_null() {
            return Ok(());
        }
        let node = self.node;
        // Of an enum's variants, a scalar can only be a unit variant's name.
        if let Some(variants) = &node.variants {
            let named = |name: &str| variants.iter().any(|(v, of)| of.is_none() && v == name);
            return fit(matches!(value.view(), View::String(name) if named(name)));
        }
        fit(node.allows(value.kinds()) && scalar_problem(node, value).is_none())
    }

    /// Whether an array or object may be judged entry by entry: its own node neither lists
    /// values nor limits it as a whole, and admits its kind.
    fn container<E: de::Error>(self, kind: Kind) -> Result<Option<Self>, E> {
        self.judge.spend(1);
        if self.judged() {
            return Ok(self.judge.leave());
        }
        fit(self.node.allows(kind as u8)).map(|()| Some(self))
    }

    /// The judging of a value inside this one, at the node at `index`.
    #[inline(always)]
    fn inner(self, index: usize) -> Option<Self> {
        let shape = self.judge.shape;
        let node = &shape.nodes[index];
        match node.judged_by {
            Some(at) => Some(Judging {
                node: &shape.nodes[at],
                absent_ok: node.null_fits,
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
        deserialize_f64(); deserialize_char(); deserialize_str();
        deserialize_string(); deserialize_bytes(); deserialize_byte_buf(); deserialize_option();
        deserialize_unit(); deserialize_unit_struct(name: &'static str); deserialize_seq();
        deserialize_tuple(length: usize);
        deserialize_tuple_struct(name: &'static str, length: usize); deserialize_map();
        deserialize_struct(name: &'static str, fields: &'static [&'static str]);
        deserialize_identifier();
    }

    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        // serde_json reads an `f32` rounded to single precision, so the visitor sees a number
        // other than the text's (past a bound the text is not, or whole where it is not).
        if let Some(judging) = self.judging {
            judging.judge.leave::<()>();
        }
        self.inner.deserialize_f32(visitor)
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
        match self.judging {
            // The two forms serde_json reads an enum from, a variant's name or an object of
            // one entry, read as any value is, and handed to the visitor as serde_json does.
            Some(judging) => self.inner.deserialize_any(variants::Tagged {
                inner: visitor,
                judging,
            }),
            None => self.inner.deserialize_enum(name, variants, visitor),
        }
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
        self.judging.scalar(&TextTree::Bool(flag))?;
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
            Some(number) => self.judging.scalar(&TextTree::Number(number))?,
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
        self.judging.scalar(&TextTree::Null)?;
        self.inner.visit_none()
    }

    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.judging.scalar(&TextTree::Null)?;
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
            Some(judging) => self.inner.visit_seq(Items::new(seq, judging)),
            None => self.inner.visit_seq(seq),
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        let judging = self.judging.container(Kind::Object)?;
        match judging.zip(self.judging.node.required_properties) {
            Some((judging, required)) => self.inner.visit_map(Entries::new(map, judging, required)),
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
