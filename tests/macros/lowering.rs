//! Every row of the lowering table (SPEC §4), through `IntoToolResult` directly.

use crate::common;

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::json;
use toolnexus::{
    ContentPart, IntoToolResult, Json, Request, ToolResult,
    parts::{attach, from_bytes},
    pending_of,
};

use common::fixture_png;

fn ok(output: &str) -> ToolResult {
    ToolResult::ok(output)
}

#[test]
fn text_lowers_to_itself() {
    assert_eq!(String::from("hi").into_tool_result(), ok("hi"));
    assert_eq!("hi".into_tool_result(), ok("hi"));
    assert_eq!(Cow::Borrowed("b").into_tool_result(), ok("b"));
    assert_eq!(Cow::<str>::Owned("o".into()).into_tool_result(), ok("o"));
    assert_eq!('λ'.into_tool_result(), ok("λ"));
    assert_eq!(String::new().into_tool_result(), ok(""));
}

#[test]
fn numbers_and_bools_lower_with_to_string() {
    assert_eq!((-5i8).into_tool_result(), ok("-5"));
    assert_eq!(300i16.into_tool_result(), ok("300"));
    assert_eq!(7i32.into_tool_result(), ok("7"));
    assert_eq!(i64::MIN.into_tool_result(), ok("-9223372036854775808"));
    assert_eq!(i128::MAX.into_tool_result(), ok(&i128::MAX.to_string()));
    assert_eq!((-1isize).into_tool_result(), ok("-1"));
    assert_eq!(255u8.into_tool_result(), ok("255"));
    assert_eq!(65535u16.into_tool_result(), ok("65535"));
    assert_eq!(3u32.into_tool_result(), ok("3"));
    assert_eq!(u64::MAX.into_tool_result(), ok("18446744073709551615"));
    assert_eq!(u128::MAX.into_tool_result(), ok(&u128::MAX.to_string()));
    assert_eq!(42usize.into_tool_result(), ok("42"));
    assert_eq!(1.5f64.into_tool_result(), ok("1.5"));
    assert_eq!(0.1f32.into_tool_result(), ok("0.1"));
    assert_eq!(2.0f64.into_tool_result(), ok("2"));
    assert_eq!(f64::NAN.into_tool_result(), ok("NaN"));
    assert_eq!(true.into_tool_result(), ok("true"));
    assert_eq!(false.into_tool_result(), ok("false"));
}

#[test]
fn unit_lowers_to_empty_output() {
    assert_eq!(().into_tool_result(), ok(""));
}

#[derive(Serialize)]
struct Summary {
    city: &'static str,
    temps: Vec<i32>,
    note: Option<&'static str>,
}

