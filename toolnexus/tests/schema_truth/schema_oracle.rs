//! SPEC §11 and §13, held against an independent reading of JSON Schema 2020-12 (the
//! `jsonschema` crate): for generated schemas that mix every keyword the §11 checker reads —
//! `type` (and type lists), `enum`, `const`, `properties`, `required`,
//! `additionalProperties`, `items`, `prefixItems`, `anyOf`, `oneOf`, `allOf`, `$ref` into
//! `$defs`, the numeric, string, array and object bounds, `multipleOf`, `pattern`,
//! `uniqueItems` — and values drawn from a small vocabulary so that they often fit, the
//! checker admits every value the schema admits, and refuses every value it refuses except
//! where a `oneOf` matches more than one branch (the checker reads `oneOf` as `anyOf`, and
//! leaves that to the server); values the oracle itself misreads are skipped
//! ([`oracle_misreads`]). The schemas reach the checker the way a schema nobody here
//! wrote does: as the `data.schema` of a request, whose answer is checked before the tool
//! runs again (SPEC §10B) — the same `check_args` over a schema read at run time that checks
//! a remote MCP tool's arguments.

use crate::common::asking;

use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::{Map, Value, json};
use toolnexus::Request;

use asking::{accept, fill};

/// The keys objects use, in schemas and values alike.
const KEYS: [&str; 3] = ["a", "b", "c"];

fn scalar() -> impl Strategy<Value = Value> + Clone {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-3_i64..12).prop_map(Value::from),
        prop::sample::select(vec![
            json!(1.0),
            json!(1.5),
            json!(2.5),
            json!(0.3),
            json!(-0.5),
            json!(1e300),
            json!(9_007_199_254_740_993_u64),
            json!(-9_223_372_036_854_775_808_i64),
            json!(18_446_744_073_709_551_615_u64),
        ]),
        prop::sample::select(vec![
            "", "a", "b", "ab", "ba", "abc", "é", "😀", "aé", "a😀"
        ])
        .prop_map(Value::from),
    ]
}

/// A value from the vocabulary: scalars, and arrays and objects of up to three of them.
fn value() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(prop::sample::select(KEYS.to_vec()), inner, 0..4).prop_map(
                |map| { Value::Object(map.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()) }
            ),
        ]
    })
}

fn kind() -> impl Strategy<Value = Value> + Clone {
    let names = vec![
        "null", "boolean", "integer", "number", "string", "array", "object",
    ];
    prop_oneof![
        3 => prop::sample::select(names.clone()).prop_map(Value::from),
        1 => prop::sample::subsequence(names, 1..3)
            .prop_map(|names| Value::from(names.into_iter().map(Value::from).collect::<Vec<_>>())),
    ]
}

/// One keyword a schema object may hold, with a value the vocabulary can meet.
fn leaf_keyword() -> impl Strategy<Value = (String, Value)> {
    let count = || 0_u64..4;
    let bound = || prop_oneof![(-2_i64..10).prop_map(Value::from), Just(json!(1.5))];
    prop_oneof![
        kind().prop_map(|kind| ("type".to_owned(), kind)),
        prop::collection::vec(scalar(), 1..4).prop_map(|list| ("enum".to_owned(), json!(list))),
        value().prop_map(|constant| ("const".to_owned(), constant)),
        bound().prop_map(|n| ("minimum".to_owned(), n)),
        bound().prop_map(|n| ("maximum".to_owned(), n)),
        bound().prop_map(|n| ("exclusiveMinimum".to_owned(), n)),
        bound().prop_map(|n| ("exclusiveMaximum".to_owned(), n)),
        prop::sample::select(vec![
            json!(2),
            json!(3),
            json!(0.5),
            json!(0.1),
            json!(1e-9)
        ])
        .prop_map(|n| ("multipleOf".to_owned(), n)),
        count().prop_map(|n| ("minLength".to_owned(), json!(n))),
        count().prop_map(|n| ("maxLength".to_owned(), json!(n))),
        prop::sample::select(vec!["^a", "b$", "^[ab]*$", "é", "^.$"])
            .prop_map(|pattern| ("pattern".to_owned(), json!(pattern))),
        count().prop_map(|n| ("minItems".to_owned(), json!(n))),
        count().prop_map(|n| ("maxItems".to_owned(), json!(n))),
        any::<bool>().prop_map(|unique| ("uniqueItems".to_owned(), json!(unique))),
        count().prop_map(|n| ("minProperties".to_owned(), json!(n))),
        count().prop_map(|n| ("maxProperties".to_owned(), json!(n))),
        prop::sample::subsequence(KEYS.to_vec(), 0..3)
            .prop_map(|keys| ("required".to_owned(), json!(keys))),
        prop::sample::select(vec!["#/$defs/d", "#/$defs/e"])
            .prop_map(|target| ("$ref".to_owned(), json!(target))),
    ]
}

