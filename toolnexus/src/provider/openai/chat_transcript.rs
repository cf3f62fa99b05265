//! OpenAI Chat Completions: a transcript as `messages`, a reply read back, and a streamed
//! reply's `chat.completion.chunk`s assembled into the whole body.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::client::message::Message;
use crate::client::message::Usage;
use crate::client::model::{AnswerSchema, ModelEvent, Reply};
use crate::provider::rendering::WireIds;
use crate::provider::tool_call::{Api, Reader, ResponseError, ToolCall};
use crate::provider::{Style, encode_or_placeholder, text_block};

/// `messages`: system messages where they stand, user parts as content blocks, assistant
/// `tool_calls`, and [`tool_results`](crate::tool_results)' `tool` messages.
pub(crate) fn render(messages: &[Message], body: &mut Map<String, Value>) {
    let mut ids = WireIds::new(Api::OpenAiChat);
    let mut out = Vec::new();
    for message in messages {
        match message {
            Message::System { text } => out.push(json!({"role": "system", "content": text})),
            Message::User { text, parts } if parts.is_empty() => {
                out.push(json!({"role": "user", "content": text}));
            }
            Message::User { text, parts } => {
                let mut content: Vec<Value> = Vec::new();
                if !text.is_empty() {
                    content.push(text_block(text));
                }
                content.extend(
                    parts
                        .iter()
                        .map(|part| encode_or_placeholder(part, Style::OpenAi)),
                );
                out.push(json!({"role": "user", "content": content}));
            }
            Message::Assistant {
                text, tool_calls, ..
            } => {
                if text.is_empty() && tool_calls.is_empty() {
                    continue;
                }
                let mut entry = Map::new();
                entry.insert("role".to_owned(), "assistant".into());
                if !text.is_empty() {
                    entry.insert("content".to_owned(), text.as_str().into());
                }
                let calls = ids.calls(tool_calls, false);
                if !calls.is_empty() {
                    let calls = calls.iter().map(|call| {
                        let arguments = if call.arguments.is_empty() {
                            "{}"
                        } else {
                            &call.arguments
                        };
                        json!({"id": call.id, "type": "function",
                               "function": {"name": call.name, "arguments": arguments}})
                    });
                    entry.insert("tool_calls".to_owned(), calls.collect());
                }
                out.push(Value::Object(entry));
            }
            Message::Tool { results } => out.extend(ids.results(results)),
        }
    }
    body.insert("messages".to_owned(), Value::Array(out));
}

/// The text, finish reason and usage of a whole response (the calls are read by
/// [`chat_calls`](super::chat_calls)).
pub(crate) fn read(body: &Reader<'_>) -> Result<Reply, ResponseError> {
    body.required_object()?;
    let choices = body.key("choices");
    let choice = choices.first()?;
    let message = choice.key("message");
    let text = message
        .key("content")
        .optional_string()?
        .unwrap_or_default();
    let usage = body.key("usage");
    usage.object()?;
    Ok(Reply {
        text: text.to_owned(),
        usage: Usage {
            input_tokens: usage.key("prompt_tokens").count()?,
            output_tokens: usage.key("completion_tokens").count()?,
        },
        finish_reason: choice
            .key("finish_reason")
            .optional_string()?
            .map(str::to_owned),
        ..Reply::default()
    })
}

/// A streamed reply being assembled: `choices[0].delta`s, tool calls by `index` (their id
/// and name in the first piece, arguments in many), usage from the last chunk, until
/// `[DONE]`.
#[derive(Default)]
pub(crate) struct ChatStream {
    text: String,
    calls: BTreeMap<u64, Map<String, Value>>,
    sent_calls: usize,
    finish_reason: Option<Value>,
    usage: Option<Value>,
    done: bool,
}

