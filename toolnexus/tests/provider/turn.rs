//! The whole turn (SPEC §8B): `tool_calls` reads each API's response body, `tool_results`
//! writes each API's answer. Hand-picked edges here; the providers' SDK-checked vectors in
//! `turn_vectors.rs`.

use proptest::prelude::*;
use serde_json::{Value, json};
use toolnexus::parts::{Media, Source, from_bytes};
use toolnexus::{Api, ContentPart, ToolCall, ToolResult, tool_calls, tool_results};

fn call(id: &str, name: &str, arguments: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: arguments.into(),
    }
}

/// A response body holding `calls` in `api`'s shape, among items that are not tool calls.
fn body(api: Api, calls: &[ToolCall]) -> Value {
    let args = |call: &ToolCall| -> Value { serde_json::from_str(&call.arguments).unwrap() };
    match api {
        Api::OpenAiChat => json!({"choices": [{"index": 0, "message": {"role": "assistant",
            "content": null, "tool_calls": calls.iter().map(|c| json!({"id": c.id, "type": "function",
            "function": {"name": c.name, "arguments": c.arguments}})).collect::<Vec<_>>()}}]}),
        Api::OpenAiResponses => {
            let mut output = vec![json!({"type": "reasoning", "id": "rs_1", "summary": []})];
            output.extend(calls.iter().map(|c| {
                json!({"type": "function_call", "id": "fc_x",
                "call_id": c.id, "name": c.name, "arguments": c.arguments, "status": "completed"})
            }));
            json!({"output": output})
        }
        Api::Anthropic => {
            let mut content = vec![json!({"type": "text", "text": "Let me look."})];
            content.extend(calls.iter().map(|c| {
                json!({"type": "tool_use", "id": c.id,
                "name": c.name, "input": args(c)})
            }));
            json!({"content": content, "stop_reason": "tool_use"})
        }
        Api::Gemini => {
            let mut parts = vec![json!({"text": "Let me look."})];
            parts.extend(calls.iter().map(|c| {
                json!({"functionCall": {"id": c.id,
                "name": c.name, "args": args(c)}})
            }));
            json!({"candidates": [{"content": {"role": "model", "parts": parts}}]})
        }
    }
}

/// Any JSON value, objects keyed by the four APIs' own field names and strings drawn from
/// their own type tags, so the reading gets past the first level.
fn shaped_json() -> impl Strategy<Value = Value> {
    const KEYS: &[&str] = &[
        "choices",
        "message",
        "tool_calls",
        "function",
        "name",
        "arguments",
        "id",
        "type",
        "output",
        "call_id",
        "content",
        "input",
        "candidates",
        "parts",
        "functionCall",
        "args",
        "promptFeedback",
    ];
    const TAGS: &[&str] = &["function", "function_call", "tool_use", "text", "{}", ""];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        prop::sample::select(TAGS).prop_map(Value::from),
        ".{0,8}".prop_map(Value::String),
    ];
    leaf.prop_recursive(6, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(KEYS), inner), 0..6).prop_map(|entries| {
                Value::Object(
                    entries
                        .into_iter()
                        .map(|(key, value)| (key.to_owned(), value))
                        .collect(),
                )
            }),
        ]
    })
}

fn api() -> impl Strategy<Value = Api> {
    prop::sample::select(Api::ALL.to_vec())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    /// Whatever the body, `tool_calls` answers without panicking; an error names its API.
    #[test]
    fn any_body_gives_calls_or_an_error_naming_the_api(api in api(), body in shaped_json()) {
        if let Err(error) = tool_calls(api, &body) {
            prop_assert_eq!(error.api(), api);
            prop_assert!(error.to_string().starts_with(&format!("{api} response: ")), "{}", error);
        }
    }

    /// Calls put in an API's shape come back as they went in, in order.
    #[test]
    fn calls_in_each_shape_read_back(
        api in api(),
        calls in prop::collection::vec(("[a-z0-9_]{1,12}", "[a-z_]{1,12}", any::<u8>()), 0..6),
    ) {
        let calls: Vec<ToolCall> = calls
            .iter()
            .map(|(id, name, n)| call(id, name, &json!({"n": n, "s": id}).to_string()))
            .collect();
        prop_assert_eq!(tool_calls(api, &body(api, &calls)).unwrap(), calls);
    }

    /// Every API answers each call once, whatever the results hold.
    #[test]
    fn results_answer_every_call(api in api(), outputs in prop::collection::vec((".{0,12}", any::<bool>()), 1..5)) {
        let calls: Vec<ToolCall> = (0..outputs.len()).map(|i| call(&format!("id{i}"), "t", "{}")).collect();
        let results: Vec<ToolResult> = outputs.iter().map(|(text, is_error)| {
            if *is_error { ToolResult::error(text.clone()) } else { ToolResult::ok(text.clone()) }
        }).collect();
        let answer = tool_results(api, &calls, &results);
        let answered = match api {
            Api::OpenAiChat | Api::OpenAiResponses => answer.len(),
            Api::Anthropic => answer[0]["content"].as_array().unwrap().len(),
            Api::Gemini => answer[0]["parts"].as_array().unwrap().len(),
        };
        prop_assert_eq!(answered, calls.len());
    }
}

