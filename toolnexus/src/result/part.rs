//! Content parts (SPEC §1B): images, files and audio carried beside a result's text.

use std::fmt;
use std::path::PathBuf;

use serde::de::{self, Deserializer};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};

/// One piece of non-text (or extra text) output.
///
/// Wire form: `{"type":"text","text":…}` or `{"type":"image","mimeType":"image/png","data":"…"}`
/// (`"url"` instead of `"data"` for a remote part), keys in that order, `"name"` last and only
/// when set. A part is bytes-or-URL, never a path: paths are read at the edge by
/// [`attach`](crate::parts::attach) and [`from_path`](crate::parts::from_path).
///
/// ```
/// use toolnexus::ContentPart;
/// use toolnexus::parts::from_bytes;
///
/// let part = from_bytes(b"\x89PNG", "image/png");
/// assert!(matches!(part, ContentPart::Image(_)));
/// assert_eq!(
///     serde_json::to_string(&part).unwrap(),
///     r#"{"type":"image","mimeType":"image/png","data":"iVBORw=="}"#
/// );
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum ContentPart {
    /// Plain text.
    Text {
        /// The text.
        text: String,
    },
    /// An image (`image/*`).
    Image(Media),
    /// Any other file (PDF, CSV, …); the only kind that carries a `name`.
    File(Media),
    /// Audio (`audio/*`).
    Audio(Media),
}

/// The payload of an image, file or audio part.
///
/// Wire form: a part's without its `type`: `{"mimeType":…,"data":…}` (or `"url"`), `"name"`
/// last and only when set. Deserializing enforces exactly one of `data` and `url`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Media {
    /// The IANA media type, e.g. `image/png`.
    pub mime_type: String,
    /// The bytes (as base64) or where to fetch them.
    #[serde(flatten)]
    pub source: Source,
    /// A file name for the model or the user (file parts only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// Where a part's bytes are. Wire form: `{"data":…}` or `{"url":…}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// Standard, padded base64 of the bytes.
    Data(String),
    /// A URL the provider (or the client) fetches.
    Url(String),
}

impl ContentPart {
    /// A text part.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text { text: text.into() }
    }

    /// The media of an image, file or audio part; `None` for text.
    pub fn media(&self) -> Option<&Media> {
        match self {
            Self::Text { .. } => None,
            Self::Image(media) | Self::File(media) | Self::Audio(media) => Some(media),
        }
    }

    /// The wire `type`: `"text"`, `"image"`, `"file"` or `"audio"`.
    pub fn type_name(&self) -> &'static str {
        match self {
            Self::Text { .. } => "text",
            Self::Image(_) => "image",
            Self::File(_) => "file",
            Self::Audio(_) => "audio",
        }
    }

    /// The part type a mime type maps to: `image/*` ⇒ Image, `audio/*` ⇒ Audio, else File.
    /// Only a File keeps `name` (the JavaScript reference's rule).
    pub(crate) fn for_mime(mime_type: &str, source: Source, name: Option<String>) -> Self {
        let top = mime_type.split('/').next().unwrap_or_default();
        let media = |name| Media {
            mime_type: mime_type.to_owned(),
            source,
            name,
        };
        if top.eq_ignore_ascii_case("image") {
            Self::Image(media(None))
        } else if top.eq_ignore_ascii_case("audio") {
            Self::Audio(media(None))
        } else {
            Self::File(media(name))
        }
    }
}

impl Serialize for ContentPart {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let Some(media) = self.media() else {
            let Self::Text { text } = self else {
                unreachable!("only text parts have no media")
            };
            let mut map = serializer.serialize_map(Some(2))?;
            map.serialize_entry("type", "text")?;
            map.serialize_entry("text", text)?;
            return map.end();
        };
        let len = 3 + usize::from(media.name.is_some());
        let mut map = serializer.serialize_map(Some(len))?;
        map.serialize_entry("type", self.type_name())?;
        map.serialize_entry("mimeType", &media.mime_type)?;
        match &media.source {
            Source::Data(data) => map.serialize_entry("data", data)?,
            Source::Url(url) => map.serialize_entry("url", url)?,
        }
        if let Some(name) = &media.name {
            map.serialize_entry("name", name)?;
        }
        map.end()
    }
}

