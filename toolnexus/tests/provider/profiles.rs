//! The schema profiles a toolkit sends (SPEC §11): each tool's profile built once and kept.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Map, Value, json};
use toolnexus::{BoxFuture, IssueKind, Profile, Tool, ToolContext, ToolResult, Toolkit};

/// A tool that counts how often its schema is read, to see when a profile is rebuilt.
struct Counting {
    schema: Map<String, Value>,
    reads: Arc<AtomicUsize>,
}

impl Tool for Counting {
    fn name(&self) -> &str {
        "tagged"
    }

    fn description(&self) -> &str {
        "Counts its schema reads"
    }

    fn input_schema(&self) -> &Map<String, Value> {
        self.reads.fetch_add(1, Ordering::Relaxed);
        &self.schema
    }

    fn execute<'a>(&'a self, _: Value, _: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        Box::pin(async { ToolResult::ok("ok") })
    }
}

fn counting(schema: Value) -> (Counting, Arc<AtomicUsize>) {
    let reads = Arc::new(AtomicUsize::new(0));
    let Value::Object(schema) = schema else {
        panic!("an object schema")
    };
    let tool = Counting {
        schema,
        reads: Arc::clone(&reads),
    };
    (tool, reads)
}

#[test]
fn a_toolkit_builds_each_profile_of_a_tool_once() {
    let schema = json!({
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "tags": {"type": "object", "additionalProperties": {"type": "string"}},
        },
        "required": ["city"],
    });
    let (tool, reads) = counting(schema);
    let toolkit = Toolkit::new().with(tool);
    let rewrites = [Profile::OpenAiStrict, Profile::Gemini];
    let sent = |toolkit: &Toolkit| {
        (
            toolkit.to_openai_strict(),
            toolkit.to_gemini(),
            rewrites.map(|profile| toolkit.check(profile)),
        )
    };
    let first = sent(&toolkit);
    let built = reads.load(Ordering::Relaxed);
    assert!(built > 0);
    // Later calls, and the toolkit's clones, reuse what the first calls built.
    let copy = toolkit.clone();
    for _ in 0..3 {
        assert_eq!(sent(&toolkit), first);
        assert_eq!(sent(&copy), first);
    }
    assert_eq!(reads.load(Ordering::Relaxed), built);
    // What is kept is what a fresh build gives.
    assert_eq!(
        first.2[0],
        Toolkit::new()
            .with_all(toolkit.tools().to_vec())
            .check(Profile::OpenAiStrict)
    );
    assert_eq!(first.2[0].len(), 1, "the map is reported: {:?}", first.2[0]);
    assert_eq!(first.0[0]["function"]["strict"], false);
}

/// README: "a toolkit builds each of a tool's four rewritten profiles once": after the first
/// definitions of each (and its `check`), sending it again, from the toolkit or a clone,
/// reads the tool's schema no more. The plain profile is the schema as the tool holds it.
#[test]
fn a_toolkit_builds_each_rewritten_profile_once() {
    let (tool, reads) = counting(json!({
        "type": "object",
        "properties": {
            "city": {"type": "string", "maxLength": 20},
            "tags": {"type": "object", "additionalProperties": {"type": "string"}},
            "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]},
        },
        "required": ["city"],
    }));
    let toolkit = Toolkit::new().with(tool);
    let sent = |toolkit: &Toolkit, profile: Profile| {
        let definitions = match profile {
            Profile::OpenAiStrict => {
                vec![toolkit.to_openai_strict(), toolkit.to_openai_responses()]
            }
            Profile::Gemini => vec![toolkit.to_gemini()],
            Profile::GeminiJsonSchema => vec![toolkit.to_gemini_json_schema()],
            Profile::AnthropicStrict => vec![toolkit.to_anthropic_strict()],
            _ => unreachable!("the rewritten profiles"),
        };
        (definitions, toolkit.check(profile))
    };
    let rewritten = [
        Profile::OpenAiStrict,
        Profile::Gemini,
        Profile::GeminiJsonSchema,
        Profile::AnthropicStrict,
    ];
    let copy = toolkit.clone();
    for profile in rewritten {
        let before = reads.load(Ordering::Relaxed);
        let first = sent(&toolkit, profile);
        let built = reads.load(Ordering::Relaxed);
        assert!(built > before, "{profile:?} is built from the schema");
        for _ in 0..3 {
            assert_eq!(sent(&toolkit, profile), first, "{profile:?}");
            assert_eq!(sent(&copy, profile), first, "{profile:?}");
        }
        assert_eq!(
            reads.load(Ordering::Relaxed),
            built,
            "{profile:?} was rebuilt"
        );
    }
    // The plain profile's definitions carry the schema the tool holds.
    assert_eq!(
        toolkit.to_openai()[0]["function"]["parameters"],
        Value::Object(toolkit.tools()[0].input_schema().clone())
    );
}

