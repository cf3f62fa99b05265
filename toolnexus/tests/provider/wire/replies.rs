//! Real-shaped replies of each API built from one [`Script`]: the whole response body, and
//! the server-sent events that stream the same reply (text and arguments cut where `cuts`
//! says, parallel Chat calls interleaved).

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use toolnexus::Api;

/// What one reply says, in no API's shape.
#[derive(Clone, Debug)]
pub struct Script {
    pub text: String,
    /// `(name, arguments object)`, in call order.
    pub calls: Vec<(String, Value)>,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Reasoning and its signature (Responses `encrypted_content`, Anthropic `signature`,
    /// Gemini `thoughtSignature`).
    pub thinking: Option<(String, String)>,
    /// Where text and arguments are cut into pieces (each taken modulo the length).
    pub cuts: Vec<usize>,
    /// The order the Chat calls' argument pieces are sent in (a seed per piece).
    pub interleave: Vec<usize>,
}

pub fn script() -> impl Strategy<Value = Script> {
    let text = "[a-zA-Z0-9 é😀\n\"\\\\.,{}]{0,40}";
    let argument = prop_oneof![
        any::<i32>().prop_map(Value::from),
        "[a-z é\"]{0,12}".prop_map(Value::from),
        any::<bool>().prop_map(Value::from),
    ];
    let arguments = prop::collection::btree_map("[a-z]{1,6}", argument, 0..4)
        .prop_map(|map| Value::Object(map.into_iter().collect::<Map<String, Value>>()));
    let name = prop::sample::select(vec!["get_weather", "add", "search_docs"]);
    let call = (name, arguments).prop_map(|(name, arguments)| (name.to_owned(), arguments));
    (
        text,
        prop::collection::vec(call, 0..4),
        0u64..100_000,
        0u64..100_000,
        prop::option::of(("[a-zA-Z .]{0,30}", "[A-Za-z0-9+/=]{1,24}")),
        prop::collection::vec(0usize..1000, 0..8),
        prop::collection::vec(0usize..1000, 0..24),
    )
        .prop_map(
            |(text, calls, input_tokens, output_tokens, thinking, cuts, interleave)| Script {
                text,
                calls,
                input_tokens,
                output_tokens,
                thinking,
                cuts,
                interleave,
            },
        )
}

impl Script {
    fn call_id(&self, api: Api, at: usize) -> String {
        match api {
            Api::OpenAiChat => format!("call_{at}abc"),
            Api::OpenAiResponses => format!("call_r{at}"),
            Api::Anthropic => format!("toolu_0{at}"),
            Api::Gemini => format!("call_{at}"),
        }
    }

    /// `text` cut into pieces at the script's cuts (on character boundaries; none empty).
    fn pieces(&self, text: &str) -> Vec<String> {
        let bounds: Vec<usize> = text.char_indices().map(|(at, _)| at).skip(1).collect();
        let mut cuts: Vec<usize> = if bounds.is_empty() {
            Vec::new()
        } else {
            self.cuts
                .iter()
                .map(|cut| bounds[cut % bounds.len()])
                .collect()
        };
        cuts.sort_unstable();
        cuts.dedup();
        let mut pieces = Vec::new();
        let mut from = 0;
        for cut in cuts.into_iter().chain([text.len()]) {
            if cut > from {
                pieces.push(text[from..cut].to_owned());
                from = cut;
            }
        }
        pieces
    }

    fn finish_reason(&self, api: Api) -> &'static str {
        let calls = !self.calls.is_empty();
        match api {
            Api::OpenAiChat if calls => "tool_calls",
            Api::OpenAiChat => "stop",
            Api::OpenAiResponses => "completed",
            Api::Anthropic if calls => "tool_use",
            Api::Anthropic => "end_turn",
            Api::Gemini => "STOP",
        }
    }

    /// The whole (unstreamed) response body.
    pub fn whole(&self, api: Api) -> Value {
        match api {
            Api::OpenAiChat => self.chat_whole(),
            Api::OpenAiResponses => self.responses_whole("completed", self.output_items()),
            Api::Anthropic => self.anthropic_message(
                self.anthropic_blocks(),
                self.finish_reason(api),
                self.output_tokens,
            ),
            Api::Gemini => self.gemini_whole(),
        }
    }

