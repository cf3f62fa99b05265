//! An input schema read once into the terms the check uses: one [`Node`] per subschema,
//! `$ref`s resolved to the node they name, `type` as bits.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::limits::{Keywords, Origin, listed_in};
use super::tree::KINDS;
use crate::decode::schema::resolve_reference;

/// An input schema's structure, read once: one [`Node`] per subschema, `$ref`s resolved to
/// the node they name.
#[derive(Debug)]
pub(crate) struct Shape {
    pub(super) nodes: Vec<Node>,
    /// The keys the arguments object may have, when decoding checks them (a tool with a
    /// flattened parameter, whose root [`tool_schema_of`](crate::decode::schema::tool_schema_of)
    /// closed): see [`named_keys`].
    pub(super) closed_keys: Option<Vec<String>>,
    /// Whether even flat arguments (every value a scalar) are checked: some subschema states
    /// a limit or lists values (`enum`, `const`), or the root applies schemas to the whole
    /// object. `false` for most tools, which then skip the check of flat arguments entirely.
    flat_checked: bool,
    /// Whether the root states nothing beyond its properties and `required`, so that the
    /// values of its keys can be judged one at a time as they decode (`during/`).
    parameters_judged: bool,
}

/// The index of the root node in [`Shape::nodes`].
pub(crate) const ROOT: usize = 0;

/// What one subschema says, in the terms this check reads.
#[derive(Debug, Default)]
pub(super) struct Node {
    /// The `false` schema: no value.
    pub(super) nothing: bool,
    /// `type`, as a set of `Kind` bits; `None` admits every kind.
    pub(super) kinds: Option<u8>,
    /// `const` or `enum`, when given.
    pub(super) listed: Option<Vec<Value>>,
    /// The validation keywords, when it has any.
    pub(super) limits: Option<Box<Keywords>>,
    pub(super) reference: Option<usize>,
    pub(super) all_of: Vec<usize>,
    /// `anyOf`, then `oneOf`: each a list of branches, one of which must hold.
    pub(super) alternatives: Vec<Vec<usize>>,
    pub(super) required: Vec<String>,
    pub(super) properties: Vec<(String, usize)>,
    pub(super) other_keys: OtherKeys,
    pub(super) prefix_items: Vec<usize>,
    pub(super) items: Option<usize>,
    /// The node the check during decoding (`during.rs`) judges a value of this one by:
    /// itself, the end of the `$ref`s it is nothing but, or the branch of a nullable `anyOf`
    /// (see `null_fits`); `None` when the value must be read whole.
    pub(super) judged_by: Option<usize>,
    /// Whether `null` fits it whatever `judged_by` says: an `Option` of a struct's
    /// `anyOf: [{"$ref": …}, {"type": "null"}]`.
    pub(super) null_fits: bool,
    /// A bit per property, set for the required ones; `None` when some required name is no
    /// property, there are more than 64, or a name holds a quote or backslash.
    pub(super) required_properties: Option<u64>,
    /// The integers it admits, when only whole bounds limit them (or nothing does) and it
    /// lists no values: what the check during decoding compares an integer with.
    pub(super) integers: Option<(i128, i128)>,
    /// An externally tagged enum's variants, each name with the node of its value (`None`
    /// for a unit variant, sent as its name alone): see `Shape::variants` (`plan.rs`).
    pub(super) variants: Option<Vec<(String, Option<usize>)>>,
}

impl Node {
    /// A node that says nothing but its `kinds`, planned for the check during decoding:
    /// `None`, the schema `true`; `Some(0)`, a schema no value fits.
    pub(super) const fn only(kinds: Option<u8>) -> Node {
        Node {
            nothing: false,
            kinds,
            listed: None,
            limits: None,
            reference: None,
            all_of: Vec::new(),
            alternatives: Vec::new(),
            required: Vec::new(),
            properties: Vec::new(),
            other_keys: OtherKeys::Anything,
            prefix_items: Vec::new(),
            items: None,
            judged_by: None,
            null_fits: false,
            required_properties: Some(0),
            integers: Some((i128::MIN, i128::MAX)),
            variants: None,
        }
    }

    /// Whether it applies other subschemas to the same value.
    pub(super) fn applies_others(&self) -> bool {
        self.reference.is_some() || !self.all_of.is_empty() || !self.alternatives.is_empty()
    }

