//! The one walk the schema profiles that edit a copy in place share (OpenAI strict, Anthropic
//! strict, Gemini's JSON Schema): it visits every subschema a [`Dialect`] names, rewrites the
//! root's `$defs` where the dialect says, keeps each node's argument path and collects the
//! losses, and takes out a `type` no dialect can say before the dialect sees the node. A
//! dialect supplies its keyword tables and its rule for one node; the rules two dialects share
//! are here too. Gemini's OpenAPI rewrite builds a new schema instead, cutting
//! what cannot be expressed, and walks on its own (`gemini`).

use std::collections::BTreeSet;
use std::marker::PhantomData;

use serde_json::{Map, Value, json};

use crate::decode::pointer::{definition_name, references_into_defs, schema_objects};
use crate::provider::described::{described, with_words};
use crate::provider::loss::{Loss, items_path, property_path};
use crate::provider::{UNREAD_TYPE, unread_type_loss};

/// Why a strict profile's loss costs more than the keyword: the tool goes non-strict.
pub(super) const SENT_PLAIN: &str =
    "so the tool is sent with \"strict\": false and its plain schema";

/// Keywords no tool enforces, in the order a loss names them; each dialect leaves out the one
/// it handles on its own.
const NOT_ENFORCED: [&str; 13] = [
    "not",
    "propertyNames",
    "patternProperties",
    "contains",
    "minContains",
    "maxContains",
    "unevaluatedItems",
    "unevaluatedProperties",
    "dependentRequired",
    "dependentSchemas",
    "if",
    "then",
    "else",
];

/// The string `format`s both strict profiles document.
pub(super) const STRICT_FORMATS: [&str; 9] = [
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Annotations that say nothing about what validates; dropped without a word.
const ANNOTATIONS: [&str; 6] = [
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
];

/// Where a dialect rewrites the root's `$defs`.
pub(super) enum Definitions {
    /// Taken out of the root, each rewritten once where [`Walk::follow`] first reaches it
    /// (so its losses carry that reference's path), the rest at the root's path; put back
    /// after the root unless there are none.
    AtFirstReference,
    /// Taken out of the root, rewritten after it at `$defs.NAME` and put back.
    AfterRoot,
    /// Left in place, rewritten as any other subschema keyword (see [`Dialect::SUBSCHEMAS`]).
    InPlace,
}

/// What one profile's rewrite says of each node; [`Walk`] visits the nodes.
pub(super) trait Dialect: Sized {
    /// Whether the profile is strict: then what the model cannot be told sends the tool
    /// non-strict, and each such loss says so.
    const STRICT: bool;
    /// Where the root's `$defs` are rewritten.
    const DEFINITIONS: Definitions;
    /// The keywords whose subschemas are rewritten after their node's own keywords, in this
    /// order; by default `properties`, `items` and `anyOf`, all the strict profiles walk.
    const SUBSCHEMAS: &'static [&'static str] = &["properties", "items", "anyOf"];

    /// Rewrites one schema object's own keywords, before its subschemas; `false` leaves the
    /// subschemas, and [`leave`](Dialect::leave), out.
    fn enter(walk: &mut Walk<Self>, node: &mut Map<String, Value>, path: &str) -> bool;

    /// Rewrites one schema object once its subschemas are; `root` is the arguments object.
    fn leave(_walk: &mut Walk<Self>, _node: &mut Map<String, Value>, _path: &str, _root: bool) {}

    /// A schema that is not an object (`true`, `false`); left as it is unless overridden.
    fn other(_walk: &mut Walk<Self>, _schema: &mut Value, _path: &str) {}
}

/// How deep a rewrite goes, and how many schema objects it rewrites. Merging an `allOf`
/// part copies its definition in, so definitions that `allOf` themselves (or each other)
/// would be copied in without end, and several such properties side by side multiply: a
/// schema any MCP server can send. A schema read from JSON nests at most 128 levels
/// (serde_json's limit), and the strict dialects take at most 5,000 properties (OpenAI's
/// documented limit), so neither bound cuts a schema a provider would accept. The second
/// bound also caps the subschemas merges copy in, since an `allOf` listing one large
/// definition many times would otherwise copy it that many times before any is rewritten.
const MAX_DEPTH: usize = 256;
const MAX_NODES: usize = 20_000;

