//! What makes a rendered request valid on its API beyond its SDK types (which the corpus
//! checks, `scripts/provider-sdk-checks.py`): every tool result answers a call made just
//! before it and every call is answered before the conversation goes on, with call ids the
//! API takes.
//!
//! - Chat: `tool` messages right after the assistant message with their calls; ids of at
//!   most 40 characters, none twice.
//! - Responses: `function_call_output` items after their `function_call`s; `call_id`s of at
//!   most 64 characters, none twice; item ids (`fc_…`, `rs_…`, `msg_…`, only on the items
//!   Responses made) none twice.
//! - Anthropic: one `user` message right after the `tool_use`s, its `tool_result` blocks
//!   first; ids of `[a-zA-Z0-9_-]`, none twice.
//! - Gemini: the `functionResponse`s right after the `functionCall`s, by name and in order
//!   (the ids, when there are any, equal); no id Gemini synthesized sent back; the first call
//!   of each model content with a thought signature (Gemini 3 refuses one without).

use std::collections::HashSet;

use serde_json::Value;
use toolnexus::Api;

/// What a request's messages (or items) hold: the calls made and the results given, each
/// as the key they pair by (Gemini: `name#id`, others: the id).
struct Entry {
    calls: Vec<String>,
    results: Vec<String>,
}

/// Checks `body`, a whole request rendered for `api`; panics naming what is wrong. Returns
/// how many calls and results it holds.
pub fn check_request(api: Api, body: &Value) -> (usize, usize) {
    let entries = entries(api, body);
    let mut open: Vec<String> = Vec::new();
    // Responses sends parallel calls as one item each: calls may follow calls.
    let mut after_calls = false;
    let (mut calls, mut results) = (0, 0);
    for (at, entry) in entries.iter().enumerate() {
        if api == Api::Gemini && !entry.results.is_empty() {
            assert_eq!(
                entry.results, open,
                "{api}: the responses at {at} answer the calls just before them, by name and in order: {body}"
            );
            open.clear();
        }
        for id in entry.results.iter().filter(|_| api != Api::Gemini) {
            let Some(found) = open.iter().position(|open| open == id) else {
                panic!("{api}: result `{id}` at {at} answers no open call: {body}");
            };
            open.remove(found);
        }
        let moves_on = entry.results.is_empty() && entry.calls.is_empty();
        if moves_on || (!entry.calls.is_empty() && !after_calls) {
            assert!(
                open.is_empty(),
                "{api}: calls {open:?} unanswered before {at}: {body}"
            );
        }
        after_calls = !entry.calls.is_empty() && entry.results.is_empty();
        calls += entry.calls.len();
        results += entry.results.len();
        open.extend(entry.calls.iter().cloned());
    }
    assert!(
        open.is_empty(),
        "{api}: calls {open:?} never answered: {body}"
    );
    check_ids(api, body);
    (calls, results)
}

fn text(value: &Value) -> String {
    value.as_str().unwrap_or_default().to_owned()
}

fn list(value: &Value) -> Vec<Value> {
    value.as_array().cloned().unwrap_or_default()
}

