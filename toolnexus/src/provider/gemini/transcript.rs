//! Gemini: a transcript as `systemInstruction` and `contents`, a reply read back (with its
//! thought signatures kept for the echo), and streamed `GenerateContentResponse` chunks
//! merged into the whole response.

use serde_json::{Map, Value, json};

use super::function_calls::is_synthesized;
use super::results::inline_data;
use crate::client::message::{Echo, Message, Usage};
use crate::client::model::{AnswerSchema, ModelEvent, Reply};
use crate::provider::rendering::{WireIds, arguments_object, joined_system};
use crate::provider::sse::json_event;
use crate::provider::tool_call::{Api, Reader, ResponseError};
use crate::provider::unsupported_placeholder;
use crate::result::part::ContentPart;

/// The thought signature Gemini's documentation gives for a function call it did not make
/// (history from another model, or a call built by hand).
const FOREIGN_SIGNATURE: &str = "skip_thought_signature_validator";

/// `systemInstruction` (every system text) and `contents`: user parts inline where Gemini
/// takes them (PNG, JPEG, WebP, PDF, plain text bytes), else their placeholder text; an
/// assistant message as its echoed parts or as text and `functionCall` parts (no
/// synthesized id; the first with the [`FOREIGN_SIGNATURE`]); results through
/// [`tool_results`](crate::tool_results).
pub(crate) fn render(messages: &[Message], body: &mut Map<String, Value>) {
    if let Some(system) = joined_system(messages) {
        body.insert(
            "systemInstruction".to_owned(),
            json!({"parts": [{"text": system}]}),
        );
    }
    let mut ids = WireIds::new(Api::Gemini);
    let mut contents = Vec::new();
    for message in messages {
        match message {
            Message::System { .. } => {}
            Message::User { text, parts } => {
                let mut out = Vec::new();
                if !text.is_empty() || parts.is_empty() {
                    out.push(json!({"text": text}));
                }
                out.extend(parts.iter().map(user_part));
                contents.push(json!({"role": "user", "parts": out}));
            }
            Message::Assistant {
                tool_calls,
                echo: Some(echo),
                ..
            } if echo.api == Api::Gemini => {
                ids.calls(tool_calls, true);
                contents.push(json!({"role": "model", "parts": echo.items}));
            }
            Message::Assistant {
                text, tool_calls, ..
            } => {
                let mut parts = Vec::new();
                if !text.is_empty() {
                    parts.push(json!({"text": text}));
                }
                for (at, call) in ids.calls(tool_calls, false).into_iter().enumerate() {
                    let mut function_call = Map::new();
                    function_call.insert("name".to_owned(), call.name.into());
                    function_call.insert("args".to_owned(), arguments_object(&call.arguments));
                    if !is_synthesized(&call.id) {
                        function_call.insert("id".to_owned(), call.id.into());
                    }
                    let mut part = json!({"functionCall": function_call});
                    if at == 0 {
                        // Gemini 3 refuses a step's first call without a signature (400); one
                        // it did not make has none, and this documented value passes it.
                        part["thoughtSignature"] = FOREIGN_SIGNATURE.into();
                    }
                    parts.push(part);
                }
                if !parts.is_empty() {
                    contents.push(json!({"role": "model", "parts": parts}));
                }
            }
            Message::Tool { results } => contents.extend(ids.results(results)),
        }
    }
    body.insert("contents".to_owned(), Value::Array(contents));
}

fn user_part(part: &ContentPart) -> Value {
    inline_data(part).unwrap_or_else(|| match part {
        ContentPart::Text { text } => json!({"text": text}),
        _ => json!({"text": unsupported_placeholder(part)}),
    })
}

/// The text, finish reason, usage and echo of a whole response (the calls are read by
/// [`function_calls`](super::function_calls)).
pub(crate) fn read(body: &Reader<'_>) -> Result<Reply, ResponseError> {
    body.required_object()?;
    let usage = body.key("usageMetadata");
    usage.object()?;
    let mut reply = Reply {
        usage: Usage {
            input_tokens: usage.key("promptTokenCount").count()?,
            output_tokens: usage.key("candidatesTokenCount").count()?,
        },
        ..Reply::default()
    };
    let candidates = body.key("candidates");
    if candidates
        .value()
        .and_then(Value::as_array)
        .is_none_or(Vec::is_empty)
    {
        let feedback = body.key("promptFeedback");
        feedback.object()?;
        reply.finish_reason = feedback
            .key("blockReason")
            .optional_string()?
            .map(str::to_owned);
        return Ok(reply);
    }
    let candidate = candidates.first()?;
    reply.finish_reason = candidate
        .key("finishReason")
        .optional_string()?
        .map(str::to_owned);
    let content = candidate.key("content");
    let parts = content.key("parts");
    let mut echo = false;
    for part in parts.items()? {
        let map = part.required_object()?;
        let thought = part.key("thought").value() == Some(&Value::Bool(true));
        if let Some(text) = part.key("text").optional_string()? {
            if !thought {
                reply.text.push_str(text);
            }
        }
        echo |= thought || map.keys().any(|key| key != "text" && key != "functionCall");
    }
    if echo {
        reply.echo = Some(Echo {
            api: Api::Gemini,
            items: parts
                .value()
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
        });
    }
    Ok(reply)
}

