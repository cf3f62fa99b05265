//! Streamed replies: the SSE decoder on bytes cut anywhere, and for each API a reply streamed
//! in pieces reads as exactly what `read_reply` reads of the same reply whole.

use proptest::prelude::*;
use toolnexus::client::{ModelEvent, Reply, ReplyStream, SseDecoder, SseEvent, read_reply};
use toolnexus::{Api, ToolCall};

use super::replies::{Script, script};

/// `bytes` cut at `cuts` (each modulo the length), fed to a decoder.
fn decode(bytes: &[u8], cuts: &[usize]) -> Vec<SseEvent> {
    let mut at: Vec<usize> = cuts.iter().map(|cut| cut % (bytes.len() + 1)).collect();
    at.sort_unstable();
    let mut decoder = SseDecoder::new();
    let mut events = Vec::new();
    let mut from = 0;
    for cut in at.into_iter().chain([bytes.len()]) {
        events.extend(decoder.push(&bytes[from..cut]));
        from = cut;
    }
    events
}

/// The events of a streamed reply, then its whole reply: the texts, the calls, and `finish`.
fn stream(api: Api, events: &[SseEvent]) -> (String, Vec<ToolCall>, Result<Reply, String>) {
    let mut reply = ReplyStream::new(api);
    let (mut text, mut calls) = (String::new(), Vec::new());
    for event in events {
        match reply.push(event) {
            Ok(out) => {
                for event in out {
                    match event {
                        ModelEvent::Text(piece) => text.push_str(&piece),
                        ModelEvent::ToolCall(call) => calls.push(call),
                        ModelEvent::Done(_) => panic!("push yielded Done"),
                    }
                }
            }
            Err(error) => return (text, calls, Err(error.to_string())),
        }
    }
    (
        text,
        calls,
        reply.finish().map_err(|error| error.to_string()),
    )
}

/// The SSE text with `\r\n` line ends and comment lines, as some servers send it.
fn with_crlf_and_comments(sse: &str) -> String {
    sse.replace("\n\n", "\n: keep-alive\n\n")
        .replace('\n', "\r\n")
}

fn check_stream_equals_whole(api: Api, script: &Script, cuts: &[usize], crlf: bool) {
    let whole = read_reply(api, &script.whole(api)).unwrap();
    let mut sse = script.streamed(api);
    if crlf {
        sse = with_crlf_and_comments(&sse);
    }
    let events = decode(sse.as_bytes(), cuts);
    let (text, calls, reply) = stream(api, &events);
    assert_eq!(reply.as_ref(), Ok(&whole), "{api}: {sse}");
    assert_eq!(text, whole.text);
    assert_eq!(calls, whole.tool_calls);
    assert_eq!(whole.tool_calls.len(), script.calls.len());
    assert_eq!(whole.usage.input_tokens, script.input_tokens);
    assert_eq!(whole.usage.output_tokens, script.output_tokens);
    assert_eq!(whole.text, script.text);
    // Reasoning is echoed where the API needs it back (Chat has none).
    assert_eq!(
        whole.echo.is_some(),
        script.thinking.is_some() && api != Api::OpenAiChat
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn a_streamed_reply_cut_anywhere_is_the_whole_reply(
        script in script(),
        cuts in prop::collection::vec(any::<usize>(), 0..40),
        crlf in any::<bool>(),
    ) {
        for api in Api::ALL {
            check_stream_equals_whole(api, &script, &cuts, crlf);
        }
    }

    #[test]
    fn a_stream_cut_short_is_an_error(script in script(), keep in any::<usize>()) {
        for api in Api::ALL {
            let events = decode(script.streamed(api).as_bytes(), &[]);
            let kept = &events[..keep % events.len()];
            let (_, _, reply) = stream(api, kept);
            prop_assert!(reply.is_err(), "{api}: {} of {} events read as {reply:?}", kept.len(), events.len());
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..400), cuts in prop::collection::vec(any::<usize>(), 0..8)) {
        for api in Api::ALL {
            let _ = stream(api, &decode(&bytes, &cuts));
        }
    }

    #[test]
    fn arbitrary_json_events_never_panic(events in prop::collection::vec(event_json(), 0..12)) {
        for api in Api::ALL {
            let events: Vec<SseEvent> = events.iter().map(|(name, data)| SseEvent { event: name.clone(), data: data.clone() }).collect();
            let _ = stream(api, &events);
        }
    }
}

/// Events that are JSON and often nearly right: known `type`s with fields of any shape.
fn event_json() -> impl Strategy<Value = (Option<String>, String)> {
    let kind = prop::sample::select(vec![
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
        "response.output_text.delta",
        "response.output_item.done",
        "response.completed",
        "response.failed",
        "ping",
    ]);
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<i64>().prop_map(serde_json::Value::from),
        "[a-z_]{0,8}".prop_map(serde_json::Value::from),
        Just(serde_json::json!({})),
        Just(serde_json::json!([])),
    ];
    let value = leaf.prop_recursive(3, 24, 4, |inner| {
        prop::collection::btree_map(
            prop::sample::select(vec![
                "type",
                "index",
                "delta",
                "text",
                "content",
                "message",
                "item",
                "response",
                "output",
                "choices",
                "tool_calls",
                "function",
                "arguments",
                "candidates",
                "parts",
                "functionCall",
                "partial_json",
                "content_block",
                "usage",
                "finishReason",
            ])
            .prop_map(str::to_owned),
            inner,
            0..4,
        )
        .prop_map(|map| serde_json::Value::Object(map.into_iter().collect()))
    });
    (kind, value, prop::option::of("error|ping|message_start")).prop_map(
        |(kind, mut value, name)| {
            if let Some(map) = value.as_object_mut() {
                map.insert("type".into(), kind.into());
            }
            (name, value.to_string())
        },
    )
}

