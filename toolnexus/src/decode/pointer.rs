//! `$ref` resolution: the one place that reads a JSON pointer inside a schema, for every
//! profile's rewrite and for the schema check; and every local reference made a `$defs` one
//! for the rewrites.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

/// The schema a `$ref` names inside `root`: `#` itself or a `#/…` JSON pointer (RFC 6901), its
/// percent-escapes and then its `~1` and `~0` escapes undone; `None` for any other reference
/// (another document, an anchor such as `#items`), or one that names no schema (an object, or
/// `true` or `false`).
pub(crate) fn resolve_reference<'s>(root: &'s Value, reference: &str) -> Option<&'s Value> {
    let pointer = local_pointer(reference)?;
    let mut at = root;
    if !pointer.is_empty() {
        for segment in pointer.strip_prefix('/')?.split('/').map(unescape) {
            at = match at {
                Value::Object(map) => map.get(&segment)?,
                Value::Array(list) => list.get(segment.parse::<usize>().ok()?)?,
                _ => return None,
            };
        }
    }
    matches!(at, Value::Object(_) | Value::Bool(_)).then_some(at)
}

/// The definition a `#/$defs/NAME` reference names, its escapes undone; `None` for a
/// reference anywhere else.
pub(crate) fn definition_name(reference: &str) -> Option<String> {
    let pointer = local_pointer(reference)?;
    let name = pointer.strip_prefix("/$defs/")?;
    (!name.contains('/')).then(|| unescape(name))
}

/// The reference to the definition `name`, escaped as [`definition_name`] reads it.
fn definition_reference(name: &str) -> String {
    let escaped = name
        .replace('%', "%25")
        .replace('~', "~0")
        .replace('/', "~1");
    format!("#/$defs/{escaped}")
}

/// The JSON pointer of a reference inside the schema: what follows its `#`, percent-decoded
/// as a URI fragment is (`#/$defs/a%25b` points at `a%b`); `None` for another reference, or
/// a malformed escape.
fn local_pointer(reference: &str) -> Option<String> {
    let fragment = reference.strip_prefix('#')?;
    String::from_utf8(crate::result::url::percent_decode(fragment)?).ok()
}

/// One JSON-pointer segment with `~1` (`/`) and `~0` (`~`) undone, in that order (RFC 6901).
fn unescape(segment: &str) -> String {
    segment.replace("~1", "/").replace("~0", "~")
}

/// How many JSON objects the copies [`references_into_defs`] makes may hold in all.
const MAX_COPIED: usize = 20_000;

/// Every local reference of `root` made `#/$defs/NAME`, the one form the dialects rewrite,
/// with what it means kept: draft-07's `definitions` (which zod-to-json-schema and pydantic 1
/// write, so many MCP servers send them) move into `$defs`, and a pointer anywhere else
/// (`#/properties/from`, zod-to-json-schema's for a schema used twice) names a copy of what it
/// points at, put in `$defs` under the pointer's path (`properties.from`). So a rewrite that
/// reshapes the place pointed at (strict mode makes an optional property nullable) does not
/// change the reference. `#` itself, a pointer to nothing, and pointers past [`MAX_COPIED`]
/// stay as they are.
pub(crate) fn references_into_defs(root: &mut Map<String, Value>) {
    definitions_as_defs(root);
    if !matches!(root.get("$defs"), None | Some(Value::Object(_))) {
        return;
    }
    let given = Value::Object(root.clone());
    let mut used: BTreeSet<String> = match given.get("$defs") {
        Some(Value::Object(defs)) => defs.keys().cloned().collect(),
        _ => BTreeSet::new(),
    };
    // Each pointer's name in `$defs`, or `None` when it points at no schema.
    let mut named: BTreeMap<String, Option<String>> = BTreeMap::new();
    let mut copied = 0;
    // A copy's own references are made `$defs` ones on the next round; each round only names
    // pointers written in `given`, so the rounds end.
    loop {
        let mut copies = Map::new();
        for_each_reference(root, |reference| {
            let Some(pointer) = local_pointer(reference).filter(|pointer| pointer.starts_with('/'))
            else {
                return;
            };
            if definition_name(reference).is_some() {
                return;
            }
            let name = named.entry(reference.clone()).or_insert_with(|| {
                let copy = resolve_reference(&given, reference)?.clone();
                // Copies of nested places could multiply a schema: past the bound a reference
                // is left as it is, which a rewrite then reports.
                let objects = schema_objects(&copy);
                if copied + objects > MAX_COPIED {
                    return None;
                }
                copied += objects;
                let path: Vec<String> = pointer[1..].split('/').map(unescape).collect();
                let mut name = path.join(".");
                while !used.insert(name.clone()) {
                    name.push('_');
                }
                copies.insert(name.clone(), copy);
                Some(name)
            });
            if let Some(name) = name {
                *reference = definition_reference(name);
            }
        });
        if copies.is_empty() {
            return;
        }
        if let Value::Object(defs) = root
            .entry("$defs")
            .or_insert_with(|| Value::Object(Map::new()))
        {
            defs.extend(copies);
        }
    }
}

