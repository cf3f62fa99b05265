//! Gemini: the `functionResponse` parts that answer a turn's function calls.

use serde_json::{Map, Value, json};

use super::super::{essence, unsupported_placeholder};
use super::function_calls::is_synthesized;
use crate::provider::tool_call::ToolCall;
use crate::result::ToolResult;
use crate::result::part::{ContentPart, Source};

/// Media a function response carries inline, from Gemini's function-calling guide
/// (multimodal function responses); `fileData` there is Vertex AI only.
const INLINE_TYPES: [&str; 5] = [
    "image/png",
    "image/jpeg",
    "image/webp",
    "application/pdf",
    "text/plain",
];

/// ONE `user` content: `{"role":"user","parts":[{"functionResponse":…}, …]}`, in call order.
pub(crate) fn function_responses<'a>(
    answers: impl Iterator<Item = (&'a ToolCall, &'a ToolResult)>,
) -> Value {
    let parts: Vec<Value> = answers
        .map(|(call, result)| json!({"functionResponse": function_response(call, result)}))
        .collect();
    json!({"role": "user", "parts": parts})
}

/// `{"name", "id"?, "response": {"output"|"error": text}, "parts"?}`.
fn function_response(call: &ToolCall, result: &ToolResult) -> Value {
    let mut text = result.output.clone();
    let mut inline = Vec::new();
    for part in &result.parts {
        match inline_data(part) {
            Some(data) => inline.push(data),
            None => {
                let line = match part {
                    ContentPart::Text { text } => text.clone(),
                    _ => unsupported_placeholder(part),
                };
                text.push('\n');
                text.push_str(&line);
            }
        }
    }
    let mut response = Map::new();
    response.insert("name".to_owned(), call.name.clone().into());
    if !is_synthesized(&call.id) {
        response.insert("id".to_owned(), call.id.clone().into());
    }
    let key = if result.is_error { "error" } else { "output" };
    response.insert("response".to_owned(), json!({ key: text }));
    if !inline.is_empty() {
        response.insert("parts".to_owned(), Value::Array(inline));
    }
    Value::Object(response)
}

/// `{"inlineData":{"mimeType","data"}}` for media Gemini takes in a function response.
pub(crate) fn inline_data(part: &ContentPart) -> Option<Value> {
    let media = part.media()?;
    let Source::Data(data) = &media.source else {
        return None;
    };
    if matches!(part, ContentPart::Audio(_))
        || !INLINE_TYPES.contains(&essence(&media.mime_type).as_str())
    {
        return None;
    }
    Some(json!({"inlineData": {"mimeType": media.mime_type, "data": data}}))
}
