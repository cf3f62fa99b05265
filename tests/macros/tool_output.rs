//! `#[derive(ToolOutput)]` (SPEC §6): every mode and field attribute, asserting the whole
//! `ToolResult` each time.
use std::collections::BTreeMap;
use std::fmt::{Debug, Display};

use serde::Serialize;
use serde_json::{Map, Value, json};
use toolnexus::{
    ContentPart, IntoToolResult, Request, ToolOutput, ToolResult, parts::from_bytes, pending,
    pending_of,
};

fn png() -> ContentPart {
    from_bytes(b"\x89PNG", "image/png")
}

fn pdf() -> ContentPart {
    from_bytes(b"%PDF", "application/pdf")
}

fn metadata(value: Value) -> Map<String, Value> {
    let Value::Object(map) = value else {
        panic!("metadata must be an object")
    };
    map
}

#[derive(Serialize)]
struct Summary {
    deployed: u32,
    failed: u32,
}

// SPEC §6, verbatim (hence unformatted).
#[rustfmt::skip]
#[derive(ToolOutput)]
enum Deploy {
    #[output("deployed {service} to {env}")]            Done { service: String, env: String },
    #[output(error, "no such service: {0}")]             Unknown(String),
    #[output(pending, kind = "approval", prompt = "Approve deploying {0} to production?")]
                                                         NeedsApproval(String),
    #[output("chart for {city}")]                        Chart { city: String, #[part] png: ContentPart,
                                                                 #[metadata] rows: u32 },
    #[output(json)]                                      Report(Summary),   // Summary: Serialize
    Raw(ToolResult),           // a single-field tuple variant without #[output] delegates to its field
}

#[test]
fn deploy_ok_formats_named_fields() {
    let result = Deploy::Done {
        service: "api".into(),
        env: "staging".into(),
    }
    .into_tool_result();
    assert_eq!(result, ToolResult::ok("deployed api to staging"));
}

#[test]
fn deploy_error_formats_positional_fields() {
    let result = Deploy::Unknown("billing".into()).into_tool_result();
    assert_eq!(result, ToolResult::error("no such service: billing"));
}

#[test]
fn deploy_pending_suspends_with_the_formatted_prompt() {
    let result = Deploy::NeedsApproval("api".into()).into_tool_result();
    let request = pending_of(&result).expect("a suspension");
    assert_eq!(request.kind, "approval");
    assert_eq!(request.prompt, "Approve deploying api to production?");
    assert_eq!(request.url, None);
    assert!(result.is_pending());
    assert_eq!(
        result,
        pending(
            Request::new("approval", "Approve deploying api to production?").with_id(request.id)
        )
    );
    assert_eq!(result.output, "Approve deploying api to production?");
    assert!(result.is_error);
    assert!(result.parts.is_empty());
}

#[test]
fn deploy_chart_carries_its_part_and_metadata() {
    let result = Deploy::Chart {
        city: "Paris".into(),
        png: png(),
        rows: 12,
    }
    .into_tool_result();
    assert_eq!(
        result,
        ToolResult {
            output: "chart for Paris".into(),
            is_error: false,
            parts: vec![png()],
            metadata: metadata(json!({"rows": 12})),
        }
    );
}