    /// The same reply as the API streams it: the SSE text of its events.
    pub fn streamed(&self, api: Api) -> String {
        let events = match api {
            Api::OpenAiChat => self.chat_events(),
            Api::OpenAiResponses => self.responses_events(),
            Api::Anthropic => self.anthropic_events(),
            Api::Gemini => self.gemini_events(),
        };
        events
            .into_iter()
            .map(|(name, data)| match name {
                Some(name) => format!("event: {name}\ndata: {data}\n\n"),
                None => format!("data: {data}\n\n"),
            })
            .collect()
    }

    /// The streamed events as JSON data (for the SDK corpus), `[DONE]` left out.
    pub fn stream_events(&self, api: Api) -> Vec<Value> {
        let events = match api {
            Api::OpenAiChat => self.chat_events(),
            Api::OpenAiResponses => self.responses_events(),
            Api::Anthropic => self.anthropic_events(),
            Api::Gemini => self.gemini_events(),
        };
        events
            .into_iter()
            .filter_map(|(_, data)| serde_json::from_str(&data).ok())
            .collect()
    }

    fn chat_whole(&self) -> Value {
        let mut message = json!({"role": "assistant", "content": if self.text.is_empty() { Value::Null } else { self.text.clone().into() }, "refusal": null});
        if !self.calls.is_empty() {
            let calls: Vec<Value> = self
                .calls
                .iter()
                .enumerate()
                .map(|(at, (name, arguments))| {
                    json!({
                        "id": self.call_id(Api::OpenAiChat, at), "type": "function",
                        "function": {"name": name, "arguments": arguments.to_string()},
                    })
                })
                .collect();
            message["tool_calls"] = calls.into();
        }
        json!({
            "id": "chatcmpl-1", "object": "chat.completion", "created": 1_700_000_000, "model": "gpt-4.1",
            "choices": [{"index": 0, "message": message, "finish_reason": self.finish_reason(Api::OpenAiChat), "logprobs": null}],
            "usage": self.chat_usage(),
        })
    }

    fn chat_usage(&self) -> Value {
        json!({"prompt_tokens": self.input_tokens, "completion_tokens": self.output_tokens,
               "total_tokens": self.input_tokens + self.output_tokens})
    }

