//! `Compactor` over generated transcripts (many tool rounds, parallel calls, parts, answered
//! suspensions): the system prompt first and verbatim, no tool result without its call and no
//! call without its result — in the transcript and in each of the four APIs' request bodies —
//! and the request within budget when the tail allows.

use std::sync::{Arc, Mutex};

use proptest::prelude::*;
use serde_json::{Value, json};
use toolnexus::client::{Compactor, Message, ToolReturn, estimate_tokens, request_body};
use toolnexus::parts::from_bytes;
use toolnexus::{Api, ContentPart, ToolCall, ToolResult};

/// One user turn: the prompt's length, whether it has an image, its tool rounds (each a number
/// of parallel calls, each call's output length and whether its result has an image, or was a
/// suspension a human answered), then the answer.
type Turn = (usize, bool, Vec<Vec<(usize, bool, bool)>>);

fn turns() -> impl Strategy<Value = Vec<Turn>> {
    let call = (0..400usize, any::<bool>(), any::<bool>());
    let round = prop::collection::vec(call, 1..4);
    let turn = (
        0..300usize,
        any::<bool>(),
        prop::collection::vec(round, 0..4),
    );
    prop::collection::vec(turn, 1..14)
}

fn image(bytes: usize) -> ContentPart {
    from_bytes(&vec![7u8; bytes], "image/png")
}

/// The transcript of `turns`, system prompt first; call ids unique across it.
fn transcript(turns: &[Turn]) -> Vec<Message> {
    let mut messages = vec![Message::system("You are a deployment assistant.")];
    let mut next = 0;
    for (prompt, with_image, rounds) in turns {
        messages.push(Message::User {
            text: "p".repeat(*prompt),
            parts: with_image.then(|| image(600)).into_iter().collect(),
        });
        for round in rounds {
            let calls: Vec<ToolCall> = round
                .iter()
                .map(|_| {
                    next += 1;
                    ToolCall {
                        id: format!("call_{next}"),
                        name: "deploy".into(),
                        arguments: r#"{"env":"staging"}"#.into(),
                    }
                })
                .collect();
            let results = calls
                .iter()
                .zip(round)
                .map(|(call, (output, with_image, answered))| {
                    let mut result = ToolResult::ok("o".repeat(*output));
                    if *with_image {
                        result.parts.push(image(900));
                    }
                    if *answered {
                        // What the run keeps of a suspension answered in the loop: the
                        // second run's result, the approval in its metadata.
                        result.output = format!("approved, deployed: {}", result.output);
                        result.metadata.insert("answered".into(), json!(true));
                    }
                    ToolReturn {
                        call_id: call.id.clone(),
                        name: call.name.clone(),
                        result,
                    }
                })
                .collect();
            messages.push(Message::Assistant {
                text: String::new(),
                tool_calls: calls,
                echo: None,
            });
            messages.push(Message::Tool { results });
        }
        messages.push(Message::Assistant {
            text: "done".into(),
            tool_calls: Vec::new(),
            echo: None,
        });
    }
    messages
}

/// Every tool result follows the assistant message with its call, every call has its result.
fn assert_paired(messages: &[Message]) {
    for (at, message) in messages.iter().enumerate() {
        let ids = |calls: &[ToolCall]| calls.iter().map(|c| c.id.clone()).collect::<Vec<_>>();
        match message {
            Message::Tool { results } => {
                let Some(Message::Assistant { tool_calls, .. }) =
                    at.checked_sub(1).map(|a| &messages[a])
                else {
                    panic!("the tool results at {at} follow no assistant message");
                };
                let answered: Vec<String> = results.iter().map(|r| r.call_id.clone()).collect();
                assert_eq!(answered, ids(tool_calls), "results at {at}");
            }
            Message::Assistant { tool_calls, .. } if !tool_calls.is_empty() => {
                assert!(
                    matches!(messages.get(at + 1), Some(Message::Tool { .. })),
                    "the calls at {at} have no results after them"
                );
            }
            _ => {}
        }
    }
}

