//! Everything that differs between providers (SPEC §8, §8A), one module per provider. Each
//! owns that provider's tool definitions (what `Toolkit::to_X()` returns), its schema profile
//! (a rewrite of the portable input schema for a provider that accepts only part of JSON
//! Schema) and its result encoding. This module holds what they share: the content-block
//! vocabulary switch ([`Style`], [`encode_part`]), the placeholder for a refused part, and the
//! `{name, description}` start of every definition entry.
//!
//! Encoding is a positive allowlist: a part becomes a provider block only when that provider
//! documents a block for it; anything else is refused with
//! [`ContentPartError::Unsupported`], and the message builders degrade a refused part to the
//! text `[unsupported TYPE part (MIME, N bytes)]` instead of sending a block the provider
//! would reject (which fails the whole request).

pub(crate) mod anthropic;
mod described;
pub(crate) mod gemini;
pub(crate) mod loss;
pub(crate) mod mcp_result;
pub(crate) mod openai;
pub(crate) mod profile;
pub(crate) mod rendering;
mod rewrite;
pub(crate) mod search;
pub(crate) mod search_names;
pub(crate) mod sse;
pub(crate) mod tool_call;
pub(crate) mod transcript;
pub(crate) mod turn;

use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::decode::unread_type;
use crate::result::part::{ContentPart, ContentPartError, Media, part_bytes};
use crate::tool::Tool;

/// Which provider's content-block vocabulary [`encode_part`] speaks (SPEC §8A): a part's
/// encoding, not a whole turn's shape ([`Api`](crate::Api)) nor a schema dialect
/// ([`Profile`](crate::Profile)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Style {
    /// OpenAI Chat Completions: `text`, `image_url`, `file`, `input_audio`.
    OpenAi,
    /// Anthropic Messages: `text`, `image`, `document`.
    Anthropic,
}

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
/// use toolnexus::parts::{Style, encode_part, from_bytes};
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
    match style {
        Style::OpenAi => openai::encode_part(part),
        Style::Anthropic => anthropic::encode_part(part),
    }
}

/// The text that stands in for a part a provider refused:
/// `[unsupported TYPE part (MIME, N bytes)]`.
pub(crate) fn unsupported_placeholder(part: &ContentPart) -> String {
    let mime = part.media().map_or("text/plain", |media| &media.mime_type);
    format!(
        "[unsupported {} part ({mime}, {} bytes)]",
        part.type_name(),
        part_bytes(part)
    )
}

/// [`encode_part`], degrading a refused part to its [`unsupported_placeholder`] text block.
fn encode_or_placeholder(part: &ContentPart, style: Style) -> Value {
    encode_part(part, style).unwrap_or_else(|_| text_block(&unsupported_placeholder(part)))
}

