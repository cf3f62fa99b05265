//! The check made during decoding (`during.rs`) may only make a verdict cheaper: whenever the
//! judge vouches for text that decoded, the tree check over the same text says it fits, and
//! on the arguments tools get it does vouch.
use proptest::prelude::*;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::tree::TextTree;
use super::{Check, Judge, ROOT, Shape, Verdict, check};

/// Schemas that use every keyword the pass reads, and some it leaves to the tree check.
fn schemas() -> Vec<Shape> {
    let schemas = [
        json!({
            "type": "object",
            "properties": {
                "order": {"$ref": "#/$defs/Order"},
                "a": {"type": "integer"},
                "pay": {"anyOf": [{"$ref": "#/$defs/Pay"}, {"type": "null"}]},
            },
            "required": ["order"],
            "$defs": {
                // An externally tagged enum, as schemars writes it.
                "Pay": {"oneOf": [
                    {"type": "string", "enum": ["cash", "later"]},
                    {"type": "object", "properties": {"card": {"type": "string", "minLength": 4}}, "required": ["card"], "additionalProperties": false},
                    {"type": "object", "properties": {"split": {"type": "array", "items": {"type": "integer", "maximum": 5}}}, "required": ["split"], "additionalProperties": false},
                    {"type": "object", "properties": {"coupon": {"$ref": "#/$defs/Item"}}, "required": ["coupon"], "additionalProperties": false},
                ]},
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
fn tree_fits(shape: &Shape, text: &str) -> Option<bool> {
    let args = TextTree::read(text, usize::MAX).ok()?;
    Some(check("t", shape, &args).is_ok())
}

const KEYS: [&str; 26] = [
    "order", "items", "note", "sku", "quantity", "a", "tags", "pair", "unit", "shape", "kind", "r",
    "side", "any", "extra", "both", "x", "tree", "name", "children", "gift", "either", "pay",
    "card", "split", "coupon",
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
            Just("cash"),
            Just("card"),
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
fn arguments() -> impl Strategy<Value = String> {
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

/// The types of the first of [`schemas`], as a tool would declare them.
#[derive(Deserialize)]
#[allow(dead_code, reason = "only decoded")]
struct Args {
    order: Order,
    a: Option<i64>,
    pay: Option<Pay>,
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code, reason = "only decoded")]
enum Pay {
    Cash,
    Later,
    Card(String),
    Split(Vec<u8>),
    Coupon { sku: String, quantity: u32 },
}

#[derive(Deserialize)]
#[allow(dead_code, reason = "only decoded")]
struct Order {
    items: Vec<Item>,
    note: Option<String>,
}

#[derive(Deserialize)]
#[allow(dead_code, reason = "only decoded")]
struct Item {
    sku: String,
    quantity: u32,
}

/// Whether the judge vouches for `text` decoded as a `T` from the top.
fn vouches<'de, T: Deserialize<'de>>(judge: &Judge<'_>, text: &'de str) -> bool {
    matches!(
        judge.verdict(judge.decode::<T>(text, ROOT, true).ok()),
        Verdict::Vouched(_)
    )
}

proptest! {
    #[test]
    fn what_the_judge_vouches_for_the_tree_check_lets_through(text in arguments()) {
        for (at, shape) in schemas().iter().enumerate() {
            let as_value = vouches::<Value>(&Judge::new(shape), &text);
            let as_args = at == 0 && vouches::<Args>(&Judge::new(shape), &text);
            if as_value || as_args {
                prop_assert_eq!(tree_fits(shape, &text), Some(true), "{}", text);
            }
            // The flat judge reads a `Value`, whose keys are unique (the text path refuses
            // a key given twice before any check), so the tree check of that `Value` decides.
            if let Ok(Value::Object(args)) = serde_json::from_str(&text) {
                if Judge::vouches_for_flat(shape, &args) {
                    let args = Value::Object(args);
                    prop_assert!(check("t", shape, &args).is_ok(), "{}", text);
                }
            }
        }
    }

    /// Arguments that fit, in the forms models send, are vouched for as they decode, from the
    /// top and one parameter at a time.
    #[test]
    fn the_judge_vouches_for_arguments_that_fit(
        items in prop::collection::vec(("[A-Z]-[0-9]{1,4}", 0_u32..=10), 0..6),
        note in prop::option::of("[a-z \"\\\\é]{0,12}"),
        extra in any::<bool>(),
        pretty in any::<bool>(),
        pay in prop_oneof![
            Just(json!(null)),
            Just(json!("cash")),
            Just(json!("later")),
            "[a-z]{4,8}".prop_map(|card| json!({"card": card})),
            prop::collection::vec(0_u8..=5, 0..4).prop_map(|split| json!({"split": split})),
            ("[A-Z]-[0-9]{1,4}", 0_u32..=10).prop_map(|(sku, quantity)| json!({"coupon": {"sku": sku, "quantity": quantity}})),
        ],
    ) {
        let items: Vec<Value> = items
            .into_iter()
            .map(|(sku, quantity)| json!({"sku": sku, "quantity": quantity}))
            .collect();
        let mut order = json!({"items": items, "note": note});
        if extra {
            // A key the schema does not name, which it allows, and serde skips.
            order["wrapping"] = json!({"wrap": [true]});
            order["gift"] = json!({"sku": "G-1", "quantity": 1});
        }
        let args = json!({"order": order, "a": null, "pay": pay});
        let text = if pretty { serde_json::to_string_pretty(&args).unwrap() } else { args.to_string() };
        let shapes = schemas();
        prop_assert_eq!(tree_fits(&shapes[0], &text), Some(true), "{}", text);
        prop_assert!(vouches::<Args>(&Judge::new(&shapes[0]), &text), "{}", text);
        // A `Value` reads an enum's object as any object, which only the check after judges.
        if !args["pay"].is_object() {
            prop_assert!(vouches::<Value>(&Judge::new(&shapes[0]), &text), "{}", text);
        }
        prop_assert_eq!(shapes[0].check_for(true, true), Check::Judge);
        let judge = Judge::new(&shapes[0]);
        let order = order.to_string();
        let (_, read): (Order, usize) = judge.decode_prefix(&format!("{order}, \"a\": 1}}"), judge.property("order").unwrap()).unwrap();
        prop_assert_eq!(read, order.len());
        prop_assert!(matches!(judge.verdict(Some(())), Verdict::Vouched(())));
    }
}

/// Each way the judge fails the decoding or leaves it unsure, beside what it vouches for.
#[test]
fn the_judge_leaves_each_hard_case_to_the_check_after() {
    let shapes = schemas();
    let order = r#"{"order":{"items":[{"sku":"A-1","quantity":2}],"note":null}}"#;
    assert!(vouches::<Args>(&Judge::new(&shapes[0]), order));
    for text in [
        // Refused: past a limit, a type, a missing or unknown key, a pattern, an array for a
        // struct (which serde takes).
        r#"{"order":{"items":[{"sku":"A-1","quantity":11}],"note":null}}"#,
        r#"{"order":{"items":[{"sku":"A-1"}],"note":null}}"#,
        r#"{"order":{"items":[{"sku":"A-1","quantity":2,"x":1}],"note":null}}"#,
        r#"{"order":{"items":[{"sku":"a-1","quantity":2}],"note":null}}"#,
        r#"{"order":{"items":[["A-1",2]],"note":null}}"#,
        // A key given twice.
        r#"{"order":{"items":[],"note":null,"note":"x"}}"#,
        r#"{"order":{"items":[],"note":null,"gift":{"k":1,"k":2}}}"#,
    ] {
        let judge = Judge::new(&shapes[0]);
        assert!(!vouches::<Args>(&judge, text), "{text}");
        assert!(!vouches::<Value>(&Judge::new(&shapes[0]), text), "{text}");
    }
    // An `Option` of a struct (`anyOf` with `null`) is judged as it decodes, `null` or not;
    // a `oneOf` whose other branch also admits `null` is left to the tree check.
    for gift in ["null", r#"{"sku":"G-1","quantity":1}"#] {
        let text = format!(r#"{{"order":{{"items":[],"note":null,"gift":{gift}}}}}"#);
        assert!(vouches::<Args>(&Judge::new(&shapes[0]), &text), "{text}");
    }
    for refused in [r#""G-1""#, r#"{"sku":"G-1"}"#] {
        let text = format!(r#"{{"order":{{"items":[],"note":null,"gift":{refused}}}}}"#);
        assert!(!vouches::<Value>(&Judge::new(&shapes[0]), &text), "{text}");
        assert_eq!(tree_fits(&shapes[0], &text), Some(false), "{text}");
    }
    let both_null = r#"{"order":{"items":[],"note":null,"either":null}}"#;
    let judge = Judge::new(&shapes[0]);
    assert!(
        judge.decode::<Value>(both_null, ROOT, true).is_err()
            || !matches!(judge.verdict(Some(())), Verdict::Vouched(()))
    );
    // A `null` at the top stands for an absent key; below, it is a value.
    assert!(vouches::<Value>(
        &Judge::new(&shapes[0]),
        r#"{"order":{"items":[],"note":null},"a":null}"#
    ));
    // `anyOf`, `oneOf`, `allOf` and an array's own limits leave the judge unsure, though
    // the value fits.
    for text in [
        r#"{"tags":["a","b"]}"#,
        r#"{"shape":{"kind":"circle","r":1.5}}"#,
        r#"{"both":{"x":1}}"#,
    ] {
        let judge = Judge::new(&shapes[1]);
        assert!(judge.decode::<Value>(text, ROOT, true).is_ok(), "{text}");
        assert!(
            !matches!(judge.verdict(Some(())), Verdict::Vouched(())),
            "{text}"
        );
        assert_eq!(tree_fits(&shapes[1], text), Some(true), "{text}");
    }
    assert!(vouches::<Value>(
        &Judge::new(&shapes[1]),
        r#"{"pair":[true,2.5],"extra":{"p":4},"unit":"cm"}"#
    ));
}

/// An externally tagged enum is judged as serde reads it, in both of its forms; what serde
/// takes beyond its schema fails the judged decoding.
#[test]
fn the_judge_reads_an_enum_as_serde_does() {
    let shapes = schemas();
    let with = |pay: &str| format!(r#"{{"order":{{"items":[],"note":null}},"pay":{pay}}}"#);
    for pay in [
        r#""cash""#,
        r#""later""#,
        "null",
        r#"{"card":"abcd"}"#,
        r#"{"split":[0,5]}"#,
        r#"{"coupon":{"sku":"A-1","quantity":10}}"#,
        r#"{"c\u0061rd":"abcd"}"#,
    ] {
        let text = with(pay);
        assert!(vouches::<Args>(&Judge::new(&shapes[0]), &text), "{text}");
        assert_eq!(tree_fits(&shapes[0], &text), Some(true), "{text}");
    }
    for pay in [
        // A unit variant as an object, which serde takes; a name the schema does not list.
        r#"{"cash":null}"#,
        r#""card""#,
        r#"{"later":null}"#,
        // A value past its variant's schema, a struct variant from an array (serde takes
        // both), a second entry.
        r#"{"card":"abc"}"#,
        r#"{"split":[6]}"#,
        r#"{"coupon":{"sku":"a-1","quantity":1}}"#,
        r#"{"coupon":["A-1",2]}"#,
        r#"{"card":"abcd","cash":null}"#,
        r#"{}"#,
        "1",
    ] {
        let text = with(pay);
        assert!(!vouches::<Args>(&Judge::new(&shapes[0]), &text), "{text}");
        assert_eq!(tree_fits(&shapes[0], &text), Some(false), "{text}");
    }
}

/// Flat arguments are judged a value at a time, as they would be while decoding; what the
/// judge cannot vouch for, the tree check decides.
#[test]
fn flat_arguments_are_judged_a_value_at_a_time() {
    let schema = json!({
        "type": "object",
        "properties": {"a": {"type": "integer", "maximum": 10}, "b": {"type": "string"}},
        "required": ["a"],
    });
    let shape = Shape::of(schema.as_object().unwrap(), false);
    // Decided once for every entry point: flat arguments under limits are judged, from text
    // and from a `Value`; nested ones from a `Value` take the tree check.
    assert_eq!(shape.check_for(false, true), Check::Judge);
    assert_eq!(shape.check_for(false, false), Check::Judge);
    assert_eq!(shape.check_for(true, true), Check::Judge);
    assert_eq!(shape.check_for(true, false), Check::Tree);
    let plain = json!({"type": "object", "properties": {"a": {"type": "integer"}}});
    let plain = Shape::of(plain.as_object().unwrap(), false);
    assert_eq!(plain.check_for(false, false), Check::Nothing);
    assert_eq!(plain.check_for(false, true), Check::Nothing);
    let flat = |text: &str| match serde_json::from_str(text) {
        Ok(Value::Object(args)) => Judge::vouches_for_flat(&shape, &args),
        _ => unreachable!("{text}"),
    };
    assert!(flat(r#"{"a":10,"b":"x"}"#));
    assert!(flat(r#"{"a":3.0}"#));
    for (text, fits) in [
        (r#"{"a":11}"#, false),
        (r#"{"b":"x"}"#, false),
        (r#"{"a":1,"b":1}"#, false),
        (r#"{"a":[1]}"#, false),
        // A key the schema does not name, and the `null` of one not required, which only
        // the tree check reads.
        (r#"{"a":1,"c":1}"#, true),
        (r#"{"a":1,"b":null}"#, true),
    ] {
        assert!(!flat(text), "{text}");
        assert_eq!(tree_fits(&shape, text), Some(fits), "{text}");
    }
}

/// serde_json reads an `f32` rounded to single precision, so the judge leaves it to the check
/// after, which refuses text past the bound that rounds to within it.
#[test]
fn an_f32_is_left_to_the_check_after() {
    #[derive(Deserialize)]
    #[allow(dead_code, reason = "only decoded")]
    struct Ratio {
        r: f32,
    }
    let schema =
        json!({"type": "object", "properties": {"r": {"type": "number", "maximum": f32::MAX}}});
    let shape = Shape::of(schema.as_object().unwrap(), false);
    for text in [r#"{"r":3.402823466385289e+38}"#, r#"{"r":1.5}"#] {
        let judge = Judge::new(&shape);
        assert!(judge.decode::<Ratio>(text, ROOT, true).is_ok(), "{text}");
        assert!(
            !matches!(judge.verdict(Some(())), Verdict::Vouched(())),
            "{text}"
        );
    }
    assert_eq!(
        tree_fits(&shape, r#"{"r":3.402823466385289e+38}"#),
        Some(false)
    );
}
