//! The one-pass check (`stream.rs`) may only make a verdict cheaper: whenever it says text
//! fits, the tree check over the same text says so too, and on the arguments tools get it
//! does say so.
use proptest::prelude::*;
use serde_json::{Map, Value, json};

use super::tree::TextTree;
use super::{Shape, check, stream};

/// Schemas that use every keyword the pass reads, and some it leaves to the tree check.
pub(super) fn schemas() -> Vec<Shape> {
    let schemas = [
        json!({
            "type": "object",
            "properties": {"order": {"$ref": "#/$defs/Order"}, "a": {"type": "integer"}},
            "required": ["order"],
            "$defs": {
                "Order": {
                    "type": "object",
                    "properties": {
                        "items": {"type": "array", "items": {"$ref": "#/$defs/Item"}},
                        "note": {"type": ["string", "null"]},
                        "gift": {"anyOf": [{"$ref": "#/$defs/Item"}, {"type": "null"}]},
                        "either": {"oneOf": [{"type": "null"}, {"type": ["integer", "null"]}]},
                    },
                    "required": ["items", "note"],
                },
                "Item": {
                    "type": "object",
                    "properties": {
                        "sku": {"type": "string", "pattern": "^[A-Z]-[0-9]+$", "maxLength": 6},
                        "quantity": {"type": "integer", "minimum": 0, "maximum": 10},
                    },
                    "required": ["sku", "quantity"],
                    "additionalProperties": false,
                },
            },
        }),
        json!({
            "type": "object",
            "properties": {
                "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true, "maxItems": 3},
                "pair": {"type": "array", "prefixItems": [{"type": "boolean"}, {"type": "number"}], "items": false},
                "unit": {"enum": ["cm", "in"]},
                "shape": {"oneOf": [
                    {"type": "object", "properties": {"kind": {"const": "circle"}, "r": {"type": "number", "exclusiveMinimum": 0}}, "required": ["kind", "r"]},
                    {"type": "object", "properties": {"kind": {"const": "square"}, "side": {"type": "integer"}}, "required": ["kind"]},
                ]},
                "any": true,
                "extra": {"type": "object", "additionalProperties": {"type": "integer", "multipleOf": 2}},
                "both": {"allOf": [{"type": "object"}, {"required": ["x"]}]},
            },
            "additionalProperties": false,
        }),
        json!({
            "type": "object",
            "properties": {"tree": {"$ref": "#/$defs/Tree"}},
            "$defs": {"Tree": {
                "type": "object",
                "properties": {"name": {"type": "string", "minLength": 1}, "children": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}},
                "required": ["name"],
            }},
        }),
    ];
    schemas
        .iter()
        .map(|schema| Shape::of(schema.as_object().unwrap(), false))
        .collect()
}

/// What the tree check alone says of `text`: `None` when it does not read it (a key given
/// twice).
pub(super) fn tree_fits(shape: &Shape, text: &str) -> Option<bool> {
    let args = TextTree::read(text, usize::MAX).ok()?;
    Some(check("t", shape, &args).is_ok())
}

const KEYS: [&str; 22] = [
    "order", "items", "note", "sku", "quantity", "a", "tags", "pair", "unit", "shape", "kind", "r",
    "side", "any", "extra", "both", "x", "tree", "name", "children", "gift", "either",
];

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (-12_i64..12).prop_map(Value::from),
        prop_oneof![Just(0.5), Just(3.0), Just(-0.0), Just(1e300), Just(2.25)]
            .prop_map(Value::from),
        prop_oneof![
            Just("A-1"),
            Just("B-22"),
            Just("Z-1234567"),
            Just(""),
            Just("cm"),
            Just("in"),
            Just("circle"),
            Just("square"),
            Just("a\"b"),
            Just("é\u{1F600}"),
            Just("\\"),
        ]
        .prop_map(Value::from),
    ];
    leaf.prop_recursive(5, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(&KEYS[..]), inner), 0..6).prop_map(
                |entries| {
                    Value::Object(
                        entries
                            .into_iter()
                            .map(|(key, value)| (key.to_owned(), value))
                            .collect::<Map<_, _>>(),
                    )
                }
            ),
        ]
    })
}

