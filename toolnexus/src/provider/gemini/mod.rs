//! Gemini: the rewrite of a tool's portable input schema to the OpenAPI 3.0 subset function
//! declarations accept as `parameters` (the declarations are built in `declarations`, the
//! JSON Schema field's rewrite is `json_schema`). The rewrite works on a copy of the cached schema; the
//! tool's own schema is never rebuilt or changed.

mod declarations;
pub(crate) mod function_calls;
pub(crate) mod json_schema;
mod keywords;
pub(crate) mod results;
pub(crate) mod transcript;

use std::cell::{Cell, RefCell};

use serde_json::{Map, Value};

use crate::decode::align::list_of_any;
use crate::decode::pointer::resolve_reference;
use crate::provider::described::with_words;
use crate::provider::loss::{Loss, items_path, property_path};
use crate::provider::rewrite::merge_into;
use crate::provider::{
    UNREAD_TYPE, distributable, distribute_over_branches, is_null_schema, unread_type_loss,
};
pub(crate) use declarations::{declaration, json_schema_declaration, tools_list};
use keywords::{
    copy_plain_keywords, insert_type_and_format, non_null_types, report_unsaid, rewrite_choices,
};

/// How many times [`gemini_schema`] expands a recursive definition along any path before it
/// stops.
///
/// Gemini has no `$ref`, so a recursive type (which the portable schema keeps as `$defs` +
/// `$ref`) is unrolled: the definition is inlined at most this many times, nested. Where it
/// would be inlined once more the schema is cut so that what remains still decodes: a list
/// of it becomes an empty list (`"maxItems": 0`), an optional property or an `anyOf` branch
/// of it is left out, and a required property of it cuts its own object the same way, one
/// level up. A `Node { children: Vec<Node> }` argument therefore accepts trees three levels
/// deep below the argument itself, and [`Toolkit::check`](crate::Toolkit::check) reports the cut.
///
/// Mutually recursive definitions share the allowance: a path may come back to definitions
/// it already went through `GEMINI_RECURSION_DEPTH - 1` times in all, not that many times
/// each, and one schema inlines at most [`GEMINI_MAX_INLINED`] definitions. Without both,
/// a few definitions that refer to one another grow the rewritten schema exponentially.
pub(crate) const GEMINI_RECURSION_DEPTH: usize = 3;

/// How many `$ref`s [`rewrite`] inlines in one schema at most; past it, every further
/// reference is cut as a recursion cut-off is, and reported. Real tools stay far below it (a
/// binary tree unrolled [`GEMINI_RECURSION_DEPTH`] levels inlines 14).
pub(crate) const GEMINI_MAX_INLINED: usize = 1_000;

