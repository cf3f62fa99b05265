//! Anthropic Messages: tool definitions, content blocks, and the `tool_result` blocks that
//! answer `tool_use`. The strict-mode schema rewrite is `strict`.

pub(crate) mod strict;

pub(crate) mod tool_use;
pub(crate) mod transcript;

use std::sync::Arc;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value, json};

use crate::provider::{
    Style, definition_list, encode_or_placeholder, essence, inline_image, name_and_description,
    text_block, unsupported,
};
use crate::result::ToolResult;
use crate::result::part::{ContentPart, ContentPartError, Media, Source};
use crate::tool::Tool;

/// The `tools` list: `[{name, description, input_schema}]`.
pub(crate) fn definitions(tools: &[Arc<dyn Tool>]) -> Value {
    definition_list(tools, |tool| {
        let mut entry = name_and_description(tool);
        entry.insert(
            "input_schema".to_owned(),
            Value::Object(tool.input_schema().clone()),
        );
        Value::Object(entry)
    })
}

/// One entry of [`to_anthropic_strict`](crate::Toolkit::to_anthropic_strict):
/// `{name, description, input_schema, strict}`, `"strict": true` with the strict rewrite when
/// it is `exact`, else `"strict": false` with the plain schema, which does not lie.
pub(crate) fn strict_entry(tool: &dyn Tool, strict: Map<String, Value>, exact: bool) -> Value {
    let schema = if exact {
        strict
    } else {
        tool.input_schema().clone()
    };
    let mut entry = name_and_description(tool);
    entry.insert("input_schema".to_owned(), Value::Object(schema));
    entry.insert("strict".to_owned(), Value::Bool(exact));
    Value::Object(entry)
}

/// [`encode_part`](crate::parts::encode_part) for [`Style::Anthropic`].
pub(super) fn encode_part(part: &ContentPart) -> Result<Value, ContentPartError> {
    match part {
        ContentPart::Text { text } => Ok(text_block(text)),
        ContentPart::Image(media) => {
            let source = match &media.source {
                Source::Data(data) => {
                    inline_image(media, "Anthropic")?;
                    json!({"type": "base64", "media_type": media.mime_type, "data": data})
                }
                Source::Url(url) => json!({"type": "url", "url": url}),
            };
            Ok(json!({"type": "image", "source": source}))
        }
        ContentPart::File(media) => document_block(media),
        ContentPart::Audio(media) => Err(unsupported(format!(
            "Anthropic cannot take audio parts ({}); transcribe it, or send it to OpenAI as mp3 or wav",
            media.mime_type
        ))),
    }
}

fn document_block(media: &Media) -> Result<Value, ContentPartError> {
    let source = match (essence(&media.mime_type).as_str(), &media.source) {
        ("application/pdf", Source::Data(data)) => {
            json!({"type": "base64", "media_type": media.mime_type, "data": data})
        }
        ("application/pdf", Source::Url(url)) => json!({"type": "url", "url": url}),
        ("text/plain", Source::Data(data)) => {
            // Anthropic takes plain-text documents as text, not base64.
            let text = STANDARD
                .decode(data)
                .ok()
                .and_then(|bytes| String::from_utf8(bytes).ok())
                .ok_or_else(|| {
                    unsupported(
                        "a text/plain file part is not valid base64 of UTF-8 text, so Anthropic cannot take it as a document".to_owned(),
                    )
                })?;
            json!({"type": "text", "media_type": "text/plain", "data": text})
        }
        _ => {
            return Err(unsupported(format!(
                "Anthropic documents must be application/pdf (bytes or URL) or text/plain (bytes), not {}",
                media.mime_type
            )));
        }
    };
    Ok(json!({"type": "document", "source": source}))
}

/// The Anthropic `user` message that answers several `tool_use` blocks of one assistant turn:
/// `{"role":"user","content":[tool_result, …]}`, the `tool_result` blocks in call order.
pub(crate) fn anthropic_tool_results(blocks: impl IntoIterator<Item = Value>) -> Value {
    let blocks: Vec<Value> = blocks.into_iter().collect();
    json!({"role": "user", "content": blocks})
}

impl ToolResult {
    /// The Anthropic `tool_result` block answering `tool_use_id`:
    /// `{"type":"tool_result","tool_use_id":…,"content":…,"is_error":…}`.
    ///
    /// `content` is the output string, or, when there are parts, a block list: the output as
    /// a text block (always, as SPEC §8A and every port write it, even when empty), then every
    /// part encoded with [`Style::Anthropic`] (a refused part becomes its
    /// placeholder text, `[unsupported TYPE part (MIME, N bytes)]`).
    ///
    /// ```
    /// use serde_json::json;
    /// use toolnexus::ToolResult;
    ///
    /// assert_eq!(
    ///     ToolResult::ok("done").to_anthropic_block("toolu_2"),
    ///     json!({"type": "tool_result", "tool_use_id": "toolu_2", "content": "done", "is_error": false})
    /// );
    /// ```
    pub fn to_anthropic_block(&self, tool_use_id: &str) -> Value {
        let content = if self.parts.is_empty() {
            Value::String(self.output.clone())
        } else {
            let mut blocks = Vec::with_capacity(self.parts.len() + 1);
            blocks.push(text_block(&self.output));
            blocks.extend(
                self.parts
                    .iter()
                    .map(|part| encode_or_placeholder(part, Style::Anthropic)),
            );
            Value::Array(blocks)
        };
        json!({
            "type": "tool_result",
            "tool_use_id": tool_use_id,
            "content": content,
            "is_error": self.is_error,
        })
    }
}
