//! A run's transcript on each API's wire (SPEC §16): the request body rendered from the
//! provider-neutral [`Message`]s ([`request_body`]), and the reply read back, whole
//! ([`read_reply`]) or streamed ([`ReplyStream`] over [`SseDecoder`]'s events). Each API's
//! renderer and reader live beside its other wire code (what the renderers share is
//! `rendering`); this module holds the dispatch.

use serde_json::{Map, Value};

use crate::client::message::Message;
use crate::client::model::{ModelEvent, ModelRequest, Reply};
use crate::provider::anthropic::transcript::AnthropicStream;
use crate::provider::gemini::transcript::GeminiStream;
use crate::provider::openai::chat_transcript::ChatStream;
use crate::provider::openai::responses_transcript::ResponsesStream;
use crate::provider::sse::error_event;
use crate::provider::tool_call::{Api, Reader, ResponseError};
use crate::provider::{anthropic, gemini, openai};

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
///   otherwise it is rendered from its text and tool calls (on Gemini the first call of such
///   a message carries the thought signature Gemini documents for calls it did not make,
///   `skip_thought_signature_validator`, without which Gemini 3 refuses it). An assistant
///   message with neither is left out.
/// - Tool results go through [`tool_results`](crate::tool_results) (SPEC §8B), after the call they answer.
/// - Call ids are kept, except where the target needs another: Anthropic takes only
///   `[a-zA-Z0-9_-]` (any other character becomes `_`, an empty id `call`), and for every
///   API but Gemini an id already used earlier in the transcript (Gemini's synthesized
///   `call_<n>` repeat each turn) gets a suffix `_<n>`; an id longer than the API takes
///   (Chat 40 characters, Responses 64) is cut to fit, still unique; its results follow
///   the mapping.
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
    request_body_for(api, model, ModelRequest::new(messages, tools), stream)
}

