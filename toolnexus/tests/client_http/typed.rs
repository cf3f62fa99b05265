//! A typed run over HTTP (SPEC §16B): each API's request carries the answer schema by the
//! API's own means, and the answer read from its real reply shape is decoded.

use serde::Deserialize;
use serde_json::{Value, json};
use toolnexus::{Api, JsonSchema};

use crate::stand_in::{Answer, StandIn};
use crate::{client, toolkit};

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Verdict {
    guilty: bool,
}

/// `{"guilty": true}` in `api`'s whole reply: a text answer, or Anthropic's answer-tool call.
fn reply(api: Api) -> Value {
    let text = r#"{"guilty": true}"#;
    match api {
        Api::OpenAiChat => json!({
            "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4.1",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 30, "completion_tokens": 6, "total_tokens": 36},
        }),
        Api::OpenAiResponses => json!({
            "id": "resp_1", "object": "response", "created_at": 1, "status": "completed", "model": "gpt-4.1",
            "output": [{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                        "content": [{"type": "output_text", "text": text, "annotations": []}]}],
            "usage": {"input_tokens": 30, "output_tokens": 6, "total_tokens": 36},
        }),
        Api::Anthropic => json!({
            "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "Verdict", "input": {"guilty": true}}],
            "stop_reason": "tool_use", "usage": {"input_tokens": 30, "output_tokens": 6},
        }),
        Api::Gemini => json!({
            "candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP"}],
            "usageMetadata": {"promptTokenCount": 30, "candidatesTokenCount": 6},
        }),
    }
}

#[tokio::test]
async fn each_api_is_sent_the_answer_schema_and_its_answer_is_decoded() {
    for api in Api::ALL {
        let server = StandIn::start(vec![Answer::ok(&reply(api))]).await;
        let typed = client(api, "m", &server)
            .run_typed::<Verdict>("Guilty?", &toolkit())
            .await
            .unwrap_or_else(|error| panic!("{api}: {error}"));
        assert_eq!(typed.value, Verdict { guilty: true }, "{api}");
        let body = &server.received()[0].body;
        let asked = match api {
            Api::OpenAiChat => &body["response_format"]["json_schema"]["schema"],
            Api::OpenAiResponses => &body["text"]["format"]["schema"],
            Api::Anthropic => &body["tools"][2]["input_schema"],
            Api::Gemini => &body["generationConfig"]["responseJsonSchema"],
        };
        assert_eq!(
            asked["properties"],
            json!({"guilty": {"type": "boolean"}}),
            "{api}"
        );
        // The client's own request fields are still sent beside it.
        assert_eq!(body["temperature"], 0.25, "{api}");
    }
}
