//! Cross-port conformance: reproduces the `golden.json` vectors (produced by the published
//! Python port, `toolnexus==0.21.0`) that the runtime contract covers (SPEC §1–§3).

use crate::common;

use std::sync::LazyLock;

use serde_json::{Value, json};
use toolnexus::{
    Request, auth_required, auth_required_with,
    parts::{attach, base64_bytes, describe_part},
    pending, pending_of, sanitize,
};

use common::{block_on, fixture_png};

static GOLDEN: LazyLock<Value> = LazyLock::new(common::golden);

fn golden(name: &str) -> &'static Value {
    GOLDEN
        .get(name)
        .unwrap_or_else(|| panic!("golden.json has no vector `{name}`"))
}

#[test]
fn attach_png() {
    let part = attach(fixture_png().to_string_lossy()).unwrap();
    assert_eq!(serde_json::to_value(&part).unwrap(), *golden("attach_png"));
}

#[test]
fn describe_png() {
    let part = attach(fixture_png().to_string_lossy()).unwrap();
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

/// The §10 loop rule's wording, against `loop_rule.json`: vectors produced by the Python port's
/// own `_resolve_pending` (`scripts/loop-rule-vectors.py`). A refusal reads
/// `declined/expired: <prompt>` whatever its reason; a second suspension reads
/// `unresolved: <prompt>` with the prompt that was answered.
#[test]
fn loop_rule_wording() {
    use toolnexus::{Answer, Reason, ToolContext, ToolResult, Toolkit, define_tool};

    let vectors: Value =
        serde_json::from_str(include_str!("../conformance/loop_rule.json")).unwrap();
    let deploy = |suspend_twice: bool| {
        define_tool(
            "deploy",
            "Deploy",
            json!({"type": "object", "properties": {}}),
        )
        .unwrap()
        .sync(move |_: Value, ctx: &ToolContext| match &ctx.answer {
            None => pending(Request::new("approval", "Deploy to production?")),
            Some(_) if suspend_twice => pending(Request::new("approval", "Really, really deploy?")),
            Some(_) => ToolResult::ok("deployed"),
        })
    };
    let run = |suspend_twice: bool, ok: bool, reason: Option<Reason>| {
        let toolkit = Toolkit::new().with(deploy(suspend_twice));
        let call = toolkit.call("deploy", json!({}), |request: Request| async move {
            Answer {
                id: request.id,
                ok,
                data: None,
                reason,
            }
        });
        let result = block_on(call);
        json!({"output": result.output, "isError": result.is_error})
    };
    let cases = [
        ("refused_declined", false, false, Some(Reason::Declined)),
        ("refused_expired", false, false, Some(Reason::Expired)),
        ("refused_cancelled", false, false, Some(Reason::Cancelled)),
        ("refused_without_reason", false, false, None),
        ("unresolved", true, true, None),
    ];
    assert_eq!(cases.len(), vectors.as_object().unwrap().len());
    for (name, suspend_twice, ok, reason) in cases {
        assert_eq!(run(suspend_twice, ok, reason), vectors[name], "{name}");
    }
}