    fn chat_chunk(&self, delta: Value, finish: Option<&str>) -> (Option<String>, String) {
        let chunk = json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1_700_000_000,
            "model": "gpt-4.1", "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": null}]});
        (None, chunk.to_string())
    }

    fn chat_events(&self) -> Vec<(Option<String>, String)> {
        let mut events = vec![self.chat_chunk(json!({"role": "assistant", "content": ""}), None)];
        for piece in self.pieces(&self.text) {
            events.push(self.chat_chunk(json!({"content": piece}), None));
        }
        // Each call's pieces in order (the first with its id and name), calls interleaved.
        let mut queues: Vec<Vec<Value>> = self
            .calls
            .iter()
            .enumerate()
            .map(|(at, (name, arguments))| {
                let mut queue = vec![
                    json!({"index": at, "id": self.call_id(Api::OpenAiChat, at), "type": "function",
                "function": {"name": name, "arguments": ""}}),
                ];
                queue.extend(
                    self.pieces(&arguments.to_string())
                        .into_iter()
                        .map(|piece| json!({"index": at, "function": {"arguments": piece}})),
                );
                queue.reverse();
                queue
            })
            .collect();
        let mut seeds = self.interleave.iter().cycle();
        while queues.iter().any(|queue| !queue.is_empty()) {
            let open: Vec<usize> = (0..queues.len())
                .filter(|&at| !queues[at].is_empty())
                .collect();
            let pick = open[seeds.next().copied().unwrap_or(0) % open.len()];
            let piece = queues[pick].pop().unwrap();
            events.push(self.chat_chunk(json!({"tool_calls": [piece]}), None));
        }
        events.push(self.chat_chunk(json!({}), Some(self.finish_reason(Api::OpenAiChat))));
        let usage = json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1_700_000_000,
            "model": "gpt-4.1", "choices": [], "usage": self.chat_usage()});
        events.push((None, usage.to_string()));
        events.push((None, "[DONE]".to_owned()));
        events
    }

    fn output_items(&self) -> Vec<Value> {
        let mut items = Vec::new();
        if let Some((thinking, signature)) = &self.thinking {
            items.push(json!({"type": "reasoning", "id": "rs_1",
                "summary": [{"type": "summary_text", "text": thinking}], "encrypted_content": signature}));
        }
        if !self.text.is_empty() {
            items.push(
                json!({"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
                "content": [{"type": "output_text", "text": self.text, "annotations": []}]}),
            );
        }
        for (at, (name, arguments)) in self.calls.iter().enumerate() {
            items.push(json!({"type": "function_call", "id": format!("fc_{at}"), "call_id": self.call_id(Api::OpenAiResponses, at),
                "name": name, "arguments": arguments.to_string(), "status": "completed"}));
        }
        items
    }

    fn responses_whole(&self, status: &str, output: Vec<Value>) -> Value {
        json!({
            "id": "resp_1", "object": "response", "created_at": 1_700_000_000, "status": status,
            "model": "gpt-5", "output": output, "parallel_tool_calls": true, "tool_choice": "auto",
            "tools": [], "error": null, "incomplete_details": null, "instructions": null, "metadata": {},
            "temperature": 1.0, "top_p": 1.0,
            "usage": {"input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
                "total_tokens": self.input_tokens + self.output_tokens,
                "input_tokens_details": {"cached_tokens": 0}, "output_tokens_details": {"reasoning_tokens": 0}},
        })
    }

    fn responses_events(&self) -> Vec<(Option<String>, String)> {
        let mut events = Vec::new();
        let mut push = |mut event: Value| {
            event["sequence_number"] = events.len().into();
            let name = event["type"].as_str().unwrap().to_owned();
            events.push((Some(name), event.to_string()));
        };
        let mut created = self.responses_whole("in_progress", Vec::new());
        created["usage"] = Value::Null;
        push(json!({"type": "response.created", "response": created}));
        for (at, item) in self.output_items().into_iter().enumerate() {
            let mut added = item.clone();
            match item["type"].as_str().unwrap() {
                "message" => {
                    added["content"] = json!([]);
                    added["status"] = "in_progress".into();
                    push(
                        json!({"type": "response.output_item.added", "output_index": at, "item": added}),
                    );
                    push(
                        json!({"type": "response.content_part.added", "item_id": "msg_1", "output_index": at,
                        "content_index": 0, "part": {"type": "output_text", "text": "", "annotations": []}}),
                    );
                    for piece in self.pieces(&self.text) {
                        push(
                            json!({"type": "response.output_text.delta", "item_id": "msg_1", "output_index": at,
                            "content_index": 0, "delta": piece, "logprobs": []}),
                        );
                    }
                    push(
                        json!({"type": "response.output_text.done", "item_id": "msg_1", "output_index": at,
                        "content_index": 0, "text": self.text, "logprobs": []}),
                    );
                }
                "function_call" => {
                    added["arguments"] = "".into();
                    added["status"] = "in_progress".into();
                    push(
                        json!({"type": "response.output_item.added", "output_index": at, "item": added}),
                    );
                    for piece in self.pieces(item["arguments"].as_str().unwrap()) {
                        push(
                            json!({"type": "response.function_call_arguments.delta", "item_id": item["id"],
                            "output_index": at, "delta": piece}),
                        );
                    }
                }
                _ => push(
                    json!({"type": "response.output_item.added", "output_index": at, "item": added}),
                ),
            }
            push(json!({"type": "response.output_item.done", "output_index": at, "item": item}));
        }
        push(
            json!({"type": "response.completed", "response": self.responses_whole("completed", self.output_items())}),
        );
        events
    }

    fn anthropic_blocks(&self) -> Vec<Value> {
        let mut blocks = Vec::new();
        if let Some((thinking, signature)) = &self.thinking {
            blocks.push(json!({"type": "thinking", "thinking": thinking, "signature": signature}));
        }
        if !self.text.is_empty() {
            blocks.push(json!({"type": "text", "text": self.text}));
        }
        for (at, (name, arguments)) in self.calls.iter().enumerate() {
            blocks.push(json!({"type": "tool_use", "id": self.call_id(Api::Anthropic, at), "name": name, "input": arguments}));
        }
        blocks
    }

    fn anthropic_message(&self, content: Vec<Value>, stop: impl Into<Value>, output: u64) -> Value {
        json!({"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": content, "stop_reason": stop.into(), "stop_sequence": null,
            "usage": {"input_tokens": self.input_tokens, "output_tokens": output}})
    }

    fn anthropic_events(&self) -> Vec<(Option<String>, String)> {
        let mut events = Vec::new();
        let mut push = |event: Value| {
            events.push((
                Some(event["type"].as_str().unwrap().to_owned()),
                event.to_string(),
            ));
        };
        push(
            json!({"type": "message_start", "message": self.anthropic_message(Vec::new(), Value::Null, 1)}),
        );
        push(json!({"type": "ping"}));
        for (at, block) in self.anthropic_blocks().into_iter().enumerate() {
            let (start, deltas): (Value, Vec<Value>) = match block["type"].as_str().unwrap() {
                "thinking" => (
                    json!({"type": "thinking", "thinking": "", "signature": ""}),
                    self.pieces(block["thinking"].as_str().unwrap())
                        .into_iter()
                        .map(|piece| json!({"type": "thinking_delta", "thinking": piece}))
                        .chain([
                            json!({"type": "signature_delta", "signature": block["signature"]}),
                        ])
                        .collect(),
                ),
                "text" => (
                    json!({"type": "text", "text": ""}),
                    self.pieces(&self.text)
                        .into_iter()
                        .map(|piece| json!({"type": "text_delta", "text": piece}))
                        .collect(),
                ),
                _ => (
                    json!({"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}),
                    self.pieces(&block["input"].to_string())
                        .into_iter()
                        .map(|piece| json!({"type": "input_json_delta", "partial_json": piece}))
                        .collect(),
                ),
            };
            push(json!({"type": "content_block_start", "index": at, "content_block": start}));
            for delta in deltas {
                push(json!({"type": "content_block_delta", "index": at, "delta": delta}));
            }
            push(json!({"type": "content_block_stop", "index": at}));
        }
        push(
            json!({"type": "message_delta", "delta": {"stop_reason": self.finish_reason(Api::Anthropic), "stop_sequence": null},
            "usage": {"output_tokens": self.output_tokens}}),
        );
        push(json!({"type": "message_stop"}));
        events
    }

    /// The model's parts: the text (with the signature when there is no call), then the calls
    /// (the first with the signature).
    fn gemini_parts(&self) -> Vec<Value> {
        let signature = self
            .thinking
            .as_ref()
            .map(|(_, signature)| signature.clone());
        let mut parts = Vec::new();
        if !self.text.is_empty() || (signature.is_some() && self.calls.is_empty()) {
            let mut part = json!({"text": self.text});
            if let (Some(signature), true) = (&signature, self.calls.is_empty()) {
                part["thoughtSignature"] = signature.clone().into();
            }
            parts.push(part);
        }
        for (at, (name, arguments)) in self.calls.iter().enumerate() {
            let mut part = json!({"functionCall": {"name": name, "args": arguments}});
            if let (Some(signature), 0) = (&signature, at) {
                part["thoughtSignature"] = signature.clone().into();
            }
            parts.push(part);
        }
        parts
    }

    fn gemini_usage(&self) -> Value {
        json!({"promptTokenCount": self.input_tokens, "candidatesTokenCount": self.output_tokens,
               "totalTokenCount": self.input_tokens + self.output_tokens})
    }

    fn gemini_whole(&self) -> Value {
        json!({"candidates": [{"content": {"role": "model", "parts": self.gemini_parts()}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": self.gemini_usage(), "modelVersion": "gemini-2.5-flash", "responseId": "r1"})
    }

    fn gemini_events(&self) -> Vec<(Option<String>, String)> {
        let chunk = |parts: Vec<Value>, last: bool| {
            let mut candidate = json!({"content": {"role": "model", "parts": parts}, "index": 0});
            let mut usage = json!({"promptTokenCount": self.input_tokens});
            if last {
                candidate["finishReason"] = "STOP".into();
                usage = self.gemini_usage();
            }
            let chunk = json!({"candidates": [candidate], "usageMetadata": usage,
                "modelVersion": "gemini-2.5-flash", "responseId": "r1"});
            (None, chunk.to_string())
        };
        let mut events = Vec::new();
        let mut parts = self.gemini_parts().into_iter().peekable();
        if parts.peek().is_some_and(|part| part.get("text").is_some()) {
            let whole = parts.next().unwrap();
            for piece in self.pieces(&self.text) {
                events.push(chunk(vec![json!({"text": piece})], false));
            }
            if let Some(signature) = whole.get("thoughtSignature") {
                events.push(chunk(
                    vec![json!({"text": "", "thoughtSignature": signature})],
                    false,
                ));
            }
        }
        // Calls come whole, two to a chunk; the last chunk has the finish reason.
        let calls: Vec<Value> = parts.collect();
        for pair in calls.chunks(2) {
            events.push(chunk(pair.to_vec(), false));
        }
        events.push(chunk(Vec::new(), true));
        events
    }
}