/// A keyword whose value holds subschemas.
fn applicator(schema: BoxedStrategy<Value>) -> impl Strategy<Value = (String, Value)> {
    let list = || prop::collection::vec(schema.clone(), 1..3).prop_map(Value::Array);
    prop_oneof![
        prop::collection::btree_map(prop::sample::select(KEYS.to_vec()), schema.clone(), 1..3)
            .prop_map(|properties| {
                let properties: Map<String, Value> = properties
                    .into_iter()
                    .map(|(k, v)| (k.to_owned(), v))
                    .collect();
                ("properties".to_owned(), Value::Object(properties))
            }),
        schema
            .clone()
            .prop_map(|values| ("additionalProperties".to_owned(), values)),
        schema.clone().prop_map(|items| ("items".to_owned(), items)),
        list().prop_map(|prefix| ("prefixItems".to_owned(), prefix)),
        list().prop_map(|branches| ("anyOf".to_owned(), branches)),
        list().prop_map(|branches| ("oneOf".to_owned(), branches)),
        list().prop_map(|parts| ("allOf".to_owned(), parts)),
    ]
}

/// A schema: `true`, `false`, or an object of up to four keywords.
fn schema() -> BoxedStrategy<Value> {
    let leaf = prop::collection::vec(leaf_keyword(), 0..4).prop_map(object);
    prop_oneof![
        1 => any::<bool>().prop_map(Value::Bool),
        8 => leaf,
    ]
    .prop_recursive(3, 24, 4, |inner| {
        prop::collection::vec(
            prop_oneof![leaf_keyword().boxed(), applicator(inner).boxed()],
            1..5,
        )
        .prop_map(object)
        .boxed()
    })
    .boxed()
}

fn object(keywords: Vec<(String, Value)>) -> Value {
    Value::Object(keywords.into_iter().collect())
}

/// A request's schema, asking for `v` (an answer's data is an object) under `schema`, with
/// two definitions: `d` with no reference, and `e` whose references all lead to `d` — so no
/// loop of references stands where no value leads.
fn asked(schema: Value, mut d: Value, mut e: Value) -> Value {
    retarget(&mut d, None);
    retarget(&mut e, Some("#/$defs/d"));
    json!({
        "type": "object",
        "properties": {"v": schema},
        "required": ["v"],
        "$defs": {"d": d, "e": e},
    })
}

/// Every `$ref` inside `schema` made to point at `target`, or taken out.
fn retarget(schema: &mut Value, target: Option<&str>) {
    match schema {
        Value::Object(map) => {
            if map.shift_remove("$ref").is_some() {
                if let Some(target) = target {
                    map.insert("$ref".to_owned(), Value::from(target));
                }
            }
            map.values_mut().for_each(|value| retarget(value, target));
        }
        Value::Array(list) => list.iter_mut().for_each(|value| retarget(value, target)),
        _ => {}
    }
}

/// Whether some schema object inside `schema` has a `key` whose value passes `test`.
fn has_keyword(schema: &Value, key: &str, test: fn(&Value) -> bool) -> bool {
    match schema {
        Value::Object(map) => map
            .iter()
            .any(|(name, value)| (name == key && test(value)) || has_keyword(value, key, test)),
        Value::Array(list) => list.iter().any(|value| has_keyword(value, key, test)),
        _ => false,
    }
}