#[test]
fn no_tool_calls_is_an_empty_list() {
    for api in Api::ALL {
        assert_eq!(tool_calls(api, &body(api, &[])).unwrap(), [], "{api}");
    }
    let answered = json!({"choices": [{"message": {"role": "assistant", "content": "Done."}}]});
    assert_eq!(tool_calls(Api::OpenAiChat, &answered).unwrap(), []);
    let blocked = json!({"promptFeedback": {"blockReason": "SAFETY"}});
    assert_eq!(tool_calls(Api::Gemini, &blocked).unwrap(), []);
    let stopped = json!({"candidates": [{"finishReason": "SAFETY"}]});
    assert_eq!(tool_calls(Api::Gemini, &stopped).unwrap(), []);
}

#[test]
fn gemini_calls_without_ids_get_their_index() {
    let reply = json!({"candidates": [{"content": {"role": "model", "parts": [
        {"text": "Both at once."},
        {"functionCall": {"name": "weather", "args": {"city": "Oslo"}}},
        {"functionCall": {"name": "clock"}},
    ]}}]});
    let calls = tool_calls(Api::Gemini, &reply).unwrap();
    assert_eq!(
        calls,
        [
            call("call_0", "weather", r#"{"city":"Oslo"}"#),
            call("call_1", "clock", "{}")
        ]
    );
    // The same body reads the same ids every time, and they are not sent back.
    assert_eq!(tool_calls(Api::Gemini, &reply).unwrap(), calls);
    let answer = tool_results(
        Api::Gemini,
        &calls,
        &[ToolResult::ok("4°C"), ToolResult::ok("noon")],
    );
    assert_eq!(
        answer,
        [json!({"role": "user", "parts": [
            {"functionResponse": {"name": "weather", "response": {"output": "4°C"}}},
            {"functionResponse": {"name": "clock", "response": {"output": "noon"}}},
        ]})]
    );
}

/// OpenAI's arguments text is kept as sent, even when it is not JSON (the tool then answers
/// `invalid arguments`); an object, as some compatible servers send, is serialized; none is
/// empty text, which `execute_json` reads as `{}`.
#[test]
fn openai_arguments_as_text_as_an_object_or_absent() {
    let reply = json!({"choices": [{"message": {"tool_calls": [
        {"id": "a", "type": "function", "function": {"name": "t", "arguments": "{\"x\":"}},
        {"id": "b", "type": "function", "function": {"name": "t", "arguments": {"x": 1}}},
        {"id": "c", "function": {"name": "t"}},
        {"id": "d", "type": "custom", "custom": {"name": "grammar", "input": "x"}},
    ]}}]});
    assert_eq!(
        tool_calls(Api::OpenAiChat, &reply).unwrap(),
        [
            call("a", "t", "{\"x\":"),
            call("b", "t", r#"{"x":1}"#),
            call("c", "t", "")
        ]
    );
}

#[test]
fn a_body_of_the_wrong_shape_names_the_api_and_the_path() {
    let cases = [
        (
            Api::OpenAiChat,
            json!([]),
            "",
            "OpenAI Chat Completions response: the body should be an object, found an array",
        ),
        (
            Api::OpenAiChat,
            json!({"choices": []}),
            "choices[0]",
            "OpenAI Chat Completions response: `choices[0]` should be an object, found nothing",
        ),
        (
            Api::OpenAiChat,
            json!({"choices": [{"message": {"tool_calls": [{"id": 1, "function": {"name": "t"}}]}}]}),
            "choices[0].message.tool_calls[0].id",
            "OpenAI Chat Completions response: `choices[0].message.tool_calls[0].id` should be a string, found a number",
        ),
        (
            Api::OpenAiResponses,
            json!({"id": "resp_1"}),
            "output",
            "OpenAI Responses response: `output` should be an array, found nothing",
        ),
        (
            Api::OpenAiResponses,
            json!({"output": [{"type": "function_call", "name": "t", "arguments": "{}"}]}),
            "output[0].call_id",
            "OpenAI Responses response: `output[0].call_id` should be a string, found nothing",
        ),
        (
            Api::Anthropic,
            json!({"content": [{"type": "tool_use", "id": "x", "name": "t", "input": "{}"}]}),
            "content[0].input",
            "Anthropic Messages response: `content[0].input` should be an object, found a string",
        ),
        (
            Api::Anthropic,
            json!({"content": [{"text": "no type"}]}),
            "content[0].type",
            "Anthropic Messages response: `content[0].type` should be a string, found nothing",
        ),
        (
            Api::Gemini,
            json!({"choices": []}),
            "candidates",
            "Gemini response: `candidates` should be an array, found nothing",
        ),
        (
            Api::Gemini,
            json!({"candidates": [{"content": {"parts": [{"functionCall": {"name": "t", "args": [1]}}]}}]}),
            "candidates[0].content.parts[0].functionCall.args",
            "Gemini response: `candidates[0].content.parts[0].functionCall.args` should be an object, found an array",
        ),
    ];
    for (api, body, path, message) in cases {
        let error = tool_calls(api, &body).unwrap_err();
        assert_eq!((error.api(), error.path()), (api, path), "{body}");
        assert_eq!(error.to_string(), message);
    }
}

fn image_result() -> ToolResult {
    ToolResult::ok("chart").with_part(from_bytes(b"\x89PNG", "image/png"))
}

fn audio() -> ContentPart {
    from_bytes(&[0; 10], "audio/wav")
}

#[test]
fn chat_and_anthropic_answer_as_their_existing_encoders_do() {
    let calls = [call("c1", "plot", "{}"), call("c2", "add", "{}")];
    let results = [image_result(), ToolResult::error("no")];
    let (plot, add) = (
        results[0].to_openai_messages("c1", "plot"),
        results[1].to_openai_messages("c2", "add"),
    );
    // Every tool message first, then the one user message carrying the parts.
    assert_eq!(
        tool_results(Api::OpenAiChat, &calls, &results),
        [plot[0].clone(), add[0].clone(), plot[1].clone()]
    );
    assert_eq!(
        tool_results(Api::Anthropic, &calls, &results),
        [json!({"role": "user", "content": [
            results[0].to_anthropic_block("c1"),
            results[1].to_anthropic_block("c2"),
        ]})]
    );
    for api in Api::ALL {
        assert_eq!(tool_results(api, &[], &[]), Vec::<Value>::new(), "{api}");
    }
}

#[test]
fn responses_outputs_carry_parts_as_input_items() {
    let pdf = ContentPart::File(Media {
        mime_type: "application/pdf".into(),
        source: Source::Url("https://example.com/r.pdf".into()),
        name: None,
    });
    let rich = ToolResult::ok("chart")
        .with_part(from_bytes(b"\x89PNG", "image/png"))
        .with_part(ContentPart::text("a caption"))
        .with_part(pdf)
        .with_part(audio());
    let answer = tool_results(
        Api::OpenAiResponses,
        &[call("c1", "plot", "{}"), call("c2", "add", "{}")],
        &[rich, ToolResult::error("bad")],
    );
    assert_eq!(
        answer,
        [
            json!({"type": "function_call_output", "call_id": "c1", "output": [
                {"type": "input_text", "text": "chart"},
                {"type": "input_image", "image_url": "data:image/png;base64,iVBORw=="},
                {"type": "input_text", "text": "a caption"},
                {"type": "input_file", "file_url": "https://example.com/r.pdf"},
                {"type": "input_text", "text": "[unsupported audio part (audio/wav, 10 bytes)]"},
            ]}),
            json!({"type": "function_call_output", "call_id": "c2", "output": "bad"}),
        ]
    );
}

#[test]
fn gemini_inlines_the_media_it_takes_and_writes_the_rest_as_text() {
    let rich = image_result()
        .with_part(ContentPart::text("a caption"))
        .with_part(audio())
        .with_part(from_bytes(b"GIF89a", "image/gif"));
    let answer = tool_results(Api::Gemini, &[call("fc_7", "plot", "{}")], &[rich]);
    assert_eq!(
        answer,
        [json!({"role": "user", "parts": [{"functionResponse": {
            "name": "plot",
            "id": "fc_7",
            "response": {"output": "chart\na caption\n[unsupported audio part (audio/wav, 10 bytes)]\n[unsupported image part (image/gif, 6 bytes)]"},
            "parts": [{"inlineData": {"mimeType": "image/png", "data": "iVBORw=="}}],
        }}]})]
    );
}

#[test]
#[should_panic(expected = "tool_results needs one result per call: 2 calls, 1 results")]
fn a_call_without_a_result_is_a_bug_in_the_caller() {
    let _ = tool_results(
        Api::Anthropic,
        &[call("a", "t", "{}"), call("b", "t", "{}")],
        &[ToolResult::ok("one")],
    );
}
