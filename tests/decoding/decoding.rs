//! Argument decoding (SPEC §5, §11): errors name the full path of the offending value, and
//! `Tool::execute(v)` and `Tool::execute_json(&v.to_string())` give byte-identical results
//! for every `v`, errors included.

use crate::common;

use std::collections::{BTreeMap, HashMap};

use proptest::prelude::*;
use serde::Deserialize;
use serde_json::{Value, json};
use toolnexus::{JsonSchema, Tool, ToolResult, tool};

use common::{Unit, both, from_text, from_value};

#[derive(Deserialize, JsonSchema)]
struct Item {
    sku: String,
    quantity: u32,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Order {
    items: Vec<Item>,
    #[serde(default)]
    note: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
struct Circle {
    radius: f64,
}

#[derive(Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "lowercase")]
enum Tagged {
    Square { side: f64 },
    Dot,
}

#[derive(Deserialize, JsonSchema)]
#[serde(untagged)]
enum Loose {
    Number(i64),
    Text(String),
    Pair { a: u8, b: u8 },
}

#[derive(Deserialize, JsonSchema)]
struct Base {
    id: u64,
}

#[derive(Deserialize, JsonSchema)]
struct Flattened {
    #[serde(flatten)]
    base: Base,
    label: String,
}

/// Places an order.
#[tool]
fn place_order(order: Order, #[param(default = 1)] copies: u8) -> String {
    let items: Vec<String> = order
        .items
        .iter()
        .map(|item| format!("{}x{}", item.sku, item.quantity))
        .collect();
    format!(
        "{} items x{copies} {}{}",
        items.len(),
        items.join(","),
        order.note.unwrap_or_default()
    )
}

/// Converts units.
#[tool]
fn convert(units: Vec<Unit>, shape: Circle) -> String {
    format!("{} {}", units.len(), shape.radius)
}

/// Takes every tricky shape at once.
#[tool]
#[allow(
    clippy::too_many_arguments,
    reason = "one parameter per shape under test"
)]
fn tricky(
    tagged: Option<Tagged>,
    loose: Option<Loose>,
    flat: Option<Flattened>,
    counts: Option<HashMap<u32, u8>>,
    ratio: Option<f32>,
    letter: Option<char>,
    any: Option<Value>,
    #[serde(default)] seen: bool,
) -> String {
    let tagged = match tagged {
        Some(Tagged::Square { side }) => format!("square {side}"),
        Some(Tagged::Dot) => "dot".to_owned(),
        None => "-".to_owned(),
    };
    let loose = match loose {
        Some(Loose::Number(n)) => format!("n{n}"),
        Some(Loose::Text(t)) => format!("t{t}"),
        Some(Loose::Pair { a, b }) => format!("p{a}{b}"),
        None => "-".to_owned(),
    };
    let flat = flat.map(|f| format!("{}:{}", f.base.id, f.label));
    let counts: Option<BTreeMap<u32, u8>> = counts.map(|c| c.into_iter().collect());
    format!("{tagged} {loose} {flat:?} {counts:?} {ratio:?} {letter:?} {any:?} {seen}")
}

/// A unit enum beside a `#[serde]` attribute, so the arguments decode as one derived struct.
#[tool]
fn forecast(unit: Unit, #[serde(default)] days: u8) -> String {
    format!("{} {days}", matches!(unit, Unit::Celsius))
}

/// Whichever strategy decodes it (one parameter at a time, or a derived struct), a value that
/// is no variant of a unit enum is refused as the schema says (a string), not in serde's
/// words ("expected string or map"); a string that is no variant keeps serde's message, which
/// names the variants.
#[test]
fn a_unit_enum_is_refused_in_the_words_of_its_schema() {
    for wrong in [
        json!(3),
        json!(true),
        json!(["celsius"]),
        json!({"celsius": null}),
    ] {
        let kind = match &wrong {
            Value::Number(_) => "integer `3`".to_owned(),
            Value::Bool(_) => "boolean `true`".to_owned(),
            Value::Array(_) => "array".to_owned(),
            _ => "object".to_owned(),
        };
        assert_eq!(
            error_of(&ForecastTool, json!({"unit": wrong})),
            format!(
                "invalid arguments for `forecast`: field `unit`: invalid type: {kind}, expected string"
            ),
        );
        assert_eq!(
            error_of(
                &ConvertTool,
                json!({"units": [wrong], "shape": {"radius": 1}})
            ),
            format!(
                "invalid arguments for `convert`: field `units[0]`: invalid type: {kind}, expected string"
            ),
        );
    }
    assert_eq!(
        error_of(&ForecastTool, json!({"unit": "kelvin"})),
        "invalid arguments for `forecast`: field `unit`: unknown variant `kelvin`, expected `celsius` or `fahrenheit`"
    );
}

