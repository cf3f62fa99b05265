//! OpenAI Chat Completions: tool definitions (plain and strict), content blocks, and the
//! messages that answer tool calls. The strict-mode schema rewrite is `strict`.

pub(crate) mod strict;

pub(crate) mod chat_calls;
pub(crate) mod chat_transcript;
pub(crate) mod responses;
pub(crate) mod responses_transcript;

use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::provider::{
    Style, definition_list, encode_or_placeholder, essence, inline_image, name_and_description,
    text_block, unsupported,
};
use crate::result::ToolResult;
use crate::result::part::{ContentPart, ContentPartError, Media, Source};
use crate::tool::Tool;

/// The `tools` list: `[{"type":"function","function":{name, description, parameters}}]`.
pub(crate) fn definitions(tools: &[Arc<dyn Tool>]) -> Value {
    definition_list(tools, |tool| {
        openai_entry(function(tool, tool.input_schema().clone()))
    })
}

/// One entry of [`to_openai_strict`](crate::Toolkit::to_openai_strict): `"strict": true` and
/// the strict rewrite of the schema when it is `exact` (what [`Toolkit::check`](crate::Toolkit::check) reports
/// nothing the model cannot be told for); else `"strict": false` and the plain schema, which
/// tells the model exactly what the tool takes where the strict rewrite would tell it
/// something else.
pub(crate) fn strict_entry(tool: &dyn Tool, strict: Map<String, Value>, exact: bool) -> Value {
    let parameters = if exact {
        strict
    } else {
        tool.input_schema().clone()
    };
    let mut function = function(tool, parameters);
    function.insert("strict".to_owned(), Value::Bool(exact));
    openai_entry(function)
}

/// `{name, description, parameters}`.
fn function(tool: &dyn Tool, parameters: Map<String, Value>) -> Map<String, Value> {
    let mut function = name_and_description(tool);
    function.insert("parameters".to_owned(), Value::Object(parameters));
    function
}

/// `{"type":"function","function":{…}}`.
fn openai_entry(function: Map<String, Value>) -> Value {
    let mut entry = Map::new();
    entry.insert("type".to_owned(), "function".into());
    entry.insert("function".to_owned(), Value::Object(function));
    Value::Object(entry)
}

/// [`encode_part`](crate::parts::encode_part) for [`Style::OpenAi`].
pub(super) fn encode_part(part: &ContentPart) -> Result<Value, ContentPartError> {
    match part {
        ContentPart::Text { text } => Ok(text_block(text)),
        ContentPart::Image(media) => {
            let url = match &media.source {
                Source::Data(data) => {
                    inline_image(media, "OpenAI")?;
                    data_url(&media.mime_type, data)
                }
                Source::Url(url) => url.clone(),
            };
            Ok(json!({"type": "image_url", "image_url": {"url": url}}))
        }
        ContentPart::File(media) => file_block(media),
        ContentPart::Audio(media) => audio_block(media),
    }
}

fn data_url(mime_type: &str, data: &str) -> String {
    format!("data:{mime_type};base64,{data}")
}

fn file_block(media: &Media) -> Result<Value, ContentPartError> {
    let Source::Data(data) = &media.source else {
        return Err(unsupported(format!(
            "OpenAI cannot take a file part by URL ({}); attach the file's bytes instead",
            media.mime_type
        )));
    };
    if essence(&media.mime_type) != "application/pdf" {
        return Err(unsupported(format!(
            "OpenAI accepts only application/pdf file parts, not {}",
            media.mime_type
        )));
    }
    let filename = media.name.as_deref().unwrap_or("file.pdf");
    Ok(json!({
        "type": "file",
        "file": {"filename": filename, "file_data": data_url(&media.mime_type, data)},
    }))
}

fn audio_block(media: &Media) -> Result<Value, ContentPartError> {
    let Source::Data(data) = &media.source else {
        return Err(unsupported(format!(
            "OpenAI cannot take audio by URL ({}); attach the audio's bytes instead",
            media.mime_type
        )));
    };
    let format = match essence(&media.mime_type).as_str() {
        "audio/mpeg" | "audio/mp3" => "mp3",
        "audio/wav" | "audio/x-wav" | "audio/wave" | "audio/vnd.wave" => "wav",
        _ => {
            return Err(unsupported(format!(
                "OpenAI accepts only mp3 (audio/mpeg) and wav (audio/wav) audio, not {}",
                media.mime_type
            )));
        }
    };
    Ok(json!({"type": "input_audio", "input_audio": {"data": data, "format": format}}))
}