/// The keys of a media part as they arrive; [`MediaWire::into_media`] applies the
/// exactly-one-source rule shared by [`Media`] and [`ContentPart`].
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct MediaWire {
    mime_type: Option<String>,
    data: Option<String>,
    url: Option<String>,
    name: Option<String>,
}

impl MediaWire {
    fn into_media<E: de::Error>(self) -> Result<Media, E> {
        let source = match (self.data, self.url) {
            (Some(_), Some(_)) => return Err(E::custom(ContentPartError::SourceConflict)),
            (None, None) => return Err(E::custom(ContentPartError::SourceMissing)),
            (Some(data), None) => Source::Data(data),
            (None, Some(url)) => Source::Url(url),
        };
        let mime_type = self.mime_type.ok_or_else(|| E::missing_field("mimeType"))?;
        Ok(Media {
            mime_type,
            source,
            name: self.name,
        })
    }
}

impl<'de> Deserialize<'de> for Media {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        MediaWire::deserialize(deserializer)?.into_media()
    }
}

impl<'de> Deserialize<'de> for ContentPart {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Wire {
            #[serde(rename = "type")]
            kind: String,
            text: Option<String>,
            #[serde(flatten)]
            media: MediaWire,
        }
        let wire = Wire::deserialize(deserializer)?;
        if wire.kind == "text" {
            let text = wire.text.ok_or_else(|| de::Error::missing_field("text"))?;
            return Ok(Self::Text { text });
        }
        let media = wire.media.into_media()?;
        match wire.kind.as_str() {
            "image" => Ok(Self::Image(media)),
            "file" => Ok(Self::File(media)),
            "audio" => Ok(Self::Audio(media)),
            other => Err(de::Error::unknown_variant(
                other,
                &["text", "image", "file", "audio"],
            )),
        }
    }
}

/// Why a content part could not be made, decoded or encoded.
///
/// [`code`](Self::code) gives the cross-port code; messages say what was wrong and what to do,
/// and never contain payload data.
#[derive(Debug)]
#[non_exhaustive]
pub enum ContentPartError {
    /// Both `data` and `url` were given; a part has exactly one source.
    SourceConflict,
    /// Neither `data` nor `url` was given.
    SourceMissing,
    /// No media type could be inferred from the path or URL's extension.
    UnknownExtension {
        /// The path or URL whose extension was not recognised.
        source: String,
    },
    /// The part is larger than `max_part_bytes`.
    TooLarge {
        /// The part's size in bytes.
        size: u64,
        /// The limit it exceeded.
        limit: usize,
    },
    /// The target cannot carry this part (e.g. audio for Anthropic).
    Unsupported {
        /// What was refused, and by whom.
        detail: String,
    },
    /// The file could not be read.
    Io {
        /// The path that was read.
        path: PathBuf,
        /// The underlying error.
        error: std::io::Error,
    },
    /// A `data:` URL was malformed.
    InvalidDataUrl {
        /// What was wrong with it.
        reason: String,
    },
}

impl ContentPartError {
    /// The cross-port error code: `source-conflict`, `source-missing`, `unknown-extension`,
    /// `too-large`, `unsupported`, `io` or `invalid-data-url`.
    pub fn code(&self) -> &'static str {
        match self {
            Self::SourceConflict => "source-conflict",
            Self::SourceMissing => "source-missing",
            Self::UnknownExtension { .. } => "unknown-extension",
            Self::TooLarge { .. } => "too-large",
            Self::Unsupported { .. } => "unsupported",
            Self::Io { .. } => "io",
            Self::InvalidDataUrl { .. } => "invalid-data-url",
        }
    }
}

