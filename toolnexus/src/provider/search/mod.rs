//! Deferred loading and tool search on each API's wire (SPEC §15): the search tool each API
//! gets, deferred tools marked `defer_loading`, OpenAI Responses `namespace`s, and the items
//! that answer a search (`tool_search_output`, `tool_reference` blocks).

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Value, json};

use crate::provider::search_names::{
    DEFAULT_LIMIT, DEFINITIONS_KEY, FOUND_KEY, MAX_LIMIT, SEARCH_TOOLS, TOOL_SEARCH, ToolSearch,
};
use crate::provider::{anthropic, gemini, openai};
use crate::result::ToolResult;
use crate::tool::Tool;

const DESCRIPTION: &str = "Finds tools that are not loaded yet. Describe what you need in a few \
     words (e.g. \"create a pull request\"); the tools found become available to call. \
     Answers with each tool's name and what it does.";

/// The search tool's parameters, in the JSON Schema every API but Gemini reads.
fn parameters(closed: bool) -> Value {
    let mut schema = json!({
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What the tool should do, in a few words"},
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_LIMIT,
                "description": format!("How many tools to return at most (default {DEFAULT_LIMIT})"),
            },
        },
        "required": ["query"],
    });
    if closed {
        schema["additionalProperties"] = false.into();
    }
    schema
}

/// Chat Completions: the tools `send` accepts, then `search_tools`.
pub(crate) fn chat(tools: &[Arc<dyn Tool>], send: impl Fn(usize) -> bool) -> Value {
    let kept: Vec<Arc<dyn Tool>> = (0..tools.len())
        .filter(|&at| send(at))
        .map(|at| Arc::clone(&tools[at]))
        .collect();
    let mut entries = match openai::definitions(&kept) {
        Value::Array(entries) => entries,
        _ => Vec::new(),
    };
    entries.push(json!({"type": "function", "function": {
        "name": SEARCH_TOOLS, "description": DESCRIPTION, "parameters": parameters(true),
    }}));
    Value::Array(entries)
}

/// Gemini: the declarations sent, then `search_tools` (Gemini's schema subset has no
/// `additionalProperties`).
pub(crate) fn gemini(mut declarations: Vec<Value>) -> Value {
    declarations.push(json!({
        "name": SEARCH_TOOLS, "description": DESCRIPTION, "parameters": parameters(false),
    }));
    gemini::tools_list(declarations)
}

/// Anthropic: every tool, the deferred ones with `"defer_loading": true`, then the search
/// tool `search` chose.
pub(crate) fn anthropic(
    tools: &[Arc<dyn Tool>],
    deferred: impl Fn(usize) -> bool,
    search: ToolSearch,
) -> Value {
    let mut entries = match anthropic::definitions(tools) {
        Value::Array(entries) => entries,
        _ => Vec::new(),
    };
    for (at, entry) in entries.iter_mut().enumerate() {
        if deferred(at) {
            entry["defer_loading"] = true.into();
        }
    }
    entries.push(match search {
        ToolSearch::Bm25 => {
            json!({"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"})
        }
        ToolSearch::Regex => {
            json!({"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"})
        }
        ToolSearch::Local => json!({
            "name": SEARCH_TOOLS, "description": DESCRIPTION, "input_schema": parameters(true),
        }),
    });
    Value::Array(entries)
}

/// OpenAI Responses: `strict` (the strict Chat entries of the tools sent) flattened, each
/// marked `defer_loading` where `placed` says so and put in its tool's namespace, then the
/// `tool_search` tool (client-executed for [`ToolSearch::Local`]).
pub(crate) fn responses<'a>(
    strict: Vec<Value>,
    placed: impl Iterator<Item = (&'a dyn Tool, bool)>,
    search: ToolSearch,
) -> Value {
    let flat = match openai::responses::definitions(Value::Array(strict)) {
        Value::Array(flat) => flat,
        _ => Vec::new(),
    };
    let mut entries = Vec::new();
    // Each namespace where its first tool stands, its tools in registration order.
    let mut spaces: BTreeMap<String, usize> = BTreeMap::new();
    for (mut entry, (tool, defer)) in flat.into_iter().zip(placed) {
        if defer {
            entry["defer_loading"] = true.into();
        }
        let Some(space) = tool.namespace() else {
            entries.push(entry);
            continue;
        };
        let at = *spaces.entry(space.to_owned()).or_insert_with(|| {
            entries.push(json!({
                "type": "namespace",
                "name": space,
                "description": format!("Tools of the MCP server `{space}`"),
                "tools": [],
            }));
            entries.len() - 1
        });
        if let Some(Value::Array(tools)) = entries[at].get_mut("tools") {
            tools.push(entry);
        }
    }
    entries.push(match search {
        ToolSearch::Local => json!({
            "type": "tool_search",
            "execution": "client",
            "description": DESCRIPTION,
            "parameters": parameters(true),
        }),
        ToolSearch::Bm25 | ToolSearch::Regex => json!({"type": "tool_search"}),
    });
    Value::Array(entries)
}