/// Wide integers, which a `serde_json::Value` cannot hold beyond 64 bits.
#[tool]
fn wide(big: i128, huge: Option<u128>) -> String {
    format!("{big} {huge:?}")
}

/// Any JSON value, with no `#[serde]` attribute (decoded parameter by parameter).
#[tool]
fn anything(any: Value) -> String {
    any.to_string().len().to_string()
}

/// Plain numbers.
#[tool]
fn numbers(small: i8, unsigned: u64, float: f64) -> String {
    format!("{small} {unsigned} {float:?}")
}

fn error_of(tool: &dyn Tool, args: Value) -> String {
    let result = both(tool, args);
    assert!(result.is_error, "{result:?}");
    result.output
}

#[test]
fn errors_name_the_full_path() {
    let cases = [
        (
            &PlaceOrderTool as &dyn Tool,
            json!({"order": {"items": [{"sku": "a", "quantity": -2}]}}),
            "invalid arguments for `place_order`: field `order.items[0].quantity`: invalid value: integer `-2`, expected u32",
        ),
        (
            &PlaceOrderTool,
            json!({"order": {"items": [{"sku": "a", "quantity": 1}, {"sku": 7, "quantity": 1}]}}),
            "invalid arguments for `place_order`: field `order.items[1].sku`: invalid type: integer `7`, expected a string",
        ),
        (
            &PlaceOrderTool,
            json!({"order": {"items": [{"sku": "a"}]}}),
            "invalid arguments for `place_order`: field `order.items[0]`: missing field `quantity`",
        ),
        (
            &PlaceOrderTool,
            json!({"order": {"items": [], "rush": true}}),
            "invalid arguments for `place_order`: field `order`: unknown field `rush`, expected `items` or `note`",
        ),
        (
            &PlaceOrderTool,
            json!({"order": {"items": []}, "copies": 300}),
            "invalid arguments for `place_order`: field `copies`: invalid value: integer `300`, expected u8",
        ),
        (
            &ConvertTool,
            json!({"units": ["celsius", "celsius", "fahrenheit", "kelvin"], "shape": {"radius": 1}}),
            "invalid arguments for `convert`: field `units[3]`: unknown variant `kelvin`, expected `celsius` or `fahrenheit`",
        ),
        (
            &ConvertTool,
            json!({"units": [], "shape": {"radius": "big"}}),
            "invalid arguments for `convert`: field `shape.radius`: invalid type: string \"big\", expected f64",
        ),
        // An enum of unit variants is a string in its schema, and is refused as one: not in
        // serde's words ("expected string or map").
        (
            &ConvertTool,
            json!({"units": ["celsius", 3], "shape": {"radius": 1}}),
            "invalid arguments for `convert`: field `units[1]`: invalid type: integer `3`, expected string",
        ),
        // The root keeps its plain form.
        (
            &ConvertTool,
            json!({"units": []}),
            "invalid arguments for `convert`: missing field `shape`",
        ),
        (
            &ConvertTool,
            json!({"units": [], "shape": {"radius": 1}, "extra": 1}),
            "invalid arguments for `convert`: unknown field `extra`, expected `units` or `shape`",
        ),
        (
            &ConvertTool,
            json!([1]),
            "invalid arguments for `convert`: expected a JSON object, found an array",
        ),
    ];
    for (tool, args, expected) in cases {
        assert_eq!(error_of(tool, args), expected);
    }
}