#[test]
fn deploy_json_serializes_the_single_field() {
    let result = Deploy::Report(Summary {
        deployed: 3,
        failed: 1,
    })
    .into_tool_result();
    assert_eq!(result, ToolResult::ok(r#"{"deployed":3,"failed":1}"#));
}

#[test]
fn deploy_raw_passes_its_result_through() {
    let raw = ToolResult::error("boom")
        .with_part(pdf())
        .with_metadata("k", 1);
    assert_eq!(Deploy::Raw(raw.clone()).into_tool_result(), raw);
}

#[test]
fn a_tool_can_return_the_enum_inside_a_result() {
    fn deploy(service: &str) -> Result<Deploy, std::io::Error> {
        if service.is_empty() {
            return Err(std::io::Error::other("empty name"));
        }
        Ok(Deploy::Unknown(service.into()))
    }
    assert_eq!(
        deploy("x").into_tool_result(),
        ToolResult::error("no such service: x")
    );
    assert_eq!(
        deploy("").into_tool_result(),
        ToolResult::error("empty name")
    );
}

#[derive(ToolOutput)]
enum Specs {
    #[output("{0:?} {0} {1:>5}|{1:<4}|{2:.2} {{literal}}")]
    Mixed(String, u32, f64),
    #[output("{n:#x} {n:08b} {n:X} {n:o} {x:e}")]
    Radix { n: u32, x: f64 },
    #[output("[{value:>width$}] [{value:^width$.prec$}]")]
    Counts {
        value: String,
        width: usize,
        prec: usize,
    },
    #[output("nothing to format")]
    Unit,
    // The first field is deliberately never formatted.
    #[allow(dead_code)]
    #[output("only {1}")]
    SkipsFirst(String, String),
}

#[test]
fn format_specs_and_escapes_follow_std_fmt() {
    assert_eq!(
        Specs::Mixed("a\"b".into(), 42, 1.0 / 3.0).into_tool_result(),
        ToolResult::ok(r#""a\"b" a"b    42|42  |0.33 {literal}"#)
    );
    assert_eq!(
        Specs::Radix { n: 255, x: 1500.0 }.into_tool_result(),
        ToolResult::ok("0xff 11111111 FF 377 1.5e3")
    );
}

#[test]
fn widths_and_precisions_can_come_from_fields() {
    let result = Specs::Counts {
        value: "abcdef".into(),
        width: 8,
        prec: 3,
    }
    .into_tool_result();
    assert_eq!(result, ToolResult::ok("[  abcdef] [  abc   ]"));
}

#[test]
fn unit_variants_and_unused_fields() {
    assert_eq!(
        Specs::Unit.into_tool_result(),
        ToolResult::ok("nothing to format")
    );
    assert_eq!(
        Specs::SkipsFirst("a".into(), "b".into()).into_tool_result(),
        ToolResult::ok("only b")
    );
}

/// A tuple struct: widths by position (`1$`), and the zero flag before one (`01$`).
#[derive(ToolOutput)]
#[output("[{0:>1$}] [{2:01$}]")]
struct Padded(&'static str, usize, u32);

#[test]
fn positional_widths_work_on_tuple_structs() {
    assert_eq!(
        Padded("ab", 4, 7).into_tool_result(),
        ToolResult::ok("[  ab] [0007]")
    );
}

/// A struct: `#[output]` sits on the struct itself, and modes combine with field attributes.
#[derive(ToolOutput)]
#[output(error, "{service} failed after {attempts} attempts")]
struct Failure {
    service: String,
    #[metadata]
    attempts: u8,
    #[metadata]
    log: Vec<&'static str>,
    #[part]
    screenshot: Option<ContentPart>,
}

#[test]
fn a_struct_with_error_mode_metadata_and_a_part() {
    let result = Failure {
        service: "api".into(),
        attempts: 3,
        log: vec!["timeout", "refused"],
        screenshot: Some(png()),
    }
    .into_tool_result();
    assert_eq!(
        result,
        ToolResult {
            output: "api failed after 3 attempts".into(),
            is_error: true,
            parts: vec![png()],
            metadata: metadata(json!({"attempts": 3, "log": ["timeout", "refused"]})),
        }
    );
}

#[test]
fn an_absent_optional_part_adds_nothing() {
    let result = Failure {
        service: "db".into(),
        attempts: 1,
        log: vec![],
        screenshot: None,
    }
    .into_tool_result();
    assert_eq!(
        result,
        ToolResult::error("db failed after 1 attempts")
            .with_metadata("attempts", 1)
            .with_metadata("log", json!([]))
    );
}

/// A unit struct and a delegating tuple struct.
#[derive(ToolOutput)]
#[output("ready")]
struct Ready;

#[derive(ToolOutput)]
struct Passthrough(Result<u32, String>);

#[test]
fn unit_and_delegating_structs() {
    assert_eq!(Ready.into_tool_result(), ToolResult::ok("ready"));
    assert_eq!(Passthrough(Ok(7)).into_tool_result(), ToolResult::ok("7"));
    assert_eq!(
        Passthrough(Err("nope".into())).into_tool_result(),
        ToolResult::error("nope")
    );
}

#[derive(ToolOutput)]
enum Parts {
    /// Several `#[part]` fields of different accepted types append in field order.
    #[output("{n} files")]
    Many {
        #[part]
        first: ContentPart,
        n: usize,
        #[part]
        rest: Vec<ContentPart>,
        #[part]
        maybe: Option<ContentPart>,
        #[part]
        more: Option<Vec<ContentPart>>,
    },
    /// A tuple variant may carry a part beside the field it formats.
    #[output("image of {0}")]
    Tuple(String, #[part] ContentPart),
}

#[test]
fn parts_append_in_field_order() {
    let result = Parts::Many {
        first: png(),
        n: 4,
        rest: vec![pdf(), ContentPart::text("note")],
        maybe: None,
        more: Some(vec![png()]),
    }
    .into_tool_result();
    assert_eq!(
        result,
        ToolResult {
            output: "4 files".into(),
            is_error: false,
            parts: vec![png(), pdf(), ContentPart::text("note"), png()],
            metadata: Map::new(),
        }
    );
    assert_eq!(
        Parts::Tuple("a cat".into(), png()).into_tool_result(),
        ToolResult::ok("image of a cat").with_part(png())
    );
}

#[derive(ToolOutput)]
enum Suspend {
    #[output(
        pending,
        kind = "authorization",
        prompt = "Log in to {provider}",
        url = "https://{host}/login?as={user:?}"
    )]
    Login {
        provider: String,
        host: String,
        user: String,
        #[metadata]
        attempt: u32,
    },
    #[output(pending, prompt = "{0}?", kind = "{1}")]
    Ask(String, String),
}

#[test]
fn pending_formats_kind_prompt_and_url_and_keeps_metadata() {
    let result = Suspend::Login {
        provider: "GitHub".into(),
        host: "gh.example".into(),
        user: "ana".into(),
        attempt: 2,
    }
    .into_tool_result();
    let request = result.pending().expect("a suspension");
    let expected = Request::new("authorization", "Log in to GitHub")
        .with_url("https://gh.example/login?as=\"ana\"")
        .with_id(request.id.clone());
    assert_eq!(request, expected);
    assert_eq!(result, pending(expected).with_metadata("attempt", 2));
    assert_eq!(
        result.output,
        "Log in to GitHub\nhttps://gh.example/login?as=\"ana\""
    );

    let result = Suspend::Ask("Which region".into(), "input".into()).into_tool_result();
    let request = result.pending().expect("a suspension");
    assert_eq!(
        (request.kind.as_str(), request.prompt.as_str()),
        ("input", "Which region?")
    );
    assert_eq!(result, pending(request));
}

#[derive(ToolOutput)]
enum Data {
    /// Several named fields: an object keyed by field name, in declaration order.
    #[output(json)]
    Object {
        zeta: u8,
        alpha: Vec<&'static str>,
        #[metadata]
        source: &'static str,
    },
    /// Several tuple fields: an array, as serde writes a tuple.
    #[output(json)]
    Array(u8, &'static str, Option<bool>),
    /// A single named field serializes as itself.
    #[output(json)]
    Single { value: BTreeMap<&'static str, u8> },
    /// A map with non-string keys cannot be JSON.
    #[output(json)]
    Unserializable(BTreeMap<(u8, u8), u8>),
    /// JSON with a part beside it.
    #[output(json)]
    WithPart(Vec<u8>, #[part] ContentPart),
}

#[test]
fn json_of_named_fields_is_an_object_in_field_order() {
    let result = Data::Object {
        zeta: 1,
        alpha: vec!["a"],
        source: "cache",
    }
    .into_tool_result();
    assert_eq!(
        result,
        ToolResult::ok(r#"{"zeta":1,"alpha":["a"]}"#).with_metadata("source", "cache")
    );
}

#[test]
fn json_of_tuple_fields_is_an_array_and_of_one_field_is_the_field() {
    assert_eq!(
        Data::Array(1, "two", None).into_tool_result(),
        ToolResult::ok(r#"[1,"two",null]"#)
    );
    assert_eq!(
        Data::Single {
            value: BTreeMap::from([("b", 2), ("a", 1)])
        }
        .into_tool_result(),
        ToolResult::ok(r#"{"a":1,"b":2}"#)
    );
    assert_eq!(
        Data::WithPart(vec![1, 2], pdf()).into_tool_result(),
        ToolResult::ok("[1,2]").with_part(pdf())
    );
}

#[test]
fn json_that_cannot_serialize_is_an_error_not_a_panic() {
    let result = Data::Unserializable(BTreeMap::from([((1, 2), 3)])).into_tool_result();
    assert_eq!(
        result,
        ToolResult::error("cannot serialize the tool's output: key must be a string")
    );
}

#[derive(ToolOutput)]
#[output("ok")]
struct BadMetadata {
    #[metadata]
    fine: u8,
    #[metadata]
    keyed: BTreeMap<(u8, u8), u8>,
    #[part]
    image: ContentPart,
}

#[test]
fn metadata_that_cannot_serialize_turns_the_result_into_an_error() {
    let result = BadMetadata {
        fine: 1,
        keyed: BTreeMap::from([((1, 2), 3)]),
        image: png(),
    }
    .into_tool_result();
    assert_eq!(
        result,
        ToolResult::error(
            "cannot serialize the `keyed` metadata of the tool's output: key must be a string"
        )
    );
}

#[derive(ToolOutput)]
enum Wrap {
    /// `transparent` lowers the field as itself.
    #[output(transparent)]
    Inner(Result<String, std::io::Error>),
    /// It also works on a named field, beside parts and metadata.
    #[output(transparent)]
    Named {
        result: Option<u32>,
        #[part]
        image: ContentPart,
        #[metadata]
        cached: bool,
    },
    /// A single-field tuple variant without `#[output]` does the same.
    Part(ContentPart),
}

#[test]
fn transparent_and_delegating_variants_lower_their_field() {
    assert_eq!(
        Wrap::Inner(Ok("fine".into())).into_tool_result(),
        ToolResult::ok("fine")
    );
    assert_eq!(
        Wrap::Inner(Err(std::io::Error::other("disk full"))).into_tool_result(),
        ToolResult::error("disk full")
    );
    assert_eq!(
        Wrap::Named {
            result: Some(5),
            image: png(),
            cached: true,
        }
        .into_tool_result(),
        ToolResult::ok("5")
            .with_part(png())
            .with_metadata("cached", true)
    );
    assert_eq!(
        Wrap::Part(pdf()).into_tool_result(),
        ToolResult::ok("file (application/pdf, 4 bytes)").with_part(pdf())
    );
}

/// Generic fields get the bounds their use needs: `Display` for `{0}`, `Debug` for `{0:?}`,
/// `Serialize` for `json` and `#[metadata]`, `IntoToolResult` for delegation.
#[derive(ToolOutput)]
enum Generic<'a, T, U, R>
where
    R: IntoToolResult,
{
    #[output("{0} / {0:?} from {1}")]
    Show(T, &'a str),
    #[output(json)]
    Data {
        items: Vec<U>,
        label: &'a str,
    },
    #[output("tagged")]
    Tagged {
        #[metadata]
        tag: U,
    },
    Inner(R),
}

#[test]
fn generic_enums_bound_only_what_they_use() {
    type G<'a> = Generic<'a, char, u8, Option<String>>;
    assert_eq!(
        G::Show('x', "here").into_tool_result(),
        ToolResult::ok("x / 'x' from here")
    );
    assert_eq!(
        G::Data {
            items: vec![1, 2],
            label: "l"
        }
        .into_tool_result(),
        ToolResult::ok(r#"{"items":[1,2],"label":"l"}"#)
    );
    assert_eq!(
        G::Tagged { tag: 9 }.into_tool_result(),
        ToolResult::ok("tagged").with_metadata("tag", 9)
    );
    assert_eq!(
        G::Inner(Some("in".into())).into_tool_result(),
        ToolResult::ok("in")
    );
}

#[derive(ToolOutput)]
#[output("{label}: {value:?}")]
struct Labelled<T: Debug, L: Display> {
    label: L,
    value: T,
}

#[test]
fn generic_structs_keep_their_own_bounds() {
    let result = Labelled {
        label: "ids",
        value: vec![1, 2],
    }
    .into_tool_result();
    assert_eq!(result, ToolResult::ok("ids: [1, 2]"));
}

/// An enum with no variants still derives (its impl can never run).
#[derive(ToolOutput)]
enum Never {}

#[test]
fn an_empty_enum_derives() {
    fn lowers<T: IntoToolResult>() {}
    lowers::<Never>();
}
