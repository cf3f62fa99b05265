//! Cross-port conformance: reproduces the `golden.json` vectors (produced by the published
//! Python port, `toolnexus==0.21.0`) that the runtime contract covers (SPEC §1–§3).

use std::path::PathBuf;
use std::sync::LazyLock;

use serde_json::{Value, json};
use toolnexus::{
    Request, attach, auth_required, auth_required_with, base64_bytes, describe_part, pending,
    pending_of, sanitize,
};

static GOLDEN: LazyLock<Value> = LazyLock::new(|| {
    let path = root().join("tests/conformance/golden.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()));
    serde_json::from_str(&text).expect("golden.json is JSON")
});

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn golden(name: &str) -> &'static Value {
    GOLDEN
        .get(name)
        .unwrap_or_else(|| panic!("golden.json has no vector `{name}`"))
}

fn fixture_png() -> String {
    root()
        .join("examples/media/fixture.png")
        .to_string_lossy()
        .into_owned()
}

#[test]
fn attach_png() {
    let part = attach(fixture_png()).unwrap();
    assert_eq!(serde_json::to_value(&part).unwrap(), *golden("attach_png"));
}

#[test]
fn describe_png() {
    let part = attach(fixture_png()).unwrap();
    assert_eq!(json!(describe_part(&part)), *golden("describe_png"));
}

#[test]
fn describe_url_img() {
    let part = attach("https://example.com/chart.png").unwrap();
    assert_eq!(json!(describe_part(&part)), *golden("describe_url_img"));
}

#[test]
fn base64_bytes_pairs() {
    let pairs = golden("base64_bytes").as_array().unwrap();
    assert!(!pairs.is_empty());
    for pair in pairs {
        let b64 = pair[0].as_str().unwrap();
        let expected = pair[1].as_u64().unwrap();
        assert_eq!(base64_bytes(b64) as u64, expected, "base64_bytes({b64:?})");
    }
}

#[test]
fn pending_input_output() {
    let result = pending(Request::new("input", "Which environment?"));
    assert_eq!(json!(result.output), *golden("pending_input_output"));
}

#[test]
fn auth_required_vector() {
    let expected = golden("auth_required");
    let url = expected["url"].as_str().unwrap();
    let result = auth_required(url);
    let request = pending_of(&result).expect("auth_required suspends");
    let actual = json!({
        "kind": request.kind,
        "output": result.output,
        "prompt": request.prompt,
        "url": request.url,
    });
    assert_eq!(actual, *expected);
}

#[test]
fn auth_required_custom_output() {
    let result = auth_required_with("https://x.com/login", "Log in to view your balance");
    assert_eq!(json!(result.output), *golden("auth_required_custom_output"));
}

#[test]
fn sanitize_pairs() {
    let pairs = golden("sanitize").as_array().unwrap();
    assert!(!pairs.is_empty());
    for pair in pairs {
        let name = pair[0].as_str().unwrap();
        assert_eq!(json!(sanitize(name)), pair[1], "sanitize({name:?})");
    }
}