fn schema_tool(name: &str, schema: Value) -> toolnexus::FnTool {
    toolnexus::define_tool(name, format!("The {name} tool"), schema)
        .unwrap()
        .sync(|_: Value, _: &ToolContext| "ok")
}

/// A limit a dialect has no keyword for is said in words, reported as enforced by the tool,
/// and keeps strict mode on; what strict mode documents stays a keyword.
#[test]
fn limits_without_a_keyword_go_into_the_description() {
    let limited = schema_tool(
        "limited",
        json!({
            "type": "object",
            "properties": {
                "code": {"type": "string", "minLength": 3, "maxLength": 8, "pattern": "^[A-Z]+$"},
                "note": {"type": "string", "maxLength": 5, "description": "A note"},
                "ids": {"type": "array", "items": {"type": "integer", "minimum": 0}, "uniqueItems": true, "maxItems": 4},
                "ratio": {"type": "number", "exclusiveMinimum": 0, "multipleOf": 0.5},
            },
            "required": ["code", "note", "ids", "ratio"],
        }),
    );
    let toolkit = Toolkit::new().with(limited);
    let function = &toolkit.to_openai_strict()[0]["function"];
    assert_eq!(function["strict"], true);
    let properties = &function["parameters"]["properties"];
    assert_eq!(
        properties["code"],
        json!({"type": "string", "pattern": "^[A-Z]+$", "description": "at least 3 characters; at most 8 characters"})
    );
    assert_eq!(
        properties["note"],
        json!({"type": "string", "description": "A note (at most 5 characters)"})
    );
    assert_eq!(
        properties["ids"],
        json!({"type": "array", "items": {"type": "integer", "minimum": 0}, "maxItems": 4, "description": "no duplicate items"})
    );
    assert_eq!(
        properties["ratio"],
        json!({"type": "number", "exclusiveMinimum": 0, "multipleOf": 0.5})
    );
    let issues = toolkit.check(Profile::OpenAiStrict);
    let paths: Vec<&str> = issues.iter().map(|issue| issue.path.as_str()).collect();
    assert_eq!(paths, ["code", "note", "ids"]);
    assert!(
        issues
            .iter()
            .all(|issue| issue.kind == IssueKind::EnforcedByTool)
    );
    assert_eq!(
        issues[1].to_string(),
        "tool `limited`, argument `note`: OpenAI strict mode cannot say `maxLength: 5`: it has no \
         such keyword, so the limit is written into the description instead, and the tool \
         refuses a value that breaks it"
    );

    // Gemini has `minLength`, `maxLength` and `pattern`, but no exclusive bounds.
    let gemini = &toolkit.to_gemini()[0]["functionDeclarations"][0]["parameters"]["properties"];
    assert_eq!(gemini["code"]["maxLength"], 8);
    assert_eq!(
        gemini["ratio"],
        json!({"type": "number", "description": "greater than 0; a multiple of 0.5"})
    );
    assert_eq!(gemini["ids"]["description"], "no duplicate items");
    let issues = toolkit.check(Profile::Gemini);
    assert!(
        issues
            .iter()
            .all(|issue| issue.kind == IssueKind::EnforcedByTool),
        "{issues:?}"
    );
}

