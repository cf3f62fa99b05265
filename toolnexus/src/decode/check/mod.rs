//! Decoded arguments checked against what the plain schema says they are (SPEC §11).
//!
//! serde takes two forms no schema describes: a derived struct also reads an array of its
//! fields in order (`["b", []]` for `Node { name, children }`), and a tag read from buffered
//! content (a flattened internally tagged enum's) may be a variant's index (`{"order": 0}`).
//! serde_json's text deserializer also reads a struct variant from an array. A model is never
//! told it may send these, but a tool that took them would accept what its own schema
//! refuses, so nested arguments that decoded are also checked here against the structure the
//! plain schema states: `type`, `properties`, `required`, `additionalProperties`, `items`,
//! `prefixItems`, and the `$ref`, `allOf`, `anyOf` and `oneOf` around them. And serde knows
//! nothing of the limits a schema states (`#[schemars(range(max = 10))]`), so they are
//! checked here too, at any depth ([`limits`]): `minimum`, `maximum`, `exclusiveMinimum`,
//! `exclusiveMaximum`, `multipleOf`, `minLength`, `maxLength`, `pattern`, `minItems`,
//! `maxItems`, `uniqueItems`, `minProperties`, `maxProperties`, `enum` and `const`.
//!
//! Flat arguments (every value a scalar) can take none of serde's extra forms and are checked
//! only when the schema limits values somewhere (most tools' schemas do not, and pay nothing),
//! or when the root applies schemas to the whole object (a flattened enum's `oneOf`, whose tag
//! serde reads from buffered content): [`Shape::check_for`] decides, for every entry point.
//! And beside a flattened enum serde cannot deny unknown fields at all, so for such a tool
//! [`check_keys`] refuses the keys its schema's closed object (`unevaluatedProperties: false`)
//! does not name.
//!
//! Every check is one JSON Schema itself makes, read as JSON Schema 2020-12 reads it, and a
//! keyword not read here (`format`, `patternProperties`, `dependentRequired`, …) can only let
//! a value through, so nothing the schema admits is refused. The schema is read once per tool
//! into a [`Shape`], limits and patterns compiled, so a check costs a walk of the arguments,
//! not a keyword lookup per value.
//!
//! Argument text is checked in up to two steps: while serde reads it ([`Judge`], `during/`:
//! the text is read once), which only ever says "fits"; failing that, by the walk here over
//! the text read into a [`TextTree`] (which costs less to build than a `Value`), which also
//! words every refusal. So the first makes a verdict cheaper, never different. Text the judged
//! decoding refuses is decoded the reference way, from a `Value`, without the second step.

mod during;
pub(crate) mod limits;
mod plan;
mod shape;
mod tree;

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::Value;

#[cfg(debug_assertions)]
pub use during::judged_text_verdicts;
pub(crate) use during::{Judge, Verdict};
use limits::Keywords;
pub(crate) use shape::ROOT;
pub(crate) use shape::{Check, Shape, named_keys, unread_type};
use shape::{Node, OtherKeys};
use tree::{KINDS, TextTree, Tree, Unread};

use super::error::{at_field, invalid_args, unknown_field};
use crate::result::ToolResult;

/// `$ref`s followed in a row without descending into the value; past it a schema is taken to
/// admit the value (a loop of references says nothing).
const MAX_HOPS: usize = 8;

/// Argument text with more values than this (counting every value inside, and the arguments
/// object) is not read into a [`TextTree`] for the check ([`TextCheck::Reread`]): it is
/// decoded the reference way, from one `Value` that decoding and the check both read, at any
/// size.
const MAX_CHECKED_VALUES: usize = 100_000;

/// Work allowed for one call's arguments, in steps: a subschema visited, or a key of an object
/// compared with its schema's names. A recursive type's definition is checked once per value
/// (see `Checker::seen`), so only branches inside branches of one schema could multiply the
/// work; past the budget the arguments are let through, as serde took them.
const BUDGET: usize = 10_000_000;

/// `Ok` if `args`, an arguments object that decoded, may fit `shape`; else the
/// invalid-arguments result naming where it does not.
pub(crate) fn check_args(tool: &str, shape: &Shape, args: &Value) -> Result<(), ToolResult> {
    check(tool, shape, args)
}

