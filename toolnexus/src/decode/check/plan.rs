//! The plan of the check made while serde reads ([`during`](super::during)): which node
//! judges a value of each, read once per tool beside the [`Shape`].

use super::MAX_HOPS;
use super::shape::{OtherKeys, Shape};
use super::tree::Kind;

impl Shape {
    /// Sets each node's [`Node::variants`], [`Node::judged_by`], [`Node::null_fits`],
    /// [`Node::required_properties`] and [`Node::integers`].
    pub(super) fn plan_judging(&mut self) {
        // First, as a node judged by an enum's variants is a plain end like any other.
        for index in 0..self.nodes.len() {
            self.nodes[index].variants = self.variants(index);
        }
        for index in 0..self.nodes.len() {
            let (judged_by, null_fits) = match self.plain_end(index) {
                Some(at) => (Some(at), false),
                None => match self.nullable(index) {
                    Some(at) => (Some(at), true),
                    None => (None, false),
                },
            };
            let node = &self.nodes[index];
            let plain_names = node.properties.len() <= 64
                && !node
                    .properties
                    .iter()
                    .any(|(name, _)| name.contains(['"', '\\']));
            let required = plain_names
                .then(|| {
                    node.required.iter().try_fold(0_u64, |mask, name| {
                        let at = node.properties.iter().position(|(key, _)| key == name)?;
                        Some(mask | 1 << at)
                    })
                })
                .flatten();
            let integers = match (&node.listed, &node.limits) {
                _ if node.variants.is_some() => None,
                (Some(_), _) => None,
                (None, None) => Some((i128::MIN, i128::MAX)),
                (None, Some(limits)) => limits.integer_range(),
            };
            let node = &mut self.nodes[index];
            node.judged_by = judged_by;
            node.null_fits = null_fits;
            node.required_properties = required;
            node.integers = integers;
        }
    }

    /// The node at `index`, or the end of the `$ref`s it is nothing but, when that node reads
    /// a value alone (no `anyOf`, `oneOf`, `allOf` or `$ref` beside its other keywords) or is
    /// an enum's [`Node::variants`].
    fn plain_end(&self, index: usize) -> Option<usize> {
        let mut at = index;
        // The tree check follows as many; past them it knows what the references admit.
        for _ in 0..MAX_HOPS {
            match self.nodes[at].only_reference() {
                Some(target) => at = target,
                None => break,
            }
        }
        let end = &self.nodes[at];
        (!end.nothing && (!end.applies_others() || end.variants.is_some())).then_some(at)
    }

    /// For `anyOf`/`oneOf` of a schema `X` and `{"type": "null"}` alone (an `Option` of a
    /// struct), the plain end of `X`, when `X`'s type refuses `null`: then `null` fits exactly
    /// one branch, and any other value fits exactly when it fits `X`, whichever keyword it is.
    fn nullable(&self, index: usize) -> Option<usize> {
        let node = &self.nodes[index];
        let [branches] = node.alternatives.as_slice() else {
            return None;
        };
        let [first, second] = branches.as_slice() else {
            return None;
        };
        let just_null = |at: usize| {
            let branch = &self.nodes[at];
            branch.says_only_kinds(false) && branch.kinds == Some(Kind::Null as u8)
        };
        let other = match (just_null(*first), just_null(*second)) {
            (false, true) => *first,
            (true, false) => *second,
            _ => return None,
        };
        if !node.says_only_kinds(true) || node.kinds.is_some() {
            return None;
        }
        let end = self.plain_end(other)?;
        let end_node = &self.nodes[end];
        let refuses_null = end_node.variants.is_some()
            || end_node
                .kinds
                .is_some_and(|kinds| kinds & Kind::Null as u8 == 0);
        refuses_null.then_some(end)
    }

    /// For the `oneOf` (or `anyOf`) that schemars writes for an externally tagged enum, each
    /// branch either a string of listed names (unit variants) or a closed object of one
    /// required property (the others), each name once: the name of every variant and the
    /// node of its value (`None` for a unit variant). A value then fits at most one branch.
    fn variants(&self, index: usize) -> Option<Vec<(String, Option<usize>)>> {
        let node = &self.nodes[index];
        let [branches] = node.alternatives.as_slice() else {
            return None;
        };
        if !node.says_only_kinds(true) || node.kinds.is_some() {
            return None;
        }
        let mut variants = Vec::new();
        for branch in branches {
            let branch = &self.nodes[self.plain_end(*branch)?];
            let bare =
                branch.limits.is_none() && branch.items.is_none() && branch.prefix_items.is_empty();
            match (branch.kinds?, &branch.listed, branch.properties.as_slice()) {
                (kinds, Some(names), [])
                    if kinds == Kind::String as u8
                        && bare
                        && branch.required.is_empty()
                        && matches!(branch.other_keys, OtherKeys::Anything) =>
                {
                    for name in names {
                        variants.push((name.as_str()?.to_owned(), None));
                    }
                }
                (kinds, None, [(name, value)])
                    if kinds == Kind::Object as u8
                        && bare
                        && branch.required == [name.as_str()]
                        && matches!(branch.other_keys, OtherKeys::Nothing) =>
                {
                    variants.push((name.clone(), Some(*value)));
                }
                _ => return None,
            }
        }
        let mut names: Vec<&str> = variants.iter().map(|(name, _)| name.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        (names.len() == variants.len()).then_some(variants)
    }
}
