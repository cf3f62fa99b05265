//! `#[tool]` on the signatures people already write: borrowed parameters, explicit
//! lifetimes, parameters named like the fn or like the expansion's own names, defaults given
//! through serde — each run through `Toolkit::execute_json`.

use crate::common;

use std::borrow::Cow;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::json;
use toolnexus::{JsonSchema, ToolContext, ToolResult, Toolkit, tool, toolbox, tools};

use common::Unit;

#[derive(Deserialize, JsonSchema)]
struct Point {
    x: f64,
    y: f64,
}

/// Shouts a text.
#[tool]
fn shout(text: &str, suffix: Option<&str>) -> String {
    format!("{}{}", text.to_uppercase(), suffix.unwrap_or("!"))
}

/// The first word, borrowed from the argument.
#[tool]
#[allow(
    clippy::needless_lifetimes,
    reason = "the explicit lifetime is what is tested"
)]
fn first_word<'a>(text: &'a str) -> &'a str {
    text.split(' ').next().unwrap_or_default()
}

/// Sums numbers.
#[tool]
async fn sum(values: &[f64], ctx: &ToolContext) -> f64 {
    let _ = ctx;
    values.iter().sum()
}

/// Distance between points.
#[tool]
fn distance(point: &Point, origin: Option<&Point>, tags: Option<&[String]>) -> String {
    let (ox, oy) = origin.map_or((0.0, 0.0), |o| (o.x, o.y));
    let d = ((point.x - ox).powi(2) + (point.y - oy).powi(2)).sqrt();
    format!("{d} {}", tags.map_or(0, <[String]>::len))
}

/// Echoes copy-on-write texts.
#[tool]
fn echo(text: Cow<'_, str>, other: Option<Cow<str>>) -> String {
    format!("{text}{}", other.unwrap_or_default())
}

/// Parameters named like the fn.
#[tool]
fn units(unit: Unit, units: Vec<Unit>) -> String {
    format!("{unit:?} {units:?}")
}

/// A parameter named like the fn, the ordinary way.
#[tool]
fn query(query: String) -> String {
    query
}

/// Names the expansion might use for itself.
#[tool]
#[allow(clippy::too_many_arguments)]
fn internal_names(
    args: u8,
    ctx: u8,
    tool: u8,
    value: u8,
    __ctx: u8,
    __args: u8,
    __value: u8,
    __param0: u8,
    deserializer: u8,
    context: &ToolContext,
) -> u32 {
    let _ = context;
    [
        args,
        ctx,
        tool,
        value,
        __ctx,
        __args,
        __value,
        __param0,
        deserializer,
    ]
    .iter()
    .map(|&n| u32::from(n))
    .sum()
}

fn default_limit() -> u32 {
    25
}

/// Defaults given through serde are defaults too: `null` means absent.
#[tool]
fn page(
    #[serde(default)] offset: u32,
    #[serde(default = "default_limit")] limit: u32,
    #[param(default = "asc")] order: &str,
) -> String {
    format!("{offset} {limit} {order}")
}

struct Notes {
    prefix: String,
}

#[toolbox]
impl Notes {
    /// Adds a note.
    #[tool]
    async fn add_note(&self, text: &str, tags: Option<&[String]>) -> String {
        format!(
            "{}{text} {}",
            self.prefix,
            tags.unwrap_or_default().join(",")
        )
    }
}

async fn call(toolkit: &Toolkit, name: &str, args: &str) -> ToolResult {
    toolkit
        .execute_json(name, args, &ToolContext::default())
        .await
}

