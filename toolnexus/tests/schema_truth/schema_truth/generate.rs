//! Instances generated from a schema: a proptest `Strategy` for every keyword the profiles
//! emit, in the JSON Schema dialect (the plain and OpenAI strict schemas) or Gemini's
//! OpenAPI 3.0 subset, limits included: numeric bounds (inclusive and exclusive) and
//! `multipleOf`, string lengths and `pattern`s, item and key counts, `uniqueItems`.

use proptest::prelude::*;
use proptest::string::string_regex;
use serde_json::{Map, Number, Value, json};

/// How a schema is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// JSON Schema 2020-12: an object without `additionalProperties` admits any other key.
    JsonSchema,
    /// Gemini's OpenAPI 3.0 subset: `nullable`, and objects hold only the keys they declare
    /// (Gemini generates no others, and toolnexus documents that reading).
    Gemini,
}

/// `$ref` expansions along one path before the generator stops descending into optional
/// parts (absent optional properties, empty arrays, `null` branches).
const REF_DEPTH: usize = 3;
/// A schema that still recurses this deep has no finite instance the generator can find.
const HARD_DEPTH: usize = 24;

/// Every instance the strategy yields is valid under `root` read in `dialect`.
pub fn instances(root: &Value, dialect: Dialect) -> BoxedStrategy<Value> {
    Generator { root, dialect }
        .schema(root, 0, 0)
        .expect("the schema admits some instance")
}

struct Generator<'a> {
    root: &'a Value,
    dialect: Dialect,
}

