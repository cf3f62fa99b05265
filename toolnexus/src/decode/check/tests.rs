//! The check's own cases: budgets, reference loops, text and `Value` read alike.
use serde_json::{Value, json};

use super::tree::{TextTree, Unread};
use super::{BUDGET, Shape, TextCheck, check_args, check_text, check_within};

fn object(value: Value) -> serde_json::Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => unreachable!("an object literal"),
    }
}

/// Three branches that each descend into the same list: checking each branch's children
/// anew at every level would take 3^60 steps on a value that breaks all of them at its
/// deepest leaf; the definition is checked once per value instead.
#[test]
fn a_recursive_definition_is_checked_once_per_value() {
    let root = object(json!({
        "type": "object",
        "properties": {"tree": {"$ref": "#/$defs/Tree"}},
        "$defs": {"Tree": {"anyOf": [
            {"type": "object", "properties": {"c": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}}},
            {"type": "object", "properties": {"c": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}}},
            {"type": "object", "properties": {"c": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}}},
        ]}},
    }));
    let shape = Shape::of(&root, false);
    let tree = |depth: usize| {
        let mut tree = json!("leaf");
        for _ in 0..depth {
            tree = json!({"c": [tree]});
        }
        json!({ "tree": tree })
    };
    let refused = check_args("t", &shape, &tree(60)).unwrap_err();
    let path = "[0].c".repeat(59);
    assert_eq!(
        refused.output,
        format!(
            "invalid arguments for `t`: field `tree.c{path}[0]`: invalid type: string \
             \"leaf\", expected object"
        )
    );
    // Past the budget the arguments are let through, as serde took them.
    assert!(check_within("t", &shape, &tree(3), 5).is_ok());
    assert!(check_within("t", &shape, &tree(3), BUDGET).is_err());
}

/// A hostile object's keys count against the budget, each compared with the names of
/// every branch that reads it.
#[test]
fn the_keys_of_an_object_count_against_the_budget() {
    let root = object(json!({
        "type": "object",
        "properties": {"x": {"type": "object", "properties": {"a": {"type": "string"}}}},
    }));
    let shape = Shape::of(&root, false);
    let keys: serde_json::Map<String, Value> = (0..1_000)
        .map(|key| (format!("k{key}"), json!(1)))
        .collect();
    let mut args = json!({"x": keys});
    args["x"]["a"] = json!(1);
    assert!(check_within("t", &shape, &args, 1_000).is_ok());
    assert_eq!(
        check_within("t", &shape, &args, 10_000).unwrap_err().output,
        "invalid arguments for `t`: field `x.a`: invalid type: integer `1`, expected string"
    );
}

/// A `$ref` loop that never reaches the value says nothing about it.
#[test]
fn a_reference_loop_admits_the_value() {
    let root = object(json!({
        "type": "object",
        "properties": {"x": {"$ref": "#/$defs/A"}},
        "$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}},
    }));
    assert!(check_args("t", &Shape::of(&root, false), &json!({"x": [1]})).is_ok());
}

