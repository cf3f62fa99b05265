//! Schemas nobody here wrote (a remote MCP tool's, SPEC §13): any mix of the keywords, with
//! values of the wrong type, references that loop or lead nowhere, and patterns that do not
//! compile. Reading one, checking any arguments against it from text or from a `Value`, and
//! rewriting it for every profile never panics, and text and `Value` get the same verdict.
use proptest::prelude::*;
use serde_json::{Map, Value, json};

use super::{Shape, TextCheck, check_args, check_text};
use crate::Profile;

fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        prop_oneof![Just(0_i64), Just(-1), Just(3), Just(i64::MIN), any::<i64>()]
            .prop_map(Value::from),
        Just(json!(u64::MAX)),
        prop_oneof![Just(0.5_f64), Just(-0.0), Just(1e308), Just(3.0), Just(0.1)]
            .prop_map(Value::from),
        "[a-c]{0,4}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-c]", inner, 0..4)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

/// A value for one keyword: usually of the type the keyword takes, sometimes not.
fn keyword(schema: BoxedStrategy<Value>) -> impl Strategy<Value = (String, Value)> {
    let schemas = prop::collection::vec(schema.clone(), 0..3).prop_map(Value::Array);
    let names = prop::collection::vec("[a-c]", 0..3).prop_map(|names| json!(names));
    let types = prop_oneof![
        Just("object"),
        Just("array"),
        Just("string"),
        Just("integer"),
        Just("number"),
        Just("boolean"),
        Just("null"),
        Just("int"),
    ];
    let reference = prop_oneof![
        Just("#"),
        Just("#/$defs/D0"),
        Just("#/$defs/D1"),
        Just("#/$defs/none"),
        Just("#/properties/a"),
        Just("#/definitions/D0"),
        Just("https://example.com/s.json"),
    ];
    let pattern = prop_oneof![
        Just("^a+$"),
        Just("(?i)^abc$"),
        Just("["),
        Just("b"),
        Just("^(a|b)*$")
    ];
    let count = prop_oneof![
        Just(json!(0)),
        Just(json!(2)),
        Just(json!(-1)),
        Just(json!("2")),
        Just(json!(1.5))
    ];
    let bound = prop_oneof![
        Just(json!(0)),
        Just(json!(-3)),
        Just(json!(2.5)),
        Just(json!(1e300)),
        Just(json!("x"))
    ];
    prop_oneof![
        prop_oneof![
            types.clone().prop_map(Value::from),
            prop::collection::vec(types, 0..3).prop_map(|types| json!(types)),
        ]
        .prop_map(|value| ("type".to_owned(), value)),
        prop::collection::btree_map("[a-c]", schema.clone(), 0..3).prop_map(|map| (
            "properties".to_owned(),
            Value::Object(map.into_iter().collect())
        )),
        names.prop_map(|value| ("required".to_owned(), value)),
        schema.clone().prop_map(|value| ("items".to_owned(), value)),
        schemas
            .clone()
            .prop_map(|value| ("prefixItems".to_owned(), value)),
        schema
            .clone()
            .prop_map(|value| ("additionalProperties".to_owned(), value)),
        (
            prop_oneof![Just("anyOf"), Just("oneOf"), Just("allOf")],
            schemas
        )
            .prop_map(|(key, value)| (key.to_owned(), value)),
        (
            prop_oneof![Just("not"), Just("if"), Just("then"), Just("else")],
            schema.clone()
        )
            .prop_map(|(key, value)| (key.to_owned(), value)),
        prop::collection::btree_map("[a-c]", schema, 0..2).prop_map(|map| (
            "patternProperties".to_owned(),
            Value::Object(map.into_iter().collect())
        )),
        reference.prop_map(|value| ("$ref".to_owned(), Value::from(value))),
        prop::collection::vec(any_json(), 0..3)
            .prop_map(|values| ("enum".to_owned(), Value::Array(values))),
        any_json().prop_map(|value| ("const".to_owned(), value)),
        (
            prop_oneof![
                Just("minimum"),
                Just("maximum"),
                Just("exclusiveMinimum"),
                Just("exclusiveMaximum"),
                Just("multipleOf")
            ],
            bound
        )
            .prop_map(|(key, value)| (key.to_owned(), value)),
        (
            prop_oneof![
                Just("minLength"),
                Just("maxLength"),
                Just("minItems"),
                Just("maxItems"),
                Just("minProperties"),
                Just("maxProperties")
            ],
            count
        )
            .prop_map(|(key, value)| (key.to_owned(), value)),
        pattern.prop_map(|value| ("pattern".to_owned(), Value::from(value))),
        any::<bool>().prop_map(|value| ("uniqueItems".to_owned(), Value::from(value))),
    ]
}

