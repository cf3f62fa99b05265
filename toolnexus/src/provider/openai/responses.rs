//! The OpenAI Responses API: flat tool definitions, the `function_call` items of a
//! response, and the `function_call_output` items that answer them.

use serde_json::{Map, Value, json};

use super::super::{essence, inline_image, unsupported_placeholder};
use super::data_url;
use crate::provider::search_names::TOOL_SEARCH;
use crate::provider::tool_call::{Reader, ResponseError, ToolCall};
use crate::result::ToolResult;
use crate::result::part::{ContentPart, Media, Source};

/// `[{"type":"function","name","description","parameters","strict"}]`: each entry of the
/// Chat strict definitions with its `function` lifted to the top, so the two APIs get the
/// same parameters and the same `strict` decision from one rewrite.
pub(crate) fn definitions(strict_chat: Value) -> Value {
    let Value::Array(entries) = strict_chat else {
        return strict_chat;
    };
    let flat = entries.into_iter().map(|entry| {
        let mut flat = Map::new();
        flat.insert("type".to_owned(), "function".into());
        if let Value::Object(mut entry) = entry {
            if let Some(Value::Object(function)) = entry.remove("function") {
                flat.extend(function);
            }
        }
        Value::Object(flat)
    });
    Value::Array(flat.collect())
}

/// Each `function_call` item of `output[]`, and each client-executed `tool_search_call` (as
/// a call of `tool_search`, SPEC §15); other items (messages, reasoning, built-in tools'
/// calls, a hosted search and its `tool_search_output`) are not ours.
pub(crate) fn read_calls(body: &Reader<'_>) -> Result<Vec<ToolCall>, ResponseError> {
    body.required_object()?;
    let output = body.key("output");
    if output.value().is_none() {
        return Err(output.error("an array", None));
    }
    let mut calls = Vec::new();
    for item in output.items()? {
        if item.is_type("tool_search_call")? {
            // SPEC §15: a client-executed search is ours to answer; a hosted one is not.
            if item.key("execution").value() == Some(&Value::from("client")) {
                calls.push(ToolCall {
                    id: item.key("call_id").string()?.to_owned(),
                    name: TOOL_SEARCH.to_owned(),
                    arguments: item.key("arguments").arguments_object(false)?,
                });
            }
            continue;
        }
        if !item.is_type("function_call")? {
            continue;
        }
        calls.push(ToolCall {
            id: item.key("call_id").string()?.to_owned(),
            name: item.key("name").string()?.to_owned(),
            arguments: item.key("arguments").arguments_text()?,
        });
    }
    Ok(calls)
}

/// `{"type":"function_call_output","call_id","output"}`: `output` is the text, or, when the
/// result has parts, `input_text` (the output first), `input_image` and `input_file` items.
pub(crate) fn function_call_output(call_id: &str, result: &ToolResult) -> Value {
    let output = if result.parts.is_empty() {
        Value::String(result.output.clone())
    } else {
        let mut items = Vec::with_capacity(result.parts.len() + 1);
        items.push(input_text(&result.output));
        items.extend(result.parts.iter().map(|part| {
            output_item(part).unwrap_or_else(|| input_text(&unsupported_placeholder(part)))
        }));
        Value::Array(items)
    };
    json!({"type": "function_call_output", "call_id": call_id, "output": output})
}

pub(crate) fn input_text(text: &str) -> Value {
    json!({"type": "input_text", "text": text})
}

/// The item for `part`, or `None` where a function call's output cannot take it: audio (no
/// `input_audio` there), a file that is not a PDF, inline image bytes of a type OpenAI does
/// not document.
pub(crate) fn output_item(part: &ContentPart) -> Option<Value> {
    match part {
        ContentPart::Text { text } => Some(input_text(text)),
        ContentPart::Image(media) => {
            let url = match &media.source {
                Source::Data(data) => {
                    inline_image(media, "OpenAI").ok()?;
                    data_url(&media.mime_type, data)
                }
                Source::Url(url) => url.clone(),
            };
            Some(json!({"type": "input_image", "image_url": url}))
        }
        ContentPart::File(media) => input_file(media),
        ContentPart::Audio(_) => None,
    }
}

fn input_file(media: &Media) -> Option<Value> {
    if essence(&media.mime_type) != "application/pdf" {
        return None;
    }
    Some(match &media.source {
        Source::Data(data) => json!({
            "type": "input_file",
            "filename": media.name.as_deref().unwrap_or("file.pdf"),
            "file_data": data_url(&media.mime_type, data),
        }),
        Source::Url(url) => json!({"type": "input_file", "file_url": url}),
    })
}