impl fmt::Display for ContentPartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::SourceConflict => {
                f.write_str("a content part has both `data` and `url`; give exactly one of them")
            }
            Self::SourceMissing => {
                f.write_str("a content part has neither `data` nor `url`; give exactly one of them")
            }
            Self::UnknownExtension { source } => write!(
                f,
                "cannot infer a media type from the extension of `{source}`; pass `AttachOptions::mime_type`"
            ),
            Self::TooLarge { size, limit } => write!(
                f,
                "content part is {size} bytes, over the {limit}-byte `max_part_bytes` limit"
            ),
            Self::Unsupported { detail } => f.write_str(detail),
            Self::Io { path, error } => write!(f, "cannot read `{}`: {error}", path.display()),
            Self::InvalidDataUrl { reason } => write!(f, "invalid data: URL: {reason}"),
        }
    }
}

impl std::error::Error for ContentPartError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Io { error, .. } => Some(error),
            _ => None,
        }
    }
}

/// The decoded size of a part, in O(1) without decoding: base64 data ⇒ its byte count, a URL
/// ⇒ 0 (unknown here), text ⇒ its UTF-8 length.
pub fn part_bytes(part: &ContentPart) -> usize {
    match part {
        ContentPart::Text { text } => text.len(),
        ContentPart::Image(media) | ContentPart::File(media) | ContentPart::Audio(media) => {
            match &media.source {
                Source::Data(data) => base64_bytes(data),
                Source::Url(_) => 0,
            }
        }
    }
}

/// The number of bytes a padded base64 string decodes to: `floor(len/4)*3 − padding`.
///
/// ```
/// assert_eq!(toolnexus::parts::base64_bytes("AAECAw=="), 4);
/// ```
pub fn base64_bytes(b64: &str) -> usize {
    let padding = b64.bytes().rev().take(2).take_while(|&b| b == b'=').count();
    (b64.len() / 4 * 3).saturating_sub(padding)
}

/// A one-line description of a part for the model's text: `"<type> (<mimeType>, <bytes>
/// bytes)"`, e.g. `"image (image/png, 82 bytes)"` (`0 bytes` for a url part), or the text
/// itself for a text part.
///
/// The form is byte-identical across ports: a file part is `"file (…)"` even when it has a
/// `name`.
pub fn describe_part(part: &ContentPart) -> String {
    Description(part).to_string()
}

/// [`describe_part`]'s text, written where it goes (the token estimate measures it without
/// building a `String` per part).
pub(crate) struct Description<'a>(pub(crate) &'a ContentPart);

impl fmt::Display for Description<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let part = self.0;
        match part {
            ContentPart::Text { text } => f.write_str(text),
            ContentPart::Image(media) | ContentPart::File(media) | ContentPart::Audio(media) => {
                write!(
                    f,
                    "{} ({}, {} bytes)",
                    part.type_name(),
                    media.mime_type,
                    part_bytes(part)
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::result::part::*;

    #[test]
    fn media_and_source_have_the_part_wire_form_without_its_type() {
        let media = Media {
            mime_type: "application/pdf".into(),
            source: Source::Url("https://example.com/r.pdf".into()),
            name: Some("r.pdf".into()),
        };
        let text = serde_json::to_string(&media).unwrap();
        assert_eq!(
            text,
            r#"{"mimeType":"application/pdf","url":"https://example.com/r.pdf","name":"r.pdf"}"#
        );
        assert_eq!(serde_json::from_str::<Media>(&text).unwrap(), media);
        assert_eq!(
            serde_json::to_value(Source::Data("AA==".into())).unwrap(),
            json!({"data": "AA=="})
        );
    }

    #[test]
    fn media_needs_exactly_one_source() {
        let both = json!({"mimeType": "image/png", "data": "AA==", "url": "https://x"});
        let error = serde_json::from_value::<Media>(both).unwrap_err();
        assert_eq!(
            error.to_string(),
            ContentPartError::SourceConflict.to_string()
        );
        let neither = json!({"mimeType": "image/png"});
        let error = serde_json::from_value::<Media>(neither).unwrap_err();
        assert_eq!(
            error.to_string(),
            ContentPartError::SourceMissing.to_string()
        );
    }
}