/// What the tool could not refuse still sends the tool non-strict.
#[test]
fn only_what_the_model_cannot_be_told_sends_a_tool_non_strict() {
    let mapped = schema_tool(
        "mapped",
        json!({
            "type": "object",
            "properties": {
                "letter": {"type": "string", "minLength": 1, "maxLength": 1},
                "prices": {"type": "object", "additionalProperties": {"type": "number"}},
            },
            "required": ["letter", "prices"],
        }),
    );
    let toolkit = Toolkit::new().with(mapped);
    assert_eq!(toolkit.to_openai_strict()[0]["function"]["strict"], false);
    let kinds: Vec<(String, IssueKind)> = toolkit
        .check(Profile::OpenAiStrict)
        .into_iter()
        .map(|issue| (issue.path, issue.kind))
        .collect();
    assert_eq!(
        kinds,
        [
            ("letter".to_owned(), IssueKind::EnforcedByTool),
            ("prices".to_owned(), IssueKind::Unsaid),
        ]
    );
}

/// What Gemini's JSON Schema field and Anthropic strict tool use report, by kind.
#[test]
fn each_profile_reports_what_it_says_in_words_and_what_it_cannot_say() {
    let odd = schema_tool(
        "odd",
        json!({
            "type": "object",
            "properties": {
                "ratio": {"type": "number", "exclusiveMinimum": 0},
                "always": {"const": true},
                "not_five": {"type": "integer", "not": {"const": 5}},
                "both": {"allOf": [{"type": "object", "properties": {"a": {"type": "string"}}}]},
                "pattern": {"type": "string", "pattern": "^a+$", "minLength": 2},
            },
            "required": ["ratio", "always", "not_five", "both", "pattern"],
        }),
    );
    let toolkit = Toolkit::new().with(odd);
    let kinds = |profile| -> Vec<(String, IssueKind)> {
        toolkit
            .check(profile)
            .into_iter()
            .map(|issue| (issue.path, issue.kind))
            .collect()
    };
    let said = IssueKind::EnforcedByTool;
    let unsaid = IssueKind::Unsaid;
    let pairs = |expected: &[(&str, IssueKind)]| -> Vec<(String, IssueKind)> {
        expected
            .iter()
            .map(|(path, kind)| ((*path).to_owned(), *kind))
            .collect()
    };
    assert_eq!(
        kinds(Profile::GeminiJsonSchema),
        pairs(&[
            ("ratio", said),
            ("always", said),
            ("not_five", unsaid),
            ("both", unsaid)
        ])
    );
    assert_eq!(
        kinds(Profile::AnthropicStrict),
        pairs(&[
            ("ratio", said),
            ("not_five", unsaid),
            // `allOf`, and then the nothing that is left of it.
            ("both", unsaid),
            ("both", unsaid),
            ("pattern", said),
        ])
    );
    let gemini = &toolkit.to_gemini_json_schema()[0]["functionDeclarations"][0];
    let properties = &gemini["parametersJsonSchema"]["properties"];
    assert_eq!(properties["always"], json!({"description": "exactly true"}));
    assert_eq!(
        properties["pattern"],
        json!({"type": "string", "pattern": "^a+$", "minLength": 2})
    );
    let anthropic = &toolkit.to_anthropic_strict()[0];
    assert_eq!(anthropic["strict"], false);
    assert_eq!(
        anthropic["input_schema"],
        Value::Object(toolkit.tools()[0].input_schema().clone())
    );
}