#[test]
fn the_decoder_reads_crlf_split_between_chunks_as_one_line_end() {
    let mut decoder = SseDecoder::new();
    assert!(decoder.push(b"data: a\r").is_empty());
    assert_eq!(
        decoder.push(b"\n\r\n"),
        [SseEvent {
            event: None,
            data: "a".into()
        }]
    );
}

#[test]
fn the_decoder_joins_data_lines_and_ignores_comments_ids_and_empty_events() {
    let events = decode(
        b": hi\nid: 7\nretry: 10\n\nevent: x\ndata: one\ndata:two\ndata\n\n",
        &[],
    );
    assert_eq!(
        events,
        [SseEvent {
            event: Some("x".into()),
            data: "one\ntwo\n".into()
        }]
    );
}

#[test]
fn the_decoder_keeps_a_character_split_between_chunks() {
    let bytes = "data: é😀\n\n".as_bytes();
    for cut in 0..=bytes.len() {
        assert_eq!(decode(bytes, &[cut])[0].data, "é😀");
    }
}

#[test]
fn the_decoder_drops_an_oversized_event_and_says_so() {
    let mut decoder = SseDecoder::new();
    let mut events = decoder.push(b"data: ");
    let chunk = vec![b'a'; 1 << 20];
    for _ in 0..17 {
        events.extend(decoder.push(&chunk));
    }
    events.extend(decoder.push(b"\n\ndata: next\n\n"));
    assert_eq!(
        events.len(),
        2,
        "{:?}",
        events.iter().map(|e| e.data.len()).collect::<Vec<_>>()
    );
    assert_eq!(events[0].event.as_deref(), Some("error"));
    assert!(events[0].data.contains("larger than"));
    assert_eq!(events[1].data, "next");
    let error = ReplyStream::new(Api::Anthropic)
        .push(&events[0])
        .unwrap_err();
    assert!(
        error.to_string().contains("larger than 16777216 bytes"),
        "{error}"
    );
}

#[test]
fn a_provider_error_event_is_an_error_with_its_message() {
    let cases = [
        (
            Api::Anthropic,
            Some("error"),
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
            "Overloaded",
        ),
        (
            Api::OpenAiResponses,
            Some("error"),
            r#"{"type":"error","code":"server_error","message":"boom","sequence_number":3}"#,
            "boom",
        ),
        (
            Api::OpenAiResponses,
            Some("response.failed"),
            r#"{"type":"response.failed","response":{"error":{"code":"server_error","message":"failed here"}}}"#,
            "failed here",
        ),
        (
            Api::OpenAiChat,
            Some("error"),
            r#"{"error":{"message":"rate limited"}}"#,
            "rate limited",
        ),
        (
            Api::Gemini,
            Some("error"),
            r#"{"error":{"code":500,"message":"internal"}}"#,
            "internal",
        ),
    ];
    for (api, name, data, message) in cases {
        let event = SseEvent {
            event: name.map(str::to_owned),
            data: data.into(),
        };
        let error = ReplyStream::new(api).push(&event).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!("{api} response: the stream sent an error: {message}")
        );
    }
}

#[test]
fn a_malformed_event_names_what_is_wrong() {
    let event = |data: &str| SseEvent {
        event: None,
        data: data.into(),
    };
    let error = ReplyStream::new(Api::OpenAiChat)
        .push(&event("{not json"))
        .unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("OpenAI Chat Completions response: a streamed event is not JSON"),
        "{error}"
    );
    let error = ReplyStream::new(Api::OpenAiChat)
        .push(&event(
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"function":{"arguments":"{"}}]}}]}"#,
        ))
        .unwrap_err();
    assert_eq!(error.path(), "choices[0].delta.tool_calls[0].index");
    let error = ReplyStream::new(Api::Anthropic)
        .push(&event(
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}"#,
        ))
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("`content_block_delta` before `message_start`"),
        "{error}"
    );
}

#[test]
fn a_call_without_an_id_in_its_first_piece_is_an_error_not_a_drop() {
    let mut stream = ReplyStream::new(Api::OpenAiChat);
    let event = |data: &str| SseEvent {
        event: None,
        data: data.into(),
    };
    let pushed = stream.push(&event(r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"add","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}"#));
    let error = pushed.unwrap_err();
    assert_eq!(error.path(), "choices[0].message.tool_calls[0].id");
}

#[test]
fn anthropic_tool_input_that_is_not_json_is_an_error() {
    let events = [
        r#"{"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[],"model":"c","usage":{"input_tokens":1,"output_tokens":1}}}"#,
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"add","input":{}}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"a\": "}}"#,
        r#"{"type":"content_block_stop","index":0}"#,
    ];
    let mut stream = ReplyStream::new(Api::Anthropic);
    let results: Vec<_> = events
        .iter()
        .map(|data| {
            stream.push(&SseEvent {
                event: None,
                data: (*data).into(),
            })
        })
        .collect();
    let error = results[3].as_ref().unwrap_err();
    assert!(
        error
            .to_string()
            .contains("block 0's streamed input is not JSON"),
        "{error}"
    );
}