#[tokio::test]
async fn borrowed_parameters_are_decoded_and_lent() {
    let toolkit = Toolkit::new().with_all(tools![shout, first_word, sum, distance, echo]);
    let cases = [
        ("shout", r#"{"text": "hi"}"#, "HI!"),
        ("shout", r#"{"text": "hi", "suffix": "?"}"#, "HI?"),
        ("shout", r#"{"text": "hi", "suffix": null}"#, "HI!"),
        ("first_word", r#"{"text": "hello there"}"#, "hello"),
        ("sum", r#"{"values": [1.5, 2]}"#, "3.5"),
        ("distance", r#"{"point": {"x": 3, "y": 4}}"#, "5 0"),
        (
            "distance",
            r#"{"point": {"x": 3, "y": 4}, "origin": {"x": 3, "y": 0}, "tags": ["a", "b"]}"#,
            "4 2",
        ),
        ("echo", r#"{"text": "a", "other": "b"}"#, "ab"),
        ("echo", r#"{"text": "a"}"#, "a"),
    ];
    for (name, args, output) in cases {
        assert_eq!(
            call(&toolkit, name, args).await,
            ToolResult::ok(output),
            "{name} {args}"
        );
    }
    let schema = toolkit.get("shout").unwrap().input_schema();
    assert_eq!(schema["properties"]["text"], json!({"type": "string"}));
    assert_eq!(schema["properties"]["suffix"], json!({"type": "string"}));
    assert_eq!(schema["required"], json!(["text"]));
    let bad = call(&toolkit, "sum", r#"{"values": [1, "x"]}"#).await;
    assert_eq!(
        bad.output,
        "invalid arguments for `sum`: field `values[1]`: invalid type: string \"x\", expected f64"
    );
}

#[tokio::test]
async fn any_parameter_name_works() {
    let toolkit = Toolkit::new().with_all(tools![units, query, internal_names]);
    assert_eq!(
        call(
            &toolkit,
            "units",
            r#"{"unit": "celsius", "units": ["fahrenheit"]}"#
        )
        .await
        .output,
        "Celsius [Fahrenheit]"
    );
    assert_eq!(
        call(&toolkit, "query", r#"{"query": "q"}"#).await.output,
        "q"
    );
    let args = r#"{"args": 1, "ctx": 2, "tool": 3, "value": 4, "__ctx": 5, "__args": 6,
        "__value": 7, "__param0": 8, "deserializer": 9}"#;
    assert_eq!(call(&toolkit, "internal_names", args).await.output, "45");
}

#[tokio::test]
async fn serde_defaults_treat_null_as_absent() {
    let toolkit = Toolkit::new().with_all(tools![page]);
    assert_eq!(call(&toolkit, "page", "{}").await.output, "0 25 asc");
    assert_eq!(
        call(
            &toolkit,
            "page",
            r#"{"offset": null, "limit": null, "order": null}"#
        )
        .await
        .output,
        "0 25 asc"
    );
    assert_eq!(
        call(
            &toolkit,
            "page",
            r#"{"offset": 5, "limit": 10, "order": "desc"}"#
        )
        .await
        .output,
        "5 10 desc"
    );
    let schema = toolkit.get("page").unwrap().input_schema();
    assert_eq!(schema["properties"]["offset"]["default"], json!(0));
    assert_eq!(schema["properties"]["limit"]["default"], json!(25));
    assert_eq!(schema["properties"]["order"]["default"], json!("asc"));
    assert!(!schema.contains_key("required"));
}

#[tokio::test]
async fn toolbox_methods_borrow_too() {
    let notes = Arc::new(Notes {
        prefix: "- ".into(),
    });
    let toolkit = Toolkit::new().with_all(notes.tools());
    assert_eq!(
        call(
            &toolkit,
            "add_note",
            r#"{"text": "milk", "tags": ["a", "b"]}"#
        )
        .await
        .output,
        "- milk a,b"
    );
}

fn doubled<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<u32, D::Error> {
    u32::deserialize(deserializer).map(|n| n * 2)
}

/// Echoes a number the parameter's own deserializer doubled.
#[tool]
fn twice(
    // A nested list before `deserialize_with`: it must still be seen as the parameter's own.
    #[serde(rename(deserialize = "m"), deserialize_with = "doubled")]
    #[param(default = 1)]
    n: u32,
) -> u32 {
    n
}

#[tokio::test]
async fn a_parameters_own_deserializer_is_used_whatever_the_attribute_order() {
    let toolkit = Toolkit::new().with_all(tools![twice]);
    assert_eq!(call(&toolkit, "twice", r#"{"m": 4}"#).await.output, "8");
    assert_eq!(call(&toolkit, "twice", "{}").await.output, "1");
}

mod trimmed {
    use serde::Deserialize;

    pub fn deserialize<'de, D: serde::Deserializer<'de>>(
        deserializer: D,
    ) -> Result<String, D::Error> {
        String::deserialize(deserializer).map(|text| text.trim().to_owned())
    }

    // `with` is both ways; schemars writes the schema's `"default"` through it.
    pub fn serialize<S: serde::Serializer>(text: &str, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(text)
    }
}

fn maybe_trimmed<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<String>, D::Error> {
    trimmed::deserialize(deserializer).map(Some)
}

/// Echoes a label and a note, trimmed by their own deserializers.
#[tool]
fn trim(
    // schemars reads serde's `with` as a type; `#[schemars(with)]` names the real one.
    #[serde(with = "trimmed")]
    #[schemars(with = "String")]
    #[param(default = "none")]
    label: String,
    #[serde(deserialize_with = "maybe_trimmed")] note: Option<String>,
) -> String {
    format!("{label}|{note:?}")
}

#[tokio::test]
async fn null_is_absent_for_a_parameter_that_decodes_itself() {
    // The schemas (plain and strict) say `null` may be sent for an optional or defaulted
    // parameter; the user's deserializer, which would refuse it, sees only real values.
    let toolkit = Toolkit::new().with_all(tools![twice, trim]);
    assert_eq!(call(&toolkit, "twice", r#"{"m": null}"#).await.output, "1");
    let cases = [
        (r#"{"label": " a ", "note": " b "}"#, r#"a|Some("b")"#),
        (r#"{"label": null, "note": null}"#, "none|None"),
        ("{}", "none|None"),
    ];
    for (args, output) in cases {
        let result = call(&toolkit, "trim", args).await;
        assert_eq!(
            (result.is_error, result.output.as_str()),
            (false, output),
            "{args}"
        );
    }
    let refused = call(&toolkit, "trim", r#"{"label": 3}"#).await;
    assert!(refused.is_error);
    assert_eq!(
        refused.output,
        "invalid arguments for `trim`: field `label`: invalid type: integer `3`, expected a string"
    );
}

/// Reads the weather of a region.
#[tool]
fn regional(
    /// The region
    #[param(header = "Region")]
    region: &str,
    #[param(header = "Days")] days: Option<u8>,
    #[param(header = "Metric", default = true)] metric: bool,
) -> String {
    format!("{region} {days:?} {metric}")
}

#[tokio::test]
async fn a_header_parameter_is_annotated_for_mcp_and_decodes_as_usual() {
    // MCP's `x-mcp-header` (SEP-2243): the client sends the argument as `Mcp-Param-<name>`
    // too, and the server checks the two agree.
    let toolkit = Toolkit::new().with_all(tools![regional]);
    let schema = toolkit.to_mcp()[0]["inputSchema"].clone();
    assert_eq!(
        schema["properties"],
        json!({
            "region": {"type": "string", "description": "The region", "x-mcp-header": "Region"},
            "days": {"type": "integer", "minimum": 0, "maximum": 255, "x-mcp-header": "Days"},
            "metric": {"type": "boolean", "default": true, "x-mcp-header": "Metric"},
        }),
        "{schema}"
    );
    let result = call(&toolkit, "regional", r#"{"region": "eu", "days": 3}"#).await;
    assert_eq!(result.output, "eu Some(3) true");
}
