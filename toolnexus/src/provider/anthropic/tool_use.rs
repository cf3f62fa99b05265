//! Anthropic Messages: the tool calls of a response, its `tool_use` content blocks.

use crate::provider::tool_call::{Reader, ResponseError, ToolCall};

/// Each `tool_use` block of `content[]`, `input` re-serialized as the arguments; other
/// blocks (`text`, `thinking`, server tools' `server_tool_use`, …) are not ours.
pub(crate) fn read(body: &Reader<'_>) -> Result<Vec<ToolCall>, ResponseError> {
    body.required_object()?;
    let content = body.key("content");
    if content.value().is_none() {
        return Err(content.error("an array", None));
    }
    let mut calls = Vec::new();
    for block in content.items()? {
        if !block.is_type("tool_use")? {
            continue;
        }
        calls.push(ToolCall {
            id: block.key("id").string()?.to_owned(),
            name: block.key("name").string()?.to_owned(),
            arguments: block.key("input").arguments_object(false)?,
        });
    }
    Ok(calls)
}
