//! Named regression cases: each schema-versus-decoder bug found so far, through the zoo's tools.

use serde_json::{Value, json};
use toolnexus::{IssueKind, Profile, Tool, Toolkit};

use super::{Harness, generate_and_run, sent_schema, zoo};

fn tool(name: &str) -> std::sync::Arc<dyn Tool> {
    zoo::all()
        .into_iter()
        .find(|tool| tool.name() == name)
        .unwrap_or_else(|| panic!("no zoo tool `{name}`"))
}

/// Where the zoo's schemas under `profile` cannot tell the model what the tool takes (limits
/// said in a description instead are left out).
fn issue_paths(profile: Profile) -> Vec<(String, String)> {
    Toolkit::new()
        .with_all(zoo::all())
        .check(profile)
        .into_iter()
        .filter(|issue| issue.kind == IssueKind::Unsaid)
        .map(|issue| (issue.tool, issue.path))
        .collect()
}

fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
    expected
        .iter()
        .map(|(tool, path)| ((*tool).to_owned(), (*path).to_owned()))
        .collect()
}

#[test]
fn fixed_width_integers_carry_their_real_bounds_in_every_profile() {
    let quantity = "/properties/order/properties/items/items/properties/quantity";
    let cases = [
        ("integers", "/properties/count", json!(0), json!(u32::MAX)),
        (
            "integers",
            "/properties/c",
            json!(i32::MIN),
            json!(i32::MAX),
        ),
        ("integers", "/properties/h", json!(0), json!(u64::MAX)),
        (
            "integers",
            "/properties/i",
            json!(isize::MIN),
            json!(isize::MAX),
        ),
        ("integers", "/properties/j", json!(0), json!(usize::MAX)),
        ("non_zero", "/properties/b", json!(1), json!(u32::MAX)),
        ("sequences", quantity, json!(0), json!(u32::MAX)),
        ("newtypes", "/properties/id", json!(0), json!(u64::MAX)),
        ("optionals", "/properties/limit", json!(0), json!(u32::MAX)),
        // What a `serde_json::Value` can hold, so what `execute` decodes as well.
        (
            "wide_integers",
            "/properties/signed",
            json!(i64::MIN),
            json!(u64::MAX),
        ),
        (
            "wide_integers",
            "/properties/unsigned",
            json!(0),
            json!(u64::MAX),
        ),
    ];
    for (name, pointer, min, max) in cases {
        for profile in Profile::ALL {
            let (sent, _) = sent_schema(&tool(name), profile);
            let property = sent
                .pointer(pointer)
                .unwrap_or_else(|| panic!("{name}{pointer}"));
            if profile == Profile::AnthropicStrict {
                // No numeric bounds in strict tool use: they are said in words.
                let words = format!("at least {min}; at most {max}");
                let description = property["description"].as_str().unwrap_or_default();
                assert!(
                    description.contains(&words),
                    "{name}{pointer}: {description}"
                );
                continue;
            }
            assert_eq!(
                (&property["minimum"], &property["maximum"]),
                (&min, &max),
                "{name}{pointer} under {profile:?}"
            );
        }
    }
}

#[test]
fn values_past_the_bounds_are_refused_by_schema_and_decoder_alike() {
    let harness = Harness::new();
    let integers =
        json!({"a": 0, "b": 0, "c": 0, "d": 0, "e": 0, "f": 0, "count": 0, "h": 0, "i": 0, "j": 0});
    let cases = [
        (
            "integers",
            "/count",
            json!(3_034_111_436_811_735_556u64),
            "expected u32",
        ),
        ("integers", "/c", json!(2_147_483_648u64), "expected i32"),
        ("non_zero", "/e", json!(0), "nonzero"),
        (
            "sequences",
            "/order/items/0/quantity",
            json!(4_294_967_296u64),
            "expected u32",
        ),
        ("newtypes", "/share", json!(256), "expected u8"),
    ];
    let valid = |name: &str| match name {
        "integers" => integers.clone(),
        "non_zero" => json!({"a": 1, "b": 1, "c": 1, "d": 1, "e": 1, "f": 1}),
        "sequences" => json!({
            "order": {"items": [{"sku": "a", "quantity": 1}]},
            "matrix": [], "rgb": [1, 2, 3], "point": [1, 2],
        }),
        _ => json!({"id": 1, "label": "x", "share": 1, "ids": []}),
    };
    for (name, pointer, past, message) in cases {
        let tool = tool(name);
        let plain = Value::Object(tool.input_schema().clone());
        let validator = jsonschema::draft202012::new(&plain).unwrap();
        let mut args = valid(name);
        assert!(validator.is_valid(&args), "{name}: {args}");
        assert!(
            !harness.run(tool.as_ref(), &args).unwrap().is_error,
            "{name}"
        );
        *args.pointer_mut(pointer).unwrap() = past;
        assert!(
            !validator.is_valid(&args),
            "{name}: the schema admits {args}"
        );
        let result = harness.run(tool.as_ref(), &args).unwrap();
        assert!(result.is_error, "{name}: {args}");
        assert!(result.output.contains(message), "{name}: {}", result.output);
    }
}

