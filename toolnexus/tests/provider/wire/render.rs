//! Transcripts rendered as each API's request body: system messages, user parts, tool results
//! through `tool_results`, what a reply asked to be echoed sent back verbatim on the next
//! turn, and histories from one API sent to another with every result after its call.

use proptest::prelude::*;
use serde_json::{Value, json};
use toolnexus::client::{Message, ToolReturn, read_reply, request_body};
use toolnexus::parts::from_bytes;
use toolnexus::{Api, ToolCall, ToolResult, tool_results};

use super::history::{check_pairing, conversation};
use super::replies::{Script, script};

fn call(id: &str, name: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: r#"{"city":"Paris"}"#.into(),
    }
}

#[test]
fn system_messages_go_where_each_api_takes_them() {
    let messages = [
        Message::system("Be brief."),
        Message::user("Hi"),
        Message::system("Summary: none."),
    ];
    let body = |api| request_body(api, "m", &messages, &Value::Null, false);
    assert_eq!(
        body(Api::OpenAiChat)["messages"],
        json!([
            {"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"},
            {"role": "system", "content": "Summary: none."},
        ])
    );
    let responses = body(Api::OpenAiResponses);
    assert_eq!(responses["instructions"], "Be brief.");
    assert_eq!(
        responses["input"],
        json!([{"role": "user", "content": "Hi"}, {"role": "system", "content": "Summary: none."}])
    );
    assert_eq!(
        body(Api::Anthropic)["system"],
        "Be brief.\n\nSummary: none."
    );
    let gemini = body(Api::Gemini);
    assert_eq!(
        gemini,
        json!({
            "systemInstruction": {"parts": [{"text": "Be brief.\n\nSummary: none."}]},
            "contents": [{"role": "user", "parts": [{"text": "Hi"}]}],
        })
    );
}

#[test]
fn tools_and_the_stream_flag_are_added_as_each_api_wants() {
    let messages = [Message::user("Hi")];
    let tools = json!([{"type": "function", "function": {"name": "add"}}]);
    let chat = request_body(Api::OpenAiChat, "gpt-4.1", &messages, &tools, true);
    assert_eq!(chat["tools"], tools);
    assert_eq!(
        (&chat["stream"], &chat["stream_options"]),
        (&json!(true), &json!({"include_usage": true}))
    );
    for api in [Api::OpenAiResponses, Api::Anthropic] {
        let body = request_body(api, "m", &messages, &json!([]), true);
        assert_eq!(
            (
                &body["stream"],
                body.get("tools"),
                body.get("stream_options")
            ),
            (&json!(true), None, None)
        );
        assert_eq!(body["model"], "m");
    }
    let gemini = request_body(
        Api::Gemini,
        "gemini-2.5-flash",
        &messages,
        &json!([{"functionDeclarations": []}]),
        true,
    );
    assert_eq!((gemini.get("stream"), gemini.get("model")), (None, None));
    // An empty toolkit's Gemini definitions declare nothing: no `tools` at all.
    assert_eq!(gemini.get("tools"), None);
    let declared = json!([{"functionDeclarations": [{"name": "add"}]}]);
    let gemini = request_body(Api::Gemini, "gemini-2.5-flash", &messages, &declared, false);
    assert_eq!(gemini["tools"], declared);
    assert_eq!(
        request_body(Api::Anthropic, "m", &messages, &Value::Null, false)["max_tokens"],
        4096
    );
}

