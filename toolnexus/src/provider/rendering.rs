//! What every API's transcript renderer shares: the ids a transcript's calls go out with
//! ([`WireIds`]), a call's arguments as an object, the system texts joined.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use crate::client::message::{Message, ToolReturn};
use crate::provider::tool_call::{Api, ToolCall};
use crate::provider::turn::tool_results;
use crate::result::ToolResult;

/// The ids a transcript's calls go out with on one API (see [`request_body`](crate::client::request_body)): each
/// assistant message's calls are mapped as the target requires, and the results that follow
/// are sent with the mapped ids.
pub(crate) struct WireIds {
    target: Api,
    used: HashSet<String>,
    turn: HashMap<String, String>,
}

impl WireIds {
    pub(crate) fn new(target: Api) -> Self {
        Self {
            target,
            used: HashSet::new(),
            turn: HashMap::new(),
        }
    }

    /// The calls of one assistant message with the ids they go out with; `verbatim` when the
    /// message is echoed as its API sent it (its ids cannot change).
    pub(crate) fn calls(&mut self, calls: &[ToolCall], verbatim: bool) -> Vec<ToolCall> {
        self.turn.clear();
        calls
            .iter()
            .map(|call| {
                let id = if verbatim || self.target == Api::Gemini {
                    call.id.clone()
                } else {
                    self.fresh(&call.id)
                };
                self.used.insert(id.clone());
                self.turn.insert(call.id.clone(), id.clone());
                ToolCall { id, ..call.clone() }
            })
            .collect()
    }

    fn fresh(&self, id: &str) -> String {
        let mut base: String = if self.target == Api::Anthropic {
            id.chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect()
        } else {
            id.to_owned()
        };
        if base.is_empty() {
            base = "call".to_owned();
        }
        let limit = max_id_chars(self.target);
        // Cut to leave room for the `_<n>` a clash adds (the clash check keeps ids unique).
        let stem = |base: &String| match limit {
            Some(max) => base.chars().take(max - 6).collect(),
            None => base.clone(),
        };
        let mut candidate = match limit {
            Some(max) if base.chars().count() > max => stem(&base),
            _ => base.clone(),
        };
        let mut n = 1;
        while self.used.contains(&candidate) {
            candidate = format!("{}_{n}", stem(&base));
            n += 1;
        }
        candidate
    }

    /// The messages answering `results` on the target API: [`tool_results`], each call id
    /// as its call went out.
    pub(crate) fn results(&self, results: &[ToolReturn]) -> Vec<Value> {
        let calls: Vec<ToolCall> = results
            .iter()
            .map(|answer| ToolCall {
                id: self
                    .turn
                    .get(&answer.call_id)
                    .cloned()
                    .unwrap_or_else(|| answer.call_id.clone()),
                name: answer.name.clone(),
                arguments: String::new(),
            })
            .collect();
        let answers: Vec<ToolResult> = results.iter().map(|answer| answer.result.clone()).collect();
        tool_results(self.target, &calls, &answers)
    }
}

/// The longest call id `target` takes, in characters: Chat Completions refuses a
/// `tool_calls[].id` over 40 (an OpenAI-compatible server's ids, `chatcmpl-tool-…`, are
/// longer), Responses a `call_id` over 64.
fn max_id_chars(target: Api) -> Option<usize> {
    match target {
        Api::OpenAiChat => Some(40),
        Api::OpenAiResponses => Some(64),
        Api::Anthropic | Api::Gemini => None,
    }
}

/// A call's arguments as the object Anthropic and Gemini send back: the JSON text parsed,
/// anything that is not an object (the model's own malformed text) as `{}`.
pub(crate) fn arguments_object(arguments: &str) -> Value {
    match serde_json::from_str::<Value>(arguments) {
        Ok(object @ Value::Object(_)) => object,
        _ => Value::Object(Map::new()),
    }
}

/// The system texts of a transcript joined by a blank line (Anthropic's `system`, Gemini's
/// `systemInstruction`), `None` when there are none.
pub(crate) fn joined_system(messages: &[Message]) -> Option<String> {
    let texts: Vec<&str> = messages
        .iter()
        .filter_map(|message| match message {
            Message::System { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    (!texts.is_empty()).then(|| texts.join("\n\n"))
}