#[test]
fn wide_integers_decode_their_bounds_through_both_entry_points() {
    let harness = Harness::new();
    let tool = tool("wide_integers");
    for (signed, unsigned) in [
        (json!(i64::MIN), json!(0)),
        (json!(u64::MAX), json!(u64::MAX)),
    ] {
        let args = json!({"signed": signed, "unsigned": unsigned, "maybe": signed});
        let result = harness.run(tool.as_ref(), &args).unwrap();
        assert!(!result.is_error, "{args}: {}", result.output);
        assert_eq!(result.output, format!("{signed} {unsigned} Some({signed})"));
    }
    // Text can carry more than a `Value` holds; past the bounds the schema gives, both entry
    // points refuse it alike.
    let ctx = toolnexus::ToolContext::default();
    for text in [
        r#"{"signed": 18446744073709551616, "unsigned": 0}"#,
        r#"{"signed": -9223372036854775809, "unsigned": 0}"#,
        r#"{"signed": 0, "unsigned": 18446744073709551616}"#,
    ] {
        let raw = harness.runtime.block_on(tool.execute_json(text, &ctx));
        let value: Value = serde_json::from_str(text).unwrap();
        let direct = harness.runtime.block_on(tool.execute(value, &ctx));
        assert!(raw.is_error, "{text}: {}", raw.output);
        assert_eq!(raw, direct, "{text}");
    }
}

#[test]
fn strict_mode_marks_nullable_only_where_null_decodes() {
    let (optionals, _) = sent_schema(&tool("optionals"), Profile::OpenAiStrict);
    // A parameter that is not required: `#[tool]` reads `null` as absent.
    assert_eq!(
        optionals["properties"]["case_sensitive"],
        json!({"type": ["boolean", "null"]})
    );
    let (search, _) = sent_schema(&tool("search"), Profile::OpenAiStrict);
    let query = &search["properties"]["query"];
    assert_eq!(
        query["required"],
        json!([
            "searchText",
            "caseSensitive",
            "pageSize",
            "max-price",
            "country"
        ])
    );
    // A serde-defaulted field inside a struct: `null` does not decode, so the model sends it.
    assert_eq!(
        query["properties"]["caseSensitive"],
        json!({"type": "boolean"})
    );
    assert_eq!(
        query["properties"]["pageSize"],
        json!({"type": "integer", "minimum": 0, "maximum": 65535})
    );
    // An `Option` field: its own schema admits `null`, which decodes as `None`.
    assert_eq!(
        query["properties"]["max-price"],
        json!({"type": ["number", "null"]})
    );

    let harness = Harness::new();
    let args = json!({"case_sensitive": null, "days": null, "window": null});
    let result = harness.run(tool("optionals").as_ref(), &args).unwrap();
    assert_eq!(result.output, "None None None 7 false", "{}", result.output);
    let args = json!({"query": {"searchText": "a", "caseSensitive": null, "country": "FR"}});
    assert!(
        harness
            .run(tool("search").as_ref(), &args)
            .unwrap()
            .is_error
    );
}