/// Whether some number inside `value` passes `test`.
fn has_number(value: &Value, test: fn(&serde_json::Number) -> bool) -> bool {
    match value {
        Value::Number(number) => test(number),
        Value::Array(list) => list.iter().any(|value| has_number(value, test)),
        Value::Object(map) => map.values().any(|value| has_number(value, test)),
        _ => false,
    }
}

/// Where the oracle is wrong (`jsonschema` 0.33), its verdict on `value` says nothing: under
/// `multipleOf` it divides as `f64`, so it takes 2^53 + 1 for a multiple of 2, and it refuses
/// every negative number under a step that is not whole (its `value < multiple` shortcut),
/// though `-1` is `-2 × 0.5`; in a list of types it takes no float for an integer, though
/// `1.0` and `1e300` are.
fn oracle_misreads(root: &Value, value: &Value) -> bool {
    let step = has_keyword(root, "multipleOf", |_| true);
    let fractional_step = has_keyword(root, "multipleOf", |step| {
        step.as_f64().is_some_and(|step| step.fract() != 0.0)
    });
    let integer_in_list = has_keyword(root, "type", |kinds| {
        kinds
            .as_array()
            .is_some_and(|kinds| kinds.contains(&json!("integer")))
    });
    (step
        && has_number(value, |n| {
            n.as_f64().is_some_and(|n| n.abs() >= 2_f64.powi(53))
        }))
        || (fractional_step && has_number(value, |n| n.as_f64().is_some_and(|n| n < 0.0)))
        || (integer_in_list
            && has_number(value, |n| {
                n.is_f64() && n.as_f64().is_some_and(|n| n.fract() == 0.0)
            }))
}

#[test]
fn the_checker_reads_every_keyword_as_json_schema_does() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let (toolkit, asked_schema, runs) = fill();
    let config = Config {
        cases: 1024,
        failure_persistence: None,
        ..Config::default()
    };
    let strategy = (
        schema(),
        schema(),
        schema(),
        prop::collection::vec(value(), 8),
    );
    let (admitted_seen, refused_seen) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let mut runner = TestRunner::new(config);
    let outcome = runner.run(&strategy, |(schema, d, e, values)| {
        let root = asked(schema, d, e);
        let Ok(validator) = jsonschema::validator_for(&root) else {
            // A schema the oracle cannot compile says nothing.
            return Ok(());
        };
        let one_of = has_keyword(&root, "oneOf", |_| true);
        *asked_schema.lock().unwrap() = root.clone();
        for value in values.iter().filter(|value| !oracle_misreads(&root, value)) {
            let data = json!({"v": value});
            let admitted = validator.is_valid(&data);
            let before = runs.load(Ordering::SeqCst);
            let result = runtime.block_on(toolkit.call("fill", json!({}), |request: Request| {
                let answer = accept(&request, data.clone());
                async move { answer }
            }));
            let ran = runs.load(Ordering::SeqCst) > before;
            prop_assert_eq!(ran, !result.is_error, "{}", result.output);
            if admitted {
                prop_assert!(ran, "{} refuses {}: {}", root, data, result.output);
                admitted_seen.fetch_add(1, Ordering::Relaxed);
            } else if !one_of {
                prop_assert!(!ran, "{} admits {}", root, data);
                prop_assert!(
                    result.output.starts_with("answer to `fill`: field `v"),
                    "{}",
                    result.output
                );
                refused_seen.fetch_add(1, Ordering::Relaxed);
            }
        }
        Ok::<(), TestCaseError>(())
    });
    if let Err(failure) = outcome {
        panic!("{failure}");
    }
    let (admitted, refused) = (admitted_seen.into_inner(), refused_seen.into_inner());
    eprintln!("COUNTS {admitted} {refused}");
    // Most values were compared, each way.
    assert!(
        admitted > 1_000 && refused > 1_000,
        "{admitted} admitted, {refused} refused"
    );
}
