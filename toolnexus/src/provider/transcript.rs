//! A run's transcript on each API's wire (SPEC §16): the request body rendered from the
//! provider-neutral [`Message`]s ([`request_body`]), and the reply read back, whole
//! ([`read_reply`]) or streamed ([`ReplyStream`] over [`SseDecoder`]'s events). Each API's
//! renderer and reader live beside its other wire code; this module holds the dispatch and
//! the call-id mapping they share.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use crate::client::message::{Message, ToolReturn};
use crate::client::model::Reply;
use crate::provider::tool_call::{Api, Reader, ResponseError, ToolCall};
use crate::provider::turn::tool_results;
use crate::provider::{anthropic, gemini, openai};
use crate::result::ToolResult;

pub use crate::provider::reply_stream::ReplyStream;
pub use crate::provider::sse::{SseDecoder, SseEvent};

/// The whole JSON body of one request to `api` for `model` (Gemini: no `model` field, it is
/// in the URL).
///
/// - System messages: Chat `system` messages where they stand; Responses `instructions` (the
///   first) and `system`-role input items (the others); Anthropic the top-level `system`,
///   Gemini `systemInstruction` (each the system texts joined by a blank line).
/// - User parts (SPEC §8A) go as each API's parts (Chat and Anthropic through
///   [`encode_part`](crate::parts::encode_part), Responses `input_image`/`input_file`,
///   Gemini `inlineData`); a part the API cannot take goes as its placeholder text
///   `[unsupported TYPE part (MIME, N bytes)]`.
/// - An assistant message whose [`Echo`](crate::client::Echo) came from `api` is sent as
///   the echo's items, verbatim (Responses reasoning items before their calls, Anthropic
///   thinking blocks with their signatures, Gemini parts with their thought signatures);
///   otherwise it is rendered from its text and tool calls. An assistant message with
///   neither is left out.
/// - Tool results go through [`tool_results`] (SPEC §8B), after the call they answer.
/// - Call ids are kept, except where the target needs another: Anthropic takes only
///   `[a-zA-Z0-9_-]` (any other character becomes `_`, an empty id `call`), and for every
///   API but Gemini an id already used earlier in the transcript (Gemini's synthesized
///   `call_<n>` repeat each turn) gets a suffix `_<n>`; its results follow the mapping.
///   Gemini gets the ids as they are, and none of its synthesized ones.
/// - `tools` goes as given, left out when an empty array or `null`; `stream: true` adds the
///   API's flag (Chat also `stream_options: {include_usage: true}`; Gemini has none, the
///   URL differs). Anthropic gets `max_tokens: 4096`.
///
/// ```
/// use toolnexus::Api;
/// use toolnexus::client::{Message, request_body};
/// use toolnexus::serde_json::json;
///
/// let messages = [Message::system("Be brief."), Message::user("Hi")];
/// assert_eq!(
///     request_body(Api::Anthropic, "claude-sonnet-4-5", &messages, &json!([]), false),
///     json!({
///         "model": "claude-sonnet-4-5",
///         "max_tokens": 4096,
///         "system": "Be brief.",
///         "messages": [{"role": "user", "content": "Hi"}],
///     })
/// );
/// ```
pub fn request_body(
    api: Api,
    model: &str,
    messages: &[Message],
    tools: &Value,
    stream: bool,
) -> Value {
    let mut body = Map::new();
    if api != Api::Gemini {
        body.insert("model".to_owned(), model.into());
    }
    match api {
        Api::OpenAiChat => openai::chat_transcript::render(messages, &mut body),
        Api::OpenAiResponses => openai::responses_transcript::render(messages, &mut body),
        Api::Anthropic => anthropic::transcript::render(messages, &mut body),
        Api::Gemini => gemini::transcript::render(messages, &mut body),
    }
    let no_tools = tools.is_null() || tools.as_array().is_some_and(Vec::is_empty);
    if !no_tools {
        body.insert("tools".to_owned(), tools.clone());
    }
    if stream {
        match api {
            Api::OpenAiChat => {
                body.insert("stream".to_owned(), true.into());
                body.insert(
                    "stream_options".to_owned(),
                    serde_json::json!({"include_usage": true}),
                );
            }
            Api::OpenAiResponses | Api::Anthropic => {
                body.insert("stream".to_owned(), true.into());
            }
            Api::Gemini => {}
        }
    }
    Value::Object(body)
}

/// A whole (unstreamed) response body of `api` as a [`Reply`]: its text, its tool calls
/// ([`tool_calls`](crate::tool_calls)), usage, finish reason and what must be echoed.
///
/// - Chat: `choices[0].message.content`, `finish_reason`, `usage.prompt_tokens` /
///   `completion_tokens`; nothing to echo.
/// - Responses: the `output_text` of each `message` item, `usage.input_tokens` /
///   `output_tokens`; the finish reason is `incomplete_details.reason`, else `status`; the
///   `output` items are echoed when one is neither a message nor a function call (reasoning).
/// - Anthropic: the `text` blocks, `stop_reason`, `usage.input_tokens` / `output_tokens`;
///   the `content` blocks are echoed when one is neither text nor `tool_use` (thinking).
/// - Gemini: the text parts of `candidates[0]` that are not thoughts, `finishReason` (else
///   `promptFeedback.blockReason`), `usageMetadata.promptTokenCount` /
///   `candidatesTokenCount`; the parts are echoed when one carries more than text or a call
///   (a `thoughtSignature`, a thought).
///
/// Wrong shape ⇒ [`ResponseError`] naming the path; never panics.
///
/// ```
/// use toolnexus::Api;
/// use toolnexus::client::read_reply;
/// use toolnexus::serde_json::json;
///
/// let body = json!({
///     "choices": [{"index": 0, "message": {"role": "assistant", "content": "Sunny."}, "finish_reason": "stop"}],
///     "usage": {"prompt_tokens": 12, "completion_tokens": 3},
/// });
/// let reply = read_reply(Api::OpenAiChat, &body).unwrap();
/// assert_eq!((reply.text.as_str(), reply.usage.total()), ("Sunny.", 15));
/// assert_eq!(reply.finish_reason.as_deref(), Some("stop"));
/// ```
pub fn read_reply(api: Api, body: &Value) -> Result<Reply, ResponseError> {
    let tool_calls = crate::provider::turn::tool_calls(api, body)?;
    let reader = Reader::root(api, body);
    let mut reply = match api {
        Api::OpenAiChat => openai::chat_transcript::read(&reader)?,
        Api::OpenAiResponses => openai::responses_transcript::read(&reader)?,
        Api::Anthropic => anthropic::transcript::read(&reader)?,
        Api::Gemini => gemini::transcript::read(&reader)?,
    };
    reply.tool_calls = tool_calls;
    Ok(reply)
}

/// The ids a transcript's calls go out with on one API (see [`request_body`]): each
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
        let mut base = if self.target == Api::Anthropic {
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
        let mut candidate = base.clone();
        let mut n = 1;
        while self.used.contains(&candidate) {
            candidate = format!("{base}_{n}");
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
