//! Wire encoding for providers (SPEC §8A): every golden `encode` vector, the placeholder, the OpenAI tool messages, the
//! Anthropic tool_result block and the MCP CallToolResult.

use crate::common;

use serde_json::{Value, json};
use toolnexus::{
    Api, ContentPart, ToolCall, ToolResult,
    parts::{Style, encode_part, from_bytes, part_bytes},
    tool_results,
};

use common::golden;

fn part(value: &Value) -> ContentPart {
    serde_json::from_value(value.clone()).expect("a golden part deserializes")
}

fn call(id: &str, name: &str) -> ToolCall {
    ToolCall {
        id: id.to_owned(),
        name: name.to_owned(),
        arguments: "{}".to_owned(),
    }
}

fn fixture_png() -> ContentPart {
    part(&golden()["attach_png"])
}

#[test]
fn every_golden_encode_vector_is_reproduced() {
    let golden = golden();
    let vectors = golden["encode"].as_object().unwrap();
    assert_eq!(vectors.len(), 7);
    for (case, vector) in vectors {
        let part = part(&vector["part"]);
        for (style, key) in [(Style::OpenAi, "openai"), (Style::Anthropic, "anthropic")] {
            let expected = &vector[key];
            let encoded = encode_part(&part, style);
            if expected.get("refused") == Some(&Value::Bool(true)) {
                let error = encoded.expect_err(&format!("{case}/{key} must be refused"));
                assert_eq!(error.code(), "unsupported", "{case}/{key}");
            } else {
                assert_eq!(&encoded.unwrap(), expected, "{case}/{key}");
            }
        }
    }
}

#[test]
fn refusals_name_the_provider_and_what_it_takes() {
    let audio = from_bytes(b"RIFF", "audio/wav");
    let message = encode_part(&audio, Style::Anthropic)
        .unwrap_err()
        .to_string();
    assert!(message.contains("Anthropic cannot take audio"), "{message}");

    let url_file = part(
        &json!({"type": "file", "mimeType": "application/pdf", "url": "https://example.com/r.pdf"}),
    );
    let message = encode_part(&url_file, Style::OpenAi)
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("OpenAI cannot take a file part by URL"),
        "{message}"
    );

    let ogg = from_bytes(b"OggS", "audio/ogg");
    let message = encode_part(&ogg, Style::OpenAi).unwrap_err().to_string();
    assert_eq!(
        message,
        "OpenAI accepts only mp3 (audio/mpeg) and wav (audio/wav) audio, not audio/ogg"
    );

    let url_audio = part(
        &json!({"type": "audio", "mimeType": "audio/mpeg", "url": "https://example.com/a.mp3"}),
    );
    assert_eq!(
        encode_part(&url_audio, Style::OpenAi).unwrap_err().code(),
        "unsupported"
    );

    let bmp = from_bytes(b"BM", "image/bmp");
    for style in [Style::OpenAi, Style::Anthropic] {
        let message = encode_part(&bmp, style).unwrap_err().to_string();
        assert!(
            message.contains("image/png, image/jpeg, image/gif and image/webp"),
            "{message}"
        );
    }

    let csv = from_bytes(b"a,b\n1,2\n", "text/csv");
    assert_eq!(
        encode_part(&csv, Style::OpenAi).unwrap_err().code(),
        "unsupported"
    );
    assert_eq!(
        encode_part(&csv, Style::Anthropic).unwrap_err().code(),
        "unsupported"
    );
    // Refusals never carry the payload.
    let message = encode_part(&csv, Style::Anthropic).unwrap_err().to_string();
    assert!(!message.contains("YSxi"), "{message}");
}

#[test]
fn audio_formats_follow_the_mime_not_its_spelling() {
    for (mime, format) in [
        ("audio/mpeg", "mp3"),
        ("audio/MP3", "mp3"),
        ("audio/x-wav", "wav"),
        ("audio/wav; codecs=1", "wav"),
    ] {
        let encoded = encode_part(&from_bytes(b"xyz", mime), Style::OpenAi).unwrap();
        assert_eq!(encoded["input_audio"]["format"], format, "{mime}");
    }
}