/// How many JSON objects `schema` holds (its subschemas and the maps that hold them), counted
/// without recursion (any depth).
pub(crate) fn schema_objects(schema: &Value) -> usize {
    let mut pending = vec![schema];
    let mut objects = 0;
    while let Some(value) = pending.pop() {
        match value {
            Value::Object(map) => {
                objects += 1;
                pending.extend(map.values());
            }
            Value::Array(values) => pending.extend(values),
            _ => {}
        }
    }
    objects
}

/// Moves draft-07's `definitions` into `$defs` and points every `#/definitions/…` reference
/// there. Left as it is when a name is in both, or either is no object.
fn definitions_as_defs(root: &mut Map<String, Value>) {
    let (Some(Value::Object(definitions)), None | Some(Value::Object(_))) =
        (root.get("definitions"), root.get("$defs"))
    else {
        return;
    };
    let defs = match root.get("$defs") {
        Some(Value::Object(defs)) => defs,
        _ => &Map::new(),
    };
    if definitions.keys().any(|name| defs.contains_key(name)) {
        return;
    }
    let Some(Value::Object(definitions)) = root.shift_remove("definitions") else {
        return;
    };
    if let Value::Object(defs) = root
        .entry("$defs")
        .or_insert_with(|| Value::Object(Map::new()))
    {
        defs.extend(definitions);
    }
    for_each_reference(root, |reference| {
        if let Some(name) = reference.strip_prefix("#/definitions/") {
            *reference = format!("#/$defs/{name}");
        }
    });
}

/// Calls `visit` on every `$ref` of `root` and its subschemas (values such as `const` or
/// `default` are data, never references).
fn for_each_reference(root: &mut Map<String, Value>, mut visit: impl FnMut(&mut String)) {
    let mut pending = Vec::new();
    visit_schema(root, &mut pending, &mut visit);
    while let Some(schema) = pending.pop() {
        if let Value::Object(schema) = schema {
            visit_schema(schema, &mut pending, &mut visit);
        }
    }
}

/// [`for_each_reference`] for `schema`'s own `$ref`, leaving its subschemas in `pending`.
fn visit_schema<'v>(
    schema: &'v mut Map<String, Value>,
    pending: &mut Vec<&'v mut Value>,
    visit: &mut impl FnMut(&mut String),
) {
    for (key, value) in schema.iter_mut() {
        match (key.as_str(), value) {
            ("$ref", Value::String(reference)) => visit(reference),
            (
                "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas",
                Value::Object(schemas),
            ) => pending.extend(schemas.values_mut()),
            ("prefixItems" | "items" | "anyOf" | "oneOf" | "allOf", Value::Array(schemas)) => {
                pending.extend(schemas.iter_mut());
            }
            (
                "items"
                | "additionalItems"
                | "additionalProperties"
                | "not"
                | "if"
                | "then"
                | "else"
                | "contains"
                | "propertyNames"
                | "unevaluatedItems"
                | "unevaluatedProperties",
                schema,
            ) => pending.push(schema),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn local_references_become_defs_and_only_references_follow() {
        let mut root = json!({
            "properties": {
                // A property may be called `default`: it is a schema.
                "default": {"$ref": "#/definitions/P"},
                "c": {"const": {"$ref": "#/definitions/P"}, "anyOf": [{"$ref": "#/definitions/P"}]},
                // zod-to-json-schema's reference to a schema used twice; and one to nothing.
                "d": {"$ref": "#/properties/default"},
                "e": {"$ref": "#/properties/none", "not": {"$ref": "#"}},
            },
            "definitions": {"P": {"items": {"$ref": "#/definitions/P"}}},
        });
        super::references_into_defs(root.as_object_mut().unwrap());
        assert_eq!(
            root,
            json!({
                "properties": {
                    "default": {"$ref": "#/$defs/P"},
                    "c": {"const": {"$ref": "#/definitions/P"}, "anyOf": [{"$ref": "#/$defs/P"}]},
                    "d": {"$ref": "#/$defs/properties.default"},
                    "e": {"$ref": "#/properties/none", "not": {"$ref": "#"}},
                },
                "$defs": {
                    "P": {"items": {"$ref": "#/$defs/P"}},
                    "properties.default": {"$ref": "#/$defs/P"},
                },
            })
        );
        // Copies stop at the bound: five places of 5,002 objects each, all referred to.
        let big: serde_json::Map<String, serde_json::Value> =
            (0..5_000).map(|at| (format!("k{at}"), json!({}))).collect();
        let mut root = json!({"properties": {}});
        for at in 0..5 {
            root["properties"][format!("p{at}")] = json!({"properties": big});
            root["properties"][format!("r{at}")] = json!({"$ref": format!("#/properties/p{at}")});
        }
        super::references_into_defs(root.as_object_mut().unwrap());
        // The `$defs` object itself, and three copies.
        assert_eq!(super::schema_objects(&root["$defs"]), 1 + 3 * 5_002);
        let left = (0..5)
            .filter(|at| {
                root["properties"][format!("r{at}")]["$ref"] == format!("#/properties/p{at}")
            })
            .count();
        assert_eq!(left, 2);
        // A name in both is left as it is.
        let mut both = json!({"definitions": {"P": {}}, "$defs": {"P": {}}});
        let before = both.clone();
        super::references_into_defs(both.as_object_mut().unwrap());
        assert_eq!(both, before);
    }
}
