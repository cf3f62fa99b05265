//! `$ref` resolution: the one place that reads a JSON pointer inside a schema, for every
//! profile's rewrite and for the schema check; and draft-07's `definitions` read as `$defs`.

use serde_json::{Map, Value};

/// The schema a `$ref` names inside `root`: `#` itself or a `#/…` JSON pointer, its `~1` and
/// `~0` escapes undone; `None` for any other reference, or one that names no object schema.
pub(crate) fn resolve_reference<'s>(
    root: &'s Map<String, Value>,
    reference: &str,
) -> Option<&'s Map<String, Value>> {
    let pointer = reference.strip_prefix('#')?;
    let mut segments = pointer.split('/').skip(1).map(unescape);
    let Some(first) = segments.next() else {
        return Some(root);
    };
    let mut at = root.get(&first)?;
    for segment in segments {
        at = match at {
            Value::Object(map) => map.get(&segment)?,
            Value::Array(list) => list.get(segment.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    at.as_object()
}

/// The definition a `#/$defs/NAME` reference names, its escapes undone; `None` for a
/// reference anywhere else.
pub(crate) fn definition_name(reference: &str) -> Option<String> {
    reference.strip_prefix("#/$defs/").map(unescape)
}

/// One JSON-pointer segment with `~1` (`/`) and `~0` (`~`) undone, in that order (RFC 6901).
fn unescape(segment: &str) -> String {
    segment.replace("~1", "/").replace("~0", "~")
}

/// Moves draft-07's `definitions` (which zod-to-json-schema and pydantic 1 write, so many MCP
/// servers send them) into 2020-12's `$defs`, the one place the dialects rewrite definitions,
/// and points every `#/definitions/…` reference there. Left as it is when a name is in both,
/// or either is no object.
pub(crate) fn definitions_as_defs(root: &mut Map<String, Value>) {
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
    let defs = root
        .entry("$defs")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(defs) = defs {
        defs.extend(definitions);
    }
    let mut pending = Vec::new();
    retarget(root, &mut pending);
    while let Some(schema) = pending.pop() {
        if let Value::Object(schema) = schema {
            retarget(schema, &mut pending);
        }
    }
}

/// Points `schema`'s own `#/definitions/…` reference at `$defs`, and leaves the subschemas in
/// it to do next (values such as `const` or `default` are data, never references).
fn retarget<'v>(schema: &'v mut Map<String, Value>, pending: &mut Vec<&'v mut Value>) {
    for (key, value) in schema.iter_mut() {
        match (key.as_str(), value) {
            ("$ref", Value::String(reference)) => {
                if let Some(name) = reference.strip_prefix("#/definitions/") {
                    *reference = format!("#/$defs/{name}");
                }
            }
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
    fn definitions_become_defs_and_only_references_follow() {
        let mut root = json!({
            "properties": {
                // A property may be called `default`: it is a schema.
                "default": {"$ref": "#/definitions/P"},
                "c": {"const": {"$ref": "#/definitions/P"}, "anyOf": [{"$ref": "#/definitions/P"}]},
            },
            "definitions": {"P": {"items": {"$ref": "#/definitions/P"}}},
        });
        super::definitions_as_defs(root.as_object_mut().unwrap());
        assert_eq!(
            root,
            json!({
                "properties": {
                    "default": {"$ref": "#/$defs/P"},
                    "c": {"const": {"$ref": "#/definitions/P"}, "anyOf": [{"$ref": "#/$defs/P"}]},
                },
                "$defs": {"P": {"items": {"$ref": "#/$defs/P"}}},
            })
        );
        // A name in both is left as it is.
        let mut both = json!({"definitions": {"P": {}}, "$defs": {"P": {}}});
        let before = both.clone();
        super::definitions_as_defs(both.as_object_mut().unwrap());
        assert_eq!(both, before);
    }
}
