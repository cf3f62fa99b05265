//! Aligns what schemars says about a type with what serde decodes into it (SPEC §11): every
//! instance valid under the schema decodes, and every value serde accepts is valid under it.

use std::cmp::Ordering;

use schemars::Schema;
use schemars::transform::transform_subschemas;
use serde_json::{Map, Number, Value, json};

/// Rewrites `schema` and every subschema (`$defs` included) so that it says what the decoder
/// accepts. It reads the `format`s schemars writes for numbers, so it must run before they are
/// dropped as non-standard:
///
/// - an integer `format` (`int8` … `uint64`, `int`/`uint` for `isize`/`usize`) becomes the
///   type's real `minimum`/`maximum`; `int128`/`uint128` are bounded to what both entry
///   points decode, a `serde_json::Value` holding at most an `i64` or a `u64`; a `float`
///   (`f32`) is bounded to `f32`'s finite range, which is what decoding text accepts. Bounds
///   a user set (`#[schemars(range(…))]`) are kept where they are tighter.
/// - a signed non-zero integer (`"not": {"const": 0}`) becomes two ranges in an `anyOf`,
///   which every provider profile can express;
/// - `uniqueItems` (a set's) is kept, and the schema check refuses duplicates, so a set never
///   silently drops what the model sent;
/// - a `true` subschema (a `serde_json::Value`) becomes `{}`, which means the same and which
///   clients that expect every schema to be an object accept;
/// - a tuple's `prefixItems` gain an `items` naming every element's schema: inert under JSON
///   Schema 2020-12 (`maxItems` leaves no element past the prefix), and what OpenAI requires
///   of every array.
#[cfg(test)]
pub(crate) fn align(schema: &mut Schema) {
    align_marking(schema, false);
}

/// [`align`], and, when `mark`, each bound serde enforces while decoding named in the
/// subschema's [`DECODED`] keyword, for the schema check to skip (SPEC §9: a limit the decoder
/// already enforces is not checked again). The keyword is private: [`unmark`] removes it before
/// the schema is published.
///
/// A bound is the decoder's when it is the own range of the fixed-width integer type whose
/// `format` schemars wrote (`i64`'s `minimum`, `u8`'s `maximum`), or a signed `NonZero`'s `-1`
/// and `1`: serde refuses what lies beyond them, on both entry points. Not marked: a bound a
/// user set (`#[schemars(range(max = 10))]` keeps its check), the range of `i128`/`u128`
/// (text decodes past it) and of `f32` (serde rounds to infinity), and an unsigned `NonZero`'s
/// `minimum: 1`, which the schema writes exactly as a `range(min = 1)` on the plain type.
pub(crate) fn align_marking(schema: &mut Schema, mark: bool) {
    transform_subschemas(
        &mut |schema: &mut Schema| align_marking(schema, mark),
        schema,
    );
    let Some(map) = schema.as_object_mut() else {
        return;
    };
    let numeric = match map.get("type") {
        Some(Value::String(single)) => single == "integer" || single == "number",
        Some(Value::Array(types)) => types.iter().any(|t| t == "integer" || t == "number"),
        _ => false,
    };
    let range = map
        .get("format")
        .and_then(Value::as_str)
        .and_then(decodable_range);
    if let (true, Some((min, max))) = (numeric, range) {
        let decoded = mark
            && map
                .get("format")
                .is_some_and(|f| !matches!(f.as_str(), Some("int128" | "uint128" | "float")));
        tighten(map, "minimum", min.clone(), Ordering::Greater);
        tighten(map, "maximum", max.clone(), Ordering::Less);
        if decoded {
            let own = |map: &Map<String, Value>, key: &str, bound: &Number| matches!(map.get(key), Some(Value::Number(n)) if compare(n, bound) == Ordering::Equal);
            let keys: Vec<Value> = [("minimum", &min), ("maximum", &max)]
                .into_iter()
                .filter(|(key, bound)| own(map, key, bound))
                .map(|(key, _)| Value::from(key))
                .collect();
            if !keys.is_empty() {
                map.insert(DECODED.to_owned(), Value::Array(keys));
            }
        }
        split_non_zero(map);
        // Said by the bounds now; removed here, in place, because `RestrictFormats` would
        // swap the last key into its slot and shuffle the schema's key order.
        map.shift_remove("format");
    }
    for key in ["properties", "$defs"] {
        if let Some(Value::Object(children)) = map.get_mut(key) {
            children.values_mut().for_each(open_as_object);
        }
    }
    for key in ["anyOf", "oneOf", "allOf", "prefixItems"] {
        if let Some(Value::Array(children)) = map.get_mut(key) {
            children.iter_mut().for_each(open_as_object);
        }
    }
    if let Some(items) = map.get_mut("items") {
        open_as_object(items);
    }
    name_tuple_items(map);
}