    /// Whether its type admits a value of one of `kinds`.
    pub(super) fn allows(&self, kinds: u8) -> bool {
        self.kinds.is_none_or(|allowed| allowed & kinds != 0)
    }

    /// Whether it says nothing but its `type` (and, when `alternatives`, its `anyOf`/`oneOf`).
    pub(super) fn says_only_kinds(&self, alternatives: bool) -> bool {
        let Node {
            nothing: false,
            listed: None,
            limits: None,
            reference: None,
            other_keys: OtherKeys::Anything,
            items: None,
            ..
        } = self
        else {
            return false;
        };
        self.all_of.is_empty()
            && self.required.is_empty()
            && self.properties.is_empty()
            && self.prefix_items.is_empty()
            && (alternatives || self.alternatives.is_empty())
    }

    /// The target of a node that is nothing but a `$ref`.
    pub(super) fn only_reference(&self) -> Option<usize> {
        let Node {
            nothing: false,
            kinds: None,
            listed: None,
            limits: None,
            reference: Some(target),
            all_of,
            alternatives,
            required,
            properties,
            other_keys: OtherKeys::Anything,
            prefix_items,
            items: None,
            ..
        } = self
        else {
            return None;
        };
        let alone = all_of.is_empty()
            && alternatives.is_empty()
            && required.is_empty()
            && properties.is_empty()
            && prefix_items.is_empty();
        alone.then_some(*target)
    }
}

/// What a value no subschema reads is judged against during decoding.
pub(super) static ANY: Node = Node::only(None);

/// What a key `properties` does not name may hold.
#[derive(Debug, Default)]
pub(super) enum OtherKeys {
    #[default]
    Anything,
    /// `additionalProperties: false`.
    Nothing,
    Schema(usize),
}

impl Shape {
    /// Reads `root`, a schema this crate did not generate (a question's, §10B), every bound
    /// of it checked; `checks_keys` when decoding must refuse the keys it does not name.
    pub(crate) fn of(root: &Map<String, Value>, checks_keys: bool) -> Self {
        Self::read(root, checks_keys, Origin::Given)
    }

    /// The keys the root object requires.
    pub(crate) fn required(&self) -> &[String] {
        &self.nodes[ROOT].required
    }

    /// The keys the root object requires, a bit each at its position in `keys`; `None` when
    /// one is past the 64th or not among them.
    pub(crate) fn required_bits(&self, keys: &[&str]) -> Option<u64> {
        let at = |name: &String| {
            keys.iter()
                .position(|key| key == name)
                .filter(|at| *at < 64)
        };
        (self.required().iter()).try_fold(0, |bits, name| Some(bits | 1 << at(name)?))
    }

    /// [`Self::of`] for a schema this crate generated, leaving out the bounds it marks.
    pub(crate) fn of_generated(root: &Map<String, Value>, checks_keys: bool) -> Self {
        Self::read(root, checks_keys, Origin::Generated)
    }

    /// [`Self::of`] for a remote MCP tool's input schema (SPEC §13), leaving its `pattern`s to
    /// the server's own regex engine: a Python server's `(?i)^abc$` is no ECMA-262 pattern,
    /// and a backtracking match of one nobody here wrote can hang the agent (`^(a+)+$` took
    /// 1.2 s at 26 characters in regress, doubling with each one more).
    #[cfg(feature = "mcp-client")]
    pub(crate) fn of_remote(root: &Map<String, Value>) -> Self {
        Self::read(root, false, Origin::Remote)
    }

    fn read(root: &Map<String, Value>, checks_keys: bool, origin: Origin) -> Self {
        // A metaschema of the server's own may mean other things by each keyword, or nothing:
        // the check then reads none of them, and leaves them to the server.
        let known = match root.get("$schema") {
            Some(Value::String(dialect)) => known_dialect(dialect),
            _ => true,
        };
        let whole = Value::Object(if known { root.clone() } else { Map::new() });
        let mut reader = Reader {
            root: &whole,
            nodes: Vec::new(),
            references: BTreeMap::new(),
            origin,
        };
        reader.node(&whole);
        let closed_keys = (checks_keys && known).then(|| named_keys(&whole)).flatten();
        let limited = reader
            .nodes
            .iter()
            .any(|node| node.limits.is_some() || node.listed.is_some());
        // A flattened enum's `oneOf`, whose tag serde reads from buffered content, where an
        // integer is a variant's index.
        let root = &reader.nodes[ROOT];
        let whole = root.applies_others();
        let mut shape = Self {
            nodes: reader.nodes,
            closed_keys,
            flat_checked: limited || whole,
            parameters_judged: false,
        };
        shape.plan_judging();
        let root = &shape.nodes[ROOT];
        shape.parameters_judged = root.judged_by == Some(ROOT)
            && root.listed.is_none()
            && root.limits.is_none()
            && root.required_properties.is_some();
        shape
    }

