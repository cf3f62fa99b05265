//! One streamed turn of any API: [`ReplyStream`] reads the server-sent events of a reply and
//! yields its text and tool calls as they complete, then the whole [`Reply`].

use serde_json::Value;

use crate::client::model::{ModelEvent, Reply};
use crate::provider::anthropic::transcript::AnthropicStream;
use crate::provider::gemini::transcript::GeminiStream;
use crate::provider::openai::chat_transcript::ChatStream;
use crate::provider::openai::responses_transcript::ResponsesStream;
use crate::provider::sse::SseEvent;
use crate::provider::tool_call::{Api, ResponseError};
use crate::provider::transcript::read_reply;

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

/// An event's data as JSON; not JSON ⇒ [`ResponseError`].
pub(crate) fn json_event(api: Api, data: &str) -> Result<Value, ResponseError> {
    serde_json::from_str(data).map_err(|error| {
        ResponseError::stream(api, format!("a streamed event is not JSON ({error})"))
    })
}

/// The provider's error event as a [`ResponseError`] carrying its message (`error.message`,
/// else `message`, else the data as sent).
pub(crate) fn error_event(api: Api, data: &str) -> ResponseError {
    let parsed: Option<Value> = serde_json::from_str(data).ok();
    let message = parsed
        .as_ref()
        .and_then(|value| {
            value
                .pointer("/error/message")
                .or_else(|| value.get("message"))
        })
        .and_then(Value::as_str)
        .unwrap_or(data);
    ResponseError::stream(api, format!("the stream sent an error: {message}"))
}