/// The OpenAI messages that answer several tool calls of one assistant turn, in call order.
///
/// Each `(call_id, tool_name, result)` gives its `tool` message; the non-text parts of all of
/// them follow in one `user` message after the last tool message (OpenAI requires the tool
/// messages to come straight after the assistant message, and tool messages cannot carry
/// images, files or audio), each result's parts under its own label
/// `Output of tool NAME (CALL_ID):`. See [`ToolResult::to_openai_messages`].
/// What [`tool_results`](crate::tool_results) sends for [`Api::OpenAiChat`](crate::Api::OpenAiChat):
///
/// ```
/// use toolnexus::{Api, ToolCall, ToolResult, parts::from_bytes, tool_results};
///
/// let call = |id: &str, name: &str| ToolCall { id: id.into(), name: name.into(), arguments: "{}".into() };
/// let chart = ToolResult::ok("chart").with_part(from_bytes(b"\x89PNG", "image/png"));
/// let sum = ToolResult::ok("3");
/// let messages = tool_results(Api::OpenAiChat, &[call("call_1", "plot"), call("call_2", "add")], &[chart, sum]);
/// let roles: Vec<_> = messages.iter().map(|m| m["role"].as_str().unwrap()).collect();
/// assert_eq!(roles, ["tool", "tool", "user"]);
/// assert_eq!(messages[2]["content"][0]["text"], "Output of tool plot (call_1):");
/// ```
pub(crate) fn openai_tool_messages<'a>(
    results: impl IntoIterator<Item = (&'a str, &'a str, &'a ToolResult)>,
) -> Vec<Value> {
    let mut messages = Vec::new();
    let mut relocated = Vec::new();
    for (call_id, tool_name, result) in results {
        messages.push(tool_message(call_id, result));
        let mut media = result
            .parts
            .iter()
            .filter(|part| part.media().is_some())
            .peekable();
        if media.peek().is_some() {
            relocated.push(text_block(&format!(
                "Output of tool {tool_name} ({call_id}):"
            )));
            relocated.extend(media.map(|part| encode_or_placeholder(part, Style::OpenAi)));
        }
    }
    if !relocated.is_empty() {
        messages.push(json!({"role": "user", "content": relocated}));
    }
    messages
}

impl ToolResult {
    /// The OpenAI Chat Completions messages answering tool call `call_id`.
    ///
    /// Always the `tool` message `{"role":"tool","tool_call_id":…,"content":output}`; when the
    /// result has text parts, `content` is instead a list of text blocks, the output first
    /// (as the other ports send it). When the result has non-text parts, one `user` message
    /// follows, carrying the text `Output of tool NAME (CALL_ID):` and then each of those parts
    /// encoded with [`Style::OpenAi`] (a refused part becomes its
    /// placeholder text, `[unsupported TYPE part (MIME, N bytes)]`).
    /// For several calls of one assistant turn use [`tool_results`](crate::tool_results) with
    /// [`Api::OpenAiChat`](crate::Api::OpenAiChat), which sends a single `user` message after
    /// all the tool messages.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolnexus::ToolResult;
    ///
    /// assert_eq!(
    ///     ToolResult::ok("done").to_openai_messages("call_2", "deploy"),
    ///     [json!({"role": "tool", "tool_call_id": "call_2", "content": "done"})]
    /// );
    /// ```
    pub fn to_openai_messages(&self, call_id: &str, tool_name: &str) -> Vec<Value> {
        openai_tool_messages([(call_id, tool_name, self)])
    }
}

/// The `tool` message: `content` is the output, or, when the result has text parts, text
/// blocks (the output, then each text part), as the other ports send it.
fn tool_message(call_id: &str, result: &ToolResult) -> Value {
    let mut texts = result
        .parts
        .iter()
        .filter(|part| matches!(part, ContentPart::Text { .. }))
        .peekable();
    let content = if texts.peek().is_none() {
        Value::String(result.output.clone())
    } else {
        Value::Array(
            std::iter::once(text_block(&result.output))
                .chain(texts.map(|part| encode_or_placeholder(part, Style::OpenAi)))
                .collect(),
        )
    };
    json!({"role": "tool", "tool_call_id": call_id, "content": content})
}
