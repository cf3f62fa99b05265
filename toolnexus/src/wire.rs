//! Wire encoding (SPEC §8A): results and their content parts in the shapes OpenAI, Anthropic
//! and MCP clients read.
//!
//! Encoding is a positive allowlist: a part becomes a provider block only when that provider
//! documents a block for it; anything else is refused with
//! [`ContentPartError::Unsupported`], and the message builders degrade a refused part to the
//! text `[unsupported TYPE part (MIME, N bytes)]` instead of sending a block the provider
//! would reject (which fails the whole request).

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};

use crate::part::{ContentPart, ContentPartError, Media, Source, part_bytes};
use crate::result::ToolResult;
use crate::url;

/// Which provider's content-block vocabulary [`encode_part`] speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Style {
    /// OpenAI Chat Completions: `text`, `image_url`, `file`, `input_audio`.
    OpenAi,
    /// Anthropic Messages: `text`, `image`, `document`.
    Anthropic,
}

/// Image types both providers document for inline (base64) images.
const IMAGE_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/// Encodes one part as a provider content block.
///
/// OpenAI: text ⇒ `text`; an image ⇒ `image_url` (a `data:` URL for bytes); a PDF with bytes
/// ⇒ `file` (`filename` is the part's name, else `file.pdf`); mp3 or wav bytes ⇒
/// `input_audio`. Anthropic: text ⇒ `text`; an image ⇒ `image` (`base64` or `url` source); a
/// PDF ⇒ `document` (`base64` or `url`); `text/plain` bytes ⇒ `document` with a `text`
/// source. Inline images must be PNG, JPEG, GIF or WebP for both.
///
/// Refused, with [`ContentPartError::Unsupported`] naming the provider and what it takes
/// instead: for OpenAI a file by URL, a file that is not a PDF, audio by URL or in a format
/// other than mp3/wav; for Anthropic any audio, and a file that is neither a PDF nor
/// `text/plain`; for both an inline image of another type.
///
/// ```
/// use serde_json::json;
/// use toolnexus::{encode_part, from_bytes, Style};
///
/// let png = from_bytes(b"\x89PNG", "image/png");
/// assert_eq!(
///     encode_part(&png, Style::OpenAi).unwrap(),
///     json!({"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw=="}})
/// );
/// let mp3 = from_bytes(b"ID3", "audio/mpeg");
/// assert_eq!(encode_part(&mp3, Style::Anthropic).unwrap_err().code(), "unsupported");
/// ```
pub fn encode_part(part: &ContentPart, style: Style) -> Result<Value, ContentPartError> {
    match (part, style) {
        (ContentPart::Text { text }, _) => Ok(json!({"type": "text", "text": text})),
        (ContentPart::Image(media), Style::OpenAi) => {
            let url = match &media.source {
                Source::Data(data) => {
                    inline_image(media, "OpenAI")?;
                    data_url(&media.mime_type, data)
                }
                Source::Url(url) => url.clone(),
            };
            Ok(json!({"type": "image_url", "image_url": {"url": url}}))
        }
        (ContentPart::Image(media), Style::Anthropic) => {
            let source = match &media.source {
                Source::Data(data) => {
                    inline_image(media, "Anthropic")?;
                    json!({"type": "base64", "media_type": media.mime_type, "data": data})
                }
                Source::Url(url) => json!({"type": "url", "url": url}),
            };
            Ok(json!({"type": "image", "source": source}))
        }
        (ContentPart::File(media), Style::OpenAi) => openai_file(media),
        (ContentPart::File(media), Style::Anthropic) => anthropic_document(media),
        (ContentPart::Audio(media), Style::OpenAi) => openai_audio(media),
        (ContentPart::Audio(media), Style::Anthropic) => Err(unsupported(format!(
            "Anthropic cannot take audio parts ({}); transcribe it, or send it to OpenAI as mp3 or wav",
            media.mime_type
        ))),
    }
}