#[test]
fn profile_rewrite_is_what_the_toolkit_sends_and_checks() {
    // Issue 25: one way to rewrite a schema, the one the toolkit itself uses.
    let schema = json!({
        "type": "object",
        "properties": {
            "code": {"type": "string", "maxLength": 8, "pattern": "("},
            "prices": {"type": "object", "additionalProperties": {"type": "number"}},
            "days": {"type": "integer", "minimum": 1, "default": 3},
        },
        "required": ["code"],
    });
    let toolkit = Toolkit::new().with(schema_tool("priced", schema.clone()));
    let sent = [
        (
            Profile::OpenAiStrict,
            toolkit.to_openai_strict()[0]["function"]["parameters"].clone(),
        ),
        (
            Profile::Gemini,
            toolkit.to_gemini()[0]["functionDeclarations"][0]["parameters"].clone(),
        ),
        (
            Profile::GeminiJsonSchema,
            toolkit.to_gemini_json_schema()[0]["functionDeclarations"][0]["parametersJsonSchema"]
                .clone(),
        ),
        (
            Profile::AnthropicStrict,
            toolkit.to_anthropic_strict()[0]["input_schema"].clone(),
        ),
        (Profile::Plain, schema.clone()),
    ];
    for (profile, sent) in sent {
        let (rewritten, issues) = profile.rewrite(schema.as_object().unwrap());
        let checked = toolkit.check(profile);
        assert!(
            !checked.is_empty(),
            "{profile}: the broken pattern at least"
        );
        assert_eq!(issues.len(), checked.len(), "{profile}");
        for (issue, checked) in issues.iter().zip(&checked) {
            assert_eq!(issue.tool, "");
            let mut named = issue.clone();
            named.tool = checked.tool.clone();
            assert_eq!(&named, checked, "{profile}");
        }
        // A strict profile that cannot say the map sends the plain schema, non-strict.
        let strict = matches!(profile, Profile::OpenAiStrict | Profile::AnthropicStrict);
        let expected = if strict {
            schema.clone()
        } else {
            Value::Object(rewritten)
        };
        assert_eq!(sent, expected, "{profile}");
    }
}

/// A schema whose definitions refer to one another (and to themselves) through `allOf`,
/// `$ref` and `items` in any pattern: `links[d]` lists, for definition `d`, each property's
/// target and how it is reached.
/// How deep `value` nests and how many values it holds, counted without recursion.
fn depth_and_size(value: &Value) -> (usize, usize) {
    let (mut deepest, mut size) = (0, 0);
    let mut pending = vec![(value, 1)];
    while let Some((value, depth)) = pending.pop() {
        (deepest, size) = (deepest.max(depth), size + 1);
        match value {
            Value::Object(map) => pending.extend(map.values().map(|value| (value, depth + 1))),
            Value::Array(values) => pending.extend(values.iter().map(|value| (value, depth + 1))),
            _ => {}
        }
    }
    (deepest, size)
}

fn reference_graph(links: &[Vec<(usize, u8)>], root: &[(usize, u8)]) -> Value {
    fn properties(links: &[(usize, u8)]) -> Value {
        let mut properties = Map::new();
        for (at, (target, how)) in links.iter().enumerate() {
            let reference = json!({"$ref": format!("#/$defs/D{target}")});
            let property = match how % 4 {
                0 => json!({"allOf": [reference]}),
                1 => reference,
                2 => json!({"type": "array", "items": {"allOf": [reference]}}),
                _ => {
                    json!({"allOf": [reference, {"type": "object", "properties": {"n": {"type": "integer"}}}]})
                }
            };
            properties.insert(format!("p{at}"), property);
        }
        json!({"type": "object", "properties": properties})
    }
    let defs: Map<String, Value> = links
        .iter()
        .enumerate()
        .map(|(at, links)| (format!("D{at}"), properties(links)))
        .collect();
    let mut schema = properties(root);
    schema["$defs"] = Value::Object(defs);
    schema
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// No schema makes a profile run without end: a definition merged into itself through
    /// `allOf` (which once overflowed the stack, an abort, from a schema any MCP server can
    /// send) is cut and reported, and the strict profiles then send the plain schema.
    #[test]
    fn definitions_that_merge_into_themselves_are_cut_and_reported(
        links in proptest::collection::vec(
            proptest::collection::vec((0_usize..3, 0_u8..4), 0..3), 3),
        root in proptest::collection::vec((0_usize..3, 0_u8..4), 1..3),
    ) {
        let schema = reference_graph(&links, &root);
        for profile in Profile::ALL {
            let (rewritten, _) = profile.rewrite(schema.as_object().unwrap());
            // A merge copies the definition as given, so the output nests at most the
            // rewrite's 256 levels (each one or two objects deep) plus one definition's depth.
            let (depth, _) = depth_and_size(&Value::Object(rewritten));
            proptest::prop_assert!(depth <= 2 * 256 + depth_and_size(&schema).0, "{depth}");
        }
        let toolkit = Toolkit::new().with(counting(schema.clone()).0);
        let sent = &toolkit.to_openai_strict()[0]["function"];
        if sent["strict"] == true {
            proptest::prop_assert!(toolkit
                .check(Profile::OpenAiStrict)
                .iter()
                .all(|issue| issue.kind != IssueKind::Unsaid));
        } else {
            proptest::prop_assert_eq!(&sent["parameters"], &schema);
        }
    }
}

