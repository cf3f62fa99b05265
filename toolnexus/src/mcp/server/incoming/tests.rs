//! What the screen refuses, what it rewrites, and what it hands on as it is.
use crate::mcp::server::incoming::*;

fn refused(text: &str) -> Value {
    match screen(text.as_bytes(), None) {
        Screened::Refused(error) => error,
        other => panic!("{text}: {other:?}"),
    }
}

#[test]
fn unreadable_messages_get_the_json_rpc_error_that_says_why() {
    for (text, code, id) in [
        ("{", PARSE_ERROR, Value::Null),
        ("not json", PARSE_ERROR, Value::Null),
        ("[1, 2]", INVALID_REQUEST, Value::Null),
        (
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#,
            INVALID_REQUEST,
            Value::Null,
        ),
        (
            r#"{"jsonrpc":"1.0","id":7,"method":"ping"}"#,
            INVALID_REQUEST,
            json!(7),
        ),
        (r#"{"id":"a","method":"ping"}"#, INVALID_REQUEST, json!("a")),
        (
            r#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#,
            INVALID_REQUEST,
            Value::Null,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":5}"#,
            INVALID_REQUEST,
            json!(1),
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#,
            INVALID_PARAMS,
            json!(1),
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}"#,
            INVALID_PARAMS,
            json!(1),
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":3}}"#,
            INVALID_PARAMS,
            json!(1),
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"a":1},"_meta":{"io.toolnexus\/arguments":"{\"a\":100}"}}}"#,
            INVALID_PARAMS,
            json!(1),
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","requestState":{}}}"#,
            INVALID_PARAMS,
            json!(1),
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","inputResponses":[]}}"#,
            INVALID_PARAMS,
            json!(1),
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","inputResponses":null}}"#,
            INVALID_PARAMS,
            json!(1),
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","inputResponses":{"q":5}}}"#,
            INVALID_PARAMS,
            json!(1),
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":[]}"#,
            INVALID_PARAMS,
            json!(1),
        ),
        (
            r#"{"jsonrpc":"2.0","id":"t","method":"tools/list","params":"all"}"#,
            INVALID_REQUEST,
            json!("t"),
        ),
    ] {
        let error = refused(text);
        assert_eq!(error["error"]["code"], code, "{text}: {error}");
        assert_eq!(error["id"], id, "{text}: {error}");
    }
}

#[test]
fn arguments_execute_json_would_refuse_travel_as_their_text() {
    for arguments in [r#"[1,2]"#, r#""x""#, "5", r#"{"a":1,"a":100,"b":1}"#] {
        let text = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"t","arguments":{arguments}}}}}"#
        );
        let Screened::Rewritten(head, rewritten) = screen(text.as_bytes(), None) else {
            panic!("{text}");
        };
        assert_eq!(head.id, Some(json!(1)));
        let mut request: rmcp::model::CallToolRequestParams = serde_json::from_value(
            serde_json::from_slice::<Value>(&rewritten).unwrap()["params"].clone(),
        )
        .unwrap();
        match Arguments::take(&mut request, &mut Default::default()) {
            Arguments::Text(sent) => assert_eq!(sent, arguments),
            Arguments::Object(read) => panic!("{arguments} read as {read}"),
        }
    }
    let fine = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"a":1}}}"#;
    assert!(matches!(screen(fine.as_bytes(), None), Screened::Pass(_)));
}

#[test]
fn arguments_nested_past_the_limit_are_refused_as_too_deep() {
    let deep = format!("{}1{}", r#"{"a":"#.repeat(200), "}".repeat(200));
    let text = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"t","arguments":{deep}}}}}"#
    );
    let Screened::Rewritten(_, rewritten) = screen(text.as_bytes(), None) else {
        panic!("{text}");
    };
    let rewritten = String::from_utf8(rewritten).unwrap();
    assert!(
        rewritten.contains(&serde_json::to_string(&deep).unwrap()),
        "{rewritten}"
    );
    let too_deep = parse_args_strictly("t", &deep).unwrap_err();
    assert!(
        too_deep.output.contains("nested more than"),
        "{}",
        too_deep.output
    );
}

#[test]
fn a_long_message_is_quoted_in_part() {
    let long = "x".repeat(1000);
    let cut = quoted(&long);
    assert!(
        cut.len() < 300 && cut.ends_with("(1000 characters in all)"),
        "{cut}"
    );
    assert_eq!(quoted("short"), "short");
}

#[test]
fn a_request_its_header_says_is_of_2026_is_never_routed_as_a_core_task() {
    for text in [
        r#"{"jsonrpc":"2.0","id":1,"method":"tasks/get"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tasks/cancel","params":{"taskId":"t"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","task":{}}}"#,
    ] {
        let Screened::Pass(head) = screen(text.as_bytes(), Some("2026-07-28")) else {
            panic!("{text}");
        };
        assert!(!head.method.unwrap().starts_with(CORE_TASKS), "{text}");
        // Without the header, the body alone says nothing of 2026-07-28: an older session's.
        let Screened::Rewritten(head, _) = screen(text.as_bytes(), Some("2025-11-25")) else {
            panic!("{text}");
        };
        assert!(head.method.unwrap().starts_with(CORE_TASKS), "{text}");
    }
}