impl Generator<'_> {
    /// `None` when the schema admits nothing the generator can build at this depth.
    fn schema(&self, schema: &Value, refs: usize, depth: usize) -> Option<BoxedStrategy<Value>> {
        assert!(depth < HARD_DEPTH, "unbounded recursion in {schema}");
        let map = match schema {
            Value::Bool(true) => return Some(any_json().boxed()),
            Value::Object(map) => map,
            _ => return None,
        };
        if let Some(Value::String(reference)) = map.get("$ref") {
            let target = self.resolve(reference);
            let mut merged = target.as_object().cloned().unwrap_or_default();
            merged.extend(
                map.iter()
                    .filter(|(key, _)| *key != "$ref")
                    .map(|(key, value)| (key.clone(), value.clone())),
            );
            return self.schema(&Value::Object(merged), refs + 1, depth + 1);
        }
        if let Some(Value::Array(parts)) = map.get("allOf") {
            let mut merged = without(map, &["allOf"]);
            for part in parts {
                merge_object_schema(&mut merged, part.as_object().expect("an allOf part"));
            }
            return self.schema(&Value::Object(merged), refs, depth + 1);
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = map.get(key) {
                let siblings = without(map, &[key, "description", "default", "nullable"]);
                let mut options: Vec<BoxedStrategy<Value>> = Vec::new();
                let shallow = refs >= REF_DEPTH;
                for branch in branches {
                    let mut branch = branch.as_object().expect("a branch").clone();
                    merge_object_schema(&mut branch, &siblings);
                    let branch = Value::Object(branch);
                    if shallow && branches.len() > 1 && mentions_ref(&branch) {
                        continue;
                    }
                    options.extend(self.schema(&branch, refs, depth + 1));
                }
                if self.nullable(map) {
                    options.push(Just(Value::Null).boxed());
                }
                return union(options);
            }
        }
        let base = self.typed(map, refs, depth);
        let nullable = self.nullable(map);
        let with_null = match (base, nullable) {
            (Some(base), true) if refs >= REF_DEPTH => {
                Some(prop_oneof![Just(Value::Null), base].boxed())
            }
            (Some(base), true) => Some(prop_oneof![1 => Just(Value::Null), 4 => base].boxed()),
            (None, true) => Some(Just(Value::Null).boxed()),
            (base, false) => base,
        };
        match (with_null, map.get("default")) {
            (Some(strategy), Some(default)) => {
                Some(prop_oneof![1 => Just(default.clone()), 5 => strategy].boxed())
            }
            (strategy, _) => strategy,
        }
    }

    fn nullable(&self, map: &Map<String, Value>) -> bool {
        self.dialect == Dialect::Gemini && map.get("nullable") == Some(&Value::Bool(true))
    }

    fn typed(
        &self,
        map: &Map<String, Value>,
        refs: usize,
        depth: usize,
    ) -> Option<BoxedStrategy<Value>> {
        if let Some(constant) = map.get("const") {
            return Some(Just(constant.clone()).boxed());
        }
        if let Some(Value::Array(choices)) = map.get("enum") {
            return union(
                choices
                    .iter()
                    .map(|choice| Just(choice.clone()).boxed())
                    .collect(),
            );
        }
        let types: Vec<&str> = match map.get("type") {
            Some(Value::String(single)) => vec![single.as_str()],
            Some(Value::Array(types)) => types.iter().filter_map(Value::as_str).collect(),
            None if map.contains_key("properties") => vec!["object"],
            None if map.contains_key("items") || map.contains_key("prefixItems") => vec!["array"],
            None => return Some(any_json().boxed()),
            Some(other) => panic!("a type of {other}"),
        };
        let shallow = refs >= REF_DEPTH;
        if shallow && types.contains(&"null") {
            return Some(Just(Value::Null).boxed());
        }
        union(
            types
                .into_iter()
                .filter_map(|kind| match kind {
                    "null" => Some(Just(Value::Null).boxed()),
                    "boolean" => Some(any::<bool>().prop_map(Value::Bool).boxed()),
                    "integer" => integer(map),
                    "number" => Some(number(map)),
                    "string" => Some(string(map)),
                    "array" => self.array(map, refs, depth),
                    "object" => self.object(map, refs, depth),
                    other => panic!("unknown type {other}"),
                })
                .collect(),
        )
    }

    fn array(
        &self,
        map: &Map<String, Value>,
        refs: usize,
        depth: usize,
    ) -> Option<BoxedStrategy<Value>> {
        let min = bound(map, "minItems").unwrap_or(0);
        let shallow = refs >= REF_DEPTH;
        // Fewer items at each level of recursion keep recursive instances small.
        let spread = 4 / (refs as u64 + 1);
        let max = match bound(map, "maxItems") {
            _ if shallow => min,
            Some(max) => max.min(min + spread),
            None => min + spread,
        };
        let prefix: Vec<BoxedStrategy<Value>> = match map.get("prefixItems") {
            Some(Value::Array(prefix)) => prefix
                .iter()
                .map(|item| self.schema(item, refs, depth + 1))
                .collect::<Option<_>>()?,
            _ => Vec::new(),
        };
        let rest_max = max.saturating_sub(prefix.len() as u64);
        let rest_min = min.saturating_sub(prefix.len() as u64);
        let item = match map.get("items") {
            Some(items) if rest_max > 0 => self.schema(items, refs, depth + 1),
            _ => None,
        };
        let unique = map.get("uniqueItems") == Some(&Value::Bool(true));
        let rest = match item {
            // Distinct items: duplicates are dropped, and too few left are tried again.
            Some(item) if unique => {
                prop::collection::vec(item, rest_min as usize..=rest_max as usize)
                    .prop_map(|items| {
                        let mut distinct: Vec<Value> = Vec::new();
                        for item in items {
                            if !distinct.iter().any(|seen| same(seen, &item)) {
                                distinct.push(item);
                            }
                        }
                        distinct
                    })
                    .prop_filter("enough distinct items", move |items| {
                        items.len() as u64 >= rest_min
                    })
                    .boxed()
            }
            Some(item) => {
                prop::collection::vec(item, rest_min as usize..=rest_max as usize).boxed()
            }
            // Nothing past the prefix: always valid, and all an empty `items` leaves.
            None if rest_min == 0 => Just(Vec::new()).boxed(),
            None => return None,
        };
        Some(
            (prefix, rest)
                .prop_map(|(mut prefix, rest): (Vec<Value>, Vec<Value>)| {
                    prefix.extend(rest);
                    Value::Array(prefix)
                })
                .boxed(),
        )
    }

    fn object(
        &self,
        map: &Map<String, Value>,
        refs: usize,
        depth: usize,
    ) -> Option<BoxedStrategy<Value>> {
        let empty = Map::new();
        let properties = map
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let required: Vec<&str> = match map.get("required") {
            Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        let shallow = refs >= REF_DEPTH;
        let mut fields: Vec<BoxedStrategy<Option<(String, Value)>>> = Vec::new();
        for (name, property) in properties {
            let is_required = required.contains(&name.as_str());
            if shallow && !is_required {
                continue;
            }
            let Some(value) = self.schema(property, refs, depth + 1) else {
                assert!(!is_required, "required property `{name}` admits nothing");
                continue;
            };
            let name = name.clone();
            let field = value.prop_map(move |value| Some((name.clone(), value)));
            fields.push(if is_required {
                field.boxed()
            } else {
                prop_oneof![1 => Just(None), 2 => field].boxed()
            });
        }
        let declared: Vec<String> = properties.keys().cloned().collect();
        let extra_values = match map.get("additionalProperties") {
            _ if shallow => None,
            Some(Value::Bool(false)) => None,
            // Keys no subschema declares are unevaluated; the branches add their own.
            _ if map.get("unevaluatedProperties") == Some(&Value::Bool(false)) => None,
            _ if self.dialect == Dialect::Gemini => None,
            None | Some(Value::Bool(true)) => Some(any_json().boxed()),
            Some(schema) => self.schema(schema, refs, depth + 1),
        };
        let min_keys = bound(map, "minProperties").unwrap_or(0) as usize;
        let max_keys = bound(map, "maxProperties").map_or(usize::MAX, |max| max as usize);
        let extras = match extra_values {
            Some(values) => prop::collection::vec((extra_key(), values), min_keys..min_keys + 3)
                .prop_map(move |pairs| {
                    pairs
                        .into_iter()
                        .filter(|(key, _)| !declared.contains(key))
                        .collect::<Vec<_>>()
                })
                .boxed(),
            None => Just(Vec::new()).boxed(),
        };
        Some(
            (fields, extras)
                .prop_map(|(fields, extras)| {
                    let mut object = Map::new();
                    for (key, value) in fields.into_iter().flatten().chain(extras) {
                        object.insert(key, value);
                    }
                    object
                })
                .prop_filter("as many keys as the schema allows", move |object| {
                    (min_keys..=max_keys).contains(&object.len())
                })
                .prop_map(Value::Object)
                .boxed(),
        )
    }

    fn resolve(&self, reference: &str) -> &Value {
        let pointer = reference.strip_prefix('#').expect("a local reference");
        self.root
            .pointer(pointer)
            .unwrap_or_else(|| panic!("unresolved {reference}"))
    }
}

