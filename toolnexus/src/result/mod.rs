//! What a call gives back: [`ToolResult`], its content parts and their edge constructors, the
//! suspension [`Request`](crate::Request) and its [`Answer`](crate::Answer), and lowering
//! (whatever a tool returns becomes a `ToolResult`).

pub(crate) mod attach;
pub(crate) mod lower;
pub(crate) mod part;
pub(crate) mod retry;
pub(crate) mod suspend;
pub(crate) mod url;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::result::part::ContentPart;

/// The outcome of one tool call, in the shape every toolnexus port agrees on.
///
/// Wire form: `{"output":…,"isError":…,"parts":[…],"metadata":{…}}`. `parts` and `metadata` are
/// omitted when empty, so a text-only result is byte-identical to the pre-parts contract.
///
/// ```
/// use toolnexus::ToolResult;
///
/// let result = ToolResult::ok("3").with_metadata("elapsed_ms", 12);
/// assert_eq!(
///     serde_json::to_string(&result).unwrap(),
///     r#"{"output":"3","isError":false,"metadata":{"elapsed_ms":12}}"#
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResult {
    /// What the model reads; always present (possibly empty).
    pub output: String,
    /// Whether the call failed (or suspended). A failure is a value, never a panic.
    #[serde(default)]
    pub is_error: bool,
    /// Non-text output (images, files, audio); empty means absent.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<ContentPart>,
    /// Data for the calling code, never shown to the model; empty means absent.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub metadata: Map<String, Value>,
}

impl ToolResult {
    /// A successful result whose output is `output`.
    ///
    /// ```
    /// let result = toolnexus::ToolResult::ok("done");
    /// assert!(!result.is_error);
    /// ```
    #[inline]
    pub fn ok(output: impl Into<String>) -> Self {
        // The map first: its hasher's keys come from a thread-local, and built after the
        // other fields it had them staged on the stack and copied (SPEC §9 counts each call).
        let metadata = Map::new();
        Self {
            output: output.into(),
            is_error: false,
            parts: Vec::new(),
            metadata,
        }
    }

    /// A failed result whose output tells the model what went wrong.
    ///
    /// ```
    /// let result = toolnexus::ToolResult::error("no such city: Atlantis");
    /// assert!(result.is_error);
    /// ```
    pub fn error(output: impl Into<String>) -> Self {
        Self {
            output: output.into(),
            is_error: true,
            ..Self::default()
        }
    }

    /// Appends one content part.
    #[must_use]
    pub fn with_part(mut self, part: ContentPart) -> Self {
        self.parts.push(part);
        self
    }

    /// Appends several content parts, in order.
    #[must_use]
    pub fn with_parts(mut self, parts: impl IntoIterator<Item = ContentPart>) -> Self {
        self.parts.extend(parts);
        self
    }

    /// Sets one metadata entry (replacing an earlier value under the same key).
    ///
    /// ```
    /// use serde_json::json;
    /// let result = toolnexus::ToolResult::ok("2 hits").with_metadata("ids", json!([4, 9]));
    /// assert_eq!(result.metadata["ids"], json!([4, 9]));
    /// ```
    #[must_use]
    pub fn with_metadata(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.metadata.insert(key.into(), value.into());
        self
    }
}