/// [`check_args`] for flat arguments (every value a scalar): each value is judged against its
/// property alone, as it would be while decoding, and only what that cannot vouch for takes
/// the whole check.
pub(crate) fn check_flat(tool: &str, shape: &Shape, args: &Value) -> Result<(), ToolResult> {
    match args {
        Value::Object(object) if Judge::vouches_for_flat(shape, object) => Ok(()),
        _ => check_args(tool, shape, args),
    }
}

/// `Ok` unless decoding checks the arguments object's keys (a tool with a flattened
/// parameter, where serde cannot deny unknown fields, whose schema `tool_schema_of` closed)
/// and `args` has a key the schema does not name.
pub(crate) fn check_keys(tool: &str, shape: &Shape, args: &Value) -> Result<(), ToolResult> {
    let (Some(known), Value::Object(args)) = (&shape.closed_keys, args) else {
        return Ok(());
    };
    match args.keys().find(|key| !known.contains(key)) {
        None => Ok(()),
        Some(key) => Err(invalid_args(tool, unknown_field(key, known))),
    }
}

/// What [`check_text`] found.
pub(crate) enum TextCheck {
    Fits,
    Refused(ToolResult),
    /// The text was not read: an object inside names a key twice, which serde took (the last
    /// one wins in a map) and the reference decoding refuses, or it holds more values than are
    /// checked, past which a key given twice would go unseen. The caller decodes the text the
    /// reference way instead, which decides both alike whatever the order of the keys.
    Reread,
}

/// [`check_args`] for argument text that decoded.
pub(crate) fn check_text(tool: &str, shape: &Shape, text: &str) -> TextCheck {
    match TextTree::read(text, MAX_CHECKED_VALUES) {
        Ok(args) => match check(tool, shape, &args) {
            Ok(()) => TextCheck::Fits,
            Err(refused) => TextCheck::Refused(refused),
        },
        Err(Unread::DuplicateKey | Unread::Other) => TextCheck::Reread,
    }
}

fn check<T: Tree>(tool: &str, shape: &Shape, args: &T) -> Result<(), ToolResult> {
    check_within(tool, shape, args, BUDGET)
}

fn check_within<T: Tree>(
    tool: &str,
    shape: &Shape,
    args: &T,
    budget: usize,
) -> Result<(), ToolResult> {
    let checker = Checker::new(shape, budget);
    match checker.value(&shape.nodes[ROOT], args, 0, NullMeansAbsent::Yes) {
        None => Ok(()),
        Some(mismatch) => Err(mismatch.into_result(tool)),
    }
}

/// Where a value first breaks its schema, and how.
#[derive(Clone, PartialEq)]
struct Mismatch {
    /// From the place of the mismatch out to the arguments object (innermost first).
    path: Vec<Step>,
    problem: Problem,
}

#[derive(Clone, PartialEq)]
enum Step {
    Key(String),
    Index(usize),
}

#[derive(Clone, PartialEq)]
enum Problem {
    Type { found: String, expected: u8 },
    Other(String),
}

impl Mismatch {
    fn here(problem: Problem) -> Self {
        Self {
            path: Vec::new(),
            problem,
        }
    }

    fn inside(mut self, step: Step) -> Self {
        self.path.push(step);
        self
    }

    fn into_result(self, tool: &str) -> ToolResult {
        let message = match self.problem {
            Problem::Type { found, expected } => {
                let names: Vec<&str> = KINDS
                    .iter()
                    .filter(|(kind, _)| expected & *kind as u8 != 0)
                    .map(|(_, name)| *name)
                    .collect();
                format!("invalid type: {found}, expected {}", names.join(" or "))
            }
            Problem::Other(message) => message,
        };
        // The same spelling as serde's paths: `order.items[0].quantity`.
        let mut at = String::new();
        for step in self.path.iter().rev() {
            match step {
                Step::Key(key) if at.is_empty() => at.push_str(key),
                Step::Key(key) => {
                    let _ = write!(at, ".{key}");
                }
                Step::Index(index) => {
                    let _ = write!(at, "[{index}]");
                }
            }
        }
        at_field(tool, &at, message)
    }
}

/// Whether `null` for a key that is not required means the key is absent: true of the
/// arguments object itself (SPEC §5), not of the objects inside it.
#[derive(Clone, Copy)]
enum NullMeansAbsent {
    Yes,
    No,
}

struct Checker<'s> {
    shape: &'s Shape,
    budget: Cell<usize>,
    /// Whether the budget ran out, letting the arguments through unchecked.
    exhausted: Cell<bool>,
    /// What a `$ref`'s target found for a value, by (node, the value's address): under
    /// `anyOf`, every branch of a recursive type checks the same children against the same
    /// definition, which without this takes time exponential in the depth.
    seen: RefCell<BTreeMap<(usize, usize), Option<Mismatch>>>,
}