/// The range serde decodes for a number `format` schemars writes, as `(minimum, maximum)`.
fn decodable_range(format: &str) -> Option<(Number, Number)> {
    fn int(min: i64, max: u64) -> Option<(Number, Number)> {
        Some((min.into(), max.into()))
    }
    match format {
        "int8" => int(i8::MIN.into(), i8::MAX as u64),
        "int16" => int(i16::MIN.into(), i16::MAX as u64),
        "int32" => int(i32::MIN.into(), i32::MAX as u64),
        "int64" => int(i64::MIN, i64::MAX as u64),
        "int" => int(isize::MIN as i64, isize::MAX as u64),
        "uint8" => int(0, u8::MAX.into()),
        "uint16" => int(0, u16::MAX.into()),
        "uint32" => int(0, u32::MAX.into()),
        "uint64" => int(0, u64::MAX),
        "uint" => int(0, usize::MAX as u64),
        // A `Value` holds at most an `i64` or a `u64`, so that is all `execute` can decode.
        "int128" => int(i64::MIN, u64::MAX),
        "uint128" => int(0, u64::MAX),
        "float" => {
            let max = Number::from_f64(f32::MAX.into())?;
            let min = Number::from_f64(f32::MIN.into())?;
            Some((min, max))
        }
        _ => None,
    }
}

/// Sets `key` to `bound` unless it already holds a number that compares `tighter` than it.
fn tighten(map: &mut Map<String, Value>, key: &str, bound: Number, tighter: Ordering) {
    match map.get_mut(key) {
        Some(Value::Number(existing)) if compare(existing, &bound) == tighter => {}
        Some(existing) => *existing = Value::Number(bound),
        None => {
            map.insert(key.to_owned(), Value::Number(bound));
        }
    }
}

/// Compares two JSON numbers exactly: `u64::MAX` does not survive a trip through `f64`.
fn compare(a: &Number, b: &Number) -> Ordering {
    fn integer(n: &Number) -> Option<i128> {
        n.as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from))
    }
    match (integer(a), integer(b)) {
        (Some(a), Some(b)) => a.cmp(&b),
        _ => {
            let (a, b) = (a.as_f64().unwrap_or(0.0), b.as_f64().unwrap_or(0.0));
            a.total_cmp(&b)
        }
    }
}