#[test]
fn what_strict_mode_cannot_say_is_reported_and_sent_non_strict() {
    assert_eq!(
        issue_paths(Profile::OpenAiStrict),
        pairs(&[
            // `unevaluatedProperties: false`, which closes an object beside a flattened enum,
            // and a flattened map's other keys.
            ("flat_listing", ""),
            ("flat_map", ""),
            ("tuples", "pair"),
            ("maps", "prices"),
            ("maps", "groups"),
            ("free_form", "payload"),
            ("free_form", "extra"),
            // Maps, whatever limits they carry.
            ("counts", "flags"),
            ("nested_limits", "by_name"),
        ])
    );
    for name in ["flat_listing", "flat_map", "tuples", "maps", "free_form"] {
        let function = &Toolkit::new().with_all([tool(name)]).to_openai_strict()[0]["function"];
        assert_eq!(function["strict"], false, "{name}");
        assert_eq!(
            function["parameters"],
            Value::Object(tool(name).input_schema().clone())
        );
    }
    // A `char`'s length has no strict keyword: it is said in words, the tool refuses the rest,
    // and the tool stays strict.
    let character = &Toolkit::new()
        .with_all([tool("character")])
        .to_openai_strict()[0]["function"];
    assert_eq!(character["strict"], true);
    assert_eq!(
        character["parameters"]["properties"]["letter"],
        json!({"type": "string", "description": "exactly 1 character"})
    );
    let issues = super::check(&tool("character"), Profile::OpenAiStrict);
    assert_eq!(issues.len(), 2);
    assert!(
        issues
            .iter()
            .all(|issue| issue.kind == IssueKind::EnforcedByTool)
    );
    // A tuple of one type is a list of it with its length, which strict mode can say.
    let (sequences, _) = sent_schema(&tool("sequences"), Profile::OpenAiStrict);
    assert_eq!(
        sequences["properties"]["point"],
        json!({
            "type": "array",
            "items": {"type": "integer", "minimum": i32::MIN, "maximum": i32::MAX},
            "minItems": 2,
            "maxItems": 2,
        })
    );
}

#[test]
fn what_gemini_cannot_say_is_reported() {
    assert_eq!(
        issue_paths(Profile::Gemini),
        pairs(&[
            ("flat_listing", ""),
            ("flat_map", ""),
            ("tuples", "pair"),
            ("maps", "prices"),
            ("maps", "groups"),
            (
                "recursive",
                "tree.children[].children[].children[].children[]"
            ),
            ("recursive", "chain.next.next.next.next.next"),
            // Every schema of Gemini's subset has a `type`; none means "any value".
            ("free_form", "payload"),
            ("free_form", "extra"),
            // Maps, whatever limits they carry.
            ("counts", "flags"),
            ("nested_limits", "by_name"),
        ])
    );
    assert!(issue_paths(Profile::Plain).is_empty());
    let (maps, _) = sent_schema(&tool("maps"), Profile::Gemini);
    assert_eq!(maps["properties"]["prices"], json!({"type": "object"}));
    let issue = &super::check(&tool("recursive"), Profile::Gemini)[0];
    assert_eq!(
        issue.to_string(),
        "tool `recursive`, argument `tree.children[].children[].children[].children[]`: \
         Gemini cannot say `Node` nested deeper than 3 levels: Gemini has no `$ref`, so a \
         recursive type is unrolled and cut where it would go deeper (an empty list, an \
         optional field or a branch left out)"
    );
}

#[test]
fn gemini_recursion_cut_offs_decode() {
    let recursive = tool("recursive");
    let (sent, dialect) = sent_schema(&recursive, Profile::Gemini);
    let mut cut = &sent["properties"]["tree"];
    // Gemini's recursion cut-off: three levels below the argument (`Profile::Gemini`).
    for _ in 0..3 {
        cut = &cut["properties"]["children"]["items"];
    }
    // The decoder requires `children` at every level, so the cut keeps it, empty.
    assert_eq!(cut["required"], json!(["name", "children"]));
    assert_eq!(
        cut["properties"]["children"],
        json!({"type": "array", "maxItems": 0, "items": {}})
    );
    let ran = generate_and_run(
        &Harness::new(),
        recursive.as_ref(),
        (&sent, dialect),
        256,
        0,
        false,
    );
    assert_eq!(ran, 256);
}

