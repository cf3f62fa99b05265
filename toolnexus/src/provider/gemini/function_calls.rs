//! Gemini: the tool calls of a `generateContent` response, the `functionCall` parts of its
//! first candidate.

use crate::provider::tool_call::{Reader, ResponseError, ToolCall};

/// The `functionCall` of each of `candidates[0].content.parts[]`, with its `id` or, when
/// Gemini sent none, `call_<index>` among the calls.
///
/// A candidate may come without `content` (stopped for safety, say) and a blocked prompt
/// without `candidates` (but with `promptFeedback`): no calls either way. A body with neither
/// `candidates` nor `promptFeedback` is not a Gemini response.
pub(crate) fn read(body: &Reader<'_>) -> Result<Vec<ToolCall>, ResponseError> {
    body.required_object()?;
    let candidates = body.key("candidates");
    match candidates.value() {
        None if body.key("promptFeedback").value().is_some() => return Ok(Vec::new()),
        Some(serde_json::Value::Array(list)) if list.is_empty() => return Ok(Vec::new()),
        _ => {}
    }
    let candidate = candidates.first()?;
    let content = candidate.key("content");
    if content.object()?.is_none() {
        return Ok(Vec::new());
    }
    let mut calls = Vec::new();
    for part in content.key("parts").items()? {
        part.required_object()?;
        let call = part.key("functionCall");
        if call.object()?.is_none() {
            continue;
        }
        let id = match call.key("id").optional_string()? {
            Some(id) => id.to_owned(),
            None => format!("call_{}", calls.len()),
        };
        calls.push(ToolCall {
            id,
            name: call.key("name").string()?.to_owned(),
            arguments: call.key("args").arguments_object(true)?,
        });
    }
    Ok(calls)
}

/// Whether `id` has the form [`read`] gives a call Gemini sent without one.
pub(crate) fn is_synthesized(id: &str) -> bool {
    id.strip_prefix("call_")
        .is_some_and(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
}