#[test]
fn null_means_absent_for_every_optional_or_defaulted_parameter() {
    let result = both(
        &PlaceOrderTool,
        json!({"order": {"items": [], "note": null}, "copies": null}),
    );
    assert_eq!(result, ToolResult::ok("0 items x1 "));
    let all_null = json!({
        "tagged": null, "loose": null, "flat": null, "counts": null, "ratio": null,
        "letter": null, "any": null, "seen": null,
    });
    assert_eq!(
        both(&TrickyTool, all_null).output,
        "- - None None None None None false"
    );
}

/// Shapes that serde buffers (tagged and untagged enums, `flatten`), maps with non-string
/// keys, floats, chars and free-form values: each decodes the same from text as from a value.
#[test]
fn tricky_shapes_decode_the_same_from_both_entry_points() {
    let cases = [
        json!({"tagged": {"kind": "square", "side": 2.5}}),
        json!({"tagged": {"kind": "dot"}}),
        json!({"tagged": {"kind": "dot", "side": 1}}),
        json!({"tagged": {"side": 1}}),
        json!({"tagged": {"kind": "circle"}}),
        json!({"tagged": {"kind": "square", "side": "x"}}),
        json!({"loose": 7}),
        json!({"loose": -7}),
        json!({"loose": 7.5}),
        json!({"loose": "seven"}),
        json!({"loose": {"a": 1, "b": 2}}),
        json!({"loose": {"a": 1, "b": 300}}),
        json!({"loose": [1]}),
        json!({"loose": u64::MAX}),
        json!({"flat": {"id": 3, "label": "x"}}),
        json!({"flat": {"id": 3, "label": "x", "other": true}}),
        json!({"flat": {"id": -3, "label": "x"}}),
        json!({"flat": {"label": "x"}}),
        json!({"counts": {"1": 2, "30": 4}}),
        json!({"counts": {"x": 2}}),
        json!({"counts": {"-1": 2}}),
        json!({"counts": {"1": 256}}),
        json!({"ratio": 1.5}),
        json!({"ratio": 1e300}),
        json!({"ratio": -0.0}),
        json!({"ratio": 3}),
        json!({"ratio": u64::MAX}),
        json!({"letter": "é"}),
        json!({"letter": "ab"}),
        json!({"letter": ""}),
        json!({"any": {"deep": [1, {"x": null}], "n": -0.0}}),
        json!({"seen": true}),
        json!({"seen": 1}),
        json!({"unknown": 1}),
        json!(null),
        json!({}),
        json!("text"),
        json!(12),
    ];
    for args in cases {
        both(&TrickyTool, args);
    }
}

#[test]
fn numbers_at_their_edges_decode_the_same_from_both_entry_points() {
    let cases = [
        json!({"small": -128, "unsigned": u64::MAX, "float": -0.0}),
        json!({"small": 128, "unsigned": 0, "float": 0}),
        json!({"small": 0, "unsigned": -1, "float": 1e308}),
        json!({"small": 0, "unsigned": 1.0, "float": 1}),
        json!({"small": 0.0, "unsigned": 1, "float": 5e-324}),
        json!({"small": i64::MIN, "unsigned": 1, "float": 0.1}),
        json!({"small": 1, "unsigned": 1, "float": "1"}),
    ];
    for args in cases {
        both(&NumbersTool, args);
    }
}

/// Integers of every width.
#[tool]
fn widths(a: i8, b: u16, c: i32, d: u64, e: isize, f: usize) -> String {
    format!("{a} {b} {c} {d} {e} {f}")
}

