//! OpenAI Chat Completions: tool definitions (plain and strict), the strict-mode schema
//! rewrite, content blocks, and the messages that answer tool calls.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::{
    Style, definition_list, encode_or_placeholder, essence, inline_image, is_null_schema,
    name_and_description, text_block, unsupported,
};
use crate::part::{ContentPart, ContentPartError, Media, Source};
use crate::result::ToolResult;
use crate::tool::Tool;

/// The `tools` list: `[{"type":"function","function":{name, description, parameters}}]`.
pub(crate) fn definitions(tools: &[Arc<dyn Tool>]) -> Value {
    definition_list(tools, |tool| {
        openai_entry(function(tool, tool.input_schema().clone()))
    })
}

/// [`definitions`] for strict mode: `"strict": true` and [`openai_strict_schema`] parameters.
pub(crate) fn strict_definitions(tools: &[Arc<dyn Tool>]) -> Value {
    definition_list(tools, |tool| {
        let mut function = function(tool, openai_strict_schema(tool.input_schema()));
        function.insert("strict".to_owned(), Value::Bool(true));
        openai_entry(function)
    })
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

/// Rewrites an input schema to OpenAI's strict structured-outputs rules (what
/// [`Toolkit::to_openai_strict`](crate::Toolkit::to_openai_strict) sends).
///
/// Every object schema — the root, nested objects, array items, `anyOf` branches and
/// `$defs` — gets `"additionalProperties": false`, a `properties` object and a `required`
/// list naming all its properties. A property that was optional becomes nullable instead:
/// `"type": T` ⇒ `["T", "null"]` (with `null` added to an `enum`), and a `$ref`, `const` or
/// composite schema ⇒ `{"anyOf": [schema, {"type": "null"}]}`, its `description` moved
/// outside. Every `default` is removed, and `oneOf` becomes `anyOf` (strict mode accepts only
/// `anyOf`; tagged enum variants are disjoint, so nothing is lost). `$defs` and `$ref` are
/// kept: strict mode supports them, recursion included.
///
/// A map-like object (`additionalProperties` as a schema, from a `HashMap` or `BTreeMap`
/// argument) cannot be expressed in strict mode; it is closed like every other object, so
/// only `{}` validates. Use the non-strict [`Toolkit::to_openai`](crate::Toolkit::to_openai)
/// for such tools.
///
/// ```
/// use serde_json::json;
///
/// let schema = json!({
///     "type": "object",
///     "properties": {"city": {"type": "string"}, "days": {"type": "integer", "default": 3}},
///     "required": ["city"],
/// });
/// let strict = toolnexus::openai_strict_schema(schema.as_object().unwrap());
/// assert_eq!(serde_json::Value::Object(strict), json!({
///     "type": "object",
///     "properties": {"city": {"type": "string"}, "days": {"type": ["integer", "null"]}},
///     "required": ["city", "days"],
///     "additionalProperties": false,
/// }));
/// ```
pub fn openai_strict_schema(schema: &Map<String, Value>) -> Map<String, Value> {
    let mut strict = schema.clone();
    strict_in_place(&mut strict);
    strict
}

fn strict_in_place(schema: &mut Map<String, Value>) {
    schema.remove("default");
    if !schema.contains_key("anyOf") {
        if let Some(one_of) = schema.remove("oneOf") {
            schema.insert("anyOf".to_owned(), one_of);
        }
    }
    for_each_subschema(schema, |sub| {
        if let Value::Object(sub) = sub {
            strict_in_place(sub);
        }
    });
    if !is_object_schema(schema) {
        return;
    }
    let originally_required: Vec<String> = match schema.get("required") {
        Some(Value::Array(names)) => names
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    };
    let properties = schema
        .entry("properties")
        .or_insert_with(|| Value::Object(Map::new()));
    let mut all = Vec::new();
    if let Value::Object(properties) = properties {
        for (name, property) in properties.iter_mut() {
            if !originally_required.contains(name) {
                make_nullable(property);
            }
            all.push(Value::String(name.clone()));
        }
    }
    schema.insert("required".to_owned(), Value::Array(all));
    schema.insert("additionalProperties".to_owned(), Value::Bool(false));
}

/// Makes a strict-mode property schema also accept `null`, the strict way of saying
/// "optional".
fn make_nullable(schema: &mut Value) {
    let Value::Object(map) = schema else {
        // `true` already accepts null; `false` accepts nothing either way.
        return;
    };
    if accepts_null(map) {
        return;
    }
    let composite = ["$ref", "anyOf", "oneOf", "allOf", "const", "not"]
        .iter()
        .any(|key| map.contains_key(*key));
    match map.get_mut("type") {
        Some(Value::String(single)) if !composite => {
            let single = std::mem::take(single);
            map.insert("type".to_owned(), json!([single, "null"]));
            add_null_to_enum(map);
            return;
        }
        Some(Value::Array(types)) if !composite => {
            types.push(Value::from("null"));
            add_null_to_enum(map);
            return;
        }
        _ => {}
    }
    let plain_any_of = ["$ref", "oneOf", "allOf", "const", "not", "type"]
        .iter()
        .all(|key| !map.contains_key(*key));
    if let (true, Some(Value::Array(branches))) = (plain_any_of, map.get_mut("anyOf")) {
        branches.push(json!({"type": "null"}));
        return;
    }
    let mut inner = std::mem::take(map);
    if let Some(description) = inner.remove("description") {
        map.insert("description".to_owned(), description);
    }
    map.insert(
        "anyOf".to_owned(),
        json!([Value::Object(inner), {"type": "null"}]),
    );
}

fn accepts_null(map: &Map<String, Value>) -> bool {
    match map.get("type") {
        Some(Value::String(single)) => single == "null",
        Some(Value::Array(types)) => types.iter().any(|t| t == "null"),
        // Without a `type`, an `enum` that lists null, or an `anyOf` branch of null, admits it.
        _ => {
            let null_choice = match map.get("enum") {
                Some(Value::Array(values)) => values.contains(&Value::Null),
                _ => false,
            };
            let null_branch = match map.get("anyOf") {
                Some(Value::Array(branches)) => branches.iter().any(is_null_schema),
                _ => false,
            };
            null_choice || null_branch
        }
    }
}

fn add_null_to_enum(map: &mut Map<String, Value>) {
    if let Some(Value::Array(values)) = map.get_mut("enum") {
        if !values.contains(&Value::Null) {
            values.push(Value::Null);
        }
    }
}

fn is_object_schema(schema: &Map<String, Value>) -> bool {
    let typed_object = match schema.get("type") {
        Some(Value::String(single)) => single == "object",
        Some(Value::Array(types)) => types.iter().any(|t| t == "object"),
        _ => false,
    };
    typed_object || schema.contains_key("properties")
}

/// Calls `visit` on every direct subschema of `schema`.
fn for_each_subschema(schema: &mut Map<String, Value>, mut visit: impl FnMut(&mut Value)) {
    for key in ["properties", "$defs", "definitions", "patternProperties"] {
        if let Some(Value::Object(children)) = schema.get_mut(key) {
            children.values_mut().for_each(&mut visit);
        }
    }
    for key in ["anyOf", "oneOf", "allOf", "prefixItems"] {
        if let Some(Value::Array(children)) = schema.get_mut(key) {
            children.iter_mut().for_each(&mut visit);
        }
    }
    for key in ["items", "additionalProperties", "not"] {
        match schema.get_mut(key) {
            Some(Value::Array(children)) => children.iter_mut().for_each(&mut visit),
            Some(child @ Value::Object(_)) => visit(child),
            _ => {}
        }
    }
}

/// [`encode_part`](crate::encode_part) for [`Style::OpenAi`].
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
    /// [`unsupported_placeholder`](crate::unsupported_placeholder) text).
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