/// `{"type": "integer", "minimum": m, "maximum": n, "not": {"const": 0}}` ⇒
/// `{"anyOf": [{"type": "integer", "minimum": m, "maximum": -1}, {"type": "integer",
/// "minimum": 1, "maximum": n}]}`, keeping the other keys (a `description`, say) and any
/// other type (`null`, for an `Option`) as a branch of its own.
fn split_non_zero(map: &mut Map<String, Value>) {
    if map.get("not") != Some(&json!({"const": 0})) || map.contains_key("anyOf") {
        return;
    }
    let types: Vec<Value> = match map.get("type") {
        Some(Value::String(single)) => vec![Value::from(single.as_str())],
        Some(Value::Array(types)) => types.clone(),
        _ => return,
    };
    if !types.contains(&json!("integer")) {
        return;
    }
    let (Some(Value::Number(min)), Some(Value::Number(max))) =
        (map.get("minimum").cloned(), map.get("maximum").cloned())
    else {
        return;
    };
    let decoded = map.shift_remove(DECODED);
    for key in ["not", "type", "minimum", "maximum"] {
        map.shift_remove(key);
    }
    // Marked (see `align_marking`): zero's neighbours, and the type's own bounds as before.
    let marked = |mut branch: Value, own: &str, zero_side: &str| {
        if let (Some(Value::Array(keys)), Value::Object(branch)) = (&decoded, &mut branch) {
            let mut names = vec![Value::from(zero_side)];
            names.extend(keys.iter().filter(|key| *key == own).cloned());
            branch.insert(DECODED.to_owned(), Value::Array(names));
        }
        branch
    };
    let mut branches = Vec::new();
    if compare(&min, &Number::from(0)) == Ordering::Less {
        let branch = json!({"type": "integer", "minimum": min, "maximum": -1});
        branches.push(marked(branch, "minimum", "maximum"));
    }
    if compare(&max, &Number::from(0)) == Ordering::Greater {
        let branch = json!({"type": "integer", "minimum": 1, "maximum": max});
        branches.push(marked(branch, "maximum", "minimum"));
    }
    let others: Vec<Value> = types.into_iter().filter(|t| t != "integer").collect();
    match others.len() {
        0 => {}
        1 => branches.push(json!({ "type": others[0] })),
        _ => branches.push(json!({ "type": others })),
    }
    map.insert("anyOf".to_owned(), Value::Array(branches));
}

/// The private keyword [`align_marking`] writes: the bound keywords of a subschema that the
/// decoder enforces. Never published: [`unmark`] removes it.
pub(crate) const DECODED: &str = "x-toolnexus-decoded";

/// Removes [`DECODED`] from `schema` and every subschema.
pub(crate) fn unmark(schema: &mut Schema) {
    schema.remove(DECODED);
    transform_subschemas(&mut unmark, schema);
}

fn open_as_object(schema: &mut Value) {
    if *schema == Value::Bool(true) {
        *schema = Value::Object(Map::new());
    }
}

/// Gives a tuple (`prefixItems` without `items`) an `items` naming each element's schema once.
fn name_tuple_items(map: &mut Map<String, Value>) {
    if map.contains_key("items") {
        return;
    }
    let Some(Value::Array(prefix)) = map.get("prefixItems") else {
        return;
    };
    let items = list_of_any(prefix);
    map.insert("items".to_owned(), items);
}

/// A list schema for a tuple's elements: the one schema they share, or an `anyOf` of each
/// distinct one (what every profile without `prefixItems` says of a tuple).
pub(crate) fn list_of_any(prefix: &[Value]) -> Value {
    let mut distinct: Vec<Value> = Vec::new();
    for element in prefix {
        if !distinct.contains(element) {
            distinct.push(element.clone());
        }
    }
    match distinct.len() {
        1 => distinct.pop().unwrap_or_default(),
        _ => json!({ "anyOf": distinct }),
    }
}

#[cfg(test)]
mod tests {
    use crate::decode::align::*;
    use crate::decode::check::Check;

    fn aligned(schema: Value) -> Value {
        let mut schema = Schema::try_from(schema).expect("a schema");
        align(&mut schema);
        schema.to_value()
    }