/// An integer parameter's text is read by the walk itself when it can be, and by serde_json
/// otherwise: either way the outcome is serde_json's, refusals and their words included.
#[test]
fn integers_read_by_the_walk_decode_as_serde_json_reads_them() {
    let numbers = [
        "0",
        "-0",
        "1",
        "-1",
        "01",
        "-01",
        "00",
        "7e0",
        "7E1",
        "7.0",
        "-7.5",
        "1e",
        "-",
        "--1",
        "127",
        "128",
        "-128",
        "-129",
        "65535",
        "65536",
        "2147483647",
        "-2147483648",
        "9223372036854775807",
        "9223372036854775808",
        "-9223372036854775808",
        "-9223372036854775809",
        "18446744073709551615",
        "18446744073709551616",
        "99999999999999999999999",
        "12abc",
        "\"5\"",
        "null",
        "true",
    ];
    for number in numbers {
        for at in 0..6 {
            let mut fields: Vec<String> = (0..6).map(|_| "1".to_owned()).collect();
            fields[at] = number.to_owned();
            let [a, b, c, d, e, f] = &fields[..] else {
                unreachable!()
            };
            let text = format!(r#"{{"a": {a}, "b": {b}, "c": {c}, "d": {d}, "e": {e}, "f": {f}}}"#);
            let from_text = from_text(&WidthsTool, &text);
            match serde_json::from_str::<Value>(&text) {
                Ok(value) => assert_eq!(from_text, from_value(&WidthsTool, value), "{text}"),
                Err(_) => assert!(from_text.is_error, "{text}: {from_text:?}"),
            }
        }
    }
    assert_eq!(
        from_text(&WidthsTool, r#"{"a": -128, "b": 65535, "c": -7, "d": 18446744073709551615, "e": -9223372036854775808, "f": 0}"#).output,
        "-128 65535 -7 18446744073709551615 -9223372036854775808 0"
    );
}

/// A `Value` holds at most 64-bit integers, so a tool with `i128`/`u128` parameters reads its
/// text through a `Value` too: the two entry points agree even on text a `Value` cannot hold.
#[test]
fn wide_integers_agree_on_both_entry_points() {
    assert_eq!(
        both(&WideTool, json!({"big": i64::MIN, "huge": u64::MAX})).output,
        "-9223372036854775808 Some(18446744073709551615)"
    );
    let beyond = r#"{"big": 170141183460469231731687303715884105727}"#;
    let text = from_text(&WideTool, beyond);
    let value: Value = serde_json::from_str(beyond).unwrap();
    assert_eq!(text, from_value(&WideTool, value));
    assert!(text.is_error, "{text:?}");
}

#[test]
fn syntax_errors_keep_their_position() {
    let result = from_text(&ConvertTool, r#"{"units": ["celsius""#);
    assert_eq!(
        result.output,
        "invalid arguments for `convert`: EOF while parsing a list at line 1 column 20"
    );
    let trailing = from_text(&ConvertTool, r#"{"units": []} x"#);
    assert_eq!(
        trailing.output,
        "invalid arguments for `convert`: trailing characters at line 1 column 15"
    );
}

/// A tool with more parameters than the text walk tracks a bit each for (64).
#[tool]
#[allow(clippy::too_many_arguments)]
fn many(
    p0: u8,
    p1: u8,
    p2: u8,
    p3: u8,
    p4: u8,
    p5: u8,
    p6: u8,
    p7: u8,
    p8: u8,
    p9: u8,
    p10: u8,
    p11: u8,
    p12: u8,
    p13: u8,
    p14: u8,
    p15: u8,
    p16: u8,
    p17: u8,
    p18: u8,
    p19: u8,
    p20: u8,
    p21: u8,
    p22: u8,
    p23: u8,
    p24: u8,
    p25: u8,
    p26: u8,
    p27: u8,
    p28: u8,
    p29: u8,
    p30: u8,
    p31: u8,
    p32: u8,
    p33: u8,
    p34: u8,
    p35: u8,
    p36: u8,
    p37: u8,
    p38: u8,
    p39: u8,
    p40: u8,
    p41: u8,
    p42: u8,
    p43: u8,
    p44: u8,
    p45: u8,
    p46: u8,
    p47: u8,
    p48: u8,
    p49: u8,
    p50: u8,
    p51: u8,
    p52: u8,
    p53: u8,
    p54: u8,
    p55: u8,
    p56: u8,
    p57: u8,
    p58: u8,
    p59: u8,
    p60: u8,
    p61: u8,
    p62: u8,
    p63: u8,
    p64: u8,
    p65: u8,
) -> u32 {
    [
        p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13, p14, p15, p16, p17, p18, p19,
        p20, p21, p22, p23, p24, p25, p26, p27, p28, p29, p30, p31, p32, p33, p34, p35, p36, p37,
        p38, p39, p40, p41, p42, p43, p44, p45, p46, p47, p48, p49, p50, p51, p52, p53, p54, p55,
        p56, p57, p58, p59, p60, p61, p62, p63, p64, p65,
    ]
    .into_iter()
    .map(u32::from)
    .sum()
}

/// Past the 64th parameter the text walk asks a slot whether it is filled: a key given twice
/// there is refused as before it, and every parameter still decodes.
#[test]
fn duplicate_keys_past_the_sixty_fourth_parameter_are_refused() {
    let keys: Vec<String> = (0..66).map(|at| format!("\"p{at}\": 1")).collect();
    let all = format!("{{{}}}", keys.join(", "));
    assert_eq!(from_text(&ManyTool, &all).output, "66");
    for repeated in ["p0", "p63", "p64", "p65"] {
        let twice = format!("{{{}, \"{repeated}\": 2}}", keys.join(", "));
        let refused = from_text(&ManyTool, &twice);
        assert_eq!(
            refused.output,
            format!("invalid arguments for `many`: duplicate field `{repeated}`")
        );
    }
}

/// A key given twice in the text is refused, wherever the first failure would have been.
#[test]
fn duplicate_keys_in_text_are_refused() {
    let twice = from_text(
        &NumbersTool,
        r#"{"small": 1, "small": 2, "unsigned": 1, "float": 1}"#,
    );
    assert_eq!(
        twice.output,
        "invalid arguments for `numbers`: duplicate field `small`"
    );
    let nested = from_text(
        &ConvertTool,
        r#"{"units": [], "shape": {"radius": 1, "radius": "x"}}"#,
    );
    assert_eq!(
        nested.output,
        "invalid arguments for `convert`: field `shape`: duplicate field `radius`"
    );
}

#[test]
fn any_layout_of_the_text_decodes_as_the_value_it_parses_to() {
    // Read in place on the fast path: whitespace, escaped keys, key order, nested values.
    let valid = [
        r#"{"small":1,"unsigned":2,"float":3}"#,
        " \t\r\n{ \"small\" :\n-1 , \"unsigned\"\t: 2,\"float\": 3.5e0 } \n",
        r#"{"float": 1, "small": 2, "unsigned": 3}"#,
        r#"{"sm\u0061ll": 1, "unsigned": 2, "\u0066loat": 3}"#,
        r#"{"small": 1, "unsigned": 2, "float": 3, "extra\n": 4}"#,
        r#"{"small": 1, "unsigned": 2}"#,
        r#"{"small": 1, "unsigned": 2, "float": "3"}"#,
        r#"{"small": 128, "unsigned": 2, "float": 3}"#,
        r#"{}"#,
    ];
    for text in valid {
        let value: Value = serde_json::from_str(text).unwrap();
        assert_eq!(
            from_text(&NumbersTool, text),
            from_value(&NumbersTool, value),
            "{text}"
        );
    }
    assert_eq!(
        from_text(&NumbersTool, r#"{"small":-1,"unsigned":2,"float":3.5}"#).output,
        "-1 2 3.5"
    );
    // Not JSON, or not an object: refused as the reference path refuses it.
    let invalid = [
        r#"{"small": 1, "unsigned": 2, "float": 3,}"#,
        r#"{"small": 1 "unsigned": 2, "float": 3}"#,
        r#"{"small" 1, "unsigned": 2, "float": 3}"#,
        r#"{"small": 1, "unsigned": 2, "float": 3} x"#,
        r#"{"small": 1, "unsigned": 2, "float": 3"#,
        r#"{"small": 01, "unsigned": 2, "float": 3}"#,
        r#"{"small": 1, "unsigned": 2, "float": 3}}"#,
        "{\"sm\u{1}all\": 1, \"unsigned\": 2, \"float\": 3}",
        r#"{"small": 1, "unsigned": 2, "float": 3, "\x": 4}"#,
        r#"{"small": 1, "unsigned": 2, "float": 3 "#,
        r#"{"small": 1, "unsigned": 2, "float": -}"#,
        r#"{small: 1}"#,
    ];
    for text in invalid {
        let result = from_text(&NumbersTool, text);
        assert!(result.is_error, "{text}: {result:?}");
        assert!(
            result
                .output
                .starts_with("invalid arguments for `numbers`: "),
            "{text}: {result:?}"
        );
        assert!(serde_json::from_str::<Value>(text).is_err(), "{text}");
    }
}

#[test]
fn nesting_is_limited_alike_on_both_entry_points() {
    let nest = |depth: usize| {
        let mut value = json!(1);
        for _ in 0..depth {
            value = json!([value]);
        }
        json!({ "any": value })
    };
    for depth in [100, 126, 127, 128, 200] {
        let result = both(&TrickyTool, nest(depth));
        assert_eq!(result.is_error, depth >= 127, "{depth}: {result:?}");
        let result = both(&AnythingTool, nest(depth));
        assert_eq!(result.is_error, depth >= 127, "{depth}: {result:?}");
    }
}

fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        "[a-z0-9é\"\\\\]{0,6}".prop_map(Value::from),
        prop_oneof![
            Just("square"),
            Just("dot"),
            Just("kind"),
            Just("celsius"),
            Just("1")
        ]
        .prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 40, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map(
                prop_oneof![
                    Just("kind".to_owned()),
                    Just("side".to_owned()),
                    Just("id".to_owned()),
                    Just("label".to_owned()),
                    Just("a".to_owned()),
                    Just("b".to_owned()),
                    "[a-z0-9]{1,4}",
                ],
                inner,
                0..5,
            )
            .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

/// Arguments shaped like the tools' own: known keys with arbitrary values.
fn any_arguments() -> impl Strategy<Value = Value> {
    let keys = prop_oneof![
        Just("tagged"),
        Just("loose"),
        Just("flat"),
        Just("counts"),
        Just("ratio"),
        Just("letter"),
        Just("any"),
        Just("seen"),
        Just("order"),
        Just("copies"),
        Just("units"),
        Just("shape"),
        Just("small"),
        Just("unsigned"),
        Just("float"),
        Just("big"),
        Just("huge"),
    ];
    prop_oneof![
        any_json(),
        prop::collection::btree_map(keys.prop_map(str::to_owned), any_json(), 0..5)
            .prop_map(|map| Value::Object(map.into_iter().collect())),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn both_entry_points_agree_on_any_value(args in any_arguments()) {
        let text = args.to_string();
        for tool in [&TrickyTool as &dyn Tool, &PlaceOrderTool, &ConvertTool, &NumbersTool, &WideTool] {
            let value = from_value(tool, args.clone());
            prop_assert_eq!(from_text(tool, &text), value, "{} {}", tool.name(), text);
        }
    }
}

/// Counts things.
#[tool]
fn tally(count: u32, deltas: Vec<i64>, ratio: Option<f64>) -> String {
    format!("{count} {deltas:?} {ratio:?}")
}

/// Counts, under a renamed key (a forwarded `#[serde]` attribute keeps the derived decoder).
#[tool]
fn tally_renamed(#[serde(rename = "n")] count: u32) -> u32 {
    count
}

/// JSON Schema counts a float with no fractional part as an `integer`, so the schema admits
/// `3.0` and `1e2` where it says `u32`: both entry points take them as the integers they are.
#[test]
fn floats_with_no_fraction_decode_as_integers() {
    assert_eq!(
        both(
            &TallyTool,
            json!({"count": 3.0, "deltas": [1e2, -0.0, -2.0], "ratio": -0.0})
        ),
        ToolResult::ok("3 [100, 0, -2] Some(-0.0)")
    );
    assert!(both(&TallyTool, json!({"count": 3.5, "deltas": []})).is_error);
    assert!(both(&TallyTool, json!({"count": 1e20, "deltas": []})).is_error);
    assert_eq!(
        both(&TallyRenamedTool, json!({"n": 3.0})),
        ToolResult::ok("3")
    );
    assert!(both(&TallyRenamedTool, json!({"n": 3.25})).is_error);
    let schema = Value::Object(TallyTool.input_schema().clone());
    let valid = jsonschema::draft202012::new(&schema).unwrap();
    assert!(valid.is_valid(&json!({"count": 3.0, "deltas": [1e2]})));
}