fn entries(api: Api, body: &Value) -> Vec<Entry> {
    match api {
        Api::OpenAiChat => list(&body["messages"])
            .iter()
            .map(|m| Entry {
                calls: list(&m["tool_calls"])
                    .iter()
                    .map(|c| text(&c["id"]))
                    .collect(),
                results: (m["role"] == "tool")
                    .then(|| text(&m["tool_call_id"]))
                    .into_iter()
                    .collect(),
            })
            .collect(),
        Api::OpenAiResponses => list(&body["input"])
            .iter()
            .map(|item| {
                let id = vec![text(&item["call_id"])];
                match item["type"].as_str() {
                    Some("function_call") => Entry {
                        calls: id,
                        results: Vec::new(),
                    },
                    Some("function_call_output") => Entry {
                        calls: Vec::new(),
                        results: id,
                    },
                    _ => Entry {
                        calls: Vec::new(),
                        results: Vec::new(),
                    },
                }
            })
            .collect(),
        Api::Anthropic => list(&body["messages"])
            .iter()
            .map(|m| {
                let blocks = list(&m["content"]);
                let first_other = blocks.iter().position(|b| b["type"] != "tool_result");
                let last_result = blocks.iter().rposition(|b| b["type"] == "tool_result");
                if let (Some(other), Some(result)) = (first_other, last_result) {
                    assert!(result < other, "tool_result blocks come first: {m}");
                }
                let of = |kind: &str, key: &str| {
                    blocks
                        .iter()
                        .filter(|b| b["type"] == kind)
                        .map(|b| text(&b[key]))
                        .collect()
                };
                Entry {
                    calls: of("tool_use", "id"),
                    results: of("tool_result", "tool_use_id"),
                }
            })
            .collect(),
        Api::Gemini => list(&body["contents"])
            .iter()
            .map(|c| {
                let parts = list(&c["parts"]);
                let of = |key: &str| {
                    parts
                        .iter()
                        .filter_map(|p| p.get(key))
                        .map(|p| format!("{}#{}", text(&p["name"]), text(&p["id"])))
                        .collect()
                };
                Entry {
                    calls: of("functionCall"),
                    results: of("functionResponse"),
                }
            })
            .collect(),
    }
}

/// Each id unique and in the form and length the API takes.
fn check_ids(api: Api, body: &Value) {
    let mut seen = HashSet::new();
    let mut unique = |id: String, what: &str| {
        assert!(
            seen.insert(id.clone()),
            "{api}: {what} `{id}` twice: {body}"
        );
    };
    match api {
        Api::OpenAiChat => {
            for message in list(&body["messages"]) {
                for call in list(&message["tool_calls"]) {
                    let id = text(&call["id"]);
                    assert!(
                        !id.is_empty() && id.chars().count() <= 40,
                        "{api}: id `{id}`"
                    );
                    unique(id, "call id");
                }
            }
        }
        Api::OpenAiResponses => {
            for item in list(&body["input"]) {
                if item["type"] == "function_call" {
                    let id = text(&item["call_id"]);
                    assert!(
                        !id.is_empty() && id.chars().count() <= 64,
                        "{api}: call_id `{id}`"
                    );
                    unique(id, "call_id");
                }
                if let Some(id) = item.get("id") {
                    // Only an item Responses made has an id, with its type's prefix.
                    let prefix = match item["type"].as_str() {
                        Some("function_call") => "fc_",
                        Some("reasoning") => "rs_",
                        _ => "msg_",
                    };
                    assert!(text(id).starts_with(prefix), "{api}: item id {id}");
                    unique(format!("item {}", text(id)), "item id");
                }
            }
        }
        Api::Anthropic => {
            for message in list(&body["messages"]) {
                for block in list(&message["content"]) {
                    if block["type"] == "tool_use" {
                        let id = text(&block["id"]);
                        let allowed = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
                        assert!(!id.is_empty() && id.chars().all(allowed), "{api}: `{id}`");
                        unique(id, "tool_use id");
                    }
                }
            }
        }
        Api::Gemini => {
            for content in list(&body["contents"]) {
                let parts = list(&content["parts"]);
                if let Some(first) = parts.iter().find(|p| p.get("functionCall").is_some()) {
                    assert!(
                        first["thoughtSignature"].is_string(),
                        "{api}: a step's first call without a thought signature: {content}"
                    );
                }
                for part in &parts {
                    for key in ["functionCall", "functionResponse"] {
                        let id = text(&part[key]["id"]);
                        let synthesized = id.strip_prefix("call_").is_some_and(|digits| {
                            !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
                        });
                        assert!(!synthesized, "{api}: a synthesized id sent back: {id}");
                    }
                }
            }
        }
    }
}