impl<'s> Checker<'s> {
    fn new(shape: &'s Shape, budget: usize) -> Self {
        Self {
            shape,
            budget: Cell::new(budget),
            exhausted: Cell::new(false),
            seen: RefCell::new(BTreeMap::new()),
        }
    }

    /// Where `value` certainly breaks `node`, or `None`. `nulls` says how an object's `null`s
    /// read: the subschemas applied to this same value read them alike.
    fn value<T: Tree>(
        &self,
        node: &Node,
        value: &T,
        hops: usize,
        nulls: NullMeansAbsent,
    ) -> Option<Mismatch> {
        self.spend(1)?;
        if node.nothing {
            return Some(Mismatch::here(Problem::Other(
                "no value is allowed here".to_owned(),
            )));
        }
        if let Some(target) = node.reference.filter(|_| hops < MAX_HOPS) {
            if let Some(mismatch) = self.reference(target, value, hops, nulls) {
                return Some(mismatch);
            }
        }
        for part in &node.all_of {
            if let Some(mismatch) = self.value(&self.shape.nodes[*part], value, hops, nulls) {
                return Some(mismatch);
            }
        }
        for branches in &node.alternatives {
            if let Some(mismatch) = self.branches(branches, value, hops, nulls) {
                return Some(mismatch);
            }
        }
        if let Some(kinds) = node.kinds {
            if kinds & value.kinds() == 0 {
                return Some(Mismatch::here(Problem::Type {
                    found: value.describe(),
                    expected: kinds,
                }));
            }
        }
        if let Some(problem) = unlisted(node, value) {
            return Some(Mismatch::here(problem));
        }
        if let Some(limits) = &node.limits {
            if let Some(problem) = self.limits(node, limits, value, nulls) {
                return Some(Mismatch::here(Problem::Other(problem)));
            }
        }
        if let Some(items) = value.items() {
            return self.items(node, items);
        }
        self.object(node, value, nulls)
    }

    /// How `value` breaks `node`'s [`Keywords`], if it does.
    fn limits<T: Tree>(
        &self,
        node: &Node,
        limits: &Keywords,
        value: &T,
        nulls: NullMeansAbsent,
    ) -> Option<String> {
        // A key whose `null` means it is absent is not counted.
        let properties = value.entries().map(|entries| {
            entries
                .filter(|(key, child)| !absent(node, nulls, key, *child))
                .count()
        });
        // Comparing the items of a long array costs a pass over them.
        self.spend(value.items().map_or(0, <[T]>::len))?;
        limits.check(value, properties)
    }

    /// Spends `steps` of the budget; `None` when it is spent, which lets the arguments through.
    fn spend(&self, steps: usize) -> Option<()> {
        let Some(left) = self.budget.get().checked_sub(steps) else {
            self.exhausted.set(true);
            return None;
        };
        self.budget.set(left);
        Some(())
    }

    /// A `$ref`'s target checked against `value`, once per value.
    fn reference<T: Tree>(
        &self,
        target: usize,
        value: &T,
        hops: usize,
        nulls: NullMeansAbsent,
    ) -> Option<Mismatch> {
        // The value's address names it for as long as the arguments are checked.
        let key = (target, std::ptr::from_ref(value) as usize);
        if let Some(found) = self.seen.borrow().get(&key) {
            return found.clone();
        }
        let found = self.value(&self.shape.nodes[target], value, hops + 1, nulls);
        self.seen.borrow_mut().insert(key, found.clone());
        found
    }

    /// `anyOf`/`oneOf`: a mismatch only when every branch has one. The report is the branch
    /// that got furthest into the value, when one did; else what they expected together.
    fn branches<T: Tree>(
        &self,
        branches: &[usize],
        value: &T,
        hops: usize,
        nulls: NullMeansAbsent,
    ) -> Option<Mismatch> {
        let mut mismatches = Vec::with_capacity(branches.len());
        for branch in branches {
            mismatches.push(self.value(&self.shape.nodes[*branch], value, hops, nulls)?);
        }
        let deepest = mismatches
            .iter()
            .map(|mismatch| mismatch.path.len())
            .max()?;
        if deepest > 0 {
            let mut furthest = mismatches
                .into_iter()
                .filter(|mismatch| mismatch.path.len() == deepest);
            let first = furthest.next()?;
            // Branches that break at one place for one reason agree on what to report.
            if furthest.all(|other| other == first) {
                return Some(first);
            }
            return Some(none_of(value));
        }
        let mut expected = 0;
        for mismatch in mismatches {
            match mismatch.problem {
                Problem::Type {
                    expected: kinds, ..
                } => expected |= kinds,
                Problem::Other(_) => return Some(none_of(value)),
            }
        }
        Some(Mismatch::here(Problem::Type {
            found: value.describe(),
            expected,
        }))
    }