#[test]
fn files_without_a_name_and_plain_text_documents() {
    let pdf = from_bytes(b"%PDF", "application/pdf");
    assert_eq!(
        encode_part(&pdf, Style::OpenAi).unwrap(),
        json!({"type": "file", "file": {"filename": "file.pdf", "file_data": "data:application/pdf;base64,JVBERg=="}})
    );
    let text = from_bytes("héllo".as_bytes(), "text/plain");
    assert_eq!(
        encode_part(&text, Style::Anthropic).unwrap(),
        json!({"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "héllo"}})
    );
    let not_utf8 = from_bytes(&[0xff, 0xfe], "text/plain");
    assert_eq!(
        encode_part(&not_utf8, Style::Anthropic).unwrap_err().code(),
        "unsupported"
    );
}

#[test]
fn a_plain_openai_tool_message_matches_golden() {
    let messages = ToolResult::ok("done").to_openai_messages("call_2", "deploy");
    assert_eq!(messages, [golden()["tool_message_openai_plain"].clone()]);
}

#[test]
fn an_openai_tool_message_with_an_image_relocates_it_to_a_user_message() {
    let golden = golden();
    let vector = &golden["tool_message_openai"];
    let result = ToolResult::ok(vector["content"].as_str().unwrap())
        .with_parts(vector["parts"].as_array().unwrap().iter().map(part));
    let messages = result.to_openai_messages("call_1", "screenshot");
    assert_eq!(
        messages,
        [
            json!({"role": "tool", "tool_call_id": "call_1", "content": "fixture.png (image/png, 82 bytes)"}),
            json!({"role": "user", "content": [
                {"type": "text", "text": "Output of tool screenshot (call_1):"},
                golden["encode"]["image_data"]["openai"],
            ]}),
        ]
    );
}

#[test]
fn refused_parts_degrade_to_the_placeholder_in_messages() {
    let golden = golden();
    let audio = part(&golden["encode"]["audio_mp3"]["part"]);
    let ogg = from_bytes(&[1; 10], "audio/ogg");
    let result = ToolResult::ok("two clips").with_parts([audio.clone(), ogg]);

    let messages = result.to_openai_messages("call_9", "record");
    assert_eq!(
        messages[1]["content"][1],
        golden["encode"]["audio_mp3"]["openai"]
    );
    assert_eq!(
        messages[1]["content"][2],
        json!({"type": "text", "text": "[unsupported audio part (audio/ogg, 10 bytes)]"})
    );

    let block = result.to_anthropic_block("toolu_9");
    assert_eq!(
        block["content"],
        json!([
            {"type": "text", "text": "two clips"},
            {"type": "text", "text": format!("[unsupported audio part (audio/mpeg, {} bytes)]", part_bytes(&audio))},
            {"type": "text", "text": "[unsupported audio part (audio/ogg, 10 bytes)]"},
        ])
    );
}

#[test]
fn text_only_parts_stay_in_the_tool_message() {
    let result = ToolResult::ok("summary").with_part(ContentPart::text("details"));
    assert_eq!(
        result.to_openai_messages("call_3", "summarize"),
        [
            json!({"role": "tool", "tool_call_id": "call_3", "content": [
                {"type": "text", "text": "summary"},
                {"type": "text", "text": "details"},
            ]})
        ]
    );
}

#[test]
fn a_batch_sends_one_user_message_after_all_tool_messages_in_call_order() {
    let png = fixture_png();
    let pdf = from_bytes(b"%PDF", "application/pdf");
    let first = ToolResult::ok("shot").with_part(png.clone());
    let second = ToolResult::error("boom");
    let third = ToolResult::ok("report").with_parts([ContentPart::text("page 1"), pdf.clone()]);
    let calls = [
        call("call_a", "screenshot"),
        call("call_b", "fail"),
        call("call_c", "report"),
    ];
    let messages = tool_results(Api::OpenAiChat, &calls, &[first, second.clone(), third]);
    assert_eq!(
        messages,
        [
            json!({"role": "tool", "tool_call_id": "call_a", "content": "shot"}),
            json!({"role": "tool", "tool_call_id": "call_b", "content": "boom"}),
            // Text parts stay in the tool message, as the Python port does.
            json!({"role": "tool", "tool_call_id": "call_c", "content": [
                {"type": "text", "text": "report"},
                {"type": "text", "text": "page 1"},
            ]}),
            json!({"role": "user", "content": [
                {"type": "text", "text": "Output of tool screenshot (call_a):"},
                encode_part(&png, Style::OpenAi).unwrap(),
                {"type": "text", "text": "Output of tool report (call_c):"},
                encode_part(&pdf, Style::OpenAi).unwrap(),
            ]}),
        ]
    );
    let plain = tool_results(
        Api::OpenAiChat,
        &[call("call_x", "a"), call("call_y", "b")],
        &[second.clone(), second],
    );
    assert_eq!(plain.len(), 2, "no user message without media");
}

#[test]
fn a_plain_anthropic_block_matches_golden() {
    assert_eq!(
        ToolResult::ok("done").to_anthropic_block("toolu_2"),
        golden()["tool_result_block_anthropic_plain"]
    );
    let error = ToolResult::error("no such city").to_anthropic_block("toolu_3");
    assert_eq!(error["is_error"], true);
    assert_eq!(error["content"], "no such city");
}

#[test]
fn an_anthropic_block_with_an_image_carries_it_natively() {
    let golden = golden();
    let vector = &golden["tool_result_block_anthropic"];
    let result = ToolResult::ok(vector["content"].as_str().unwrap())
        .with_parts(vector["parts"].as_array().unwrap().iter().map(part));
    assert_eq!(
        result.to_anthropic_block("toolu_1"),
        json!({
            "type": "tool_result",
            "tool_use_id": "toolu_1",
            "content": [
                {"type": "text", "text": "fixture.png (image/png, 82 bytes)"},
                golden["encode"]["image_data"]["anthropic"],
            ],
            "is_error": false,
        })
    );
    // SPEC §8A and every port: the output's text block comes first, even when empty.
    let silent = ToolResult::ok("").with_part(fixture_png());
    assert_eq!(
        silent.to_anthropic_block("toolu_4")["content"],
        json!([{"type": "text", "text": ""}, golden["encode"]["image_data"]["anthropic"]])
    );
    let calls = [call("toolu_1", "show"), call("toolu_4", "show")];
    let [message] = &tool_results(Api::Anthropic, &calls, &[result.clone(), silent.clone()])[..]
    else {
        panic!("one user message answers every tool_use block");
    };
    assert_eq!(message["role"], "user");
    assert_eq!(message["content"][0], result.to_anthropic_block("toolu_1"));
    assert_eq!(message["content"][1], silent.to_anthropic_block("toolu_4"));
}

#[test]
fn every_golden_part_has_a_native_mcp_block() {
    let golden = golden();
    let png = fixture_png();
    let data = golden["attach_png"]["data"].clone();
    let result = ToolResult::ok("everything")
        .with_parts([
            png,
            part(&golden["encode"]["audio_wav"]["part"]),
            part(&golden["encode"]["file_data"]["part"]),
            part(&golden["encode"]["file_url"]["part"]),
            part(&golden["encode"]["image_url"]["part"]),
            ContentPart::text("hello"),
            from_bytes(b"a,b", "text/csv"),
            part(&json!({"type": "file", "mimeType": "text/plain", "data": "aGk=", "name": "my notes.txt"})),
        ])
        .with_metadata("internal", 1);
    assert_eq!(
        result.to_mcp(),
        json!({
            "content": [
                {"type": "text", "text": "everything"},
                {"type": "image", "data": data, "mimeType": "image/png"},
                {"type": "audio", "data": data, "mimeType": "audio/wav"},
                {"type": "resource", "resource": {"uri": "attachment:///report.pdf", "mimeType": "application/pdf", "blob": data}},
                {"type": "resource_link", "uri": "https://example.com/r.pdf", "name": "r.pdf", "mimeType": "application/pdf"},
                {"type": "resource_link", "uri": "https://example.com/a.png", "name": "a.png", "mimeType": "image/png"},
                {"type": "text", "text": "hello"},
                {"type": "resource", "resource": {"uri": "attachment:///part-6", "mimeType": "text/csv", "blob": "YSxi"}},
                {"type": "resource", "resource": {"uri": "attachment:///my%20notes.txt", "mimeType": "text/plain", "blob": "aGk="}},
            ],
            "isError": false,
        })
    );
    let suspended = toolnexus::auth_required("https://login.example/x").to_mcp();
    assert_eq!(
        suspended,
        json!({
            "content": [{"type": "text", "text": "Authorization required to continue\nhttps://login.example/x"}],
            "isError": true,
        })
    );
}

#[test]
fn a_url_without_a_path_is_linked_by_its_type() {
    let bare =
        part(&json!({"type": "image", "mimeType": "image/png", "url": "https://example.com"}));
    let mcp = ToolResult::ok("").with_part(bare).to_mcp();
    assert_eq!(mcp["content"][1]["name"], "image");
}