/// One rewrite of one root schema under dialect `D`.
pub(super) struct Walk<D> {
    /// The root's `$defs`, when taken out of it.
    defs: Option<Map<String, Value>>,
    /// The root's `$defs` as given: a merge copies a definition from here and rewrites the
    /// copy where it lands, so a copy never carries an earlier copy's expansion with it.
    originals: Map<String, Value>,
    /// The definitions already rewritten or under way, each rewritten once.
    visited: BTreeSet<String>,
    /// How many schema objects enclose the one being rewritten.
    depth: usize,
    /// How many schema objects were rewritten.
    rewritten: usize,
    /// How many schema objects merges copied in.
    copied: usize,
    /// Whether a bound was reached (it is reported once).
    cut: bool,
    losses: Vec<Loss>,
    dialect: PhantomData<D>,
}

impl<D: Dialect> Walk<D> {
    /// The rewrite of `schema`, and what it could not say.
    pub(super) fn run(schema: &Map<String, Value>) -> (Map<String, Value>, Vec<Loss>) {
        let mut root = schema.clone();
        // The draft a remote server wrote: an annotation every dialect names by itself, and
        // that a local tool's schema never carries (SPEC §5), so both are sent alike.
        root.shift_remove("$schema");
        references_into_defs(&mut root);
        let originals = match root.get("$defs") {
            Some(Value::Object(defs)) => defs.clone(),
            _ => Map::new(),
        };
        let mut walk = Walk {
            defs: None,
            originals,
            visited: BTreeSet::new(),
            depth: 0,
            rewritten: 0,
            copied: 0,
            cut: false,
            losses: Vec::new(),
            dialect: PhantomData::<D>,
        };
        if !matches!(D::DEFINITIONS, Definitions::InPlace) {
            if let Some(Value::Object(defs)) = root.shift_remove("$defs") {
                walk.defs = Some(defs);
            }
        }
        walk.rewrite_map(&mut root, "", true);
        let names: Vec<String> = walk.defs.iter().flat_map(Map::keys).cloned().collect();
        for name in names {
            match D::DEFINITIONS {
                // Definitions no reference reaches still have to follow the rules.
                Definitions::AtFirstReference => walk.rewrite_definition(&name, ""),
                _ => walk.rewrite_definition(&name, &format!("$defs.{name}")),
            }
        }
        if let Some(defs) = walk.defs {
            if !(defs.is_empty() && matches!(D::DEFINITIONS, Definitions::AtFirstReference)) {
                root.insert("$defs".to_owned(), Value::Object(defs));
            }
        }
        (root, walk.losses)
    }

    /// Rewrites a subschema at `path`.
    pub(super) fn rewrite(&mut self, schema: &mut Value, path: &str) {
        match schema {
            Value::Object(node) => self.rewrite_map(node, path, false),
            other => D::other(self, other, path),
        }
    }

    fn rewrite_map(&mut self, node: &mut Map<String, Value>, path: &str, root: bool) {
        if self.depth == MAX_DEPTH || self.rewritten == MAX_NODES {
            self.cut_at(path);
            return;
        }
        if let Some(Value::String(reference)) = node.get("$ref") {
            if !self.resolves(reference) {
                self.lose(
                    path,
                    format!("the reference `{reference}`"),
                    "it names no schema inside this one, which is all a provider reads",
                );
            }
        }
        self.depth += 1;
        self.rewritten += 1;
        self.rewrite_children(node, path, root);
        self.depth -= 1;
    }

    /// Whether `reference` names a schema inside the root: the root itself, or one of its
    /// definitions (every other place it points at was made a definition first).
    fn resolves(&self, reference: &str) -> bool {
        reference == "#"
            || definition_name(reference).is_some_and(|name| self.originals.contains_key(&name))
    }

    /// Reports the first place the rewrite stops at a bound.
    fn cut_at(&mut self, path: &str) {
        if self.cut {
            return;
        }
        self.cut = true;
        self.lose(
            path,
            format!("the schema past {MAX_DEPTH} levels of nesting or {MAX_NODES} subschemas"),
            "the rewrite stops here (an `allOf` that merges a definition into itself never ends)",
        );
    }

    /// Whether a bound was reached (and reported).
    pub(super) fn is_cut(&self) -> bool {
        self.cut
    }