    /// How arguments are checked against this schema: the one place decoding decides, for
    /// both entry points and both decoding strategies. `nested` when some argument is (for
    /// text, may be) an array or an object; `text` when the arguments are yet to be read from
    /// text, so they can be judged as they are read (the judge takes a `Value` only when it is
    /// flat, a value at a time).
    ///
    /// Flat arguments can take none of serde's extra forms, so they need a check only when
    /// some subschema limits values or the root applies schemas to the whole object.
    #[inline]
    pub(crate) fn check_for(&self, nested: bool, text: bool) -> Check {
        if !nested && !self.flat_checked {
            Check::Nothing
        } else if self.parameters_judged && (text || !nested) {
            Check::Judge
        } else {
            Check::Tree
        }
    }
}

/// How one call's decoded arguments are held to their schema ([`Shape::check_for`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Check {
    /// Nothing serde accepted can break the schema.
    Nothing,
    /// Judged (`Judge`) as serde reads the text, or, for a flat `Value`, a value at a time;
    /// what the judge does not vouch for takes the tree check, and text the judged decoding
    /// refuses is decoded the reference way.
    Judge,
    /// The tree check of the arguments as a `Value` (`check_args`).
    Tree,
}

struct Reader<'s> {
    root: &'s Value,
    nodes: Vec<Node>,
    /// The node each `$ref` already read stands for, so a recursive type is read once.
    references: BTreeMap<String, Option<usize>>,
    /// Who wrote the schema.
    origin: Origin,
}

impl Reader<'_> {
    /// Reads `schema` into a new node; its index.
    fn node(&mut self, schema: &Value) -> usize {
        let at = self.nodes.len();
        self.nodes.push(Node::default());
        let node = match schema {
            Value::Object(schema) => self.read(schema),
            Value::Bool(false) => Node {
                nothing: true,
                ..Node::default()
            },
            _ => Node::default(),
        };
        self.nodes[at] = node;
        at
    }

    fn nodes(&mut self, schemas: Option<&Value>) -> Vec<usize> {
        match schemas {
            Some(Value::Array(schemas)) => schemas.iter().map(|schema| self.node(schema)).collect(),
            _ => Vec::new(),
        }
    }

    fn read(&mut self, schema: &Map<String, Value>) -> Node {
        let reference = match schema.get("$ref") {
            Some(Value::String(reference)) => self.reference(reference),
            _ => None,
        };
        let listed = match (schema.get("const"), schema.get("enum")) {
            (Some(constant), _) => Some(vec![constant.clone()]),
            (None, Some(Value::Array(options))) => Some(options.clone()),
            _ => None,
        };
        // Both must hold: a `const` the `enum` does not list leaves no value.
        let nothing = match (schema.get("const"), schema.get("enum")) {
            (Some(constant), Some(Value::Array(options))) => !listed_in(constant, options),
            _ => false,
        };
        let alternatives = ["anyOf", "oneOf"]
            .into_iter()
            .filter(|key| schema.contains_key(*key))
            .map(|key| self.nodes(schema.get(key)))
            .collect();
        let properties = match schema.get("properties") {
            Some(Value::Object(properties)) => properties
                .iter()
                .map(|(key, property)| (key.clone(), self.node(property)))
                .collect(),
            _ => Vec::new(),
        };
        let other_keys = match schema.get("additionalProperties") {
            // A pattern may name the key; this check reads no patterns.
            _ if schema.contains_key("patternProperties") => OtherKeys::Anything,
            Some(Value::Bool(false)) => OtherKeys::Nothing,
            Some(other) => OtherKeys::Schema(self.node(other)),
            None => OtherKeys::Anything,
        };
        Node {
            nothing,
            kinds: schema.get("type").and_then(kinds),
            listed,
            limits: Keywords::read(schema, self.origin),
            reference,
            all_of: self.nodes(schema.get("allOf")),
            alternatives,
            required: match schema.get("required") {
                Some(Value::Array(required)) => required
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect(),
                _ => Vec::new(),
            },
            properties,
            other_keys,
            prefix_items: self.nodes(schema.get("prefixItems")),
            items: schema.get("items").map(|items| self.node(items)),
            judged_by: None,
            null_fits: false,
            required_properties: None,
            integers: None,
            variants: None,
        }
    }

    /// The node a `$ref` inside the root names (`#/$defs/Node`); `None` for any other.
    fn reference(&mut self, reference: &str) -> Option<usize> {
        if let Some(known) = self.references.get(reference) {
            return *known;
        }
        let Some(target) = resolve_reference(self.root, reference) else {
            self.references.insert(reference.to_owned(), None);
            return None;
        };
        // The node is claimed before it is read, so a reference back to it ends there.
        let at = self.nodes.len();
        self.references.insert(reference.to_owned(), Some(at));
        self.node(target);
        Some(at)
    }
}

