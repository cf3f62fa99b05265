//! Mutations of accepted arguments: keys dropped and added, values of another type, numbers
//! just past the bounds of every integer width, nulls and duplicated list items; and, read
//! from the plain schema, a step just past each limit a value is under ([`past_limits`]).

use proptest::prelude::*;
use proptest::sample::Index;
use serde_json::{Value, json};

use super::generate::{any_json, integer_value};

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

/// One mutant per limit some value of `args` is under in `root` (the plain schema), each a
/// step just past it — `maximum + 1`, one character too many, one item too few, an item
/// repeated — with the path a refusal must name (`lines[0].qty`). Limits on the arguments
/// object itself are left out, and inside `anyOf`/`oneOf` only the branch an object's keys
/// pick is read.
pub fn past_limits(root: &Value, args: &Value) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    Limits { root, args }.walk(root, args, &mut Vec::new(), &mut out);
    out
}

struct Limits<'a> {
    root: &'a Value,
    args: &'a Value,
}

/// A step into a value: a key, or an index.
enum Step {
    Key(String),
    Index(usize),
}

impl Limits<'_> {
    fn walk(
        &self,
        schema: &Value,
        value: &Value,
        at: &mut Vec<Step>,
        out: &mut Vec<(String, Value)>,
    ) {
        let Some(schema) = self.resolve(schema) else {
            return;
        };
        if !at.is_empty() {
            for past in steps_past(schema, value) {
                out.push((path(at), self.with(at, past)));
            }
        }
        if let Some(Value::Array(parts)) = schema.get("allOf") {
            for part in parts {
                self.walk(part, value, at, out);
            }
        }
        for key in ["anyOf", "oneOf"] {
            if let (Some(Value::Array(branches)), Value::Object(object)) = (schema.get(key), value)
            {
                for branch in branches {
                    let names = self
                        .resolve(branch)
                        .and_then(|b| b.get("properties")?.as_object());
                    // The branch whose names hold every key, and whose `const`s (a tag) agree.
                    let picked = names.is_some_and(|names| {
                        !object.is_empty()
                            && object.iter().all(|(key, child)| {
                                names.get(key).is_some_and(|property| {
                                    property.get("const").is_none_or(|tag| tag == child)
                                })
                            })
                    });
                    if picked {
                        self.walk(branch, value, at, out);
                    }
                }
            }
        }
        match value {
            Value::Object(object) => {
                for (key, child) in object {
                    let property = schema.get("properties").and_then(|p| p.get(key));
                    let other = schema
                        .get("additionalProperties")
                        .filter(|other| other.is_object());
                    if let Some(child_schema) = property.or(other) {
                        at.push(Step::Key(key.clone()));
                        self.walk(child_schema, child, at, out);
                        at.pop();
                    }
                }
            }
            Value::Array(items) => {
                for (index, item) in items.iter().enumerate().take(3) {
                    let prefix = schema.get("prefixItems").and_then(|p| p.get(index));
                    if let Some(item_schema) = prefix.or_else(|| schema.get("items")) {
                        at.push(Step::Index(index));
                        self.walk(item_schema, item, at, out);
                        at.pop();
                    }
                }
            }
            _ => {}
        }
    }

    /// `schema` with its `$ref`s followed.
    fn resolve<'s>(&'s self, mut schema: &'s Value) -> Option<&'s serde_json::Map<String, Value>> {
        for _ in 0..8 {
            match schema.get("$ref").and_then(Value::as_str) {
                Some(reference) => schema = self.root.pointer(reference.strip_prefix('#')?)?,
                None => return schema.as_object(),
            }
        }
        None
    }

    /// The arguments with the value at `at` replaced.
    fn with(&self, at: &[Step], past: Value) -> Value {
        let mut args = self.args.clone();
        let mut node = &mut args;
        for step in at {
            node = match step {
                Step::Key(key) => &mut node[key.as_str()],
                Step::Index(index) => &mut node[*index],
            };
        }
        *node = past;
        args
    }
}

/// `at` as decode errors spell it: `lines[0].qty`.
fn path(at: &[Step]) -> String {
    let mut text = String::new();
    for step in at {
        match step {
            Step::Key(key) if text.is_empty() => text.push_str(key),
            Step::Key(key) => text.push_str(&format!(".{key}")),
            Step::Index(index) => text.push_str(&format!("[{index}]")),
        }
    }
    text
}