/// The Responses definitions of the tools a client-executed search found, from their
/// strict Chat entries: what its `tool_search_output` carries.
pub(crate) fn found_definitions(strict: Vec<Value>) -> Value {
    openai::responses::definitions(Value::Array(strict))
}

/// The names a search's answer found ([`FOUND_KEY`]), when `result` is one.
fn found(result: &ToolResult) -> Option<&Vec<Value>> {
    result.metadata.get(FOUND_KEY)?.as_array()
}

/// Anthropic: a `search_tools` answer that found tools is a `tool_result` of
/// `tool_reference` blocks, which load those tools; anything else is the usual block.
pub(crate) fn anthropic_block(tool_use_id: &str, name: &str, result: &ToolResult) -> Value {
    match found(result) {
        Some(names) if name == SEARCH_TOOLS && !names.is_empty() && !result.is_error => {
            let blocks: Vec<Value> = names
                .iter()
                .map(|name| json!({"type": "tool_reference", "tool_name": name}))
                .collect();
            json!({"type": "tool_result", "tool_use_id": tool_use_id, "content": blocks})
        }
        _ => result.to_anthropic_block(tool_use_id),
    }
}

/// OpenAI Responses: the `tool_search_output` answering a client-executed search, carrying
/// the found tools' definitions; `None` for any other call. A refused search (bad
/// arguments) loads nothing: the item has no text for the model.
pub(crate) fn responses_item(call_id: &str, name: &str, result: &ToolResult) -> Option<Value> {
    if name != TOOL_SEARCH || !result.metadata.contains_key(FOUND_KEY) && !result.is_error {
        return None;
    }
    let tools = match result.metadata.get(DEFINITIONS_KEY) {
        Some(Value::Array(tools)) => tools.clone(),
        _ => Vec::new(),
    };
    Some(json!({
        "type": "tool_search_output",
        "call_id": call_id,
        "execution": "client",
        "status": "completed",
        "tools": tools,
    }))
}

/// The answer to a search: one line per tool found, `name: first line of its description`,
/// and the names in `metadata`.
pub(crate) fn answer(query: &str, found: &[&Arc<dyn Tool>]) -> ToolResult {
    if found.is_empty() {
        return ToolResult::ok(format!("no tool matches \"{query}\"; try other words"))
            .with_metadata(FOUND_KEY, Vec::<Value>::new());
    }
    let lines: Vec<String> = found
        .iter()
        .map(|tool| format!("{}: {}", tool.name(), one_line(tool.description())))
        .collect();
    let names: Vec<Value> = found.iter().map(|tool| tool.name().into()).collect();
    ToolResult::ok(lines.join("\n")).with_metadata(FOUND_KEY, names)
}

/// The first line of a description, cut at 200 characters.
fn one_line(description: &str) -> String {
    let line = description
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty());
    let line = line.unwrap_or_default();
    match line.char_indices().nth(200) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line.to_owned(),
    }
}

/// The search's query and limit, or the invalid-arguments message refusing them, as any
/// tool's arguments are refused.
pub(crate) fn arguments(name: &str, text: &str) -> Result<(String, usize), String> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Arguments {
        query: String,
        limit: Option<u64>,
    }
    let refuse = |why: String| format!("invalid arguments for `{name}`: {why}");
    let text = if text.trim().is_empty() { "{}" } else { text };
    let parsed: Arguments = serde_json::from_str(text).map_err(|error| {
        // The position says nothing to a model that sent one line of JSON.
        let message = error.to_string();
        let at = message.rfind(" at line ").unwrap_or(message.len());
        refuse(message[..at].to_owned())
    })?;
    let limit = parsed.limit.unwrap_or(DEFAULT_LIMIT);
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(refuse(format!(
            "field `limit`: {limit} is outside 1 to {MAX_LIMIT}"
        )));
    }
    Ok((parsed.query, limit as usize))
}