/// Equal as JSON Schema compares values: `0` and `0.0` are one number.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same(a, b))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(key, a)| b.get(key).is_some_and(|b| same(a, b)))
        }
        _ => a == b,
    }
}

fn union(options: Vec<BoxedStrategy<Value>>) -> Option<BoxedStrategy<Value>> {
    match options.len() {
        0 => None,
        1 => options.into_iter().next(),
        _ => Some(proptest::strategy::Union::new(options).boxed()),
    }
}

fn bound(map: &Map<String, Value>, key: &str) -> Option<u64> {
    map.get(key).and_then(Value::as_u64)
}

fn without(map: &Map<String, Value>, keys: &[&str]) -> Map<String, Value> {
    map.iter()
        .filter(|(key, _)| !keys.contains(&key.as_str()))
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect()
}

/// `allOf` for the object keywords the profiles emit: properties and `required` are unions,
/// any other key of `part` is added where `target` has none.
fn merge_object_schema(target: &mut Map<String, Value>, part: &Map<String, Value>) {
    for (key, value) in part {
        match (key.as_str(), target.get_mut(key), value) {
            ("properties", Some(Value::Object(mine)), Value::Object(theirs)) => {
                mine.extend(theirs.iter().map(|(k, v)| (k.clone(), v.clone())));
            }
            ("required", Some(Value::Array(mine)), Value::Array(theirs)) => {
                mine.extend(theirs.iter().cloned());
            }
            (_, None, _) => {
                target.insert(key.clone(), value.clone());
            }
            _ => {}
        }
    }
}