/// Values just past each limit `schema` puts on `value`.
fn steps_past(schema: &serde_json::Map<String, Value>, value: &Value) -> Vec<Value> {
    let mut past = Vec::new();
    let count = |key: &str| schema.get(key).and_then(Value::as_u64);
    match value {
        Value::Number(number) => {
            for (key, step) in [
                ("maximum", 1),
                ("minimum", -1),
                ("exclusiveMaximum", 0),
                ("exclusiveMinimum", 0),
            ] {
                past.extend(schema.get(key).and_then(|bound| beside(bound, step)));
            }
            match (schema.get("multipleOf"), number.as_i64()) {
                (Some(step), Some(n)) if step.as_i64().is_some_and(|step| step > 1) => {
                    past.push(json!(n + 1));
                }
                (Some(step), _) => {
                    let (step, n) = (step.as_f64().unwrap_or(1.0), number.as_f64().unwrap_or(0.0));
                    // Past 2^50 steps a float may have no half step: its neighbours are multiples.
                    if (n / step).abs() < 1_125_899_906_842_624.0 {
                        past.extend(
                            serde_json::Number::from_f64(n + step / 2.0).map(Value::Number),
                        );
                    }
                }
                (None, _) => {}
            }
        }
        Value::String(text) => {
            let chars: Vec<char> = text.chars().collect();
            if let Some(max) = count("maxLength") {
                let pad = chars.last().copied().unwrap_or('A');
                let longer: String = chars
                    .iter()
                    .copied()
                    .chain(std::iter::repeat(pad))
                    .take(max as usize + 1)
                    .collect();
                past.push(json!(longer));
            }
            if let Some(min) = count("minLength").filter(|min| *min > 0) {
                past.push(json!(chars[..min as usize - 1].iter().collect::<String>()));
            }
            if schema.contains_key("pattern") {
                past.push(json!("~"));
            }
        }
        Value::Array(items) if !items.is_empty() => {
            if let Some(max) = count("maxItems").filter(|max| *max < 64) {
                let mut longer = items.clone();
                longer.resize(max as usize + 1, items[items.len() - 1].clone());
                past.push(Value::Array(longer));
            }
            if let Some(min) = count("minItems").filter(|min| *min > 0) {
                past.push(Value::Array(items[..min as usize - 1].to_vec()));
            }
            if schema.get("uniqueItems") == Some(&Value::Bool(true)) {
                let mut repeated = items.clone();
                repeated.push(items[0].clone());
                past.push(Value::Array(repeated));
            }
        }
        Value::Object(object) if !object.is_empty() => {
            if let Some(max) = count("maxProperties").filter(|max| *max < 64) {
                let mut wider = object.clone();
                let first = object.values().next().cloned().unwrap_or_default();
                for key in 0.. {
                    if wider.len() > max as usize {
                        break;
                    }
                    wider.insert(format!("k{key}"), first.clone());
                }
                past.push(Value::Object(wider));
            }
            if let Some(min) = count("minProperties").filter(|min| *min > 0) {
                past.push(Value::Object(
                    object.clone().into_iter().take(min as usize - 1).collect(),
                ));
            }
        }
        _ => {}
    }
    past
}

/// `bound + step` (a step of 0 is the bound itself), as an integer where the bound is one and
/// the neighbour fits a JSON integer.
fn beside(bound: &Value, step: i128) -> Option<Value> {
    let exact = bound
        .as_i64()
        .map(i128::from)
        .or_else(|| bound.as_u64().map(i128::from));
    match exact {
        Some(n) => {
            let n = n + step;
            (i128::from(i64::MIN)..=i128::from(u64::MAX))
                .contains(&n)
                .then(|| integer_value(n))
        }
        None => {
            let bound = bound.as_f64()?;
            let mut past = bound + step as f64;
            // Past a large bound, one is below the float's precision: the neighbouring float.
            if past == bound && step != 0 {
                let up = (step > 0) == (bound > 0.0);
                past = f64::from_bits(if up {
                    bound.to_bits() + 1
                } else {
                    bound.to_bits() - 1
                });
            }
            serde_json::Number::from_f64(past).map(Value::Number)
        }
    }
}
