//! MCP: `tools/list` entries and the `CallToolResult` of a tool call, as JSON. The rmcp server
//! (`toolnexus::mcp`, feature `mcp`) serves these; this encoding needs no feature.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::{definition_list, text_block};
use crate::decode::schema::WRAPPED_RESULT;
use crate::result::ToolResult;
use crate::result::part::{ContentPart, Source, describe_part};
use crate::result::url;
use crate::tool::{Tool, ToolAnnotations};

/// The `tools/list` entries, one [`definition`] per tool.
pub(crate) fn definitions(tools: &[Arc<dyn Tool>]) -> Value {
    definition_list(tools, |tool| Value::Object(definition(tool)))
}

/// One `tools/list` entry: `{name, title?, description, inputSchema, outputSchema?,
/// annotations?}`, keys in the order rmcp writes them; absent parts are omitted.
pub(crate) fn definition(tool: &dyn Tool) -> Map<String, Value> {
    let mut entry = Map::new();
    entry.insert("name".to_owned(), tool.name().into());
    if let Some(title) = tool.title() {
        entry.insert("title".to_owned(), title.into());
    }
    entry.insert("description".to_owned(), tool.description().into());
    entry.insert(
        "inputSchema".to_owned(),
        Value::Object(tool.input_schema().clone()),
    );
    if let Some(schema) = tool.output_schema() {
        entry.insert("outputSchema".to_owned(), Value::Object(schema.clone()));
    }
    let hints = hints(tool.annotations());
    if !hints.is_empty() {
        entry.insert("annotations".to_owned(), Value::Object(hints));
    }
    entry
}

/// The hints that are set, under their MCP names. A read-only tool is not destructive — MCP
/// defines `destructiveHint` only for tools that are not read-only, and every port reads it
/// so — so `read_only` with `destructive` sends `destructiveHint: false`, never the
/// contradiction.
fn hints(annotations: ToolAnnotations) -> Map<String, Value> {
    let destructive = match annotations.read_only {
        Some(true) => annotations.destructive.map(|_| false),
        _ => annotations.destructive,
    };
    [
        ("readOnlyHint", annotations.read_only),
        ("destructiveHint", destructive),
        ("idempotentHint", annotations.idempotent),
        ("openWorldHint", annotations.open_world),
    ]
    .into_iter()
    .filter_map(|(key, hint)| Some((key.to_owned(), Value::Bool(hint?))))
    .collect()
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
    /// use toolnexus::ToolResult;
    /// use toolnexus::parts::from_bytes;
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

    /// The MCP `CallToolResult` of a call to `tool`: [`to_mcp`](Self::to_mcp), plus
    /// `structuredContent` when the tool declares an
    /// [`output_schema`](Tool::output_schema) and the result is a success. This is what the
    /// MCP server (`toolnexus::mcp`) sends.
    ///
    /// `structuredContent` is the output parsed as JSON, wrapped as `{"result": …}` when the
    /// schema carries the `x-toolnexus-wrap-result` marker (a tool returning `Json<Vec<T>>`,
    /// a number, an `Option`…), with an empty output — `None` — as `{"result": null}`. The
    /// text block keeps the output as it is, for clients that read only text. Errors and
    /// suspensions carry no structured content. `ToolResult` itself is unchanged; other
    /// ports read `structuredContent` back as `output` = its JSON.
    ///
    /// A successful output that does not fit — not JSON, or not a JSON object where the
    /// schema is not wrapped — would break the promise the schema makes (MCP clients check
    /// it), so it becomes an `isError` result whose first text block says why and whose
    /// next blocks are the output and parts the tool gave. Only the JSON shape is checked
    /// here, not every keyword of the schema: `#[tool]` keeps that promise by construction,
    /// and a [`ToolDef::output_schema`](crate::ToolDef::output_schema) is the tool's word.
    ///
    /// ```
    /// use serde_json::{json, Value};
    /// use toolnexus::{define_tool, Json, ToolContext, ToolResult};
    ///
    /// let sizes = define_tool("sizes", "Shirt sizes", json!({"type": "object"}))?
    ///     .output_schema(json!({"type": "array", "items": {"type": "string"}}))?
    ///     .sync(|_: Value, _: &ToolContext| Json(["S", "M"]));
    /// let result = ToolResult::ok(r#"["S","M"]"#);
    /// assert_eq!(result.to_mcp_for(&sizes), json!({
    ///     "content": [{"type": "text", "text": r#"["S","M"]"#}],
    ///     "structuredContent": {"result": ["S", "M"]},
    ///     "isError": false,
    /// }));
    /// assert_eq!(ToolResult::error("no stock").to_mcp_for(&sizes), ToolResult::error("no stock").to_mcp());
    /// # Ok::<(), toolnexus::DefineToolError>(())
    /// ```
    pub fn to_mcp_for(&self, tool: &dyn Tool) -> Value {
        let Some(schema) = tool.output_schema().filter(|_| !self.is_error) else {
            return self.to_mcp();
        };
        match structured_content(&self.output, schema) {
            Ok(structured) => {
                let mut result = Map::new();
                let mut plain = self.to_mcp();
                result.insert("content".to_owned(), plain["content"].take());
                result.insert("structuredContent".to_owned(), structured);
                result.insert("isError".to_owned(), Value::Bool(false));
                Value::Object(result)
            }
            Err(problem) => {
                let mut parts = Vec::with_capacity(self.parts.len() + 1);
                parts.push(ContentPart::text(self.output.clone()));
                parts.extend(self.parts.iter().cloned());
                ToolResult::error(format!(
                    "tool `{}` declares an output schema, but its output {problem}",
                    tool.name()
                ))
                .with_parts(parts)
                .to_mcp()
            }
        }
    }
}

/// `output` as the `structuredContent` `schema` promises, or what is wrong with it.
fn structured_content(output: &str, schema: &Map<String, Value>) -> Result<Value, String> {
    let wrapped = schema.get(WRAPPED_RESULT) == Some(&Value::Bool(true));
    if wrapped && output.is_empty() {
        return Ok(json!({"result": null}));
    }
    let value: Value =
        serde_json::from_str(output).map_err(|error| format!("is not JSON ({error})"))?;
    if wrapped {
        Ok(json!({"result": value}))
    } else if value.is_object() {
        Ok(value)
    } else {
        Err(format!(
            "is {} where the schema wants an object",
            crate::decode::json_kind(&value)
        ))
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