/// A streamed response being merged: each chunk's parts appended (a text part joined to the
/// text part before it when both are thoughts or neither), the last usage and finish reason
/// kept; complete once a chunk has a `finishReason`.
#[derive(Default)]
pub(crate) struct GeminiStream {
    parts: Vec<Map<String, Value>>,
    calls: usize,
    last: Map<String, Value>,
    finish_reason: Option<Value>,
    feedback: Option<Value>,
}

impl GeminiStream {
    pub(crate) fn push(&mut self, data: &str) -> Result<Vec<ModelEvent>, ResponseError> {
        let api = Api::Gemini;
        if self.finish_reason.is_some() {
            return Err(ResponseError::stream(
                api,
                "a chunk after the finish reason",
            ));
        }
        let chunk = json_event(api, data)?;
        let reader = Reader::root(api, &chunk);
        let map = reader.required_object()?;
        for (key, value) in map {
            if key != "candidates" {
                self.last.insert(key.clone(), value.clone());
            }
        }
        if let Some(feedback) = reader.key("promptFeedback").value() {
            if feedback.get("blockReason").is_some() {
                // A blocked prompt has no candidates and is the whole answer.
                self.feedback = Some(feedback.clone());
                self.finish_reason = feedback.get("blockReason").cloned();
            }
        }
        let candidates = reader.key("candidates");
        let mut events = Vec::new();
        if candidates
            .value()
            .and_then(Value::as_array)
            .is_none_or(Vec::is_empty)
        {
            return Ok(events);
        }
        let candidate = candidates.first()?;
        let content = candidate.key("content");
        for part in content.key("parts").items()? {
            let part = part.required_object()?.clone();
            events.extend(self.add_part(part)?);
        }
        if let Some(reason) = candidate.key("finishReason").optional_string()? {
            self.finish_reason = Some(reason.into());
        }
        Ok(events)
    }

    fn add_part(&mut self, part: Map<String, Value>) -> Result<Vec<ModelEvent>, ResponseError> {
        let is_text = |part: &Map<String, Value>| part.get("text").is_some_and(Value::is_string);
        let thought = |part: &Map<String, Value>| part.get("thought") == Some(&Value::Bool(true));
        let mut events = Vec::new();
        if is_text(&part) && !thought(&part) {
            let text = part["text"].as_str().unwrap_or_default();
            if !text.is_empty() {
                events.push(ModelEvent::Text(text.to_owned()));
            }
        }
        if part.contains_key("functionCall") {
            let one = json!({"candidates": [{"content": {"parts": [part]}}]});
            for mut call in crate::provider::turn::tool_calls(Api::Gemini, &one)? {
                if is_synthesized(&call.id) {
                    call.id = format!("call_{}", self.calls);
                }
                self.calls += 1;
                events.push(ModelEvent::ToolCall(call));
            }
        }
        match self.parts.last_mut() {
            Some(previous)
                if is_text(previous) && is_text(&part) && thought(previous) == thought(&part) =>
            {
                for (key, value) in part {
                    match (previous.get_mut(&key), value) {
                        (Some(Value::String(text)), Value::String(more)) if key == "text" => {
                            text.push_str(&more);
                        }
                        (_, value) => {
                            previous.insert(key, value);
                        }
                    }
                }
            }
            _ => self.parts.push(part),
        }
        Ok(events)
    }

    pub(crate) fn finish(self) -> Result<Value, ResponseError> {
        let Some(reason) = self.finish_reason else {
            return Err(ResponseError::stream(
                Api::Gemini,
                "the stream ended before a chunk with a finish reason (truncated)",
            ));
        };
        let mut body = self.last;
        if self.feedback.is_none() {
            let parts = self
                .parts
                .into_iter()
                .map(Value::Object)
                .collect::<Vec<_>>();
            body.insert(
                "candidates".to_owned(),
                json!([{"content": {"role": "model", "parts": parts}, "finishReason": reason, "index": 0}]),
            );
        }
        Ok(Value::Object(body))
    }
}

/// Asks for a final answer in `answer`'s schema (SPEC §16B): JSON output with the schema in
/// `generationConfig.responseJsonSchema` (Gemini's JSON Schema field; its name is not sent).
pub(crate) fn ask_answer(answer: &AnswerSchema, body: &mut Map<String, Value>) {
    body.insert(
        "generationConfig".to_owned(),
        json!({
            "responseMimeType": "application/json",
            "responseJsonSchema": answer.schema,
        }),
    );
}