#[test]
fn a_definition_merged_into_itself_is_cut_where_it_would_never_end() {
    let schema = json!({
        "type": "object",
        "properties": {"x": {"allOf": [{"$ref": "#/$defs/A"}]}},
        "$defs": {"A": {"type": "object", "properties": {"p": {"allOf": [{"$ref": "#/$defs/A"}]}}}},
    });
    let toolkit = Toolkit::new().with(counting(schema.clone()).0);
    let cut: Vec<_> = toolkit
        .check(Profile::OpenAiStrict)
        .into_iter()
        .filter(|issue| issue.lost.contains("levels of nesting or"))
        .collect();
    assert_eq!(cut.len(), 1, "{cut:?}");
    assert!(cut[0].path.starts_with("x.p.p.p."), "{}", cut[0].path);
    assert_eq!(cut[0].kind, IssueKind::Unsaid);
    let sent = &toolkit.to_openai_strict()[0]["function"];
    assert_eq!(
        (&sent["strict"], &sent["parameters"]),
        (&json!(false), &schema)
    );
}

#[test]
fn an_all_of_listing_one_definition_many_times_copies_it_within_the_bound() {
    let properties: Map<String, Value> = (0..500)
        .map(|at| {
            (
                format!("f{at}"),
                json!({"type": "object", "properties": {"x": {"type": "string"}}}),
            )
        })
        .collect();
    let parts: Vec<Value> = (0..200).map(|_| json!({"$ref": "#/$defs/Big"})).collect();
    let schema = json!({
        "type": "object",
        "properties": {"big": {"allOf": parts}},
        "$defs": {"Big": {"type": "object", "properties": properties}},
    });
    let (rewritten, losses) = Profile::OpenAiStrict.rewrite(schema.as_object().unwrap());
    // 200 copies of 1,001 objects would be 200,200; the copies stop at 20,000.
    let (_, size) = depth_and_size(&Value::Object(rewritten));
    assert!(size < 4 * 20_000 + depth_and_size(&schema).1, "{size}");
    let cut: Vec<_> = losses
        .iter()
        .filter(|loss| loss.lost.contains("levels of nesting or"))
        .collect();
    assert_eq!(cut.len(), 1, "{cut:?}");
    assert_eq!(cut[0].path, "big");
    let toolkit = Toolkit::new().with(counting(schema.clone()).0);
    let sent = &toolkit.to_openai_strict()[0]["function"];
    assert_eq!(
        (&sent["strict"], &sent["parameters"]),
        (&json!(false), &schema)
    );
}