    fn rewrite_children(&mut self, node: &mut Map<String, Value>, path: &str, root: bool) {
        // No dialect can say a `type` the arguments check cannot read ([`unread_type_loss`]).
        if let Some(lost) = unread_type_loss(node) {
            node.shift_remove("type");
            self.lose(path, lost, UNREAD_TYPE);
        }
        if !D::enter(self, node, path) {
            return;
        }
        for key in D::SUBSCHEMAS {
            let Some(value) = node.get_mut(*key) else {
                continue;
            };
            match (*key, value) {
                ("properties", Value::Object(properties)) => {
                    for (name, property) in properties.iter_mut() {
                        self.rewrite(property, &property_path(path, name));
                    }
                }
                // Reported where a reference reaches them; here, where they are written.
                ("$defs", Value::Object(definitions)) => {
                    for (name, definition) in definitions.iter_mut() {
                        self.rewrite(definition, &format!("$defs.{name}"));
                    }
                }
                ("items", items) => self.rewrite(items, &items_path(path)),
                ("additionalProperties", values) => self.rewrite(values, &format!("{path}.*")),
                ("prefixItems", Value::Array(elements)) => {
                    for (at, element) in elements.iter_mut().enumerate() {
                        self.rewrite(element, &format!("{path}[{at}]"));
                    }
                }
                ("anyOf" | "oneOf", Value::Array(branches)) => {
                    for branch in branches {
                        self.rewrite(branch, path);
                    }
                }
                _ => {}
            }
        }
        D::leave(self, node, path, root);
    }

    /// Rewrites the definition a `#/$defs/NAME` reference points at, unless it already was.
    pub(super) fn follow(&mut self, reference: &str, path: &str) {
        if let Some(name) = definition_name(reference) {
            self.rewrite_definition(&name, path);
        }
    }

    fn rewrite_definition(&mut self, name: &str, path: &str) {
        if !self.visited.insert(name.to_owned()) {
            return;
        }
        let Some(slot) = self.defs.as_mut().and_then(|defs| defs.get_mut(name)) else {
            return;
        };
        // Taken out and put back, so a definition that refers to others (or to itself) can
        // be rewritten meanwhile, and the key order stays.
        let mut definition = std::mem::take(slot);
        self.rewrite(&mut definition, path);
        if let Some(slot) = self.defs.as_mut().and_then(|defs| defs.get_mut(name)) {
            *slot = definition;
        }
    }

    /// A copy of the definition a `#/$defs/NAME` reference points at, as the schema gives
    /// it, for merging at `path`; `None` for an unknown name, or once the copies reach the
    /// bound (the rewrite is then cut).
    pub(super) fn definition(&mut self, reference: &str, path: &str) -> Option<Value> {
        let definition = self.originals.get(&definition_name(reference)?)?;
        self.copied += schema_objects(definition);
        if self.copied > MAX_NODES {
            self.cut_at(path);
            return None;
        }
        Some(definition.clone())
    }

    /// Reports what the model cannot be told at `path`.
    pub(super) fn lose(&mut self, path: &str, lost: impl Into<String>, why: &str) {
        let why = if D::STRICT {
            format!("{why}, {SENT_PLAIN}")
        } else {
            why.to_owned()
        };
        self.losses.push(Loss::new(path, lost, why));
    }

    /// Reports a limit written into the description at `path`, which the tool enforces.
    pub(super) fn lose_described(&mut self, path: &str, lost: String, why: &str) {
        self.losses.push(Loss::described(path, lost, why));
    }

    /// Takes each of `keywords` out of `node` and writes it into the description in words,
    /// reporting them.
    pub(super) fn describe(
        &mut self,
        node: &mut Map<String, Value>,
        keywords: &[&str],
        path: &str,
    ) {
        let Some((words, loss)) = described(node, keywords, path) else {
            return;
        };
        for key in keywords {
            node.shift_remove(*key);
        }
        if let Some(description) = with_words(node.get("description"), &words) {
            node.insert("description".to_owned(), description);
        }
        self.losses.push(loss);
    }

    /// Drops every keyword but `kept`, reporting each but the annotations.
    pub(super) fn keep_only(
        &mut self,
        node: &mut Map<String, Value>,
        kept: &[&str],
        path: &str,
        why: &str,
    ) {
        let mut dropped = Vec::new();
        node.retain(|key, value| {
            if kept.contains(&key.as_str()) {
                return true;
            }
            if !ANNOTATIONS.contains(&key.as_str()) && !key.starts_with("x-") {
                dropped.push(format!("`{key}: {value}`"));
            }
            false
        });
        if !dropped.is_empty() {
            self.lose(path, dropped.join(", "), why);
        }
    }

    /// `prefixItems` ⇒ `items` (what `items_of` makes of the elements, unless the node has
    /// `items`): exact when every element has the same schema, else reported.
    pub(super) fn list_tuple(
        &mut self,
        node: &mut Map<String, Value>,
        path: &str,
        why: &str,
        items_of: fn(&[Value]) -> Option<Value>,
    ) {
        let Some(Value::Array(prefix)) = node.shift_remove("prefixItems") else {
            return;
        };
        if let Some(lost) = tuple_positions(&prefix) {
            self.lose(path, lost, why);
        }
        if let (false, Some(items)) = (node.contains_key("items"), items_of(&prefix)) {
            node.insert("items".to_owned(), items);
        }
    }
}

