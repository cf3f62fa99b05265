//! MCP: `tools/list` entries and the `CallToolResult` of a tool call, as JSON. The rmcp server
//! (`toolnexus::mcp`, feature `mcp`) serves these; this encoding needs no feature.

use std::sync::Arc;

use serde_json::{Value, json};

use super::{definition_list, name_and_description, text_block};
use crate::part::{ContentPart, Source, describe_part};
use crate::result::ToolResult;
use crate::tool::Tool;
use crate::url;

/// The `tools/list` entries: `[{name, description, inputSchema}]`.
pub(crate) fn definitions(tools: &[Arc<dyn Tool>]) -> Value {
    definition_list(tools, |tool| {
        let mut entry = name_and_description(tool);
        entry.insert(
            "inputSchema".to_owned(),
            Value::Object(tool.input_schema().clone()),
        );
        Value::Object(entry)
    })
}

impl ToolResult {
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
        content.push(text_block(&self.output));
        for (index, part) in self.parts.iter().enumerate() {
            content.push(content_block(index, part));
        }
        json!({"content": content, "isError": self.is_error})
    }
}

/// The MCP content block for `parts[index]`.
fn content_block(index: usize, part: &ContentPart) -> Value {
    let Some(media) = part.media() else {
        return text_block(&describe_part(part));
    };
    match (&media.source, part) {
        (Source::Url(link), _) => {
            let name = media
                .name
                .clone()
                .or_else(|| url::last_segment(link).map(str::to_owned))
                .unwrap_or_else(|| part.type_name().to_owned());
            json!({"type": "resource_link", "uri": link, "name": name, "mimeType": media.mime_type})
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