/// The text that stands in for a part a provider refused:
/// `[unsupported TYPE part (MIME, N bytes)]`.
///
/// ```
/// let wav = toolnexus::from_bytes(&[0; 10], "audio/wav");
/// assert_eq!(toolnexus::unsupported_placeholder(&wav), "[unsupported audio part (audio/wav, 10 bytes)]");
/// ```
pub fn unsupported_placeholder(part: &ContentPart) -> String {
    let mime = part.media().map_or("text/plain", |media| &media.mime_type);
    format!(
        "[unsupported {} part ({mime}, {} bytes)]",
        part.type_name(),
        part_bytes(part)
    )
}

/// The OpenAI messages that answer several tool calls of one assistant turn, in call order.
///
/// Each `(call_id, tool_name, result)` gives its `tool` message; the non-text parts of all of
/// them follow in one `user` message after the last tool message (OpenAI requires the tool
/// messages to come straight after the assistant message, and tool messages cannot carry
/// images, files or audio), each result's parts under its own label
/// `Output of tool NAME (CALL_ID):`. See [`ToolResult::to_openai_messages`].
///
/// ```
/// use toolnexus::{from_bytes, openai_tool_messages, ToolResult};
///
/// let chart = ToolResult::ok("chart").with_part(from_bytes(b"\x89PNG", "image/png"));
/// let sum = ToolResult::ok("3");
/// let messages = openai_tool_messages([("call_1", "plot", &chart), ("call_2", "add", &sum)]);
/// let roles: Vec<_> = messages.iter().map(|m| m["role"].as_str().unwrap()).collect();
/// assert_eq!(roles, ["tool", "tool", "user"]);
/// assert_eq!(messages[2]["content"][0]["text"], "Output of tool plot (call_1):");
/// ```
pub fn openai_tool_messages<'a>(
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
            relocated.push(json!({
                "type": "text",
                "text": format!("Output of tool {tool_name} ({call_id}):"),
            }));
            relocated.extend(media.map(|part| encode_or_placeholder(part, Style::OpenAi)));
        }
    }
    if !relocated.is_empty() {
        messages.push(json!({"role": "user", "content": relocated}));
    }
    messages
}

/// The Anthropic `user` message that answers several `tool_use` blocks of one assistant turn:
/// `{"role":"user","content":[tool_result, …]}`, one [`ToolResult::to_anthropic_block`] per
/// `(tool_use_id, result)`, in call order.
pub fn anthropic_tool_results<'a>(
    results: impl IntoIterator<Item = (&'a str, &'a ToolResult)>,
) -> Value {
    let blocks: Vec<Value> = results
        .into_iter()
        .map(|(tool_use_id, result)| result.to_anthropic_block(tool_use_id))
        .collect();
    json!({"role": "user", "content": blocks})
}

impl ToolResult {
    /// The OpenAI Chat Completions messages answering tool call `call_id`.
    ///
    /// Always the `tool` message `{"role":"tool","tool_call_id":…,"content":output}`; when the
    /// result has text parts, `content` is instead a list of text blocks, the output first
    /// (as the other ports send it). When the result has non-text parts, one `user` message
    /// follows, carrying the text `Output of tool NAME (CALL_ID):` and then each of those parts
    /// encoded with [`Style::OpenAi`] (a refused part becomes its [`unsupported_placeholder`]
    /// text).
    /// For several calls of one assistant turn use [`openai_tool_messages`], which sends a
    /// single `user` message after all the tool messages.
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

    /// The Anthropic `tool_result` block answering `tool_use_id`:
    /// `{"type":"tool_result","tool_use_id":…,"content":…,"is_error":…}`.
    ///
    /// `content` is the output string, or, when there are parts, a block list: the output as
    /// a text block (always, as SPEC §8A and every port write it, even when empty), then every
    /// part encoded with [`Style::Anthropic`] (a refused part becomes its
    /// [`unsupported_placeholder`] text).
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
            blocks.push(json!({"type": "text", "text": self.output}));
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