/// Rewrites an input schema to the OpenAPI 3.0 subset Gemini's function declarations accept
/// (what [`Toolkit::to_gemini`](crate::Toolkit::to_gemini) sends).
///
/// The output keeps only `type`, `format`, `title`, `description`, `nullable`, `enum`,
/// `properties`, `required`, `items`, `anyOf` and the numeric, string, array and object
/// bounds (`minimum`, `maximum`, `minLength`, `maxLength`, `pattern`, `minItems`,
/// `maxItems`, `minProperties`, `maxProperties`); annotations (`$schema`, `default`,
/// `examples`, …) are dropped. An object is read as holding only the properties it
/// declares — Gemini generates no others — so `additionalProperties: false` goes without
/// loss. On the way:
///
/// - `$ref` is inlined; a recursive definition is unrolled [`GEMINI_RECURSION_DEPTH`] times
///   and cut where it would go deeper, so that every instance of the result still decodes.
/// - A type array or an `anyOf`/`oneOf` branch of `null` becomes `"nullable": true`; other
///   type arrays become `anyOf` branches; `oneOf` becomes `anyOf`; an `anyOf` left with one
///   branch is merged into its parent; `allOf` is merged into its parent; an object's own
///   properties beside an `anyOf` of objects (a flattened enum) move into each branch.
/// - A string `const` becomes a one-value `enum`.
/// - A tuple whose elements share one schema becomes a list of that schema with its length.
///
/// What Gemini cannot say is approximated, and [`Toolkit::check`](crate::Toolkit::check) lists each place:
///
/// - a map (`additionalProperties` as a schema) becomes `{"type": "object"}` plus its declared
///   properties, its entries unsaid;
/// - a tuple of different types becomes a list of any of its elements' schemas, with its
///   length;
/// - a recursive type is cut as above;
/// - a non-string `enum` (Gemini's are strings only) is dropped and the `type` kept, and a
///   boolean or number `const` becomes its type;
/// - `format`s other than `date-time`/`enum` on strings, `int32`/`int64` on integers and
///   `float`/`double` on numbers, and keywords Gemini has no field for (`not`,
///   `exclusiveMinimum`, `multipleOf`, …) are dropped;
/// - a reference that does not resolve becomes `{}` (any value);
/// - a `type` naming what JSON Schema has no type for (a remote server's `"any"`) is left
///   out, as every rewritten profile leaves it out: the arguments check leaves that value
///   unconstrained.
///
/// ```
/// use serde_json::json;
///
/// let schema = json!({
///     "type": "object",
///     "properties": {"unit": {"type": ["string", "null"], "enum": ["c", "f", null], "default": "c"}},
///     "additionalProperties": false,
/// });
/// let gemini = toolnexus::Profile::Gemini.rewrite(schema.as_object().unwrap()).0;
/// assert_eq!(serde_json::Value::Object(gemini), json!({
///     "type": "object",
///     "properties": {"unit": {"type": "string", "nullable": true, "enum": ["c", "f"]}},
/// }));
/// ```
///
/// Returns the rewritten schema and what it could not say ([`Profile::rewrite`](crate::Profile::rewrite) reports each as a [`SchemaIssue`](crate::SchemaIssue)).
pub(crate) fn rewrite(schema: &Map<String, Value>) -> (Map<String, Value>, Vec<Loss>) {
    let root = Value::Object(schema.clone());
    let walk = Rewrite {
        root: &root,
        losses: RefCell::new(Vec::new()),
        inlined: Cell::new(0),
    };
    let rewritten = walk
        .rewrite_map(schema, "", &mut Vec::new())
        .unwrap_or_else(|| {
            walk.lose(
                "",
                "the arguments",
                "a required argument cannot be expressed (it is cut or admits nothing), so \
                 the tool is declared with no parameters",
            );
            let mut empty = Map::new();
            empty.insert("type".to_owned(), Value::from("object"));
            empty.insert("properties".to_owned(), Value::Object(Map::new()));
            empty
        });
    (rewritten, walk.losses.into_inner())
}

/// One rewrite of one root schema, which every `$ref` resolves against.
///
/// Every step that returns `Option` uses `None` for "this cannot be expressed": the caller
/// cuts whatever needs it (see [`GEMINI_RECURSION_DEPTH`]). `path` is where in the arguments
/// a schema applies, for the losses; `refs` is the stack of references being inlined, which
/// bounds recursion.
struct Rewrite<'a> {
    root: &'a Value,
    losses: RefCell<Vec<Loss>>,
    /// How many `$ref`s have been inlined so far (bounded by [`GEMINI_MAX_INLINED`]).
    inlined: Cell<usize>,
}