    #[test]
    fn integer_formats_become_their_ranges() {
        assert_eq!(
            aligned(json!({"type": "integer", "format": "uint32", "minimum": 0})),
            json!({"type": "integer", "minimum": 0, "maximum": 4_294_967_295u64})
        );
        assert_eq!(
            aligned(json!({"type": ["integer", "null"], "format": "int128"})),
            json!({"type": ["integer", "null"], "minimum": i64::MIN, "maximum": u64::MAX})
        );
        // A user's tighter bound stays; a looser one gives way to the type's.
        assert_eq!(
            aligned(json!({"type": "integer", "format": "uint8", "minimum": 5, "maximum": 300})),
            json!({"type": "integer", "minimum": 5, "maximum": 255})
        );
    }

    #[test]
    fn signed_non_zero_integers_become_two_ranges() {
        assert_eq!(
            aligned(
                json!({"type": ["integer", "null"], "format": "int8", "not": {"const": 0}, "description": "d"})
            ),
            json!({"description": "d", "anyOf": [
                {"type": "integer", "minimum": -128, "maximum": -1},
                {"type": "integer", "minimum": 1, "maximum": 127},
                {"type": "null"},
            ]})
        );
    }

    #[test]
    fn sets_free_form_values_and_tuples_say_what_decodes() {
        assert_eq!(
            aligned(json!({"type": "object", "properties": {
                "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true},
                "any": true,
                "pair": {"type": "array", "prefixItems": [{"type": "string"}, true], "minItems": 2, "maxItems": 2},
            }})),
            json!({"type": "object", "properties": {
                "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true},
                "any": {},
                "pair": {"type": "array", "prefixItems": [{"type": "string"}, {}], "minItems": 2, "maxItems": 2,
                         "items": {"anyOf": [{"type": "string"}, {}]}},
            }})
        );
    }

    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Point {
        x: i32,
    }

    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Integers {
        a: i64,
        b: Option<u32>,
        c: std::num::NonZeroI16,
        points: Vec<Point>,
    }

    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Capped {
        #[schemars(range(max = 10))]
        a: i64,
    }

    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Wide {
        wide: i128,
    }

    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Small {
        small: f32,
    }

    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Positive {
        positive: std::num::NonZeroU8,
    }

    #[test]
    fn the_bounds_the_decoder_enforces_are_not_checked_again() {
        fn unmarked(schema: &crate::decode::schema::ToolSchema) -> bool {
            !Value::Object(schema.input.clone())
                .to_string()
                .contains(DECODED)
        }
        // SPEC §9: an integer type's own range (and a signed `NonZero`'s gap at zero) is
        // serde's to enforce, so a schema of such integers alone has nothing to check ...
        let integers = crate::decode::schema::tool_schema_of(
            <Integers as schemars::JsonSchema>::json_schema,
            false,
        );
        let flat =
            |schema: &crate::decode::schema::ToolSchema| schema.shape().check_for(false, true);
        assert_eq!(flat(&integers), Check::Nothing, "{integers:?}");
        // ... and says so nowhere in what is published, where the bounds stay.
        assert!(unmarked(&integers));
        assert_eq!(integers.input["properties"]["a"]["maximum"], i64::MAX);
        assert_eq!(
            crate::decode::schema::input_schema_for::<Integers>(),
            integers.input
        );
        assert!(
            !crate::decode::schema::output_schema_for::<crate::Json<Integers>>()
                .contains_key(DECODED)
        );
        // A bound a user set, `i128`'s, `f32`'s and an unsigned `NonZero`'s minimum (written
        // as a user's `range(min = 1)` would be) are checked: each makes its schema limited.
        let checked: [fn(&mut schemars::SchemaGenerator) -> Schema; 4] = [
            <Capped as schemars::JsonSchema>::json_schema,
            <Wide as schemars::JsonSchema>::json_schema,
            <Small as schemars::JsonSchema>::json_schema,
            <Positive as schemars::JsonSchema>::json_schema,
        ];
        for json_schema in checked {
            let schema = crate::decode::schema::tool_schema_of(json_schema, false);
            assert_ne!(flat(&schema), Check::Nothing, "{schema:?}");
            assert!(unmarked(&schema));
        }
    }
}