    /// The MCP `CallToolResult`: `{"content":[…],"isError":…}`.
    ///
    /// `content` starts with the output as a text block, then one block per part: text ⇒
    /// `text`; image or audio bytes ⇒ `{"type":"image"|"audio","data","mimeType"}`; file bytes
    /// ⇒ an embedded resource `{"type":"resource","resource":{"uri","mimeType","blob"}}`
    /// whose uri is `attachment:///NAME` (the percent-encoded file name, else `part-N` after
    /// its index in `parts`); any part that is only a URL ⇒ a
    /// `{"type":"resource_link","uri","name","mimeType"}` (name: the part's, else the URL's
    /// last path segment). `metadata` is for code and stays out.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolnexus::{from_bytes, ToolResult};
    ///
    /// let result = ToolResult::ok("chart").with_part(from_bytes(b"\x89PNG", "image/png"));
    /// assert_eq!(result.to_mcp(), json!({
    ///     "content": [
    ///         {"type": "text", "text": "chart"},
    ///         {"type": "image", "data": "iVBORw==", "mimeType": "image/png"},
    ///     ],
    ///     "isError": false,
    /// }));
    /// ```
    pub fn to_mcp(&self) -> Value {
        let mut content = Vec::with_capacity(self.parts.len() + 1);
        content.push(json!({"type": "text", "text": self.output}));
        for (index, part) in self.parts.iter().enumerate() {
            content.push(mcp_block(index, part));
        }
        json!({"content": content, "isError": self.is_error})
    }
}

fn mcp_block(index: usize, part: &ContentPart) -> Value {
    let Some(media) = part.media() else {
        return json!({"type": "text", "text": crate::part::describe_part(part)});
    };
    match (&media.source, part) {
        (Source::Url(url), _) => {
            let name = media
                .name
                .clone()
                .or_else(|| url::last_segment(url).map(str::to_owned))
                .unwrap_or_else(|| part.type_name().to_owned());
            json!({"type": "resource_link", "uri": url, "name": name, "mimeType": media.mime_type})
        }
        (Source::Data(data), ContentPart::File(_)) => {
            let name = media
                .name
                .as_deref()
                .map_or_else(|| format!("part-{index}"), url::percent_encode);
            json!({
                "type": "resource",
                "resource": {"uri": format!("attachment:///{name}"), "mimeType": media.mime_type, "blob": data},
            })
        }
        (Source::Data(data), _) => {
            json!({"type": part.type_name(), "data": data, "mimeType": media.mime_type})
        }
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
        let output = json!({"type": "text", "text": result.output});
        Value::Array(
            std::iter::once(output)
                .chain(texts.map(|part| encode_or_placeholder(part, Style::OpenAi)))
                .collect(),
        )
    };
    json!({"role": "tool", "tool_call_id": call_id, "content": content})
}

fn encode_or_placeholder(part: &ContentPart, style: Style) -> Value {
    encode_part(part, style)
        .unwrap_or_else(|_| json!({"type": "text", "text": unsupported_placeholder(part)}))
}

fn unsupported(detail: String) -> ContentPartError {
    ContentPartError::Unsupported { detail }
}

/// The media type without parameters, lowercased: `Image/PNG; q=1` ⇒ `image/png`.
fn essence(mime_type: &str) -> String {
    mime_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

fn data_url(mime_type: &str, data: &str) -> String {
    format!("data:{mime_type};base64,{data}")
}

fn inline_image(media: &Media, provider: &str) -> Result<(), ContentPartError> {
    if IMAGE_TYPES.contains(&essence(&media.mime_type).as_str()) {
        Ok(())
    } else {
        Err(unsupported(format!(
            "{provider} cannot take {} image bytes; it accepts image/png, image/jpeg, image/gif and image/webp (convert the image, or pass it by URL)",
            media.mime_type
        )))
    }
}

fn openai_file(media: &Media) -> Result<Value, ContentPartError> {
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

fn openai_audio(media: &Media) -> Result<Value, ContentPartError> {
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

fn anthropic_document(media: &Media) -> Result<Value, ContentPartError> {
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