/// SPEC §11: whatever either entry point accepts is valid under the plain schema (nulls that
/// mean "absent" aside), and both give the same result. serde's derived `Deserialize` also
/// takes forms no schema says — a struct as an array of its fields in order, an internally
/// or adjacently tagged enum's tag as the variant's index, a struct variant as an array when
/// reading text — so decoded arguments are checked against the plain schema too, and refused
/// with the place and the reason.
#[test]
fn the_decoder_accepts_nothing_the_plain_schema_refuses() {
    let harness = Harness::new();
    let ctx = toolnexus::ToolContext::default();
    let enums = |command: Value, shape: Value, event: Value| json!({"unit": "celsius", "command": command, "shape": shape, "event": event, "loose": 1});
    let cases = [
        (
            "recursive",
            json!({"tree": {"name": "a", "children": [["b", []]]}}),
            "field `tree.children[0]`: invalid type: array, expected object",
        ),
        (
            "enums",
            enums(
                json!({"Move": [1, 2]}),
                json!({"kind": "empty"}),
                json!({"t": "Count", "c": 1}),
            ),
            "field `command.Move`: invalid type: array, expected object",
        ),
        (
            "enums",
            enums(
                json!("Stop"),
                json!({"kind": 0}),
                json!({"t": "Count", "c": 1}),
            ),
            "field `shape.kind`: invalid type: integer `0`, expected variant identifier",
        ),
        (
            "listing",
            json!({"page": {"topic": "t", "page": 1, "order": 0}}),
            "field `page.order`: invalid type: integer `0`, expected string",
        ),
    ];
    let mut broken = Vec::new();
    for (name, args, expected) in cases {
        let tool = tool(name);
        let plain = Value::Object(tool.input_schema().clone());
        let valid = jsonschema::draft202012::new(&plain)
            .unwrap()
            .is_valid(&args);
        assert!(!valid, "{name}: {args} is a case the plain schema refuses");
        let direct = harness.runtime.block_on(tool.execute(args.clone(), &ctx));
        let raw = harness
            .runtime
            .block_on(tool.execute_json(&args.to_string(), &ctx));
        if direct != raw {
            broken.push(format!(
                "{name}: execute and execute_json disagree on {args}: {direct:?} / {raw:?}"
            ));
        }
        let expected = format!("invalid arguments for `{name}`: {expected}");
        if !direct.is_error || direct.output != expected {
            broken.push(format!("{name} on {args}: {:?}", direct.output));
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

/// The mutator steps past every limit of the constrained tools, each at its own path, and
/// each step is refused naming that path.
#[test]
fn every_limit_is_stepped_past_and_refused_at_its_path() {
    let harness = Harness::new();
    let cases = [
        (
            "bounded",
            json!({"qty": 5, "discount": 0.5, "offset": 0, "step": 10, "quarter": 0.5}),
            vec![
                "qty", "qty", "discount", "discount", "offset", "offset", "offset", "offset",
                "step", "step", "step", "quarter", "quarter",
            ],
        ),
        (
            "lengths",
            json!({"code": "abc", "note": "ab", "name": "Ada", "digits": "12"}),
            vec!["code", "code", "note", "name", "digits", "digits", "digits"],
        ),
        (
            "counts",
            json!({"picks": [1, 2], "flags": {"a": true}, "tags": ["x"], "ids": [3]}),
            vec![
                "picks", "picks", "picks[0]", "picks[0]", "picks[1]", "picks[1]", "flags", "flags",
                "tags", "ids", "ids[0]", "ids[0]",
            ],
        ),
        (
            "nested_limits",
            json!({"lines": [{"qty": 2, "code": "ABCD"}], "share": 50, "shares": [],
                   "by_name": {"a": 7}, "adjust": {"By": 3}}),
            vec![
                "lines",
                "lines[0].qty",
                "lines[0].qty",
                "lines[0].code",
                "lines[0].code",
                "lines[0].code",
                "share",
                "share",
                "by_name.a",
                "by_name.a",
                "adjust.By",
                "adjust.By",
            ],
        ),
    ];
    for (name, args, expected) in cases {
        let tool = tool(name);
        let plain = Value::Object(tool.input_schema().clone());
        assert!(
            !harness.run(tool.as_ref(), &args).unwrap().is_error,
            "{name}"
        );
        let past = super::mutate::past_limits(&plain, &args);
        let paths: Vec<&str> = past.iter().map(|(path, _)| path.as_str()).collect();
        assert_eq!(paths, expected, "{name}");
        for (path, past) in &past {
            let output = harness.run(tool.as_ref(), past).unwrap().output;
            assert!(
                output.contains(&format!("field `{path}`: ")),
                "{past}: {output}"
            );
        }
    }
}