/// Text is read into its own tree for the check; what it finds is what the check of the
/// same `Value` finds, and text with more values than are checked is not read.
#[test]
fn text_and_value_are_checked_alike() {
    let root = object(json!({
        "type": "object",
        "properties": {
            "points": {"type": "array", "items": {"$ref": "#/$defs/Point"}},
            "unit": {"type": "string", "enum": ["cm", "in"]},
            "label": {"type": ["string", "null"]},
        },
        "$defs": {"Point": {
            "type": "object",
            "properties": {"x": {"type": "integer"}, "y": {"type": "number"}},
            "required": ["x", "y"],
            "additionalProperties": false,
        }},
    }));
    let shape = Shape::of(&root, false);
    let cases = [
        json!({"points": [{"x": 1, "y": 2.5}], "unit": "cm", "label": null}),
        json!({"points": [{"x": 1.0, "y": 2}, [1, 2]]}),
        json!({"points": [{"x": 1.5, "y": 2}]}),
        json!({"points": [{"x": 1}]}),
        json!({"points": [{"x": 1, "y": 2, "z": 3}]}),
        json!({"points": [], "unit": "mm"}),
        json!({"points": [], "label": "café \"a\""}),
    ];
    for args in cases {
        let text = args.to_string();
        let from_text = match check_text("t", &shape, &text) {
            TextCheck::Fits => Ok(()),
            TextCheck::Refused(refused) => Err(refused),
            TextCheck::Reread => unreachable!("no key is given twice"),
        };
        assert_eq!(from_text, check_args("t", &shape, &args), "{text}");
    }
    let refused = check_args("t", &shape, &json!({"points": [{"x": 1.5, "y": 2}]}));
    assert_eq!(
        refused.unwrap_err().output,
        "invalid arguments for `t`: field `points[0].x`: invalid type: number `1.5`, \
         expected integer"
    );
    assert!(TextTree::read("[1, 2, 3]", 4).is_ok());
    assert!(matches!(TextTree::read("[1, 2, 3]", 3), Err(Unread::Other)));
    let keys: Vec<String> = (0..40).map(|key| format!(r#""k{key}": 1"#)).collect();
    let unique = format!("{{{}}}", keys.join(", "));
    assert!(TextTree::read(&unique, 100).is_ok());
    for twice in [
        r#"{"a": {"x": 1, "x": 2}}"#,
        &format!(r#"{{{}, "k7": 2}}"#, keys.join(", ")),
    ] {
        assert!(
            matches!(TextTree::read(twice, 100), Err(Unread::DuplicateKey)),
            "{twice}"
        );
    }
}

/// The limits' own arithmetic and the broken-pattern report.
mod limits {
    use serde_json::{Number, json};

    use super::super::limits::{Step, broken_patterns, compare};

    fn number(value: serde_json::Value) -> Number {
        match value {
            serde_json::Value::Number(number) => number,
            other => unreachable!("{other} is a number"),
        }
    }

    /// Integers past 2^53 compare exactly with floats, and multiples are exact on the
    /// decimals the numbers are written as.
    #[test]
    fn numbers_compare_and_divide_exactly() {
        use std::cmp::Ordering::{Equal, Greater, Less};
        let cases = [
            (
                json!(9_007_199_254_740_993u64),
                json!(9_007_199_254_740_992.0),
                Greater,
            ),
            (json!(u64::MAX), json!(1.8446744073709552e19), Less),
            (json!(1), json!(1.0), Equal),
            (json!(-1), json!(-0.5), Less),
            (json!(0.1), json!(0.2), Less),
        ];
        for (a, b, order) in cases {
            assert_eq!(
                compare(&number(a.clone()), &number(b.clone())),
                order,
                "{a} {b}"
            );
        }
        let multiples = [
            (json!(15), json!(5), true),
            (json!(-15), json!(5), true),
            (json!(7), json!(5), false),
            (json!(0.75), json!(0.25), true),
            (json!(-2.5), json!(0.5), true),
            (json!(0.3), json!(0.1), true),
            (json!(1), json!(0.1), true),
            (json!(19.99), json!(0.01), true),
            (json!(0.0075), json!(0.0001), true),
            (json!(0.00751), json!(0.0001), false),
            (json!(0), json!(0.1), true),
            (json!(3), json!(1.5), true),
            (json!(35), json!(1.5), false),
            (json!(1e308), json!(0.123456789), false),
            (json!(1e308), json!(1e300), true),
            (json!(u64::MAX), json!(0.5), true),
            (json!(1e-300), json!(1e-301), true),
            (json!(1e-301), json!(1e-300), false),
        ];
        for (value, multiple, expected) in multiples {
            assert_eq!(
                Step::of(number(multiple.clone()))
                    .unwrap()
                    .admits(&number(value.clone())),
                expected,
                "{value} / {multiple}"
            );
        }
    }

    /// `check` can list the patterns that do not compile, with where they are; values that
    /// hold a `pattern` key are data, not schemas.
    #[test]
    fn broken_patterns_are_listed_with_their_place() {
        let schema = json!({
            "type": "object",
            "properties": {
                "ok": {"type": "string", "pattern": "^[a-z]+$"},
                "bad": {"type": "string", "pattern": "(unclosed"},
                "a/b": {"items": {"pattern": "[z-a]"}},
                // Named like a keyword whose value is data, but a property's schema.
                "default": {"type": "string", "pattern": "[b-a]"},
                "pattern": {"type": "string"},
            },
            "default": {"pattern": "("},
        });
        let broken: Vec<(String, String)> = broken_patterns(&schema)
            .into_iter()
            .map(|(pointer, pattern, _)| (pointer, pattern))
            .collect();
        assert_eq!(
            broken,
            [
                ("/properties/bad".to_owned(), "(unclosed".to_owned()),
                ("/properties/a~1b/items".to_owned(), "[z-a]".to_owned()),
                ("/properties/default".to_owned(), "[b-a]".to_owned()),
            ]
        );
    }
}

/// The cut-off the README states: a check that would take more than 10,000,000 steps lets
/// the arguments through as serde took them. A list of `n` items, each tried against 50
/// branches that refuse it before one that fits it, then one last item that fits none,
/// costs a fixed amount per item (measured here on short lists): the longest list checked
/// within 10,000,000 steps is refused, one a few items longer is let through.
#[test]
fn past_ten_million_steps_the_arguments_are_let_through() {
    let mut branches: Vec<Value> = (0..50)
        .map(|i| json!({"type": "object", "properties": {"y": {"type": "string"}}, "required": [format!("z{i}")]}))
        .collect();
    branches.push(json!({"type": "object", "properties": {"y": {"type": "string"}}}));
    let root = object(json!({
        "type": "object",
        "properties": {"xs": {"type": "array", "items": {"anyOf": branches}}},
    }));
    let shape = Shape::of(&root, false);
    let list = |n: usize| {
        let mut xs = vec![json!({"y": "s"}); n];
        xs.push(json!({"y": 1}));
        json!({ "xs": xs })
    };
    // The fewest steps in which the check finds the last item's mismatch.
    let cost = |args: &Value| {
        let (mut low, mut high) = (0, BUDGET);
        while low < high {
            let mid = (low + high) / 2;
            if check_within("t", &shape, args, mid).is_err() {
                high = mid;
            } else {
                low = mid + 1;
            }
        }
        low
    };
    let (base, per_item) = (cost(&list(0)), cost(&list(1)) - cost(&list(0)));
    assert_eq!(cost(&list(7)), base + 7 * per_item, "a fixed cost per item");
    let within = (10_000_000 - base) / per_item;
    let refused = check_args("t", &shape, &list(within)).unwrap_err();
    assert_eq!(
        refused.output,
        format!(
            "invalid arguments for `t`: field `xs[{within}].y`: invalid type: integer `1`, \
             expected string"
        )
    );
    assert!(check_args("t", &shape, &list(within + 1)).is_ok());
}