#[test]
fn json_lowers_to_compact_json() {
    let summary = Summary {
        city: "Paris",
        temps: vec![12, 14],
        note: None,
    };
    assert_eq!(
        Json(summary).into_tool_result(),
        ok(r#"{"city":"Paris","temps":[12,14],"note":null}"#)
    );
    assert_eq!(Json(vec![1, 2, 3]).into_tool_result(), ok("[1,2,3]"));
    assert_eq!(Json("text").into_tool_result(), ok(r#""text""#));
}

#[test]
fn json_serialization_failure_is_an_error_with_the_serde_message() {
    let mut map = BTreeMap::new();
    map.insert((1u8, 2u8), "pair");
    let serde_message = serde_json::to_string(&map).unwrap_err().to_string();
    let result = Json(map).into_tool_result();
    assert!(result.is_error);
    assert!(
        result.output.contains(&serde_message),
        "{} should contain {serde_message}",
        result.output
    );
    assert!(result.parts.is_empty() && result.metadata.is_empty());
}

#[test]
fn values_lower_to_text_or_compact_json() {
    assert_eq!(json!("plain").into_tool_result(), ok("plain"));
    assert_eq!(json!(42).into_tool_result(), ok("42"));
    assert_eq!(json!(null).into_tool_result(), ok("null"));
    assert_eq!(json!(true).into_tool_result(), ok("true"));
    assert_eq!(json!([1, "a"]).into_tool_result(), ok(r#"[1,"a"]"#));
    assert_eq!(
        json!({"b": 1, "a": {"c": [null]}}).into_tool_result(),
        ok(r#"{"b":1,"a":{"c":[null]}}"#)
    );
}

#[test]
fn tool_results_pass_through_unchanged() {
    let rich = ToolResult::error("nope")
        .with_part(ContentPart::text("detail"))
        .with_metadata("code", 7);
    assert_eq!(rich.clone().into_tool_result(), rich);
}

#[test]
fn content_parts_lower_to_their_description() {
    let png = attach(fixture_png().to_string_lossy()).unwrap();
    let result = png.clone().into_tool_result();
    assert_eq!(result.output, "image (image/png, 82 bytes)");
    assert!(!result.is_error);
    assert_eq!(result.parts, vec![png.clone()]);
    assert!(result.metadata.is_empty());

    let csv = from_bytes(b"a,b", "text/csv");
    let result = vec![png.clone(), csv.clone()].into_tool_result();
    assert_eq!(
        result.output,
        "image (image/png, 82 bytes)\nfile (text/csv, 3 bytes)"
    );
    assert_eq!(result.parts, vec![png, csv]);
    assert!(!result.is_error);

    assert_eq!(Vec::<ContentPart>::new().into_tool_result(), ok(""));
}

#[test]
fn requests_lower_to_a_suspension() {
    let request = Request::new("approval", "Ship it?").with_url("https://ci/approve");
    let result = request.clone().into_tool_result();
    assert!(result.is_error);
    assert!(result.is_pending());
    assert_eq!(result.output, "Ship it?\nhttps://ci/approve");
    assert!(result.parts.is_empty());
    assert_eq!(result.metadata.len(), 1);
    assert_eq!(
        result.metadata["pending"],
        serde_json::to_value(&request).unwrap()
    );
    assert_eq!(pending_of(&result), Some(request));
}

#[test]
fn options_lower_none_to_empty_and_some_to_the_value() {
    assert_eq!(None::<String>.into_tool_result(), ok(""));
    assert_eq!(Some(5u8).into_tool_result(), ok("5"));
    assert_eq!(Some(Json([1])).into_tool_result(), ok("[1]"));
    assert!(
        Some(Request::new("input", "?"))
            .into_tool_result()
            .is_pending()
    );
    assert_eq!(None::<Request>.into_tool_result(), ok(""));
}

#[derive(Debug, thiserror::Error)]
enum WeatherError {
    #[error("no such city: {0}")]
    UnknownCity(String),
    #[error("weather service unavailable")]
    Unavailable(#[source] std::io::Error),
}

#[test]
fn results_lower_ok_and_err() {
    assert_eq!(Ok::<_, String>(3).into_tool_result(), ok("3"));
    assert_eq!(
        Ok::<_, std::io::Error>(Json(vec!["a"])).into_tool_result(),
        ok(r#"["a"]"#)
    );

    let io = Err::<(), _>(std::io::Error::new(
        std::io::ErrorKind::NotFound,
        "config.toml not found",
    ));
    assert_eq!(
        io.into_tool_result(),
        ToolResult::error("config.toml not found")
    );

    let anyhow = Err::<String, _>(anyhow::anyhow!("file missing").context("reading config"));
    assert_eq!(
        anyhow.into_tool_result(),
        ToolResult::error("reading config: file missing")
    );

    let boxed: Result<u8, Box<dyn std::error::Error>> = Err("boxed failure".into());
    assert_eq!(boxed.into_tool_result(), ToolResult::error("boxed failure"));
    let boxed: Result<u8, Box<dyn std::error::Error + Send + Sync>> = Err("sendable".into());
    assert_eq!(boxed.into_tool_result(), ToolResult::error("sendable"));

    let text = Err::<u8, _>(String::from("plain string error"));
    assert_eq!(
        text.into_tool_result(),
        ToolResult::error("plain string error")
    );

    let typed = Err::<u8, _>(WeatherError::UnknownCity("Atlantis".into()));
    assert_eq!(
        typed.into_tool_result(),
        ToolResult::error("no such city: Atlantis")
    );
    let typed = Err::<u8, _>(WeatherError::Unavailable(std::io::Error::other("timeout")));
    assert_eq!(
        typed.into_tool_result(),
        ToolResult::error("weather service unavailable")
    );

    // A content part error lowers like any other error.
    let missing = attach("/definitely/not/here.png").into_tool_result();
    assert!(missing.is_error);
    assert!(missing.output.contains("/definitely/not/here.png"));
}

#[test]
fn err_tool_result_passes_through_and_err_request_suspends() {
    let custom = ToolResult::error("quota exceeded").with_metadata("retry_after", 30);
    assert_eq!(Err::<String, _>(custom.clone()).into_tool_result(), custom);
    // Unchanged means unchanged, even a non-error result.
    let odd = ToolResult::ok("fine after all");
    assert_eq!(Err::<String, _>(odd.clone()).into_tool_result(), odd);

    let request = Request::new("approval", "Approve?");
    let result = Err::<String, _>(request.clone()).into_tool_result();
    assert!(result.is_error && result.is_pending());
    assert_eq!(pending_of(&result), Some(request));
}

#[test]
fn nested_options_and_results_compose() {
    let value: Result<Option<Vec<ContentPart>>, anyhow::Error> =
        Ok(Some(vec![ContentPart::text("a"), ContentPart::text("b")]));
    let result = value.into_tool_result();
    assert_eq!(result.output, "a\nb");
    assert_eq!(result.parts.len(), 2);

    let value: Option<Result<u8, String>> = Some(Err("inner".into()));
    assert_eq!(value.into_tool_result(), ToolResult::error("inner"));
}