impl Rewrite<'_> {
    fn lose(&self, path: &str, lost: impl Into<String>, why: &str) {
        self.losses.borrow_mut().push(Loss::new(path, lost, why));
    }

    /// Rewrites a subschema: an object, or `true`; `false` admits nothing and cannot be
    /// expressed.
    fn rewrite(&self, schema: &Value, path: &str, refs: &mut Vec<String>) -> Option<Value> {
        match schema {
            Value::Object(map) => self.rewrite_map(map, path, refs).map(Value::Object),
            // `true` (anything) has no OpenAPI spelling closer than an empty schema.
            Value::Bool(true) => {
                self.lose_any_value(path);
                Some(Value::Object(Map::new()))
            }
            _ => None,
        }
    }

    /// Rewrites one schema object. The steps run in the order their keys appear in the output,
    /// which is part of the wire form.
    fn rewrite_map(
        &self,
        map: &Map<String, Value>,
        path: &str,
        refs: &mut Vec<String>,
    ) -> Option<Map<String, Value>> {
        if let Some(Value::String(reference)) = map.get("$ref") {
            return self.inline(reference, map, path, refs);
        }
        if let Some(lost) = unread_type_loss(map) {
            self.lose(path, lost, UNREAD_TYPE);
            let mut typeless = map.clone();
            typeless.shift_remove("type");
            return self.rewrite_map(&typeless, path, refs);
        }
        if distributable(map).is_some() {
            let mut distributed = map.clone();
            distribute_over_branches(&mut distributed);
            return self.rewrite_map(&distributed, path, refs);
        }
        let (types, null_type) = non_null_types(map)?;
        if types.len() > 1 {
            return self.split_types(map, &types, null_type, path, refs);
        }
        let branches = self.rewrite_branches(map, path, refs)?;
        let (choices, mut words) = {
            let losses = &mut self.losses.borrow_mut();
            let choices = rewrite_choices(map, types.first().copied(), path, losses);
            let words = report_unsaid(map, choices.kind, path, losses);
            (choices, words)
        };

        let mut out = Map::new();
        if let Some(kind) = choices.kind {
            insert_type_and_format(&mut out, map, kind);
        }
        copy_plain_keywords(&mut out, map);
        words.extend(choices.words);
        if let Some(description) = with_words(out.get("description"), &words) {
            out.insert("description".to_owned(), description);
        }
        if null_type || branches.null || choices.null {
            out.insert("nullable".to_owned(), Value::Bool(true));
        }
        if let Some(values) = choices.values {
            out.insert("enum".to_owned(), Value::Array(values));
        }
        self.rewrite_properties(&mut out, map, path, refs)?;
        self.rewrite_items(&mut out, map, path, refs)?;
        merge_branches(&mut out, branches.rewritten);
        if let Some(Value::Array(all_of)) = map.get("allOf") {
            // Every part must hold, so one that cannot be expressed loses the whole schema.
            for part in all_of {
                if let Value::Object(part) = self.rewrite(part, path, refs)? {
                    merge_into(&mut out, part);
                }
            }
        }
        if ["type", "anyOf", "enum", "properties", "items"]
            .iter()
            .all(|key| !out.contains_key(*key))
        {
            self.lose_any_value(path);
        }
        Some(out)
    }

    /// A free-form value (`serde_json::Value`): every schema of Gemini's subset has a `type`,
    /// and none of them is "any".
    fn lose_any_value(&self, path: &str) {
        self.lose(
            path,
            "any JSON value",
            "every schema Gemini's OpenAPI subset takes has one `type`, and none means any \
             value; sent as {} (no type), which the model may fill with an object or nothing",
        );
    }

    /// Inlines a `$ref`, its siblings (a `description`, say) overriding the target's keys.
    fn inline(
        &self,
        reference: &str,
        map: &Map<String, Value>,
        path: &str,
        refs: &mut Vec<String>,
    ) -> Option<Map<String, Value>> {
        // Each entry of `refs` that repeats an earlier one is a return to a definition this
        // path already went through.
        let returns = (1..refs.len())
            .filter(|&at| refs[..at].contains(&refs[at]))
            .count();
        let recursive = refs.iter().any(|seen| seen == reference);
        let too_deep = recursive && returns + 1 >= GEMINI_RECURSION_DEPTH;
        if too_deep || self.inlined.get() >= GEMINI_MAX_INLINED {
            let name = match reference.rsplit_once('/') {
                Some((_, name)) => name,
                None => "the arguments object",
            };
            let lost = if too_deep {
                format!("`{name}` nested deeper than {GEMINI_RECURSION_DEPTH} levels")
            } else {
                format!("`{name}`, past the {GEMINI_MAX_INLINED} definitions one schema inlines")
            };
            self.lose(
                path,
                lost,
                "Gemini has no `$ref`, so a recursive type is unrolled and cut where it would \
                 go deeper (an empty list, an optional field or a branch left out)",
            );
            return None;
        }
        self.inlined.set(self.inlined.get() + 1);
        let mut merged = match resolve_reference(self.root, reference) {
            Some(Value::Object(target)) => target.clone(),
            Some(Value::Bool(true)) => Map::new(),
            // `false`: no value, which cannot be expressed.
            Some(_) => return None,
            None => {
                self.lose(
                    path,
                    format!("the schema `{reference}` names"),
                    "the reference does not resolve; sent as {} (any value)",
                );
                return Some(Map::new());
            }
        };
        for (key, value) in map {
            if key != "$ref" {
                merged.insert(key.clone(), value.clone());
            }
        }
        refs.push(reference.to_owned());
        let rewritten = self.rewrite_map(&merged, path, refs);
        refs.pop();
        rewritten
    }

    /// A schema with several non-null types becomes one `anyOf` branch per type.
    fn split_types(
        &self,
        map: &Map<String, Value>,
        types: &[&str],
        nullable: bool,
        path: &str,
        refs: &mut Vec<String>,
    ) -> Option<Map<String, Value>> {
        let mut out = Map::new();
        if let Some(description) = map.get("description") {
            out.insert("description".to_owned(), description.clone());
        }
        if nullable {
            out.insert("nullable".to_owned(), Value::Bool(true));
        }
        let mut branches = Vec::new();
        for kind in types {
            let mut branch = map.clone();
            branch.remove("description");
            branch.insert("type".to_owned(), Value::from(*kind));
            if let Some(rewritten) = self.rewrite_map(&branch, path, refs) {
                branches.push(Value::Object(rewritten));
            }
        }
        if branches.is_empty() {
            return None;
        }
        out.insert("anyOf".to_owned(), Value::Array(branches));
        Some(out)
    }

    /// The `anyOf` and `oneOf` branches, rewritten, a `null` branch counting as nullability;
    /// `None` when there are branches but none can be expressed.
    fn rewrite_branches(
        &self,
        map: &Map<String, Value>,
        path: &str,
        refs: &mut Vec<String>,
    ) -> Option<Branches> {
        let mut branches = Branches {
            rewritten: Vec::new(),
            null: false,
        };
        let mut has_branches = false;
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(list)) = map.get(key) {
                has_branches = true;
                for branch in list {
                    if is_null_schema(branch) {
                        branches.null = true;
                    } else if let Some(rewritten) = self.rewrite(branch, path, refs) {
                        branches.rewritten.push(rewritten);
                    }
                }
            }
        }
        if has_branches && branches.rewritten.is_empty() {
            return None;
        }
        Some(branches)
    }

    /// `properties`, each rewritten. An optional one that cannot be expressed is left out (the
    /// model cannot send it, which the tool accepts); a required one cannot be left out, so
    /// then this object cannot be expressed either (`None`).
    fn rewrite_properties(
        &self,
        out: &mut Map<String, Value>,
        map: &Map<String, Value>,
        path: &str,
        refs: &mut Vec<String>,
    ) -> Option<()> {
        let Some(Value::Object(properties)) = map.get("properties") else {
            return Some(());
        };
        let required: Vec<Value> = match map.get("required") {
            Some(Value::Array(required)) => required.clone(),
            _ => Vec::new(),
        };
        let mut rewritten = Map::new();
        for (name, property) in properties {
            match self.rewrite(property, &property_path(path, name), refs) {
                Some(property) => {
                    rewritten.insert(name.clone(), property);
                }
                None if required.contains(&Value::from(name.as_str())) => return None,
                None => {}
            }
        }
        let required: Vec<Value> = required
            .into_iter()
            .filter(|name| {
                name.as_str()
                    .is_some_and(|name| rewritten.contains_key(name))
            })
            .collect();
        out.insert("properties".to_owned(), Value::Object(rewritten));
        if !required.is_empty() {
            out.insert("required".to_owned(), Value::Array(required));
        }
        Some(())
    }

    /// `items`, rewritten (a tuple's `prefixItems` stand in when there are none). Items that
    /// cannot be expressed leave an empty list, `"maxItems": 0`, unless the list may not be
    /// empty; then the list cannot be expressed either (`None`).
    fn rewrite_items(
        &self,
        out: &mut Map<String, Value>,
        map: &Map<String, Value>,
        path: &str,
        refs: &mut Vec<String>,
    ) -> Option<()> {
        let tuple_items;
        let items = match (map.get("items"), map.get("prefixItems")) {
            (Some(items @ Value::Object(_)), _) => items,
            (None, Some(Value::Array(prefix))) if !prefix.is_empty() => {
                tuple_items = list_of_any(prefix);
                &tuple_items
            }
            _ => return Some(()),
        };
        match self.rewrite(items, &items_path(path), refs) {
            Some(items) => {
                out.insert("items".to_owned(), items);
            }
            None if map.get("minItems").and_then(Value::as_f64).unwrap_or(0.0) < 1.0 => {
                // The items are vacuous: no element can be sent. Gemini still wants `items`.
                out.insert("maxItems".to_owned(), Value::from(0));
                out.insert("items".to_owned(), Value::Object(Map::new()));
            }
            None => return None,
        }
        Some(())
    }
}

/// A schema's `anyOf`/`oneOf` branches once rewritten.
struct Branches {
    /// The branches that are not `null` and can be expressed.
    rewritten: Vec<Value>,
    /// Whether one of them was `null`.
    null: bool,
}

/// One remaining branch is merged into its parent; several become `anyOf`.
fn merge_branches(out: &mut Map<String, Value>, mut branches: Vec<Value>) {
    match branches.len() {
        0 => {}
        1 => {
            if let Some(Value::Object(only)) = branches.pop() {
                merge_into(out, only);
            }
        }
        _ => {
            out.insert("anyOf".to_owned(), Value::Array(branches));
        }
    }
}
