//! One connection per session: rmcp answers every request of a session with an event stream,
//! which ends a few milliseconds after its last event, and some clients (the Python SDK 2.x)
//! keep a connection only after an `application/json` answer. So a request whose first
//! message is its own answer — nothing streamed, nothing asked of the client mid-call — is
//! answered as JSON, and a stream that does carry more ends in the same write as the answer.

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use http_body_util::{BodyExt, Full};
use hyper::body::{Body, Bytes, Frame};
use hyper::header::{CONTENT_TYPE, HeaderValue};
use hyper::{Response, StatusCode};
use serde_json::Value;

use super::ResponseBody;
use super::resume::Polling;
use super::sse::{data_of, find, is_answer};

/// `response` (rmcp's, to the request with JSON-RPC `id`) as JSON when its stream opens with
/// the answer; otherwise the stream, ending with the answer — or, with `polling`, closed after
/// its priming event when nothing came within the time.
pub(super) async fn json_when_plain(
    response: Response<ResponseBody>,
    id: &Value,
    mut polling: Option<Polling<'_>>,
) -> Response<ResponseBody> {
    let is_stream = response
        .headers()
        .get(CONTENT_TYPE)
        .is_some_and(|kind| kind.as_bytes().starts_with(b"text/event-stream"));
    if response.status() != StatusCode::OK || !is_stream {
        return response;
    }
    let (mut parts, mut body) = response.into_parts();
    let mut events = Events::default();
    let mut read = Vec::new();
    let deadline = polling
        .as_ref()
        .map(|polling| tokio::time::Instant::now() + polling.after);
    loop {
        let next = match deadline.filter(|_| polling.is_some()) {
            None => body.frame().await,
            Some(deadline) => match tokio::time::timeout_at(deadline, body.frame()).await {
                Ok(next) => next,
                Err(_) => {
                    // Past the time, or with no room to keep the stream, it stays open.
                    let reserved = polling
                        .take()
                        .and_then(|polling| polling.streams.reserve(polling.session));
                    if let Some(reserved) = reserved {
                        return reserved.close(parts, body, read, id.clone());
                    }
                    continue;
                }
            },
        };
        let Some(Ok(frame)) = next else {
            // rmcp ended the stream without an answer: pass on what it sent.
            let body = Full::new(Bytes::from(read)).boxed_unsync();
            return Response::from_parts(parts, body);
        };
        let Ok(data) = frame.into_data() else {
            continue;
        };
        read.extend_from_slice(&data);
        match events.feed(&data, id) {
            First::Answer(answer) => {
                parts
                    .headers
                    .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
                let body = Full::new(Bytes::from(answer)).boxed_unsync();
                return Response::from_parts(parts, body);
            }
            First::Other => {
                let body = Ending {
                    read: Some(Bytes::from(read)),
                    body,
                    events,
                    id: id.clone(),
                    ended: false,
                };
                return Response::from_parts(parts, body.boxed_unsync());
            }
            First::None => {}
        }
    }
}

/// What a stream has shown so far.
enum First {
    /// Nothing but priming events and keep-alives.
    None,
    /// The answer, before anything else: its JSON text.
    Answer(Vec<u8>),
    /// Another message first (progress, a request to the client).
    Other,
}

/// A server-sent-event reader that sees each event's `data`.
#[derive(Default)]
struct Events {
    /// The unfinished event at the end of what has been read.
    pending: Vec<u8>,
    /// Whether a message has been seen.
    seen: bool,
    /// Whether the answer has been seen.
    answered: bool,
}

impl Events {
    /// Reads `chunk`: what the stream has shown so far, as far as the first message.
    fn feed(&mut self, chunk: &[u8], id: &Value) -> First {
        self.pending.extend_from_slice(chunk);
        let mut first = First::None;
        while let Some(end) = find(&self.pending, b"\n\n") {
            let event: Vec<u8> = self.pending.drain(..end + 2).collect();
            let data = data_of(&event);
            if data.is_empty() {
                continue;
            }
            let answers = is_answer(&data, id);
            self.answered |= answers;
            if !self.seen {
                self.seen = true;
                first = if answers {
                    First::Answer(data)
                } else {
                    First::Other
                };
            }
        }
        first
    }
}

/// An event stream that ends with the frame carrying the answer, so the answer and the end of
/// the stream leave in one write.
struct Ending {
    /// What was read before the stream was handed on.
    read: Option<Bytes>,
    body: ResponseBody,
    events: Events,
    id: Value,
    ended: bool,
}

impl Body for Ending {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        if self.ended {
            return Poll::Ready(None);
        }
        if let Some(read) = self.read.take() {
            self.ended = self.events.answered;
            return Poll::Ready(Some(Ok(Frame::data(read))));
        }
        let polled = Pin::new(&mut self.body).poll_frame(cx);
        if let Poll::Ready(Some(Ok(frame))) = &polled {
            if let Some(data) = frame.data_ref() {
                let id = self.id.clone();
                self.events.feed(data, &id);
                self.ended = self.events.answered;
            }
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.ended || (self.read.is_none() && self.body.is_end_stream())
    }
}

#[cfg(test)]
mod tests {
    use crate::mcp::server::http::json::*;
    use serde_json::json;

    #[test]
    fn the_first_message_decides_and_priming_events_do_not_count() {
        let id = json!(3);
        let mut events = Events::default();
        assert!(matches!(
            events.feed(b"id: 0\nretry: 3000\ndata:\n\n", &id),
            First::None
        ));
        let answer = br#"data: {"jsonrpc":"2.0","id":3,"result":{}}"#;
        match events.feed(&[&answer[..], b"\n\n"].concat(), &id) {
            First::Answer(data) => assert_eq!(data, &answer[6..]),
            _ => panic!("the answer comes first"),
        }

        let mut events = Events::default();
        let progress =
            b"data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n";
        assert!(matches!(events.feed(&progress[..20], &id), First::None));
        assert!(matches!(events.feed(&progress[20..], &id), First::Other));
        assert!(!events.answered);
        // An answer to another request is not this one's.
        let other = b"data: {\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{}}\n\n";
        events.feed(other, &id);
        assert!(!events.answered);
        let error =
            b"data: {\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":1,\"message\":\"x\"}}\n\n";
        events.feed(error, &id);
        assert!(events.answered);
    }
}