/// Draft-07's `definitions`, which zod-to-json-schema and pydantic 1 write and so many MCP
/// servers send, are rewritten as `$defs` are: strict mode closes the objects they hold and
/// stays strict. (That no profile leaves a reference dangling is `hostile_tests.rs`'s.)
#[test]
fn draft_07_definitions_are_rewritten_like_defs() {
    let point =
        json!({"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]});
    let written = |key: &str, prefix: &str| {
        let mut schema = json!({
            "type": "object",
            "properties": {
                "a": {"$ref": format!("{prefix}P")},
                "b": {"type": "array", "items": {"$ref": format!("{prefix}P")}},
            },
            "required": ["a"],
        });
        schema[key] = json!({"P": point});
        schema
    };
    let draft_07 = written("definitions", "#/definitions/");
    let defs = written("$defs", "#/$defs/");
    for profile in Profile::ALL.into_iter().filter(|p| *p != Profile::Plain) {
        let (rewritten, issues) = profile.rewrite(draft_07.as_object().unwrap());
        assert_eq!(
            (&Value::Object(rewritten), &issues),
            (
                &Value::Object(profile.rewrite(defs.as_object().unwrap()).0),
                &profile.rewrite(defs.as_object().unwrap()).1
            ),
            "{profile:?}"
        );
    }
    let toolkit = Toolkit::new().with(counting(draft_07).0);
    let sent = &toolkit.to_openai_strict()[0]["function"];
    assert_eq!(sent["strict"], json!(true));
    assert_eq!(
        sent["parameters"]["$defs"]["P"]["additionalProperties"],
        json!(false)
    );
    assert_eq!(toolkit.check(Profile::OpenAiStrict), []);
}

/// zod-to-json-schema refers to a schema used twice by where it first appears
/// (`#/properties/from`). Strict mode makes the optional `from` nullable; the required `to`,
/// which refers to it, must not become nullable with it.
#[test]
fn a_reference_into_a_property_keeps_its_meaning_when_the_property_is_rewritten() {
    let schema = json!({
        "type": "object",
        "properties": {
            "from": {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]},
            "to": {"$ref": "#/properties/from"},
        },
        "required": ["to"],
    });
    for profile in [Profile::OpenAiStrict, Profile::AnthropicStrict] {
        let (rewritten, issues) = profile.rewrite(schema.as_object().unwrap());
        let rewritten = Value::Object(rewritten);
        let to = rewritten["properties"]["to"]["$ref"].as_str().unwrap();
        let target = rewritten.pointer(to.strip_prefix('#').unwrap()).unwrap();
        assert_eq!(target["type"], json!("object"), "{profile:?}: {rewritten}");
        assert_eq!(issues, [], "{profile:?}");
    }
    let toolkit = Toolkit::new().with(counting(schema).0);
    assert_eq!(
        toolkit.to_openai_strict()[0]["function"]["strict"],
        json!(true)
    );
}

/// A reference to a schema the root does not hold (another document, a definition that is not
/// there) cannot be followed by any provider: it is reported, and the strict profiles send
/// the tool non-strict with its plain schema rather than a strict one the API refuses.
#[test]
fn a_reference_to_nothing_here_is_reported_and_sent_plain() {
    let schema = json!({
        "type": "object",
        "properties": {
            "a": {"$ref": "https://example.com/a.json"},
            "b": {"$ref": "#/$defs/Missing"},
            "c": {"$ref": "#/properties/none"},
            "d": {"$ref": "#"},
        },
        "$defs": {"Here": {"type": "string"}},
    });
    let toolkit = Toolkit::new().with(counting(schema.clone()).0);
    for profile in [
        Profile::OpenAiStrict,
        Profile::AnthropicStrict,
        Profile::GeminiJsonSchema,
    ] {
        let unsaid: Vec<(String, String)> = toolkit
            .check(profile)
            .into_iter()
            .filter(|issue| {
                issue.kind == IssueKind::Unsaid && issue.lost.starts_with("the reference")
            })
            .map(|issue| (issue.path, issue.lost))
            .collect();
        assert_eq!(
            unsaid,
            [
                (
                    "a".to_owned(),
                    "the reference `https://example.com/a.json`".to_owned()
                ),
                ("b".to_owned(), "the reference `#/$defs/Missing`".to_owned()),
                (
                    "c".to_owned(),
                    "the reference `#/properties/none`".to_owned()
                ),
            ],
            "{profile:?}"
        );
    }
    let sent = &toolkit.to_openai_strict()[0]["function"];
    assert_eq!(
        (&sent["strict"], &sent["parameters"]),
        (&json!(false), &schema)
    );
}

/// A reference with percent-escapes names the definition they spell (`%25` is `%`), and one
/// to a boolean definition is that schema: every profile follows both. Gemini, which inlines
/// references, leaves out an optional property whose definition is `false` (the key must be
/// absent, as for a `false` property) and sends a `true` one as any value.
#[test]
fn references_to_escaped_names_and_boolean_definitions_are_followed() {
    let schema = json!({
        "type": "object",
        "properties": {
            "price": {"$ref": "#/$defs/percent%25field"},
            "never": {"$ref": "#/$defs/Never"},
            "anything": {"$ref": "#/$defs/Anything"},
        },
        "required": ["price"],
        "$defs": {
            "percent%field": {"type": "number", "minimum": 0},
            "Never": false,
            "Anything": true,
        },
    });
    for profile in Profile::ALL {
        let (_, issues) = profile.rewrite(schema.as_object().unwrap());
        assert!(
            issues
                .iter()
                .all(|issue| !issue.lost.starts_with("the reference")
                    && !issue.lost.starts_with("the schema `")),
            "{profile:?}: {issues:?}"
        );
    }
    let (gemini, issues) = Profile::Gemini.rewrite(schema.as_object().unwrap());
    assert_eq!(
        Value::Object(gemini)["properties"],
        json!({"price": {"type": "number", "minimum": 0}, "anything": {}})
    );
    let lost: Vec<(&str, &str)> = issues
        .iter()
        .map(|issue| (issue.path.as_str(), issue.lost.as_str()))
        .collect();
    assert_eq!(lost, [("anything", "any JSON value")]);
}

/// An object schema of integer properties and `false` ones (a key that must be absent), each
/// `(is_false, required)`, and an optional nested object `inner` of the same kind; with the
/// instance that sends every property that is not `false` (and `inner` when it can be sent),
/// `None` when a required `false` leaves the arguments nothing that fits.
fn with_absent_keys(outer: &[(bool, bool)], inner: &[(bool, bool)]) -> (Value, Option<Value>) {
    fn object(properties: &[(bool, bool)]) -> (Map<String, Value>, Option<Map<String, Value>>) {
        let mut schema = Map::new();
        let mut instance = Some(Map::new());
        let mut required = Vec::new();
        for (at, (is_false, is_required)) in properties.iter().enumerate() {
            let name = format!("p{at}");
            let property = if *is_false {
                json!(false)
            } else {
                json!({"type": "integer"})
            };
            schema.insert(name.clone(), property);
            if *is_required {
                required.push(Value::from(name.clone()));
                if *is_false {
                    instance = None;
                }
            }
            if let (false, Some(instance)) = (is_false, instance.as_mut()) {
                instance.insert(name, json!(1));
            }
        }
        let schema = json!({"type": "object", "properties": schema, "required": required});
        (schema.as_object().unwrap().clone(), instance)
    }
    let (mut schema, mut instance) = object(outer);
    let (inner_schema, inner_instance) = object(inner);
    schema["properties"]
        .as_object_mut()
        .unwrap()
        .insert("inner".to_owned(), Value::Object(inner_schema));
    if let (Some(instance), Some(inner)) = (instance.as_mut(), inner_instance) {
        instance.insert("inner".to_owned(), Value::Object(inner));
    }
    (Value::Object(schema), instance.map(Value::Object))
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// A property whose schema is `false` must be absent. A strict profile closes every object,
    /// so it says that exactly by leaving the property out: it neither requires a value nothing
    /// fits (which left OpenAI strict admitting no call at all) nor reports a loss (which sent
    /// the tool plain under Anthropic strict). A required `false` is kept: nothing fits.
    #[test]
    fn a_property_that_must_be_absent_is_left_out_of_a_strict_schema(
        outer in proptest::collection::vec((proptest::bool::ANY, proptest::bool::ANY), 1..5),
        inner in proptest::collection::vec((proptest::bool::ANY, proptest::bool::ANY), 0..4),
    ) {
        let (schema, instance) = with_absent_keys(&outer, &inner);
        // A required `false` admits no call; how a profile words that is not this test's job.
        let Some(instance) = instance else {
            return Ok(());
        };
        let plain = jsonschema::validator_for(&schema).unwrap();
        proptest::prop_assert!(plain.is_valid(&instance));
        // Strict profiles require every property and say "optional" with `null`.
        let mut strict_instance = instance.clone();
        strict_instance.as_object_mut().unwrap().entry("inner").or_insert(Value::Null);
        for profile in [Profile::OpenAiStrict, Profile::AnthropicStrict] {
            let (rewritten, issues) = profile.rewrite(schema.as_object().unwrap());
            let rewritten = Value::Object(rewritten);
            let unsaid: Vec<_> = issues.iter().filter(|i| i.kind == IssueKind::Unsaid).collect();
            if !unsaid.is_empty() {
                // Only an object that can never be sent may cost the strict form.
                proptest::prop_assert!(inner.iter().any(|&(is_false, required)| is_false && required), "{unsaid:?}");
                continue;
            }
            let strict = jsonschema::validator_for(&rewritten).unwrap();
            proptest::prop_assert!(strict.is_valid(&strict_instance), "{profile:?}: {rewritten} refuses {strict_instance}");
            // Sending a key that must be absent is refused, as the plain schema refuses it.
            for (at, (is_false, _)) in outer.iter().enumerate() {
                if *is_false {
                    let key = format!("p{at}");
                    let (mut plain_sent, mut strict_sent) = (instance.clone(), strict_instance.clone());
                    plain_sent[&key] = json!(1);
                    strict_sent[&key] = json!(1);
                    proptest::prop_assert!(!plain.is_valid(&plain_sent));
                    proptest::prop_assert!(!strict.is_valid(&strict_sent), "{profile:?}: {rewritten} admits {strict_sent}");
                }
            }
        }
    }
}

/// The names JSON Schema has types for.
const JSON_TYPES: [&str; 7] = [
    "null", "boolean", "integer", "number", "string", "array", "object",
];

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// A `type` naming what JSON Schema has no type for (a remote server's `"any"`, alone or
    /// beside a real type) leaves the value unconstrained in the arguments check. Every
    /// profile that rewrites the schema says the same by leaving the `type` out, where a
    /// provider would refuse the name, and reports it at its place; the plain schema keeps it.
    #[test]
    fn a_type_json_schema_does_not_have_is_left_out_and_reported(
        name in proptest::strategy::Strategy::prop_filter("[a-z]{1,8}", "a name JSON Schema has no type for", |name| {
            !JSON_TYPES.contains(&name.as_str()) && !["outer", "inner"].contains(&name.as_str())
        }),
        beside in proptest::option::of(proptest::sample::select(JSON_TYPES.to_vec())),
        nested in proptest::bool::ANY,
        required in proptest::bool::ANY,
    ) {
        let types = match beside {
            Some(known) => json!([known, name]),
            None => json!(name),
        };
        let (property, path, sent) = if nested {
            (
                json!({"type": "object", "properties": {"inner": {"type": types}}, "required": ["inner"]}),
                "outer.inner",
                json!({"outer": {"inner": [true]}}),
            )
        } else {
            (json!({"type": types}), "outer", json!({"outer": [true]}))
        };
        let required = if required { json!(["outer"]) } else { json!([]) };
        let schema = json!({"type": "object", "properties": {"outer": property}, "required": required});

        let tool = schema_tool("untyped", schema.clone());
        let result = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(Toolkit::new().with(tool).execute("untyped", sent.clone(), &ToolContext::default()));
        proptest::prop_assert!(!result.is_error, "{schema} refused {sent}: {}", result.output);

        let quoted = format!("\"{name}\"");
        let (plain, _) = Profile::Plain.rewrite(schema.as_object().unwrap());
        proptest::prop_assert!(Value::Object(plain).to_string().contains(&quoted));
        for profile in [Profile::OpenAiStrict, Profile::AnthropicStrict, Profile::Gemini, Profile::GeminiJsonSchema] {
            let (rewritten, issues) = profile.rewrite(schema.as_object().unwrap());
            let rewritten = Value::Object(rewritten);
            proptest::prop_assert!(!rewritten.to_string().contains(&quoted), "{profile:?}: {rewritten}");
            proptest::prop_assert!(
                issues.iter().any(|issue| issue.path == path
                    && issue.kind == IssueKind::Unsaid
                    && issue.lost.contains(&quoted)),
                "{profile:?}: {issues:?}"
            );
            if profile != Profile::Gemini {
                // The JSON Schema dialects' output is JSON Schema again.
                proptest::prop_assert!(jsonschema::meta::is_valid(&rewritten), "{profile:?}: {rewritten}");
            }
        }
    }
}