/// The keywords no tool enforces but `except` that `node` has, as a loss names them
/// (`` `not: {…}`, `if: {…}` ``); `None` when it has none.
pub(super) fn not_enforced(node: &Map<String, Value>, except: &str) -> Option<String> {
    let listed: Vec<String> = NOT_ENFORCED
        .iter()
        .filter(|key| **key != except)
        .filter_map(|key| node.get(*key).map(|value| format!("`{key}: {value}`")))
        .collect();
    (!listed.is_empty()).then(|| listed.join(", "))
}

/// Takes out the keywords [`not_enforced`] names, and names them.
pub(super) fn drop_not_enforced(node: &mut Map<String, Value>, except: &str) -> Option<String> {
    let dropped = not_enforced(node, except);
    node.retain(|key, _| key == except || !NOT_ENFORCED.contains(&key.as_str()));
    dropped
}

/// What a profile without maps loses of an object whose `additionalProperties` is a schema
/// (or `true`): its entries.
pub(super) fn map_entries(node: &Map<String, Value>) -> Option<String> {
    let values = match node.get("additionalProperties") {
        Some(Value::Object(values)) => Value::Object(values.clone()).to_string(),
        Some(Value::Bool(true)) => "{}".to_owned(),
        _ => return None,
    };
    Some(format!(
        "the entries of a map (any key, each value {values})"
    ))
}

/// What a list of one schema loses of the tuple `prefix`: each position's type, unless the
/// elements share one.
pub(super) fn tuple_positions(prefix: &[Value]) -> Option<&'static str> {
    prefix
        .iter()
        .any(|element| element != &prefix[0])
        .then_some("the type of each position of a tuple")
}

/// `oneOf` ⇒ `anyOf` where there is no `anyOf` yet: the profile has no `oneOf`, and the
/// branches serde's tagged enums produce are disjoint, so nothing is added.
pub(super) fn one_of_as_any_of(node: &mut Map<String, Value>) {
    if !node.contains_key("anyOf") {
        if let Some(one_of) = node.shift_remove("oneOf") {
            node.insert("anyOf".to_owned(), one_of);
        }
    }
}

/// A `$ref` with siblings moves into an `anyOf` of one: strict profiles read nothing beside a
/// `$ref`, but read what stands beside an `anyOf`.
pub(super) fn reference_alone(node: &mut Map<String, Value>) {
    if node.len() > 1 {
        let reference = node.shift_remove("$ref").unwrap_or_default();
        node.insert("anyOf".to_owned(), json!([{ "$ref": reference }]));
    }
}

/// Takes out the properties whose schema is `false` and that are not required: such a key
/// must be absent, which an object the strict profiles close says by not listing it. Kept, a
/// strict profile would make it required (OpenAI) or report it and send the tool plain
/// (Anthropic), though nothing is lost.
pub(super) fn drop_absent_properties(node: &mut Map<String, Value>) {
    let required = match node.get("required") {
        Some(Value::Array(names)) => names.clone(),
        _ => Vec::new(),
    };
    if let Some(Value::Object(properties)) = node.get_mut("properties") {
        properties.retain(|name, schema| {
            *schema != Value::Bool(false) || required.iter().any(|required| required == name)
        });
    }
}

/// Whether `node` describes an object: typed `object` (alone or in a type list), or with
/// `properties`.
pub(super) fn is_object(node: &Map<String, Value>) -> bool {
    let typed_object = match node.get("type") {
        Some(Value::String(single)) => single == "object",
        Some(Value::Array(types)) => types.iter().any(|t| t == "object"),
        _ => false,
    };
    typed_object || node.contains_key("properties")
}

/// Merges `other` into `out`: `out`'s keywords win, except that `properties` and `required`
/// are unions.
pub(super) fn merge_into(out: &mut Map<String, Value>, other: Map<String, Value>) {
    for (key, value) in other {
        let Some(mine) = out.get_mut(&key) else {
            out.insert(key, value);
            continue;
        };
        match (key.as_str(), mine, value) {
            ("properties", Value::Object(mine), Value::Object(theirs)) => {
                for (name, property) in theirs {
                    mine.entry(name).or_insert(property);
                }
            }
            ("required", Value::Array(mine), Value::Array(theirs)) => {
                for name in theirs {
                    if !mine.contains(&name) {
                        mine.push(name);
                    }
                }
            }
            _ => {}
        }
    }
}