fn mentions_ref(schema: &Value) -> bool {
    match schema {
        Value::Object(map) => map.contains_key("$ref") || map.values().any(mentions_ref),
        Value::Array(items) => items.iter().any(mentions_ref),
        _ => false,
    }
}

/// Integers within `minimum`/`maximum` (or the whole `i64`/`u64` range), the bounds
/// themselves and their neighbours weighted up: that is where decoders disagree.
fn integer(map: &Map<String, Value>) -> Option<BoxedStrategy<Value>> {
    let mut min = map
        .get("minimum")
        .map_or(i64::MIN.into(), |n| exact_bound(n, f64::ceil));
    let mut max = map
        .get("maximum")
        .map_or(u64::MAX.into(), |n| exact_bound(n, f64::floor));
    if let Some(bound) = map.get("exclusiveMinimum") {
        min = min.max(exact_bound(bound, f64::floor) + 1);
    }
    if let Some(bound) = map.get("exclusiveMaximum") {
        max = max.min(exact_bound(bound, f64::ceil) - 1);
    }
    // A step: the multiples of it within the bounds, which is all the schema admits.
    let step = map
        .get("multipleOf")
        .map_or(1, |n| exact_bound(n, f64::ceil));
    let (min, max) = (ceil_div(min, step), max.div_euclid(step));
    if min > max {
        return None;
    }
    let edges: Vec<i128> = [min, min + 1, max - 1, max, 0, 1, -1]
        .into_iter()
        .filter(|n| (min..=max).contains(n))
        .collect();
    // Small numbers are what a model mostly sends.
    let small = min.max(-1000)..=max.min(1000);
    let small = if small.is_empty() { min..=max } else { small };
    let exact = prop_oneof![
        1 => proptest::sample::select(edges),
        3 => min..=max,
        2 => small.clone(),
    ]
    .prop_map(move |n| integer_value(n * step));
    // JSON Schema counts a float with no fractional part (`3.0`) as an integer too. Only
    // where `type` is `"integer"` alone: jsonschema 0.33, the oracle here, refuses `0.0` under
    // `["integer", "null"]` (a bug of its own; `"integer"` alone it gets right).
    if map.get("type").and_then(Value::as_str) != Some("integer") {
        return Some(exact.boxed());
    }
    let written_as_float = small.prop_map(move |n| Value::from((n * step) as f64));
    Some(prop_oneof![6 => exact, 1 => written_as_float].boxed())
}

/// `n / d` rounded up, for a positive `d`.
fn ceil_div(n: i128, d: i128) -> i128 {
    -((-n).div_euclid(d))
}

/// A numeric bound as an integer, exactly: `u64::MAX` does not survive a trip through `f64`.
fn exact_bound(number: &Value, round: fn(f64) -> f64) -> i128 {
    match (number.as_i64(), number.as_u64()) {
        (Some(n), _) => n.into(),
        (_, Some(n)) => n.into(),
        _ => round(number.as_f64().expect("a numeric bound")) as i128,
    }
}

pub fn integer_value(n: i128) -> Value {
    if let Ok(n) = i64::try_from(n) {
        Value::from(n)
    } else if let Ok(n) = u64::try_from(n) {
        Value::from(n)
    } else {
        panic!("{n} does not fit a JSON integer")
    }
}

