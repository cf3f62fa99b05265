//! Anthropic Messages: a transcript as `system` and `messages`, a reply read back (with its
//! thinking blocks kept for the echo), and a streamed reply's events assembled into the
//! whole message.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::client::message::{Echo, Message, Usage};
use crate::client::model::{AnswerSchema, ModelEvent, Reply};
use crate::provider::rendering::{WireIds, arguments_object, joined_system};
use crate::provider::sse::{error_event, json_event};
use crate::provider::tool_call::{Api, Reader, ResponseError, ToolCall};
use crate::provider::{Style, encode_or_placeholder, text_block};

/// `system` (every system text) and `messages`: user parts as content blocks, an assistant
/// message as its echoed blocks or as text and `tool_use` blocks, results through
/// [`tool_results`](crate::tool_results). Anthropic gets `max_tokens: 4096`.
pub(crate) fn render(messages: &[Message], body: &mut Map<String, Value>) {
    body.insert("max_tokens".to_owned(), 4096.into());
    if let Some(system) = joined_system(messages) {
        body.insert("system".to_owned(), system.into());
    }
    let mut ids = WireIds::new(Api::Anthropic);
    let mut out = Vec::new();
    for message in messages {
        match message {
            Message::System { .. } => {}
            Message::User { text, parts } if parts.is_empty() => {
                out.push(json!({"role": "user", "content": text}));
            }
            Message::User { text, parts } => {
                let mut content = Vec::new();
                if !text.is_empty() {
                    content.push(text_block(text));
                }
                content.extend(
                    parts
                        .iter()
                        .map(|part| encode_or_placeholder(part, Style::Anthropic)),
                );
                out.push(json!({"role": "user", "content": content}));
            }
            Message::Assistant {
                tool_calls,
                echo: Some(echo),
                ..
            } if echo.api == Api::Anthropic => {
                ids.calls(tool_calls, true);
                out.push(json!({"role": "assistant", "content": echo.items}));
            }
            Message::Assistant {
                text, tool_calls, ..
            } => {
                let mut content = Vec::new();
                if !text.is_empty() {
                    content.push(text_block(text));
                }
                content.extend(ids.calls(tool_calls, false).into_iter().map(tool_use));
                if !content.is_empty() {
                    out.push(json!({"role": "assistant", "content": content}));
                }
            }
            Message::Tool { results } => out.extend(ids.results(results)),
        }
    }
    body.insert("messages".to_owned(), Value::Array(out));
}

fn tool_use(call: ToolCall) -> Value {
    json!({"type": "tool_use", "id": call.id, "name": call.name,
           "input": arguments_object(&call.arguments)})
}

/// The text, stop reason, usage and echo of a whole message (the calls are read by
/// [`tool_use`](super::tool_use)).
pub(crate) fn read(body: &Reader<'_>) -> Result<Reply, ResponseError> {
    body.required_object()?;
    let mut text = String::new();
    let mut echo = false;
    for block in body.key("content").items()? {
        if block.is_type("text")? {
            text.push_str(block.key("text").string()?);
        } else if !block.is_type("tool_use")? {
            echo = true;
        }
    }
    let usage = body.key("usage");
    usage.object()?;
    Ok(Reply {
        text,
        usage: Usage {
            input_tokens: usage.key("input_tokens").count()?,
            output_tokens: usage.key("output_tokens").count()?,
        },
        finish_reason: body
            .key("stop_reason")
            .optional_string()?
            .map(str::to_owned),
        echo: echo.then(|| Echo {
            api: Api::Anthropic,
            items: body
                .key("content")
                .value()
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
        }),
        ..Reply::default()
    })
}

/// A streamed message being assembled: the `message_start` message, its content blocks by
/// index (a `tool_use` block's input JSON gathered until its `content_block_stop`), the
/// `message_delta` stop reason and usage, until `message_stop`.
#[derive(Default)]
pub(crate) struct AnthropicStream {
    message: Option<Map<String, Value>>,
    blocks: BTreeMap<u64, Map<String, Value>>,
    partial_json: BTreeMap<u64, String>,
    stopped: bool,
}

impl AnthropicStream {
    pub(crate) fn push(&mut self, data: &str) -> Result<Vec<ModelEvent>, ResponseError> {
        let api = Api::Anthropic;
        if self.stopped {
            return Err(ResponseError::stream(api, "an event after `message_stop`"));
        }
        let event = json_event(api, data)?;
        let reader = Reader::root(api, &event);
        reader.required_object()?;
        let kind = reader.key("type").string()?;
        if kind != "message_start" && kind != "ping" && kind != "error" && self.message.is_none() {
            return Err(ResponseError::stream(
                api,
                format!("`{kind}` before `message_start`"),
            ));
        }
        match kind {
            "message_start" => {
                let message = reader.key("message");
                self.message = Some(message.required_object()?.clone());
            }
            "content_block_start" => {
                let block = reader.key("content_block");
                self.blocks
                    .insert(index(&reader)?, block.required_object()?.clone());
            }
            "content_block_delta" => return self.delta(&reader),
            "content_block_stop" => return self.stop_block(&reader),
            "message_delta" => self.message_delta(&reader)?,
            "message_stop" => self.stopped = true,
            "error" => return Err(error_event(api, data)),
            _ => {}
        }
        Ok(Vec::new())
    }

