//! An array's items and an object's entries, each judged as serde reads it.

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess};

use super::keys::{Key, KeySeed, Named};
use super::{Checked, Judging, MISFIT, fit};
use crate::decode::check::shape::{ANY, Node, OtherKeys};

/// An array's items, each judged against its `prefixItems` or `items` node.
pub(super) struct Items<'j, 's, A> {
    inner: A,
    judging: Judging<'j, 's>,
    index: usize,
}

impl<'j, 's, A> Items<'j, 's, A> {
    pub(super) fn new(inner: A, judging: Judging<'j, 's>) -> Self {
        Self {
            inner,
            judging,
            index: 0,
        }
    }
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

/// An object's entries: each key told apart from the others, each value judged against its
/// property's node, `required` checked at the end.
pub(super) struct Entries<'j, 's, A> {
    inner: A,
    judging: Judging<'j, 's>,
    required: u64,
    given: u64,
    names: Named<'s>,
}

impl<'j, 's, A> Entries<'j, 's, A> {
    /// The entries of an object whose node requires the properties `required` names, a bit each.
    pub(super) fn new(inner: A, judging: Judging<'j, 's>, required: u64) -> Self {
        Self {
            inner,
            judging,
            required,
            given: 0,
            names: Named {
                node: judging.node,
                next: 0,
                key: Key::Unread,
                others: Vec::new(),
            },
        }
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Entries<'_, '_, A> {
    type Error = A::Error;

    #[inline(always)]
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        let node = self.judging.node;
        self.names.key = Key::Unread;
        let read = self.inner.next_key_seed(KeySeed {
            inner: seed,
            named: &mut self.names,
        })?;
        if read.is_none() {
            return fit(self.given & self.required == self.required).map(|()| None);
        }
        self.judging
            .judge
            .spend(1 + node.required.len() + node.properties.len());
        match self.names.key {
            Key::Property(at) if self.given & 1 << at != 0 => {
                return Err(de::Error::custom(MISFIT));
            }
            Key::Property(at) => {
                self.given |= 1 << at;
                self.names.next = at + 1;
            }
            // `Named` refused a key given twice, and one no schema allows is judged with its
            // value (its `null` may stand for its absence).
            Key::Other => {}
            Key::Unread => {
                self.judging.judge.leave::<()>();
            }
        }
        Ok(read)
    }

    #[inline(always)]
    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, A::Error> {
        let node = self.judging.node;
        let judging = match self.names.key {
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
            && match self.names.key {
                Key::Property(at) => self.required & 1 << at == 0,
                _ => true,
            };
        let judging = judging.map(|judging| Judging {
            absent_ok: absent_ok || judging.absent_ok,
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
pub(super) struct Seed<'j, 's, T> {
    pub(super) inner: T,
    pub(super) judging: Option<Judging<'j, 's>>,
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

/// The node no value fits, for a key that `additionalProperties: false` refuses.
static NOTHING: Node = Node::only(Some(0));