fn number(map: &Map<String, Value>) -> BoxedStrategy<Value> {
    let float = |key: &str| map.get(key).and_then(Value::as_f64);
    let min = float("minimum").unwrap_or(f64::MIN);
    let max = float("maximum").unwrap_or(f64::MAX);
    // Just inside an exclusive bound.
    let min = float("exclusiveMinimum").map_or(min, |bound| min.max(next_up(bound)));
    let max = float("exclusiveMaximum").map_or(max, |bound| max.min(-next_up(-bound)));
    if let Some(step) = float("multipleOf") {
        // Whole multiples of the step within the bounds (the zoo's steps are exact binary
        // fractions, so the products are exact).
        let (low, high) = ((min / step).ceil().max(-1e6), (max / step).floor().min(1e6));
        return ((low as i64)..=(high as i64))
            .prop_map(move |n| json!(n as f64 * step))
            .boxed();
    }
    prop_oneof![
        (-1000i64..1000).prop_map(|n| n as f64),
        -1.0e6f64..1.0e6,
        proptest::num::f64::NORMAL | proptest::num::f64::ZERO | proptest::num::f64::SUBNORMAL,
    ]
    .prop_map(move |n: f64| n.clamp(min, max))
    .prop_map(|n| Value::Number(Number::from_f64(n).expect("a finite float")))
    .boxed()
}

/// The least float above `x` (`f64::next_up`, which the MSRV predates), for a finite `x`.
fn next_up(x: f64) -> f64 {
    match x {
        0.0 => f64::from_bits(1),
        x if x > 0.0 => f64::from_bits(x.to_bits() + 1),
        x => f64::from_bits(x.to_bits() - 1),
    }
}

fn string(map: &Map<String, Value>) -> BoxedStrategy<Value> {
    let min = bound(map, "minLength").unwrap_or(0) as usize;
    let max = bound(map, "maxLength").map(|max| max as usize);
    if let Some(Value::String(pattern)) = map.get("pattern") {
        let anchored = pattern.trim_start_matches('^').trim_end_matches('$');
        // The zoo's patterns say their own lengths; the filter only guards that.
        return string_regex(anchored)
            .expect("a pattern proptest understands")
            .prop_filter("within the lengths", move |text| {
                let length = text.chars().count();
                length >= min && max.is_none_or(|max| length <= max)
            })
            .prop_map(Value::String)
            .boxed();
    }
    let max = max.unwrap_or(min + 12);
    prop::collection::vec(
        prop_oneof![3 => proptest::char::range('a', 'z'), 1 => any::<char>()],
        min..=max,
    )
    .prop_map(|chars| Value::String(chars.into_iter().collect()))
    .boxed()
}

/// A key no schema of the zoo declares, or one that some schema does.
pub fn extra_key() -> impl Strategy<Value = String> + Clone {
    proptest::sample::select(vec![
        "extra", "x", "kind", "t", "c", "name", "value", "page",
    ])
    .prop_map(str::to_owned)
}

/// Small arbitrary JSON, for free-form schemas, for keys a schema leaves open, and for what a
/// mutation puts in. Arrays of a few values and small integers matter to mutations: serde's
/// derived `Deserialize` reads a struct from an array of its fields in order (`["a", []]` is
/// a `Node`) and a buffered enum tag from a variant's index, which no schema says, so
/// decoding must refuse them.
pub fn any_json() -> impl Strategy<Value = Value> + Clone {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (0u8..3).prop_map(Value::from),
        (-1.0e9f64..1.0e9).prop_map(|n| json!(n)),
        proptest::sample::select(vec!["", "a", "zz", "Stop", "celsius", "é"]).prop_map(Value::from),
    ];
    leaf.prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            prop::collection::vec((extra_key(), inner), 0..3)
                .prop_map(|pairs| Value::Object(pairs.into_iter().collect())),
        ]
    })
}