    fn delta(&mut self, reader: &Reader<'_>) -> Result<Vec<ModelEvent>, ResponseError> {
        let at = index(reader)?;
        let delta = reader.key("delta");
        delta.required_object()?;
        let Some(block) = self.blocks.get_mut(&at) else {
            return Err(reader
                .key("index")
                .error("the index of a started block", None));
        };
        let (key, piece) = match delta.key("type").string()? {
            "text_delta" => ("text", delta.key("text").string()?),
            "thinking_delta" => ("thinking", delta.key("thinking").string()?),
            "signature_delta" => ("signature", delta.key("signature").string()?),
            "input_json_delta" => {
                let piece = delta.key("partial_json").string()?;
                self.partial_json.entry(at).or_default().push_str(piece);
                return Ok(Vec::new());
            }
            _ => return Ok(Vec::new()),
        };
        match block.entry(key).or_insert_with(|| "".into()) {
            Value::String(text) => text.push_str(piece),
            other => *other = piece.into(),
        }
        Ok(if key == "text" {
            vec![ModelEvent::Text(piece.to_owned())]
        } else {
            Vec::new()
        })
    }

    /// A block is complete: a `tool_use` block gets its gathered input and is yielded.
    fn stop_block(&mut self, reader: &Reader<'_>) -> Result<Vec<ModelEvent>, ResponseError> {
        let at = index(reader)?;
        let Some(block) = self.blocks.get_mut(&at) else {
            return Err(reader
                .key("index")
                .error("the index of a started block", None));
        };
        if let Some(json) = self.partial_json.remove(&at) {
            let input = if json.trim().is_empty() {
                json!({})
            } else {
                serde_json::from_str(&json).map_err(|error| {
                    ResponseError::stream(
                        Api::Anthropic,
                        format!("block {at}'s streamed input is not JSON ({error})"),
                    )
                })?
            };
            block.insert("input".to_owned(), input);
        }
        if block.get("type") != Some(&Value::from("tool_use")) {
            return Ok(Vec::new());
        }
        let one = json!({"content": [block]});
        let calls = crate::provider::turn::tool_calls(Api::Anthropic, &one)?;
        Ok(calls.into_iter().map(ModelEvent::ToolCall).collect())
    }

    fn message_delta(&mut self, reader: &Reader<'_>) -> Result<(), ResponseError> {
        let Some(message) = self.message.as_mut() else {
            return Ok(());
        };
        if let Some(delta) = reader.key("delta").object()? {
            for (key, value) in delta {
                message.insert(key.clone(), value.clone());
            }
        }
        if let Some(usage) = reader.key("usage").object()? {
            let target = message.entry("usage").or_insert_with(|| json!({}));
            for (key, value) in usage.iter().filter(|(_, value)| !value.is_null()) {
                if let Some(target) = target.as_object_mut() {
                    target.insert(key.clone(), value.clone());
                }
            }
        }
        Ok(())
    }

    pub(crate) fn finish(self) -> Result<Value, ResponseError> {
        let (Some(mut message), true) = (self.message, self.stopped) else {
            return Err(ResponseError::stream(
                Api::Anthropic,
                "the stream ended before `message_stop` (truncated)",
            ));
        };
        let blocks = self.blocks.into_values().map(Value::Object).collect();
        message.insert("content".to_owned(), Value::Array(blocks));
        Ok(Value::Object(message))
    }
}

/// The event's `index`.
fn index(reader: &Reader<'_>) -> Result<u64, ResponseError> {
    let index = reader.key("index");
    index
        .value()
        .and_then(Value::as_u64)
        .ok_or_else(|| index.error("an index", index.value()))
}

/// Asks for a final answer in `answer`'s schema (SPEC §16B): a tool whose input is the answer,
/// after the others, and a `tool_choice` that makes every turn call exactly one tool — so the
/// answer comes as that tool's input, never as text, and never beside another call.
pub(crate) fn ask_answer(answer: &AnswerSchema, body: &mut Map<String, Value>) {
    let tool = json!({
        "name": answer.name,
        "description": "Gives your final answer: call it once you have everything you need; \
                        its input is the answer.",
        "input_schema": answer.schema,
    });
    match body.get_mut("tools") {
        Some(Value::Array(tools)) => tools.push(tool),
        _ => {
            body.insert("tools".to_owned(), Value::Array(vec![tool]));
        }
    }
    body.insert(
        "tool_choice".to_owned(),
        json!({"type": "any", "disable_parallel_tool_use": true}),
    );
}