/// Whether `uri` names a JSON Schema draft whose validation keywords mean what 2020-12's do
/// (draft-04's boolean `exclusiveMinimum`, say, which the check does not read, only narrows).
fn known_dialect(uri: &str) -> bool {
    let uri = uri.trim_end_matches('#');
    let path = uri
        .strip_prefix("https://")
        .or_else(|| uri.strip_prefix("http://"));
    matches!(
        path,
        Some(
            "json-schema.org/draft/2020-12/schema"
                | "json-schema.org/draft/2019-09/schema"
                | "json-schema.org/draft-07/schema"
                | "json-schema.org/draft-06/schema"
                | "json-schema.org/draft-04/schema"
        )
    )
}

/// Every property name of the root and of the schemas applied to the whole object (`allOf`,
/// `anyOf`, `oneOf`, `$ref`), in schema order; `None` when one of those takes keys it does not
/// name (`additionalProperties` other than `false`, `patternProperties`: a flattened map's),
/// so that no key is unknown.
pub(crate) fn named_keys(root: &Value) -> Option<Vec<String>> {
    let mut keys: Vec<String> = Vec::new();
    // Borrowed: every schema reached is inside `root`.
    let mut pending = vec![root];
    let mut seen_references: Vec<&str> = Vec::new();
    while let Some(schema) = pending.pop() {
        // A boolean schema names no keys.
        let Value::Object(schema) = schema else {
            continue;
        };
        let open = schema.contains_key("patternProperties")
            || schema
                .get("additionalProperties")
                .is_some_and(|other| other != &Value::Bool(false));
        if open {
            return None;
        }
        if let Some(Value::Object(properties)) = schema.get("properties") {
            for key in properties.keys() {
                if !keys.contains(key) {
                    keys.push(key.clone());
                }
            }
        }
        for applied in ["allOf", "anyOf", "oneOf"] {
            if let Some(Value::Array(parts)) = schema.get(applied) {
                pending.extend(parts.iter().rev());
            }
        }
        if let Some(Value::String(reference)) = schema.get("$ref") {
            if !seen_references.contains(&reference.as_str()) {
                seen_references.push(reference);
                pending.extend(resolve_reference(root, reference));
            }
        }
    }
    Some(keys)
}

/// The `type` of `schema` when this check cannot read it (a name JSON Schema does not have,
/// such as a remote server's `"any"`): the check then leaves the value unconstrained.
pub(crate) fn unread_type(schema: &Map<String, Value>) -> Option<&Value> {
    schema.get("type").filter(|types| kinds(types).is_none())
}

/// `type` as `Kind` bits; `None` when it names a type this check does not know, which
/// might admit anything.
fn kinds(types: &Value) -> Option<u8> {
    let bit = |name: &str| {
        KINDS
            .iter()
            .find(|(_, known)| *known == name)
            .map(|(kind, _)| *kind as u8)
    };
    match types {
        Value::String(name) => bit(name),
        Value::Array(names) => names
            .iter()
            .try_fold(0, |all, name| Some(all | bit(name.as_str()?)?)),
        _ => None,
    }
}
