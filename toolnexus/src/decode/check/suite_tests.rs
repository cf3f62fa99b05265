//! The JSON Schema Test Suite, draft 2020-12 (`tests/json-schema-test-suite/`, copied from
//! json-schema-org/JSON-Schema-Test-Suite at 44401e0c, with its licence): every value a
//! schema there admits, the check admits, from text and from a `Value` alike, for a schema of
//! ours and a remote server's (SPEC §11, §13). Where a schema holds nothing but keywords the
//! check reads, and references inside itself, it also refuses every value the schema refuses
//! — but a `oneOf` two branches match, which it leaves to the server, and a remote `pattern`.

use std::path::Path;

use serde_json::{Map, Value};

use super::{Shape, TextCheck, check_args, check_text};

/// The keywords the check reads as JSON Schema does (`oneOf` it reads as `anyOf`), and the
/// annotations, which say nothing about what is valid.
const READ: [&str; 32] = [
    "type",
    "enum",
    "const",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "prefixItems",
    "anyOf",
    "allOf",
    "$ref",
    "$defs",
    "definitions",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "$schema",
    "$comment",
    "title",
    "description",
    "default",
    "examples",
];

/// Whether `schema` holds only [`READ`] keywords, its references all inside it.
fn read_whole(schema: &Value) -> bool {
    let Value::Object(map) = schema else {
        return true;
    };
    map.iter().all(|(key, value)| {
        READ.contains(&key.as_str())
            && match (key.as_str(), value) {
                // A metaschema of its own: the check reads nothing of it.
                ("$schema", dialect) => dialect == "https://json-schema.org/draft/2020-12/schema",
                ("$ref", Value::String(reference)) => {
                    reference == "#" || reference.starts_with("#/")
                }
                ("properties" | "$defs" | "definitions", Value::Object(named)) => {
                    named.values().all(read_whole)
                }
                ("items" | "additionalProperties", subschema) => read_whole(subschema),
                ("prefixItems" | "anyOf" | "allOf", Value::Array(list)) => {
                    list.iter().all(read_whole)
                }
                _ => true,
            }
    })
}

/// Whether `data` has a `null` under a key the root does not require: that means the key is
/// absent, in arguments (SPEC §5), where JSON Schema reads a `null`.
fn null_means_absent(root: &Map<String, Value>, data: &Value) -> bool {
    let required = root.get("required").and_then(Value::as_array);
    data.as_object().is_some_and(|entries| {
        entries.iter().any(|(key, value)| {
            value.is_null()
                && !required.is_some_and(|names| names.contains(&Value::from(key.as_str())))
        })
    })
}

fn suite_files() -> Vec<std::path::PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/json-schema-test-suite");
    let mut files: Vec<_> = [root.clone(), root.join("optional")]
        .iter()
        .flat_map(|dir| std::fs::read_dir(dir).expect("the suite is in the repository"))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ending| ending == "json"))
        .collect();
    files.sort();
    files
}

#[test]
fn the_json_schema_test_suite_is_read_as_json_schema_reads_it() {
    let mut failures = Vec::new();
    let (mut admitted, mut refused) = (0, 0);
    for file in suite_files() {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let groups: Vec<Value> =
            serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        for group in groups {
            // A tool's schema is an object; `true` and `false` are read as subschemas.
            let Value::Object(root) = &group["schema"] else {
                continue;
            };
            let whole = read_whole(&group["schema"]);
            let shapes = [
                ("ours", Shape::of(root, false)),
                #[cfg(feature = "mcp-client")]
                ("remote", Shape::of_remote(root)),
            ];
            for case in group["tests"].as_array().unwrap() {
                let (data, valid) = (&case["data"], case["valid"] == Value::Bool(true));
                let place = format!("{name}: {}: {}", group["description"], case["description"]);
                for (origin, shape) in &shapes {
                    let from_value = check_args("t", shape, data);
                    let from_text = match check_text("t", shape, &data.to_string()) {
                        TextCheck::Fits => Ok(()),
                        TextCheck::Refused(refused) => Err(refused),
                        TextCheck::Reread => unreachable!("a Value's text names no key twice"),
                    };
                    if from_text != from_value {
                        failures.push(format!("{place} ({origin}): text and Value differ"));
                    }
                    let exact = whole
                        && !null_means_absent(root, data)
                        && !(*origin == "remote"
                            && group["schema"].to_string().contains("pattern"));
                    let ours = *origin == "ours";
                    match (valid, from_value) {
                        (true, Ok(())) => admitted += usize::from(ours),
                        (true, Err(refusal)) => failures.push(format!(
                            "{place} ({origin}): refuses a valid {data}: {}",
                            refusal.output
                        )),
                        (false, Err(_)) if exact => refused += usize::from(ours),
                        (false, Ok(())) if exact => {
                            failures.push(format!("{place} ({origin}): admits an invalid {data}"));
                        }
                        (false, _) => {}
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The suite was read: 805 valid values admitted, and 271 invalid ones refused, at 44401e0c.
    assert!(
        admitted > 800 && refused > 250,
        "{admitted} admitted, {refused} refused"
    );
}