    /// Where `value`, if it is an object, breaks `node`'s object keywords (`required`,
    /// `properties`, the other keys); `None` for any other value.
    fn object<T: Tree>(&self, node: &Node, value: &T, nulls: NullMeansAbsent) -> Option<Mismatch> {
        let entries = value.entries()?;
        // Each key is compared with the names `node` has; a hostile object has many keys.
        let names = 1 + node.required.len() + node.properties.len();
        self.spend(value.entries()?.count().saturating_mul(names))?;
        // Objects here are a struct's few fields: comparing keys beats hashing each name.
        if let Some(name) = node.required.iter().find(|name| {
            !value
                .entries()
                .is_some_and(|mut entries| entries.any(|(key, _)| key == name.as_str()))
        }) {
            return Some(Mismatch::here(Problem::Other(format!(
                "missing field `{name}`"
            ))));
        }
        for (key, child) in entries {
            if absent(node, nulls, key, child) {
                continue;
            }
            let property = node
                .properties
                .iter()
                .find(|(name, _)| name == key)
                .map(|(_, property)| *property);
            let subschema = match (property, &node.other_keys) {
                (Some(property), _) => property,
                (None, OtherKeys::Anything) => continue,
                (None, OtherKeys::Nothing) => {
                    return Some(Mismatch::here(Problem::Other(format!(
                        "unknown field `{key}`"
                    ))));
                }
                (None, OtherKeys::Schema(other)) => *other,
            };
            let child_node = &self.shape.nodes[subschema];
            if let Some(mismatch) = self.value(child_node, child, 0, NullMeansAbsent::No) {
                return Some(mismatch.inside(Step::Key(key.to_owned())));
            }
        }
        None
    }

    fn items<T: Tree>(&self, node: &Node, items: &[T]) -> Option<Mismatch> {
        for (index, item) in items.iter().enumerate() {
            let Some(subschema) = node.prefix_items.get(index).copied().or(node.items) else {
                continue;
            };
            let item_node = &self.shape.nodes[subschema];
            if let Some(mismatch) = self.value(item_node, item, 0, NullMeansAbsent::No) {
                return Some(mismatch.inside(Step::Index(index)));
            }
        }
        None
    }
}

/// How `value` is not among the values `node` lists (`enum`, `const`), if it is not.
fn unlisted<T: Tree>(node: &Node, value: &T) -> Option<Problem> {
    let listed = node.listed.as_ref()?;
    if limits::listed_in(value, listed) {
        return None;
    }
    let listed: Vec<String> = listed.iter().map(Value::to_string).collect();
    Some(Problem::Other(format!(
        "invalid value: {}, expected {}",
        value.describe(),
        listed.join(" or ")
    )))
}

/// How a scalar breaks what its own node lists or limits: all of a [`Flat::Own`] node that a
/// scalar serde decoded can break (its type serde already holds to), in the order and words of
/// the whole check.
fn scalar_problem<T: Tree>(node: &Node, value: &T) -> Option<Problem> {
    if let Some(problem) = unlisted(node, value) {
        return Some(problem);
    }
    node.limits.as_ref()?.check(value, None).map(Problem::Other)
}

/// Whether the entry `key: child` of an object `node` describes stands for an absent key.
fn absent<T: Tree>(node: &Node, nulls: NullMeansAbsent, key: &str, child: &T) -> bool {
    matches!(nulls, NullMeansAbsent::Yes)
        && child.is_null()
        && !node.required.iter().any(|name| name == key)
}

fn none_of<T: Tree>(value: &T) -> Mismatch {
    Mismatch::here(Problem::Other(format!(
        "invalid value: {} matches none of the forms its schema allows",
        value.describe()
    )))
}

#[cfg(test)]
mod during_tests;
#[cfg(all(test, feature = "mcp-client"))]
mod hostile_tests;
#[cfg(test)]
mod suite_tests;
#[cfg(test)]
mod tests;