/// The ids of the calls and of the results in a rendered body, per message (or item), in
/// order: `(calls, results)`.
fn rendered(api: Api, body: &Value) -> Vec<(Vec<String>, Vec<String>)> {
    let text = |value: &Value| value.as_str().unwrap_or_default().to_owned();
    match api {
        Api::OpenAiChat => body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                let calls = m["tool_calls"]
                    .as_array()
                    .map(|c| c.iter().map(|c| text(&c["id"])).collect())
                    .unwrap_or_default();
                let results = (m["role"] == "tool")
                    .then(|| text(&m["tool_call_id"]))
                    .into_iter()
                    .collect();
                (calls, results)
            })
            .collect(),
        Api::OpenAiResponses => body["input"]
            .as_array()
            .unwrap()
            .iter()
            .map(|item| match item["type"].as_str() {
                Some("function_call") => (vec![text(&item["call_id"])], Vec::new()),
                Some("function_call_output") => (Vec::new(), vec![text(&item["call_id"])]),
                _ => (Vec::new(), Vec::new()),
            })
            .collect(),
        Api::Anthropic => body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                let blocks = m["content"].as_array().cloned().unwrap_or_default();
                let of = |kind: &str, key: &str| {
                    blocks
                        .iter()
                        .filter(|b| b["type"] == kind)
                        .map(|b| text(&b[key]))
                        .collect()
                };
                (of("tool_use", "id"), of("tool_result", "tool_use_id"))
            })
            .collect(),
        Api::Gemini => body["contents"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                let parts = c["parts"].as_array().cloned().unwrap_or_default();
                let of = |key: &str| {
                    parts
                        .iter()
                        .filter(|p| p.get(key).is_some())
                        .map(|p| text(&p[key]["id"]))
                        .collect()
                };
                (of("functionCall"), of("functionResponse"))
            })
            .collect(),
    }
}

/// In the rendered body: each message's (item's) results answer calls of the nearest
/// message before it that made calls, with only results between them (Chat's tool messages
/// and Responses' items come one per result); every call is answered before the next
/// message that is neither.
fn assert_rendered_paired(api: Api, body: &Value) {
    let mut open: Vec<String> = Vec::new();
    // Responses sends parallel calls as one item each: calls may follow calls.
    let mut after_calls = false;
    for (at, (calls, results)) in rendered(api, body).into_iter().enumerate() {
        for id in &results {
            let Some(found) = open.iter().position(|open| open == id) else {
                panic!("{api}: result `{id}` at {at} answers no open call: {body}");
            };
            open.remove(found);
        }
        if (results.is_empty() && calls.is_empty()) || (!calls.is_empty() && !after_calls) {
            assert!(
                open.is_empty(),
                "{api}: calls {open:?} unanswered before {at}: {body}"
            );
        }
        after_calls = !calls.is_empty() && results.is_empty();
        open.extend(calls);
    }
    assert!(
        open.is_empty(),
        "{api}: calls {open:?} never answered: {body}"
    );
}

fn run<T>(future: impl Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(future)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn compaction_keeps_every_call_with_its_result(turns in turns(), max_tokens in 40..3_000usize, tail_tokens in prop::option::of(10..1_500usize)) {
        let messages = transcript(&turns);
        let seen: Arc<Mutex<Vec<Vec<Message>>>> = Arc::default();
        let kept = Arc::clone(&seen);
        let mut compactor = Compactor::new(max_tokens).summarize(move |older: &[Message]| {
            kept.lock().unwrap().push(older.to_vec());
            let summary = format!("{} earlier messages.", older.len());
            async move { summary }
        });
        if let Some(tokens) = tail_tokens {
            compactor = compactor.keep_tail(tokens);
        }
        let sent = run(compactor.compact(messages.clone()));

        if estimate_tokens(&messages) <= max_tokens {
            prop_assert_eq!(&sent, &messages);
            prop_assert!(seen.lock().unwrap().is_empty());
            return Ok(());
        }
        // The system prompt first and verbatim.
        prop_assert_eq!(&sent[0], &messages[0]);
        assert_paired(&sent);
        for api in [Api::OpenAiChat, Api::OpenAiResponses, Api::Anthropic, Api::Gemini] {
            assert_rendered_paired(api, &request_body(api, "m", &sent, &json!([]), false));
        }
        let seen = seen.lock().unwrap();
        if sent.len() == messages.len() {
            // Nothing older than a user message to drop: sent unchanged, no summary.
            prop_assert_eq!(&sent, &messages);
            prop_assert!(seen.is_empty());
            return Ok(());
        }
        // The summary, then a tail that starts at a user message and is the transcript's end.
        prop_assert_eq!(seen.len(), 1);
        let older = &seen[0];
        prop_assert_eq!(&sent[1], &Message::system(format!("{} earlier messages.", older.len())));
        prop_assert!(matches!(sent[2], Message::User { .. }), "the tail starts at {:?}", sent[2]);
        let tail = &sent[2..];
        prop_assert_eq!(tail, &messages[messages.len() - tail.len()..]);
        prop_assert_eq!(1 + older.len() + tail.len(), messages.len());
        // summarize saw each part as its description, never its bytes.
        let json = serde_json::to_string(older).unwrap();
        prop_assert!(!json.contains("\"data\""), "{}", json);
        // Within budget when the tail allows: the tail is within keep_tail unless it starts at
        // the last user message (which cannot be cut further).
        let budget = tail_tokens.unwrap_or(max_tokens / 2);
        let last_user = messages.iter().rposition(|m| matches!(m, Message::User { .. })).unwrap();
        if messages.len() - tail.len() != last_user {
            prop_assert!(estimate_tokens(tail) <= budget);
            prop_assert!(estimate_tokens(&sent) <= estimate_tokens(&sent[..2]) + budget);
        }
    }
}