/// A text block: OpenAI, Anthropic and MCP all spell it `{"type":"text","text":…}`.
fn text_block(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

fn unsupported(detail: String) -> ContentPartError {
    ContentPartError::Unsupported { detail }
}

/// Image types both providers document for inline (base64) images.
const IMAGE_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/// Refuses inline image bytes of a type `provider` does not document.
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

/// The media type without parameters, lowercased: `Image/PNG; q=1` ⇒ `image/png`.
fn essence(mime_type: &str) -> String {
    mime_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

// Definition entries are built with `Map::insert` rather than `json!`: `json!` serializes a
// non-literal value, which would deep-copy every cached schema a second time.

/// `{name, description}`, the start of every provider's tool entry.
fn name_and_description(tool: &dyn Tool) -> Map<String, Value> {
    let mut entry = Map::new();
    entry.insert("name".to_owned(), tool.name().into());
    entry.insert("description".to_owned(), tool.description().into());
    entry
}

/// One entry per tool, in registration order.
fn definition_list(tools: &[Arc<dyn Tool>], entry: impl Fn(&dyn Tool) -> Value) -> Value {
    Value::Array(tools.iter().map(|tool| entry(tool.as_ref())).collect())
}

/// Why a `type` the arguments check cannot read is left out (see [`unread_type_loss`]).
const UNREAD_TYPE: &str = "JSON Schema has no type of that name, so the arguments \
     check leaves this value unconstrained; sent without a `type`";

/// `node`'s `type` as a loss names it, when it names what JSON Schema has no type for (a
/// remote server's `"any"` or `"float"`). The arguments check leaves such a value
/// unconstrained (the server decides, SPEC §13), so every profile that rewrites the schema
/// sends it without the `type`, which says what the tool takes, where a provider would refuse
/// the name.
fn unread_type_loss(node: &Map<String, Value>) -> Option<String> {
    unread_type(node).map(|types| format!("`type: {types}`"))
}

/// Whether `schema` admits only `null` (`"type": "null"`, or a type list of nothing else).
fn is_null_schema(schema: &Value) -> bool {
    match schema.get("type") {
        Some(Value::String(single)) => single == "null",
        Some(Value::Array(types)) => !types.is_empty() && types.iter().all(|t| t == "null"),
        _ => false,
    }
}

/// The branch key (`anyOf` or `oneOf`) when [`distribute_over_branches`] would change `map`:
/// it has `properties` and branches that are all objects.
fn distributable(map: &Map<String, Value>) -> Option<&'static str> {
    let key = ["anyOf", "oneOf"]
        .into_iter()
        .find(|key| map.contains_key(*key))?;
    let is_object = |branch: &Value| {
        branch.get("properties").is_some() || branch.get("type") == Some(&json!("object"))
    };
    let all_objects = match map.get(key) {
        Some(Value::Array(branches)) => !branches.is_empty() && branches.iter().all(is_object),
        _ => false,
    };
    (all_objects && map.contains_key("properties")).then_some(key)
}

/// Moves an object's own `properties`, `required` and `additionalProperties` into each of its
/// `anyOf`/`oneOf` branches when every branch is an object, as schemars writes a struct with
/// a flattened enum: `A and (B1 or B2)` is `(A and B1) or (A and B2)`. Profiles that close
/// every object (strict mode; Gemini, read as closed) need it, or the parent would refuse the
/// branches' keys and each branch the parent's.
fn distribute_over_branches(map: &mut Map<String, Value>) {
    let Some(key) = distributable(map) else {
        return;
    };
    let properties = map.shift_remove("properties");
    let required = map.shift_remove("required");
    let closed = map.shift_remove("additionalProperties");
    if map.get("type") == Some(&json!("object")) {
        map.shift_remove("type");
    }
    let Some(Value::Array(branches)) = map.get_mut(key) else {
        return;
    };
    for branch in branches.iter_mut().filter_map(Value::as_object_mut) {
        // The parent's keys first, as the struct declares them; a branch's own win.
        if let Some(Value::Object(shared)) = &properties {
            let mut merged = shared.clone();
            if let Some(Value::Object(own)) = branch.get("properties") {
                merged.extend(own.clone());
            }
            branch.insert("properties".to_owned(), Value::Object(merged));
        }
        if let Some(Value::Array(shared)) = &required {
            let mut merged = shared.clone();
            if let Some(Value::Array(own)) = branch.get("required") {
                merged.extend(own.iter().filter(|name| !shared.contains(name)).cloned());
            }
            branch.insert("required".to_owned(), Value::Array(merged));
        }
        if let Some(closed) = &closed {
            branch
                .entry("additionalProperties")
                .or_insert_with(|| closed.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::provider::*;

    #[test]
    fn the_placeholder_matches_golden() {
        let golden: Value =
            serde_json::from_str(include_str!("../../tests/conformance/golden.json")).unwrap();
        let png: ContentPart = serde_json::from_value(golden["attach_png"].clone()).unwrap();
        assert_eq!(unsupported_placeholder(&png), golden["placeholder_png"]);
    }
}