/// Arguments: an object, written compactly or with spaces, maybe with one object's first key
/// written again, or a key spelled with an escape.
pub(super) fn arguments() -> impl Strategy<Value = String> {
    let object = prop::collection::vec((prop::sample::select(&KEYS[..]), json_value()), 0..5)
        .prop_map(|entries| {
            Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k.to_owned(), v))
                    .collect(),
            )
        });
    (
        object,
        any::<bool>(),
        0_usize..4,
        any::<prop::sample::Index>(),
    )
        .prop_map(|(args, pretty, twist, at)| {
            let text = if pretty {
                serde_json::to_string_pretty(&args).unwrap()
            } else {
                args.to_string()
            };
            let opens: Vec<usize> = text.match_indices("{\"").map(|(at, _)| at).collect();
            if opens.is_empty() || twist < 2 {
                return text;
            }
            let open = opens[at.index(opens.len())];
            let (before, after) = text.split_at(open + 1);
            match twist {
                // The object's first entry, given twice.
                2 => {
                    let key_end = after[1..].find('"').unwrap() + 2;
                    format!("{before}{}:null,{after}", &after[..key_end])
                }
                // A key with an escape (`\u0073ku` is `sku`).
                _ => format!("{before}\"\\u0073ku\":\"A-1\",{after}"),
            }
        })
}

proptest! {
    #[test]
    fn what_the_pass_lets_through_the_tree_check_lets_through(text in arguments()) {
        for shape in schemas() {
            if stream::fits(&shape, &text) {
                prop_assert_eq!(tree_fits(&shape, &text), Some(true), "{}", text);
            }
        }
    }

    /// Arguments that fit, in the forms models send, are judged by the pass alone.
    #[test]
    fn the_pass_vouches_for_arguments_that_fit(
        items in prop::collection::vec(("[A-Z]-[0-9]{1,4}", 0_u32..=10, any::<bool>()), 0..6),
        note in prop::option::of("[a-z \"\\\\é]{0,12}"),
        pretty in any::<bool>(),
    ) {
        let items: Vec<Value> = items
            .into_iter()
            .map(|(sku, quantity, float)| {
                let quantity = if float { json!(f64::from(quantity)) } else { json!(quantity) };
                json!({"quantity": quantity, "sku": sku})
            })
            .collect();
        let args = json!({"order": {"items": items, "note": note}, "a": null});
        let text = if pretty { serde_json::to_string_pretty(&args).unwrap() } else { args.to_string() };
        let shape = &schemas()[0];
        prop_assert_eq!(tree_fits(shape, &text), Some(true), "{}", text);
        prop_assert!(stream::fits(shape, &text), "{}", text);
    }
}

/// Each way the pass stops unsure, one at a time, beside the same arguments it vouches for.
#[test]
fn the_pass_leaves_each_hard_case_to_the_tree_check() {
    let shapes = schemas();
    let fits = |shape: usize, text: &str| stream::fits(&shapes[shape], text);
    let order = r#"{"order":{"items":[{"sku":"A-1","quantity":2}],"note":null}}"#;
    assert!(fits(0, order));
    for (shape, text) in [
        // Refused: past a limit, a type, a missing or unknown key, a pattern.
        (
            0,
            r#"{"order":{"items":[{"sku":"A-1","quantity":11}],"note":null}}"#,
        ),
        (
            0,
            r#"{"order":{"items":[{"sku":"A-1","quantity":2.5}],"note":null}}"#,
        ),
        (0, r#"{"order":{"items":[{"sku":"A-1"}],"note":null}}"#),
        (
            0,
            r#"{"order":{"items":[{"sku":"A-1","quantity":2,"x":1}],"note":null}}"#,
        ),
        (
            0,
            r#"{"order":{"items":[{"sku":"a-1","quantity":2}],"note":null}}"#,
        ),
        (0, r#"{"order":{"items":[["A-1",2]],"note":null}}"#),
        // A key given twice, or with an escape.
        (0, r#"{"order":{"items":[],"note":null,"note":"x"}}"#),
        (0, r#"{"order":{"items":[],"no\u0074e":null}}"#),
    ] {
        assert!(!fits(shape, text), "{text}");
    }
    // Values read whole, then judged by the tree check: they fit. A string with escapes
    // under limits is one.
    assert!(fits(
        0,
        r#"{"order":{"items":[{"sku":"A-\u0031","quantity":2}],"note":null}}"#
    ));
    for text in [
        r#"{"tags":["a","b"],"shape":{"kind":"circle","r":1.5},"both":{"x":1},"unit":"cm"}"#,
        r#"{"pair":[true,2.5],"extra":{"p":4},"any":{"k":[1,{"j":null}]}}"#,
    ] {
        assert!(fits(1, text), "{text}");
    }
    for text in [
        r#"{"tags":["a","a"]}"#,
        r#"{"shape":{"kind":"circle","r":0}}"#,
        r#"{"any":{"k":1,"k":2}}"#,
        r#"{"extra":{"p":3}}"#,
        r#"{"pair":[true,2.5,1]}"#,
    ] {
        assert!(!fits(1, text), "{text}");
    }
}
