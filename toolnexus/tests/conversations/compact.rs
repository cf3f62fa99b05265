//! `Compactor` over generated transcripts (many tool rounds, parallel calls, parts, answered
//! suspensions): the system prompt first and verbatim, no tool result without its call and no
//! call without its result — in the transcript and in each of the four APIs' request bodies —
//! and the request within budget when the tail allows.

use std::sync::{Arc, Mutex};

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use serde_json::json;
use toolnexus::client::{Compactor, Message, ToolReturn, estimate_tokens, request_body};
use toolnexus::parts::{describe_part, from_bytes};
use toolnexus::{Api, ContentPart, ToolCall, ToolResult};

use crate::corpus::{Corpus, runner};
use crate::requests::check_request;

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

fn run<T>(future: impl Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(future)
}

#[test]
fn compaction_keeps_every_call_with_its_result() {
    let corpus = Corpus::default();
    let cases = (turns(), 40..3_000usize, prop::option::of(10..1_500usize));
    runner(128)
        .run(&cases, |(turns, max_tokens, tail_tokens)| {
            compacted(&turns, max_tokens, tail_tokens, &corpus)
        })
        .unwrap();
    assert!(Api::ALL.iter().all(|api| corpus.count(*api) > 0));
    corpus.write("compacted");
}

/// One generated case: `turns` compacted within `max_tokens`; each compacted request
/// rendered for the four APIs goes to `corpus`.
fn compacted(
    turns: &[Turn],
    max_tokens: usize,
    tail_tokens: Option<usize>,
    corpus: &Corpus,
) -> Result<(), TestCaseError> {
    let messages = transcript(turns);
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
    for api in Api::ALL {
        let body = request_body(api, "m", &sent, &json!([]), false);
        check_request(api, &body);
        corpus.add(api, body);
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
    prop_assert_eq!(
        &sent[1],
        &Message::system(format!("{} earlier messages.", older.len()))
    );
    prop_assert!(
        matches!(sent[2], Message::User { .. }),
        "the tail starts at {:?}",
        sent[2]
    );
    let tail = &sent[2..];
    prop_assert_eq!(tail, &messages[messages.len() - tail.len()..]);
    prop_assert_eq!(1 + older.len() + tail.len(), messages.len());
    // summarize saw the older messages, each non-text part as its description.
    prop_assert_eq!(older, &described(&messages[1..1 + older.len()]));
    // Within budget when the tail allows: the tail is within keep_tail unless it starts at
    // the last user message (which cannot be cut further).
    let budget = tail_tokens.unwrap_or(max_tokens / 2);
    let last_user = messages
        .iter()
        .rposition(|m| matches!(m, Message::User { .. }))
        .unwrap();
    if messages.len() - tail.len() != last_user {
        prop_assert!(estimate_tokens(tail) <= budget);
        prop_assert!(estimate_tokens(&sent) <= estimate_tokens(&sent[..2]) + budget);
    }
    Ok(())
}

/// `messages` as `summarize` is to see them: each image, file or audio part (of a user
/// message or a tool's result) as a text part of its `describe_part` text; everything else,
/// the results' `output` text first of all, as it was.
fn described(messages: &[Message]) -> Vec<Message> {
    let describe = |parts: &mut Vec<ContentPart>| {
        for part in parts.iter_mut() {
            if part.media().is_some() {
                *part = ContentPart::text(describe_part(part));
            }
        }
    };
    let mut messages = messages.to_vec();
    for message in &mut messages {
        match message {
            Message::User { parts, .. } => describe(parts),
            Message::Tool { results } => {
                for answer in results {
                    describe(&mut answer.result.parts);
                }
            }
            Message::System { .. } | Message::Assistant { .. } => {}
        }
    }
    messages
}

#[tokio::test]
async fn summarize_sees_each_part_as_its_description_beside_the_output() {
    let image = image(4_000);
    let data = match &image.media().unwrap().source {
        toolnexus::parts::Source::Data(data) => data.clone(),
        other => panic!("{other:?}"),
    };
    let call = ToolCall {
        id: "call_1".into(),
        name: "chart".into(),
        arguments: "{}".into(),
    };
    let messages = vec![
        Message::system("Be brief."),
        Message::User {
            text: "Here is a photo.".into(),
            parts: vec![image.clone()],
        },
        Message::Assistant {
            text: String::new(),
            tool_calls: vec![call.clone()],
            echo: None,
        },
        Message::Tool {
            results: vec![ToolReturn {
                call_id: call.id,
                name: call.name,
                result: ToolResult::ok("the chart of March")
                    .with_part(image.clone())
                    .with_part(ContentPart::text("a text part stays")),
            }],
        },
        Message::user("And now?"),
    ];
    let seen: Arc<Mutex<Vec<Message>>> = Arc::default();
    let kept = Arc::clone(&seen);
    let compactor = Compactor::new(10).summarize(move |older: &[Message]| {
        kept.lock().unwrap().extend_from_slice(older);
        async { "summary".to_owned() }
    });
    let sent = compactor.compact(messages).await;
    assert_eq!(sent[1], Message::system("summary"));
    let seen = seen.lock().unwrap();
    let description = ContentPart::text("image (image/png, 4000 bytes)");
    let Message::User { parts, .. } = &seen[0] else {
        panic!("{seen:?}")
    };
    assert_eq!(parts, std::slice::from_ref(&description));
    let Message::Tool { results } = &seen[2] else {
        panic!("{seen:?}")
    };
    assert_eq!(results[0].result.output, "the chart of March");
    assert_eq!(
        results[0].result.parts,
        [description, ContentPart::text("a text part stays")]
    );
    assert!(!serde_json::to_string(&*seen).unwrap().contains(&data));
}
