//! OpenAI Chat Completions: the tool calls of a response, `choices[0].message.tool_calls`.

use crate::provider::tool_call::{Reader, ResponseError, ToolCall};

/// Each `function` entry of `choices[0].message.tool_calls`; an entry without `type` counts
/// as one (some compatible servers leave it out), one of another type is not ours.
pub(crate) fn read(body: &Reader<'_>) -> Result<Vec<ToolCall>, ResponseError> {
    body.required_object()?;
    let choices = body.key("choices");
    let choice = choices.first()?;
    let message = choice.key("message");
    message.required_object()?;
    let mut calls = Vec::new();
    for entry in message.key("tool_calls").items()? {
        entry.required_object()?;
        let kind = entry.key("type");
        if kind
            .optional_string()?
            .is_some_and(|kind| kind != "function")
        {
            continue;
        }
        let function = entry.key("function");
        function.required_object()?;
        calls.push(ToolCall {
            id: entry.key("id").string()?.to_owned(),
            name: function.key("name").string()?.to_owned(),
            arguments: function.key("arguments").arguments_text()?,
        });
    }
    Ok(calls)
}
