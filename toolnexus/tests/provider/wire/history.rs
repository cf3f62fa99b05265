//! Run transcripts to render: replies of any API read into the transcript with their calls'
//! results, and the check that a rendered body answers every call right after it, with ids
//! its API takes.

use std::collections::HashSet;

use serde_json::Value;
use toolnexus::client::{Message, ToolReturn, read_reply};
use toolnexus::parts::from_bytes;
use toolnexus::{Api, ToolResult};

use super::replies::Script;

/// The assistant message a reply becomes in the transcript.
pub fn assistant(api: Api, script: &Script) -> Message {
    let reply = read_reply(api, &script.whole(api)).unwrap();
    Message::Assistant {
        text: reply.text,
        tool_calls: reply.tool_calls,
        echo: reply.echo,
    }
}

/// The results of `message`'s calls: the first an error, one with an image.
pub fn answers(message: &Message) -> Option<Message> {
    let Message::Assistant { tool_calls, .. } = message else {
        return None;
    };
    if tool_calls.is_empty() {
        return None;
    }
    let results = tool_calls
        .iter()
        .enumerate()
        .map(|(at, call)| ToolReturn {
            call_id: call.id.clone(),
            name: call.name.clone(),
            result: match at {
                0 => ToolResult::error("no weather station there"),
                1 => ToolResult::ok("chart").with_part(from_bytes(b"\x89PNG", "image/png")),
                _ => ToolResult::ok(format!("result {at}")),
            },
        })
        .collect();
    Some(Message::Tool { results })
}

/// A run's transcript: system, user (with an image), then each reply of `turns` (made by the
/// API beside it) and its calls' results, then a last user message.
pub fn conversation(turns: &[(Api, Script)]) -> Vec<Message> {
    let mut messages = vec![
        Message::system("You are a weather assistant."),
        Message::User {
            text: "Weather in Paris, and 2 + 2? Here is a map.".into(),
            parts: vec![from_bytes(b"\x89PNG", "image/png")],
        },
    ];
    for (api, script) in turns {
        let reply = assistant(*api, script);
        let results = answers(&reply);
        messages.push(reply);
        messages.extend(results);
    }
    messages.push(Message::user("Thanks."));
    messages
}

/// Checks that every tool result in `body` answers a call made just before it, with the ids
/// `target` accepts; returns how many results it saw.
pub fn check_pairing(target: Api, body: &Value) -> usize {
    let mut answered = 0;
    match target {
        Api::OpenAiChat => {
            let messages = body["messages"].as_array().unwrap();
            let mut open: Vec<String> = Vec::new();
            for message in messages {
                match message["role"].as_str().unwrap() {
                    "tool" => {
                        let id = message["tool_call_id"].as_str().unwrap();
                        let at = open.iter().position(|open| open == id);
                        assert!(at.is_some(), "{id} answers no open call: {body:#}");
                        open.remove(at.unwrap_or_default());
                        answered += 1;
                    }
                    role => {
                        assert!(
                            open.is_empty(),
                            "a {role} message before every call is answered: {body:#}"
                        );
                        if let Some(calls) = message["tool_calls"].as_array() {
                            open = calls
                                .iter()
                                .map(|c| c["id"].as_str().unwrap().to_owned())
                                .collect();
                        }
                    }
                }
            }
        }
        Api::OpenAiResponses => {
            let mut called = HashSet::new();
            for item in body["input"].as_array().unwrap() {
                match item["type"].as_str() {
                    Some("function_call") => assert!(
                        called.insert(item["call_id"].as_str().unwrap().to_owned()),
                        "{body:#}"
                    ),
                    Some("function_call_output") => {
                        assert!(
                            called.contains(item["call_id"].as_str().unwrap()),
                            "{body:#}"
                        );
                        answered += 1;
                    }
                    _ => {}
                }
            }
        }
        Api::Anthropic => {
            let mut seen = HashSet::new();
            let mut open: Vec<String> = Vec::new();
            for message in body["messages"].as_array().unwrap() {
                let blocks = message["content"].as_array().cloned().unwrap_or_default();
                let ids = |kind: &str, key: &str| -> Vec<String> {
                    blocks
                        .iter()
                        .filter(|b| b["type"] == kind)
                        .map(|b| b[key].as_str().unwrap().to_owned())
                        .collect()
                };
                let mut results = ids("tool_result", "tool_use_id");
                results.sort();
                open.sort();
                assert_eq!(
                    results, open,
                    "results answer the calls just before them: {body:#}"
                );
                answered += results.len();
                open = ids("tool_use", "id");
                for id in &open {
                    assert!(
                        !id.is_empty()
                            && id
                                .chars()
                                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'),
                        "{id}"
                    );
                    assert!(seen.insert(id.clone()), "tool_use id {id} used twice");
                }
            }
        }
        Api::Gemini => {
            let mut open: Vec<String> = Vec::new();
            for content in body["contents"].as_array().unwrap() {
                let parts = content["parts"].as_array().unwrap();
                let names = |key: &str| -> Vec<String> {
                    parts
                        .iter()
                        .filter_map(|p| p.get(key))
                        .map(|c| c["name"].as_str().unwrap().to_owned())
                        .collect()
                };
                let responses = names("functionResponse");
                if !responses.is_empty() {
                    assert_eq!(responses, open, "{body:#}");
                    answered += responses.len();
                }
                open = names("functionCall");
                for part in parts {
                    for key in ["functionCall", "functionResponse"] {
                        if let Some(id) = part
                            .get(key)
                            .and_then(|c| c.get("id"))
                            .and_then(Value::as_str)
                        {
                            let synthesized = id.strip_prefix("call_").is_some_and(|d| {
                                !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())
                            });
                            assert!(!synthesized, "a synthesized id sent to Gemini: {id}");
                        }
                    }
                }
            }
        }
    }
    answered
}
