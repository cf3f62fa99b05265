//! Server-sent events (the WHATWG `text/event-stream` format) from bytes as they arrive:
//! [`SseDecoder`] and the [`SseEvent`]s it yields, and an event's data read as JSON.

use serde_json::Value;

use crate::provider::tool_call::{Api, ResponseError};

/// The most one event (its data and the line being read) may hold: past it the event is
/// dropped and an `error` event says so, so a server that never ends a line cannot grow the
/// buffer without bound.
const MAX_EVENT_BYTES: usize = 16 * 1024 * 1024;

/// One server-sent event: its `event:` name, if any, and its `data:` lines joined by `\n`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field (Anthropic and Responses name their events; Chat and Gemini don't).
    pub event: Option<String>,
    /// The `data:` lines, joined by `\n`.
    pub data: String,
}

/// Decodes server-sent events from bytes chunked anyhow: lines end in `\n`, `\r\n` or `\r`
/// (a `\r\n` split across two chunks is one line end), a chunk may end mid-line or
/// mid-character, `:` lines are comments, several `data:` lines make one event's data, and
/// `id:`/`retry:` are ignored. An event is yielded at the blank line that ends it; one
/// without data is not. An event larger than 16 MiB is dropped, and an event
/// named `error` whose data is `{"error":{"message":…}}` takes its place.
///
/// ```
/// use toolnexus::client::{SseDecoder, SseEvent};
///
/// let mut decoder = SseDecoder::new();
/// assert!(decoder.push(b": keep-alive\r\nevent: ping\r\nda").is_empty());
/// assert_eq!(
///     decoder.push(b"ta: {}\r\n\r\ndata: [DONE]\n\n"),
///     [
///         SseEvent { event: Some("ping".into()), data: "{}".into() },
///         SseEvent { event: None, data: "[DONE]".into() },
///     ]
/// );
/// ```
#[derive(Debug, Default)]
pub struct SseDecoder {
    line: Vec<u8>,
    after_cr: bool,
    event: Option<String>,
    data: String,
    has_data: bool,
    oversized: bool,
}

impl SseDecoder {
    /// A decoder at the start of a stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads `bytes`, the next piece of the stream; returns the events they complete.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        let mut events = Vec::new();
        for &byte in bytes {
            let after_cr = std::mem::replace(&mut self.after_cr, false);
            match byte {
                b'\n' if after_cr => {}
                b'\n' | b'\r' => {
                    self.after_cr = byte == b'\r';
                    let line = std::mem::take(&mut self.line);
                    if let Some(event) = self.end_line(&line) {
                        events.push(event);
                    }
                }
                _ => {
                    self.line.push(byte);
                    if self.line.len() + self.data.len() > MAX_EVENT_BYTES && !self.oversized {
                        self.oversized = true;
                        self.line = Vec::new();
                        self.data = String::new();
                        events.push(oversized_event());
                    } else if self.oversized {
                        self.line.clear();
                    }
                }
            }
        }
        events
    }

    fn end_line(&mut self, line: &[u8]) -> Option<SseEvent> {
        if line.is_empty() {
            let event = self.event.take();
            let data = std::mem::take(&mut self.data);
            let complete = std::mem::take(&mut self.has_data) && !self.oversized;
            self.oversized = false;
            return complete.then_some(SseEvent { event, data });
        }
        if self.oversized || line[0] == b':' {
            return None;
        }
        let line = String::from_utf8_lossy(line);
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line.as_ref(), ""),
        };
        match field {
            "event" => self.event = Some(value.to_owned()),
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
                if self.data.len() > MAX_EVENT_BYTES {
                    self.oversized = true;
                    self.data = String::new();
                    return Some(oversized_event());
                }
            }
            _ => {}
        }
        None
    }
}

fn oversized_event() -> SseEvent {
    SseEvent {
        event: Some("error".to_owned()),
        data: format!(
            r#"{{"error":{{"message":"a server-sent event larger than {MAX_EVENT_BYTES} bytes"}}}}"#
        ),
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