impl ChatStream {
    pub(crate) fn push(&mut self, data: &str) -> Result<Vec<ModelEvent>, ResponseError> {
        if self.done {
            return Err(ResponseError::stream(
                Api::OpenAiChat,
                "an event after `[DONE]`",
            ));
        }
        if data.trim() == "[DONE]" {
            self.done = true;
            return self.completed_calls();
        }
        let chunk = crate::provider::sse::json_event(Api::OpenAiChat, data)?;
        let reader = Reader::root(Api::OpenAiChat, &chunk);
        reader.required_object()?;
        if let Some(usage) = reader.key("usage").object()? {
            self.usage = Some(Value::Object(usage.clone()));
        }
        let mut events = Vec::new();
        for choice in reader.key("choices").items()? {
            choice.required_object()?;
            let delta = choice.key("delta");
            delta.object()?;
            if let Some(text) = delta.key("content").optional_string()? {
                if !text.is_empty() {
                    self.text.push_str(text);
                    events.push(ModelEvent::Text(text.to_owned()));
                }
            }
            for piece in delta.key("tool_calls").items()? {
                self.add_call_piece(&piece)?;
            }
            if let Some(reason) = choice.key("finish_reason").optional_string()? {
                self.finish_reason = Some(reason.into());
                events.extend(self.completed_calls()?);
            }
        }
        Ok(events)
    }

    /// Merges one `tool_calls[i]` piece into the call of its `index`.
    fn add_call_piece(&mut self, piece: &Reader<'_>) -> Result<(), ResponseError> {
        piece.required_object()?;
        let index = piece.key("index");
        let Some(at) = index.value().and_then(Value::as_u64) else {
            return Err(index.error("an index", index.value()));
        };
        let call = self.calls.entry(at).or_default();
        for key in ["id", "type"] {
            if let Some(value) = piece.key(key).optional_string()? {
                call.insert(key.to_owned(), value.into());
            }
        }
        let function = piece.key("function");
        if function.object()?.is_some() {
            let target = call
                .entry("function")
                .or_insert_with(|| json!({"arguments": ""}));
            if let Some(name) = function.key("name").optional_string()? {
                target["name"] = name.into();
            }
            if let Some(more) = function.key("arguments").optional_string()? {
                if let Some(Value::String(arguments)) = target.get_mut("arguments") {
                    arguments.push_str(more);
                }
            }
        }
        Ok(())
    }

    /// The calls not yet yielded, once the reply says it is finished.
    fn completed_calls(&mut self) -> Result<Vec<ModelEvent>, ResponseError> {
        let body = self.body();
        let calls = crate::provider::turn::tool_calls(Api::OpenAiChat, &body)?;
        let fresh: Vec<ToolCall> = calls.into_iter().skip(self.sent_calls).collect();
        self.sent_calls += fresh.len();
        Ok(fresh.into_iter().map(ModelEvent::ToolCall).collect())
    }

    /// The whole response body the chunks add up to.
    fn body(&self) -> Value {
        let mut message = Map::new();
        message.insert("role".to_owned(), "assistant".into());
        message.insert(
            "content".to_owned(),
            if self.text.is_empty() {
                Value::Null
            } else {
                self.text.clone().into()
            },
        );
        if !self.calls.is_empty() {
            let calls = self.calls.values().cloned().map(Value::Object).collect();
            message.insert("tool_calls".to_owned(), Value::Array(calls));
        }
        json!({
            "choices": [{
                "index": 0,
                "message": message,
                "finish_reason": self.finish_reason.clone().unwrap_or(Value::Null),
            }],
            "usage": self.usage.clone().unwrap_or(Value::Null),
        })
    }

    pub(crate) fn finish(self) -> Result<Value, ResponseError> {
        if !self.done {
            return Err(ResponseError::stream(
                Api::OpenAiChat,
                "the stream ended before `[DONE]` (truncated)",
            ));
        }
        Ok(self.body())
    }
}

/// Asks for a final answer in `answer`'s schema (SPEC §16B): `response_format` with the
/// strict schema.
pub(crate) fn ask_answer(answer: &AnswerSchema, body: &mut Map<String, Value>) {
    body.insert(
        "response_format".to_owned(),
        json!({
            "type": "json_schema",
            "json_schema": {"name": answer.name, "schema": answer.schema, "strict": true},
        }),
    );
}