/// [`request_body`] of a whole [`ModelRequest`]: the same body, and when the request has an
/// [`answer`](ModelRequest::answer) schema (a [`run_typed`](crate::client::Client::run_typed)
/// run), the API's own way of asking for an answer in it (SPEC §16B):
///
/// - Chat: `response_format: {type: "json_schema", json_schema: {name, schema, strict: true}}`;
/// - Responses: `text: {format: {type: "json_schema", name, schema, strict: true}}`;
/// - Anthropic: a tool named after the answer, whose `input_schema` is the schema, after the
///   other tools, and `tool_choice: {type: "any", disable_parallel_tool_use: true}`: every
///   turn calls one tool, and calling that one is the answer;
/// - Gemini: `generationConfig: {responseMimeType: "application/json", responseJsonSchema}`.
///
/// Without an answer schema the body is [`request_body`]'s, byte for byte.
///
/// ```
/// use toolnexus::Api;
/// use toolnexus::client::{AnswerSchema, Message, ModelRequest, request_body_for};
/// use toolnexus::serde_json::json;
///
/// #[derive(toolnexus::JsonSchema, serde::Deserialize)]
/// struct Verdict { guilty: bool }
///
/// let answer = AnswerSchema::of::<Verdict>(Api::OpenAiChat).unwrap();
/// let (messages, tools) = ([Message::user("Guilty?")], json!([]));
/// let request = ModelRequest::new(&messages, &tools).with_answer(&answer);
/// let body = request_body_for(Api::OpenAiChat, "gpt-4.1", request, false);
/// assert_eq!(body["response_format"], json!({
///     "type": "json_schema",
///     "json_schema": {
///         "name": "Verdict",
///         "schema": {
///             "type": "object",
///             "properties": {"guilty": {"type": "boolean"}},
///             "required": ["guilty"],
///             "additionalProperties": false,
///         },
///         "strict": true,
///     },
/// }));
/// ```
pub fn request_body_for(api: Api, model: &str, request: ModelRequest<'_>, stream: bool) -> Value {
    let mut body = Map::new();
    if api != Api::Gemini {
        body.insert("model".to_owned(), model.into());
    }
    let messages = request.messages;
    match api {
        Api::OpenAiChat => openai::chat_transcript::render(messages, &mut body),
        Api::OpenAiResponses => openai::responses_transcript::render(messages, &mut body),
        Api::Anthropic => anthropic::transcript::render(messages, &mut body),
        Api::Gemini => gemini::transcript::render(messages, &mut body),
    }
    if !declares_nothing(request.tools) {
        body.insert("tools".to_owned(), request.tools.clone());
    }
    if let Some(answer) = request.answer {
        match api {
            Api::OpenAiChat => openai::chat_transcript::ask_answer(answer, &mut body),
            Api::OpenAiResponses => openai::responses_transcript::ask_answer(answer, &mut body),
            Api::Anthropic => anthropic::transcript::ask_answer(answer, &mut body),
            Api::Gemini => gemini::transcript::ask_answer(answer, &mut body),
        }
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

/// One streamed turn: feed it each [`SseEvent`] of the reply; it yields
/// [`ModelEvent::Text`] pieces as they come and each [`ModelEvent::ToolCall`] once its
/// arguments are complete (parallel calls assembled by index or id, none dropped), and
/// [`finish`](Self::finish) gives the whole [`Reply`], equal to what [`read_reply`] gives for
/// the same reply unstreamed.
///
/// - Chat: `choices[0].delta` chunks, calls by `index` (yielded at `finish_reason`), usage
///   in the last chunk, ended by `[DONE]`.
/// - Responses: `response.output_text.delta` text, `response.output_item.done` calls, ended
///   by `response.completed` (or `response.incomplete`), whose whole response is the reply.
/// - Anthropic: `message_start`, `content_block_start`/`delta`/`stop` (text, tool input
///   JSON, thinking and its signature), `message_delta` (usage, stop reason), ended by
///   `message_stop`.
/// - Gemini: each event a whole `GenerateContentResponse` chunk (calls come whole, text is
///   merged), ended by the chunk with a `finishReason`.
///
/// An event that is not JSON or not in the API's shape, an `error` event (the provider's
/// message is kept), or an event after the end ⇒ [`ResponseError`]; a stream that ends
/// before its terminal event ⇒ `finish` fails (truncated). Never panics.
///
/// ```
/// use toolnexus::Api;
/// use toolnexus::client::{ModelEvent, ReplyStream, SseDecoder};
///
/// let mut decoder = SseDecoder::new();
/// let mut stream = ReplyStream::new(Api::OpenAiChat);
/// let bytes = concat!(
///     "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n",
///     "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
///     "data: [DONE]\n\n",
/// );
/// let mut events = Vec::new();
/// for event in decoder.push(bytes.as_bytes()) {
///     events.extend(stream.push(&event).unwrap());
/// }
/// assert_eq!(events, [ModelEvent::Text("Hi".into())]);
/// assert_eq!(stream.finish().unwrap().text, "Hi");
/// ```
pub struct ReplyStream {
    api: Api,
    state: State,
}

enum State {
    Chat(ChatStream),
    Responses(ResponsesStream),
    Anthropic(AnthropicStream),
    Gemini(GeminiStream),
}

impl ReplyStream {
    /// A stream of one reply of `api`.
    pub fn new(api: Api) -> Self {
        let state = match api {
            Api::OpenAiChat => State::Chat(ChatStream::default()),
            Api::OpenAiResponses => State::Responses(ResponsesStream::default()),
            Api::Anthropic => State::Anthropic(AnthropicStream::default()),
            Api::Gemini => State::Gemini(GeminiStream::default()),
        };
        Self { api, state }
    }

    /// Reads one event; returns the text pieces and completed tool calls it brings (never
    /// [`ModelEvent::Done`]: that is [`finish`](Self::finish)'s).
    pub fn push(&mut self, event: &SseEvent) -> Result<Vec<ModelEvent>, ResponseError> {
        if event.event.as_deref() == Some("error") {
            return Err(error_event(self.api, &event.data));
        }
        match &mut self.state {
            State::Chat(stream) => stream.push(&event.data),
            State::Responses(stream) => stream.push(&event.data),
            State::Anthropic(stream) => stream.push(&event.data),
            State::Gemini(stream) => stream.push(&event.data),
        }
    }

    /// The whole reply, once the stream has ended; a [`ResponseError`] if it ended before
    /// its terminal event or what it added up to is not a reply.
    pub fn finish(self) -> Result<Reply, ResponseError> {
        let body = match self.state {
            State::Chat(stream) => stream.finish()?,
            State::Responses(stream) => stream.finish()?,
            State::Anthropic(stream) => stream.finish()?,
            State::Gemini(stream) => stream.finish()?,
        };
        read_reply(self.api, &body)
    }
}

/// Whether `tools` sends no tool: `null`, `[]`, or only Gemini entries declaring no function
/// (an empty toolkit's Gemini definitions), which Gemini reads as a tool of no kind and which
/// older Gemini models refuse beside a JSON answer: such a request carries no `tools`.
fn declares_nothing(tools: &Value) -> bool {
    match tools {
        Value::Null => true,
        Value::Array(entries) => entries.iter().all(|entry| {
            entry.as_object().is_some_and(|entry| {
                entry.len() == 1
                    && entry
                        .get("functionDeclarations")
                        .and_then(Value::as_array)
                        .is_some_and(Vec::is_empty)
            })
        }),
        _ => false,
    }
}
