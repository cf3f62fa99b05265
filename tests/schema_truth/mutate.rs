//! Mutations of accepted arguments: keys dropped and added, values of another type, numbers
//! just past the bounds of every integer width, nulls and duplicated list items.

use proptest::prelude::*;
use proptest::sample::Index;
use serde_json::{Value, json};

use super::generate::any_json;

/// One change at one place of an instance.
#[derive(Clone, Debug)]
pub struct Mutation {
    at: Index,
    change: Change,
}

#[derive(Clone, Debug)]
enum Change {
    DropKey(Index),
    AddKey(String, Value),
    Replace(Value),
    PastBound(Index),
    Null,
    Duplicate(Index),
}

/// Numbers around the edges of every fixed-width integer, and integral and negative floats.
fn past_bounds() -> Vec<Value> {
    vec![
        json!(-1),
        json!(0),
        json!(128),
        json!(-129),
        json!(256),
        json!(32768),
        json!(-32769),
        json!(65536),
        json!(2_147_483_648u64),
        json!(-2_147_483_649i64),
        json!(4_294_967_296u64),
        json!(3_034_111_436_811_735_556u64),
        json!(9_223_372_036_854_775_808u64),
        json!(i64::MIN),
        json!(u64::MAX),
        json!(1.5),
        json!(3.0),
        json!(-0.0),
        json!(1.0e20),
        json!(-1.0e20),
    ]
}

pub fn mutation() -> impl Strategy<Value = Mutation> {
    let change = prop_oneof![
        2 => any::<Index>().prop_map(Change::DropKey),
        2 => ("[a-z_]{1,8}", any_json()).prop_map(|(key, value)| Change::AddKey(key, value)),
        2 => any_json().prop_map(Change::Replace),
        3 => any::<Index>().prop_map(Change::PastBound),
        2 => Just(Change::Null),
        1 => any::<Index>().prop_map(Change::Duplicate),
    ];
    (any::<Index>(), change).prop_map(|(at, change)| Mutation { at, change })
}

/// Applies `mutation` to one node of `value`, chosen among all of them (the root included).
pub fn apply(value: &mut Value, mutation: &Mutation) {
    let mut pointers = Vec::new();
    collect_pointers(value, String::new(), &mut pointers);
    let pointer = mutation.at.get(&pointers);
    let node = value
        .pointer_mut(pointer)
        .expect("a pointer just collected");
    match &mutation.change {
        Change::DropKey(which) => match node {
            Value::Object(map) if !map.is_empty() => {
                let key = which.get(&map.keys().cloned().collect::<Vec<_>>()).clone();
                map.shift_remove(&key);
            }
            Value::Array(items) if !items.is_empty() => {
                items.remove(which.index(items.len()));
            }
            other => *other = Value::Null,
        },
        Change::AddKey(key, added) => match node {
            Value::Object(map) => {
                map.insert(key.clone(), added.clone());
            }
            Value::Array(items) => items.push(added.clone()),
            other => *other = json!({ key: added }),
        },
        Change::Replace(replacement) => *node = replacement.clone(),
        // Anywhere: serde reads an integer where a buffered enum tag goes (a flattened
        // internally tagged enum's) as the variant's index, which no schema says.
        Change::PastBound(which) => *node = which.get(&past_bounds()).clone(),
        Change::Null => *node = Value::Null,
        Change::Duplicate(which) => match node {
            Value::Array(items) if !items.is_empty() => {
                let copy = which.get(items).clone();
                items.push(copy);
            }
            other => *other = Value::Null,
        },
    }
}

fn collect_pointers(value: &Value, at: String, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                let escaped = key.replace('~', "~0").replace('/', "~1");
                collect_pointers(child, format!("{at}/{escaped}"), out);
            }
        }
        Value::Array(items) => {
            for (index, child) in items.iter().enumerate() {
                collect_pointers(child, format!("{at}/{index}"), out);
            }
        }
        _ => {}
    }
    out.push(at);
}
