//! The check made during decoding (`during.rs`) may only make a verdict cheaper: whenever the
//! judge vouches for text that decoded, the tree check over the same text says it fits, and
//! on the arguments tools get it does vouch.
use proptest::prelude::*;
use serde::Deserialize;
use serde_json::{Value, json};

use super::stream_tests::{arguments, schemas, tree_fits};
use super::{Judge, ROOT};

/// The types of the first of [`schemas`], as a tool would declare them.
#[derive(Deserialize)]
#[allow(dead_code, reason = "only decoded")]
struct Args {
    order: Order,
    a: Option<i64>,
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
    judge.decode::<T>(text, ROOT, true).is_ok() && judge.vouches()
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
        let args = json!({"order": order, "a": null});
        let text = if pretty { serde_json::to_string_pretty(&args).unwrap() } else { args.to_string() };
        let shapes = schemas();
        prop_assert_eq!(tree_fits(&shapes[0], &text), Some(true), "{}", text);
        prop_assert!(vouches::<Args>(&Judge::new(&shapes[0]), &text), "{}", text);
        prop_assert!(vouches::<Value>(&Judge::new(&shapes[0]), &text), "{}", text);
        let judge = Judge::of_parameters(&shapes[0]).unwrap();
        let order = order.to_string();
        let (_, read): (Order, usize) = judge.decode_prefix(&format!("{order}, \"a\": 1}}"), judge.property("order").unwrap()).unwrap();
        prop_assert_eq!(read, order.len());
        prop_assert!(judge.vouches());
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
        assert!(super::stream::fits(&shapes[0], &text), "{text}");
    }
    for refused in [r#""G-1""#, r#"{"sku":"G-1"}"#] {
        let text = format!(r#"{{"order":{{"items":[],"note":null,"gift":{refused}}}}}"#);
        assert!(!vouches::<Value>(&Judge::new(&shapes[0]), &text), "{text}");
        assert!(!super::stream::fits(&shapes[0], &text), "{text}");
        assert_eq!(tree_fits(&shapes[0], &text), Some(false), "{text}");
    }
    let both_null = r#"{"order":{"items":[],"note":null,"either":null}}"#;
    let judge = Judge::new(&shapes[0]);
    assert!(judge.decode::<Value>(both_null, ROOT, true).is_err() || !judge.vouches());
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
        assert!(!judge.vouches(), "{text}");
        assert_eq!(tree_fits(&shapes[1], text), Some(true), "{text}");
    }
    assert!(vouches::<Value>(
        &Judge::new(&shapes[1]),
        r#"{"pair":[true,2.5],"extra":{"p":4},"unit":"cm"}"#
    ));
}
