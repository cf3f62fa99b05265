//! Each API's side of the two-turn run with two parallel calls (first reply: `get_weather` for
//! Paris and `add` 2 + 2; second: the final text), as the provider sends it — a whole body and
//! server-sent events — and what each API's second request must carry back.

use serde_json::{Value, json};
use toolnexus::Api;

/// The final answer of the second turn.
pub const ANSWER: &str = "Paris is sunny, and 2 + 2 = 4.";

/// One API's replies and request checks.
pub struct Wire {
    pub api: Api,
    pub model: &'static str,
    /// The whole first and second replies.
    pub first: Value,
    pub second: Value,
    /// The same replies as event streams.
    pub first_sse: Vec<String>,
    pub second_sse: Vec<String>,
}

/// The four APIs.
pub fn all() -> [Wire; 4] {
    [chat(), responses(), anthropic(), gemini()]
}

/// `data:` lines; `event:` too when named.
fn sse(events: &[(Option<&str>, Value)]) -> Vec<String> {
    events
        .iter()
        .map(|(name, data)| match name {
            Some(name) => format!("event: {name}\ndata: {data}\n\n"),
            None => format!("data: {data}\n\n"),
        })
        .collect()
}

fn chat() -> Wire {
    let call = |index: u32, id: &str, name: &str, args: &str| json!({"index": index, "id": id, "type": "function", "function": {"name": name, "arguments": args}});
    let chunk = |delta: Value, finish: Value| {
        json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4.1",
               "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    let usage = json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4.1",
                       "choices": [], "usage": {"prompt_tokens": 50, "completion_tokens": 20, "total_tokens": 70}});
    let mut first_sse = sse(&[
        (
            None,
            chunk(
                json!({"role": "assistant", "tool_calls": [call(0, "call_1", "get_weather", "")]}),
                Value::Null,
            ),
        ),
        (
            None,
            chunk(
                json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"city\":"}}]}),
                Value::Null,
            ),
        ),
        (
            None,
            chunk(
                json!({"tool_calls": [call(1, "call_2", "add", "{\"a\":2,")]}),
                Value::Null,
            ),
        ),
        (
            None,
            chunk(
                json!({"tool_calls": [{"index": 0, "function": {"arguments": "\"Paris\"}"}}]}),
                Value::Null,
            ),
        ),
        (
            None,
            chunk(
                json!({"tool_calls": [{"index": 1, "function": {"arguments": "\"b\":2}"}}]}),
                Value::Null,
            ),
        ),
        (None, chunk(json!({}), json!("tool_calls"))),
        (None, usage.clone()),
    ]);
    first_sse.push("data: [DONE]\n\n".into());
    let mut second_sse = sse(&[
        (
            None,
            chunk(
                json!({"role": "assistant", "content": "Paris is sunny, "}),
                Value::Null,
            ),
        ),
        (
            None,
            chunk(json!({"content": "and 2 + 2 = 4."}), Value::Null),
        ),
        (None, chunk(json!({}), json!("stop"))),
        (None, usage),
    ]);
    second_sse.push("data: [DONE]\n\n".into());
    let whole = |message: Value, finish: &str| {
        json!({"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4.1",
               "choices": [{"index": 0, "message": message, "finish_reason": finish}],
               "usage": {"prompt_tokens": 50, "completion_tokens": 20, "total_tokens": 70}})
    };
    let calls = [
        json!({"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}),
        json!({"id": "call_2", "type": "function", "function": {"name": "add", "arguments": "{\"a\":2,\"b\":2}"}}),
    ];
    Wire {
        api: Api::OpenAiChat,
        model: "gpt-4.1",
        first: whole(
            json!({"role": "assistant", "content": null, "tool_calls": calls}),
            "tool_calls",
        ),
        second: whole(json!({"role": "assistant", "content": ANSWER}), "stop"),
        first_sse,
        second_sse,
    }
}

fn responses() -> Wire {
    let weather = json!({"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather",
                         "arguments": "{\"city\":\"Paris\"}", "status": "completed"});
    let add = json!({"type": "function_call", "id": "fc_2", "call_id": "call_2", "name": "add",
                     "arguments": "{\"a\":2,\"b\":2}", "status": "completed"});
    let message = json!({"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                         "content": [{"type": "output_text", "text": ANSWER, "annotations": []}]});
    let response = |output: Value| {
        json!({"id": "resp_1", "object": "response", "created_at": 1, "status": "completed", "model": "gpt-4.1",
               "output": output, "usage": {"input_tokens": 50, "output_tokens": 20, "total_tokens": 70}})
    };
    let first = response(json!([weather, add]));
    let second = response(json!([message]));
    let event = |name: &'static str, data: Value| (Some(name), data);
    let first_sse = sse(&[
        event(
            "response.created",
            json!({"type": "response.created", "response": response(json!([]))}),
        ),
        event(
            "response.output_item.added",
            json!({"type": "response.output_item.added", "output_index": 0, "item": weather}),
        ),
        event(
            "response.output_item.done",
            json!({"type": "response.output_item.done", "output_index": 0, "item": weather}),
        ),
        event(
            "response.output_item.added",
            json!({"type": "response.output_item.added", "output_index": 1, "item": add}),
        ),
        event(
            "response.output_item.done",
            json!({"type": "response.output_item.done", "output_index": 1, "item": add}),
        ),
        event(
            "response.completed",
            json!({"type": "response.completed", "response": first}),
        ),
    ]);
    let second_sse = sse(&[
        event(
            "response.created",
            json!({"type": "response.created", "response": response(json!([]))}),
        ),
        event(
            "response.output_text.delta",
            json!({"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": "Paris is sunny, "}),
        ),
        event(
            "response.output_text.delta",
            json!({"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": "and 2 + 2 = 4."}),
        ),
        event(
            "response.output_item.done",
            json!({"type": "response.output_item.done", "output_index": 0, "item": message}),
        ),
        event(
            "response.completed",
            json!({"type": "response.completed", "response": second}),
        ),
    ]);
    Wire {
        api: Api::OpenAiResponses,
        model: "gpt-4.1",
        first,
        second,
        first_sse,
        second_sse,
    }
}

fn anthropic() -> Wire {
    let message = |content: Value, stop: &str| {
        json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
               "content": content, "stop_reason": stop, "stop_sequence": null,
               "usage": {"input_tokens": 50, "output_tokens": 20}})
    };
    let first = message(
        json!([
            {"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {"city": "Paris"}},
            {"type": "tool_use", "id": "call_2", "name": "add", "input": {"a": 2, "b": 2}},
        ]),
        "tool_use",
    );
    let second = message(json!([{"type": "text", "text": ANSWER}]), "end_turn");
    let event = |name: &'static str, data: Value| (Some(name), data);
    let start = event(
        "message_start",
        json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant",
               "model": "claude-sonnet-4-5", "content": [], "stop_reason": null, "stop_sequence": null,
               "usage": {"input_tokens": 50, "output_tokens": 1}}}),
    );
    let delta = |index: u32, delta: Value| {
        event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": index, "delta": delta}),
        )
    };
    let block_start = |index: u32, block: Value| {
        event(
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": block}),
        )
    };
    let stop = |index: u32| {
        event(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        )
    };
    let end = |reason: &str| {
        event(
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": reason, "stop_sequence": null},
                                       "usage": {"output_tokens": 20}}),
        )
    };
    let message_stop = event("message_stop", json!({"type": "message_stop"}));
    let json_piece = |text: &str| json!({"type": "input_json_delta", "partial_json": text});
    let first_sse = sse(&[
        start.clone(),
        block_start(
            0,
            json!({"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {}}),
        ),
        delta(0, json_piece("{\"city\": ")),
        delta(0, json_piece("\"Paris\"}")),
        stop(0),
        block_start(
            1,
            json!({"type": "tool_use", "id": "call_2", "name": "add", "input": {}}),
        ),
        delta(1, json_piece("{\"a\": 2, \"b\": 2}")),
        stop(1),
        end("tool_use"),
        message_stop.clone(),
    ]);
    let second_sse = sse(&[
        start,
        block_start(0, json!({"type": "text", "text": ""})),
        delta(0, json!({"type": "text_delta", "text": "Paris is sunny, "})),
        delta(0, json!({"type": "text_delta", "text": "and 2 + 2 = 4."})),
        stop(0),
        end("end_turn"),
        message_stop,
    ]);
    Wire {
        api: Api::Anthropic,
        model: "claude-sonnet-4-5",
        first,
        second,
        first_sse,
        second_sse,
    }
}

fn gemini() -> Wire {
    let candidate = |parts: Value, finish: Option<&str>, usage: bool| {
        let mut body = json!({"candidates": [{"content": {"role": "model", "parts": parts}, "index": 0}],
                              "modelVersion": "gemini-2.5-flash"});
        if let Some(finish) = finish {
            body["candidates"][0]["finishReason"] = json!(finish);
        }
        if usage {
            body["usageMetadata"] =
                json!({"promptTokenCount": 50, "candidatesTokenCount": 20, "totalTokenCount": 70});
        }
        body
    };
    let weather = json!({"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}});
    let add = json!({"functionCall": {"name": "add", "args": {"a": 2, "b": 2}}});
    Wire {
        api: Api::Gemini,
        model: "gemini-2.5-flash",
        first: candidate(json!([weather, add]), Some("STOP"), true),
        second: candidate(json!([{"text": ANSWER}]), Some("STOP"), true),
        first_sse: sse(&[
            (None, candidate(json!([weather]), None, false)),
            (None, candidate(json!([add]), Some("STOP"), true)),
        ]),
        second_sse: sse(&[
            (
                None,
                candidate(json!([{"text": "Paris is sunny, "}]), None, false),
            ),
            (
                None,
                candidate(json!([{"text": "and 2 + 2 = 4."}]), Some("STOP"), true),
            ),
        ]),
    }
}