#[test]
fn user_parts_reach_each_api_as_its_parts_or_their_placeholder() {
    let messages = [Message::User {
        text: "Look".into(),
        parts: vec![
            from_bytes(b"\x89PNG", "image/png"),
            from_bytes(b"ID3", "audio/mpeg"),
        ],
    }];
    let content = |api| {
        let body = request_body(api, "m", &messages, &Value::Null, false);
        match api {
            Api::OpenAiResponses => body["input"][0]["content"].clone(),
            Api::Gemini => body["contents"][0]["parts"].clone(),
            _ => body["messages"][0]["content"].clone(),
        }
    };
    let placeholder = "[unsupported audio part (audio/mpeg, 3 bytes)]";
    assert_eq!(
        content(Api::OpenAiChat),
        json!([
            {"type": "text", "text": "Look"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw=="}},
            {"type": "input_audio", "input_audio": {"data": "SUQz", "format": "mp3"}},
        ])
    );
    assert_eq!(
        content(Api::OpenAiResponses),
        json!([
            {"type": "input_text", "text": "Look"},
            {"type": "input_image", "image_url": "data:image/png;base64,iVBORw==", "detail": "auto"},
            {"type": "input_text", "text": placeholder},
        ])
    );
    assert_eq!(
        content(Api::Anthropic),
        json!([
            {"type": "text", "text": "Look"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw=="}},
            {"type": "text", "text": placeholder},
        ])
    );
    assert_eq!(
        content(Api::Gemini),
        json!([
            {"text": "Look"}, {"inlineData": {"mimeType": "image/png", "data": "iVBORw=="}}, {"text": placeholder},
        ])
    );
}

#[test]
fn tool_results_are_what_tool_results_writes() {
    let calls = [call("call_1", "get_weather"), call("call_2", "plot")];
    let outputs = [
        ToolResult::error("down"),
        ToolResult::ok("chart").with_part(from_bytes(b"\x89PNG", "image/png")),
    ];
    let messages = [
        Message::user("Go"),
        Message::Assistant {
            text: String::new(),
            tool_calls: calls.to_vec(),
            echo: None,
        },
        Message::Tool {
            results: calls
                .iter()
                .zip(&outputs)
                .map(|(c, r)| ToolReturn {
                    call_id: c.id.clone(),
                    name: c.name.clone(),
                    result: r.clone(),
                })
                .collect(),
        },
    ];
    for api in Api::ALL {
        let body = request_body(api, "m", &messages, &Value::Null, false);
        let list = match api {
            Api::OpenAiResponses => &body["input"],
            Api::Gemini => &body["contents"],
            _ => &body["messages"],
        };
        let list = list.as_array().unwrap();
        let expected = tool_results(api, &calls, &outputs);
        assert_eq!(list[list.len() - expected.len()..], expected[..], "{api}");
        assert_eq!(check_pairing(api, &body), 2, "{api}");
    }
}

#[test]
fn an_assistant_message_with_neither_text_nor_calls_is_left_out() {
    let messages = [
        Message::user("Hi"),
        Message::Assistant {
            text: String::new(),
            tool_calls: vec![],
            echo: None,
        },
    ];
    for api in Api::ALL {
        let body = request_body(api, "m", &messages, &Value::Null, false);
        let list = body
            .get("messages")
            .or(body.get("input"))
            .or(body.get("contents"))
            .unwrap();
        assert_eq!(list.as_array().unwrap().len(), 1, "{api}");
    }
}

/// A reply with reasoning, as each API sends it, read into the transcript and sent back.
#[test]
fn what_a_reply_asks_to_be_echoed_is_sent_back_verbatim_on_the_next_turn() {
    let script = Script {
        text: "Checking both.".into(),
        calls: vec![
            ("get_weather".into(), json!({"city": "Paris"})),
            ("add".into(), json!({"a": 2, "b": 2})),
        ],
        input_tokens: 10,
        output_tokens: 20,
        thinking: Some((
            "The user wants two things.".into(),
            "EqQBCkgIARABGAIiQA==".into(),
        )),
        cuts: vec![],
        interleave: vec![],
        tag: 7,
    };
    for api in [Api::OpenAiResponses, Api::Anthropic, Api::Gemini] {
        let messages = conversation(&[(api, script.clone())]);
        let body = request_body(api, "m", &messages, &Value::Null, false);
        let whole = script.whole(api);
        match api {
            Api::OpenAiResponses => {
                let input = body["input"].as_array().unwrap();
                let output = whole["output"].as_array().unwrap();
                let start = input
                    .iter()
                    .position(|item| item["type"] == "reasoning")
                    .unwrap();
                assert_eq!(input[start..start + output.len()], output[..]);
                assert_eq!(input[start]["encrypted_content"], "EqQBCkgIARABGAIiQA==");
                assert!(
                    input[start + 1..]
                        .iter()
                        .any(|item| item["type"] == "function_call")
                );
            }
            Api::Anthropic => {
                let replayed = &body["messages"][1];
                assert_eq!(
                    replayed,
                    &json!({"role": "assistant", "content": whole["content"]})
                );
                assert_eq!(
                    replayed["content"][0],
                    json!({"type": "thinking", "thinking": "The user wants two things.", "signature": "EqQBCkgIARABGAIiQA=="})
                );
            }
            Api::Gemini => {
                let replayed = &body["contents"][1];
                assert_eq!(
                    replayed["parts"],
                    whole["candidates"][0]["content"]["parts"]
                );
                assert_eq!(
                    replayed["parts"][1]["thoughtSignature"],
                    "EqQBCkgIARABGAIiQA=="
                );
            }
            Api::OpenAiChat => unreachable!(),
        }
        assert_eq!(check_pairing(api, &body), 2, "{api}");
        // Another API gets the text and calls instead, never the echo.
        for other in Api::ALL.into_iter().filter(|other| *other != api) {
            let text = request_body(other, "m", &messages, &Value::Null, false).to_string();
            assert!(
                !text.contains("EqQBCkgIARABGAIiQA=="),
                "{api}'s echo sent to {other}"
            );
        }
    }
}

#[test]
fn ids_another_api_cannot_take_are_mapped_and_their_results_follow() {
    // Gemini's synthesized ids repeat each turn; a compatible server's ids hold any character.
    let turn = |ids: [&str; 2]| Message::Assistant {
        text: String::new(),
        tool_calls: vec![call(ids[0], "get_weather"), call(ids[1], "add")],
        echo: None,
    };
    let results = |ids: [&str; 2]| Message::Tool {
        results: ids
            .iter()
            .map(|id| ToolReturn {
                call_id: (*id).into(),
                name: "x".into(),
                result: ToolResult::ok("ok"),
            })
            .collect(),
    };
    let messages = [
        Message::user("Go"),
        turn(["call_0", "call_1"]),
        results(["call_0", "call_1"]),
        turn(["call_0", "call_1"]),
        results(["call_1", "call_0"]),
        turn(["fn:1/a", "fn:1.a"]),
        results(["fn:1/a", "fn:1.a"]),
    ];
    let body = request_body(Api::Anthropic, "m", &messages, &Value::Null, false);
    assert_eq!(check_pairing(Api::Anthropic, &body), 6);
    let ids: Vec<&str> = body["messages"][3]["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["call_0_1", "call_1_1"]);
    let answered: Vec<&str> = body["messages"][4]["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["tool_use_id"].as_str().unwrap())
        .collect();
    assert_eq!(answered, ["call_1_1", "call_0_1"]);
    let ids: Vec<&str> = body["messages"][5]["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["fn_1_a", "fn_1_a_1"]);
    let gemini = request_body(Api::Gemini, "m", &messages, &Value::Null, false);
    assert_eq!(
        gemini["contents"][1]["parts"][0],
        json!({"functionCall": {"name": "get_weather", "args": {"city": "Paris"}},
               "thoughtSignature": "skip_thought_signature_validator"}),
        "a call Gemini did not make carries the signature its documentation gives for one"
    );
    assert_eq!(
        gemini["contents"][5]["parts"][0]["functionCall"]["id"],
        "fn:1/a"
    );
}

#[test]
fn ids_longer_than_openai_takes_are_cut_and_stay_unique() {
    // An OpenAI-compatible server's ids (46 characters), and one of exactly 40 used twice.
    let long = [
        "chatcmpl-tool-0123456789abcdef0123456789abcdef",
        &"c".repeat(40),
    ];
    let turn = || Message::Assistant {
        text: String::new(),
        tool_calls: vec![call(long[0], "get_weather"), call(long[1], "add")],
        echo: None,
    };
    let results = || Message::Tool {
        results: long
            .iter()
            .map(|id| ToolReturn {
                call_id: (*id).into(),
                name: "x".into(),
                result: ToolResult::ok("ok"),
            })
            .collect(),
    };
    let messages = [Message::user("Go"), turn(), results(), turn(), results()];
    for (api, max) in [(Api::OpenAiChat, 40), (Api::OpenAiResponses, 64)] {
        let body = request_body(api, "m", &messages, &Value::Null, false);
        assert_eq!(check_pairing(api, &body), 4, "{api}");
        let (calls, key) = match api {
            Api::OpenAiChat => (
                [
                    &body["messages"][1]["tool_calls"],
                    &body["messages"][4]["tool_calls"],
                ]
                .into_iter()
                .flat_map(|calls| calls.as_array().unwrap().clone())
                .collect::<Vec<_>>(),
                "id",
            ),
            _ => (
                body["input"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|item| item["type"] == "function_call")
                    .cloned()
                    .collect(),
                "call_id",
            ),
        };
        let ids: Vec<&str> = calls.iter().map(|c| c[key].as_str().unwrap()).collect();
        assert_eq!(ids.len(), 4);
        assert!(ids.iter().all(|id| id.len() <= max), "{api}: {ids:?}");
        let unique: std::collections::HashSet<_> = ids.iter().collect();
        assert_eq!(unique.len(), 4, "{api}: {ids:?}");
        if api == Api::OpenAiResponses {
            assert_eq!(ids[..2], long, "ids that fit are kept");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// A history whose replies came from any API, sent to any API: every result follows its
    /// call, with ids the target takes.
    #[test]
    fn a_history_from_any_api_is_valid_on_every_api(
        turns in prop::collection::vec((prop::sample::select(Api::ALL.to_vec()), script()), 1..4),
    ) {
        let messages = conversation(&turns);
        let expected: usize = turns.iter().map(|(_, script)| script.calls.len()).sum();
        for target in Api::ALL {
            let body = request_body(target, "m", &messages, &Value::Null, false);
            prop_assert_eq!(check_pairing(target, &body), expected, "{}", target);
        }
    }
}

#[test]
fn a_reply_of_the_wrong_shape_names_the_path() {
    let cases = [
        (
            Api::OpenAiChat,
            json!({"choices": [{"message": {"content": 3}}]}),
            "choices[0].message.content",
        ),
        (
            Api::OpenAiChat,
            json!({"choices": [{"message": {}}], "usage": {"prompt_tokens": -1}}),
            "usage.prompt_tokens",
        ),
        (
            Api::OpenAiResponses,
            json!({"output": [{"type": "message", "content": [{"type": "output_text", "text": 1}]}]}),
            "output[0].content[0].text",
        ),
        (
            Api::OpenAiResponses,
            json!({"output": [], "usage": {"output_tokens": "9"}}),
            "usage.output_tokens",
        ),
        (
            Api::Anthropic,
            json!({"content": [{"type": "text"}]}),
            "content[0].text",
        ),
        (
            Api::Anthropic,
            json!({"content": [], "stop_reason": 5}),
            "stop_reason",
        ),
        (
            Api::Gemini,
            json!({"candidates": [{"content": {"parts": [{"text": 1}]}}]}),
            "candidates[0].content.parts[0].text",
        ),
        (
            Api::Gemini,
            json!({"candidates": [], "usageMetadata": []}),
            "usageMetadata",
        ),
    ];
    for (api, body, path) in cases {
        assert_eq!(
            read_reply(api, &body).unwrap_err().path(),
            path,
            "{api}: {body}"
        );
    }
}

#[test]
fn a_blocked_gemini_prompt_is_a_reply_with_its_block_reason() {
    let body = json!({"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": {"promptTokenCount": 4}});
    let reply = read_reply(Api::Gemini, &body).unwrap();
    assert_eq!(
        (
            reply.text.as_str(),
            reply.finish_reason.as_deref(),
            reply.usage.input_tokens
        ),
        ("", Some("SAFETY"), 4)
    );
}

#[test]
fn gemini_thoughts_are_not_the_text_and_are_echoed() {
    let body = json!({"candidates": [{"content": {"role": "model", "parts": [
        {"text": "thinking it over", "thought": true}, {"text": "Sunny."}]}, "finishReason": "STOP"}]});
    let reply = read_reply(Api::Gemini, &body).unwrap();
    assert_eq!(reply.text, "Sunny.");
    assert_eq!(reply.echo.unwrap().items.len(), 2);
}