fn any_schema() -> BoxedStrategy<Value> {
    let leaf = prop_oneof![
        Just(json!({})),
        Just(json!(true)),
        Just(json!(false)),
        Just(json!({"type": "string"})),
        Just(json!({"$ref": "#/$defs/D1"})),
    ];
    leaf.prop_recursive(4, 40, 4, |inner| {
        prop::collection::vec(keyword(inner), 0..4)
            .prop_map(|keywords| Value::Object(keywords.into_iter().collect()))
    })
    .boxed()
}

/// A root with definitions (in 2020-12's `$defs` or draft-07's `definitions`), some of which
/// refer to each other or to themselves.
fn any_root() -> impl Strategy<Value = Map<String, Value>> {
    let container = prop_oneof![Just("$defs"), Just("definitions")];
    (
        any_schema(),
        prop::collection::vec(any_schema(), 0..3),
        container,
    )
        .prop_map(|(root, defs, container)| {
            let mut root = match root {
                Value::Object(root) => root,
                _ => Map::new(),
            };
            let defs: Map<String, Value> = defs
                .into_iter()
                .enumerate()
                .map(|(at, def)| (format!("D{at}"), def))
                .collect();
            root.insert(container.to_owned(), Value::Object(defs));
            root
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn a_schema_from_anywhere_is_read_checked_and_rewritten_without_a_panic(
        root in any_root(),
        args in prop::collection::btree_map("[a-c]", any_json(), 0..4),
    ) {
        let args = Value::Object(args.into_iter().collect());
        for shape in [Shape::of(&root, false), Shape::of_remote(&root)] {
            let from_value = check_args("t", &shape, &args);
            let from_text = match check_text("t", &shape, &args.to_string()) {
                TextCheck::Fits => Ok(()),
                TextCheck::Refused(refused) => Err(refused),
                TextCheck::Reread => unreachable!("a Value's text names no key twice"),
            };
            prop_assert_eq!(from_text, from_value);
        }
        // A profile never leaves a reference dangling that resolved in what it was given.
        let resolves = |root: &Map<String, Value>, reference: &str| {
            crate::decode::pointer::resolve_reference(&Value::Object(root.clone()), reference).is_some()
        };
        for profile in Profile::ALL {
            let (rewritten, _) = profile.rewrite(&root);
            for reference in references(&rewritten) {
                // What a rewrite's `#/$defs/…` was written as: draft-07 is read as 2020-12.
                let given = match profile {
                    Profile::Plain => reference.clone(),
                    _ => reference.replace("#/$defs/", "#/definitions/"),
                };
                prop_assert!(
                    resolves(&rewritten, &reference)
                        || !(resolves(&root, &reference) || resolves(&root, &given)),
                    "{:?}: {} in {}", profile, reference, Value::Object(rewritten.clone())
                );
            }
        }
    }
}

/// Every `$ref` string in `schema`.
fn references(schema: &Map<String, Value>) -> Vec<String> {
    let mut found = Vec::new();
    let mut pending: Vec<&Value> = schema.values().collect();
    if let Some(Value::String(reference)) = schema.get("$ref") {
        found.push(reference.clone());
    }
    while let Some(value) = pending.pop() {
        match value {
            Value::Object(map) => {
                if let Some(Value::String(reference)) = map.get("$ref") {
                    found.push(reference.clone());
                }
                pending.extend(map.values());
            }
            Value::Array(values) => pending.extend(values),
            _ => {}
        }
    }
    found
}
