//! OpenAI Responses: a transcript as `instructions` and `input` items, a reply read back
//! (with its reasoning items kept for the echo), and a streamed reply's events.

use serde_json::{Map, Value, json};

use super::responses::{input_text, output_item};
use crate::client::message::{Echo, Message, Usage};
use crate::client::model::{AnswerSchema, ModelEvent, Reply};
use crate::provider::rendering::WireIds;
use crate::provider::sse::{error_event, json_event};
use crate::provider::tool_call::{Api, Reader, ResponseError};
use crate::provider::unsupported_placeholder;
use crate::result::part::ContentPart;

/// `instructions` (the first system message) and `input`: the other system messages as
/// `system` items, user parts as `input_image`/`input_file`, an assistant message as its
/// echoed output items or as a message and `function_call` items, results through
/// [`tool_results`](crate::tool_results).
pub(crate) fn render(messages: &[Message], body: &mut Map<String, Value>) {
    let mut ids = WireIds::new(Api::OpenAiResponses);
    let mut input = Vec::new();
    let mut instructions = None;
    for message in messages {
        match message {
            Message::System { text } if instructions.is_none() => instructions = Some(text),
            Message::System { text } => input.push(json!({"role": "system", "content": text})),
            Message::User { text, parts } if parts.is_empty() => {
                input.push(json!({"role": "user", "content": text}));
            }
            Message::User { text, parts } => {
                let mut content = Vec::new();
                if !text.is_empty() {
                    content.push(input_text(text));
                }
                content.extend(parts.iter().map(user_part));
                input.push(json!({"role": "user", "content": content}));
            }
            Message::Assistant {
                tool_calls,
                echo: Some(echo),
                ..
            } if echo.api == Api::OpenAiResponses => {
                ids.calls(tool_calls, true);
                input.extend(echo.items.iter().cloned());
            }
            Message::Assistant {
                text, tool_calls, ..
            } => {
                if !text.is_empty() {
                    input.push(json!({"role": "assistant", "content": text}));
                }
                for call in ids.calls(tool_calls, false) {
                    input.push(json!({
                        "type": "function_call",
                        "call_id": call.id,
                        "name": call.name,
                        "arguments": if call.arguments.is_empty() { "{}" } else { &call.arguments },
                    }));
                }
            }
            Message::Tool { results } => input.extend(ids.results(results)),
        }
    }
    if let Some(instructions) = instructions {
        body.insert("instructions".to_owned(), instructions.as_str().into());
    }
    body.insert("input".to_owned(), Value::Array(input));
}

/// A user part as a message's content item: a function call's output item, where an image
/// also needs its `detail` (required in a message, not in an output); a part Responses
/// cannot take as its placeholder text.
fn user_part(part: &ContentPart) -> Value {
    let mut item = output_item(part).unwrap_or_else(|| input_text(&unsupported_placeholder(part)));
    if item["type"] == "input_image" {
        item["detail"] = "auto".into();
    }
    item
}

/// The text, finish reason, usage and echo of a whole response (the calls are read by
/// [`responses`](super::responses)).
pub(crate) fn read(body: &Reader<'_>) -> Result<Reply, ResponseError> {
    body.required_object()?;
    let mut text = String::new();
    let mut echo = false;
    for item in body.key("output").items()? {
        if item.is_type("message")? {
            for part in item.key("content").items()? {
                if part.is_type("output_text")? {
                    text.push_str(part.key("text").string()?);
                }
            }
        } else if !item.is_type("function_call")? {
            echo = true;
        }
    }
    let usage = body.key("usage");
    usage.object()?;
    let incomplete = body.key("incomplete_details");
    incomplete.object()?;
    let finish_reason = match incomplete.key("reason").optional_string()? {
        Some(reason) => Some(reason),
        None => body.key("status").optional_string()?,
    };
    Ok(Reply {
        text,
        usage: Usage {
            input_tokens: usage.key("input_tokens").count()?,
            output_tokens: usage.key("output_tokens").count()?,
        },
        finish_reason: finish_reason.map(str::to_owned),
        echo: echo.then(|| Echo {
            api: Api::OpenAiResponses,
            items: body
                .key("output")
                .value()
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
        }),
        ..Reply::default()
    })
}

/// A streamed reply: text deltas and finished function-call items as they come; the
/// `response.completed` (or `response.incomplete`) event's whole response is the reply.
#[derive(Default)]
pub(crate) struct ResponsesStream {
    response: Option<Value>,
}

impl ResponsesStream {
    pub(crate) fn push(&mut self, data: &str) -> Result<Vec<ModelEvent>, ResponseError> {
        let api = Api::OpenAiResponses;
        if self.response.is_some() {
            return Err(ResponseError::stream(
                api,
                "an event after the response ended",
            ));
        }
        let event = json_event(api, data)?;
        let reader = Reader::root(api, &event);
        reader.required_object()?;
        match reader.key("type").string()? {
            "response.output_text.delta" => {
                let delta = reader.key("delta").string()?;
                Ok(vec![ModelEvent::Text(delta.to_owned())])
            }
            "response.output_item.done" => {
                let item = reader.key("item");
                item.required_object()?;
                // The item read as a one-item response, so a call is read as `tool_calls` reads it.
                let one = json!({"output": [item.value()]});
                let calls = crate::provider::turn::tool_calls(api, &one)?;
                Ok(calls.into_iter().map(ModelEvent::ToolCall).collect())
            }
            "response.completed" | "response.incomplete" => {
                let response = reader.key("response");
                response.required_object()?;
                self.response = response.value().cloned();
                Ok(Vec::new())
            }
            "response.failed" | "error" => Err(error_event(
                api,
                &reader
                    .key("response")
                    .value()
                    .map_or_else(|| data.to_owned(), Value::to_string),
            )),
            _ => Ok(Vec::new()),
        }
    }

    pub(crate) fn finish(self) -> Result<Value, ResponseError> {
        self.response.ok_or_else(|| {
            ResponseError::stream(
                Api::OpenAiResponses,
                "the stream ended before `response.completed` (truncated)",
            )
        })
    }
}

/// Asks for a final answer in `answer`'s schema (SPEC §16B): `text.format` with the strict
/// schema.
pub(crate) fn ask_answer(answer: &AnswerSchema, body: &mut Map<String, Value>) {
    body.insert(
        "text".to_owned(),
        json!({"format": {
            "type": "json_schema",
            "name": answer.name,
            "schema": answer.schema,
            "strict": true,
        }}),
    );
}
