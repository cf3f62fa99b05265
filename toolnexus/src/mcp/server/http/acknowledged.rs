//! The acknowledgment of a `subscriptions/listen` that names tasks: rmcp sends it from a
//! filter with no field for the tasks extension's `taskIds`, so they are added to its event
//! on the way out.

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use http_body_util::BodyExt;
use hyper::Response;
use hyper::body::{Body, Bytes, Frame};
use serde_json::Value;

use super::ResponseBody;
use crate::mcp::server::incoming;

/// The most of a stream read while looking for the acknowledgment: rmcp sends it first.
const MOST: usize = 64 * 1024;

/// `response` (rmcp's to a `subscriptions/listen`), its acknowledgment naming `ids`.
pub(super) async fn naming_tasks(
    response: Response<ResponseBody>,
    ids: &[String],
) -> Response<ResponseBody> {
    let (parts, mut body) = response.into_parts();
    let mut read = Vec::new();
    while let Some(Ok(frame)) = body.frame().await {
        let Ok(data) = frame.into_data() else {
            continue;
        };
        read.extend_from_slice(&data);
        if let Some(patched) = patched(&read, ids) {
            read = patched;
            break;
        }
        if read.len() > MOST {
            break;
        }
    }
    let body = Prefixed {
        read: Some(Bytes::from(read)),
        body,
    };
    Response::from_parts(parts, body.boxed_unsync())
}

/// `read` with its acknowledgment event naming `ids`, once that event has been read whole.
fn patched(read: &[u8], ids: &[String]) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(read).ok()?;
    let mut start = 0;
    while let Some(length) = text[start..].find("\n\n") {
        let end = start + length + 2;
        let event = &text[start..end];
        let data: String = event
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .map(str::trim_start)
            .collect();
        if let Ok(mut message) = serde_json::from_str::<Value>(&data) {
            if message["method"] == "notifications/subscriptions/acknowledged" {
                incoming::acknowledged(&mut message, ids);
                let kept: String = event
                    .lines()
                    .filter(|line| !line.starts_with("data:") && !line.is_empty())
                    .map(|line| format!("{line}\n"))
                    .collect();
                let event = format!("{kept}data: {message}\n\n");
                return Some([&read[..start], event.as_bytes(), &read[end..]].concat());
            }
        }
        start = end;
    }
    None
}

/// What was read, then the rest of the stream.
struct Prefixed {
    read: Option<Bytes>,
    body: ResponseBody,
}

impl Body for Prefixed {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        if let Some(read) = self.read.take().filter(|read| !read.is_empty()) {
            return Poll::Ready(Some(Ok(Frame::data(read))));
        }
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.read.as_ref().is_none_or(Bytes::is_empty) && self.body.is_end_stream()
    }
}

#[cfg(test)]
mod tests {
    use super::patched;

    #[test]
    fn the_acknowledgment_event_names_the_tasks_and_the_rest_is_kept() {
        let stream = concat!(
            "id: 7\nretry: 3000\ndata:\n\n",
            "id: 8\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/subscriptions/acknowledged\",",
            "\"params\":{\"notifications\":{}}}\n\n",
            "data: {\"partial\""
        );
        let ids = ["a1".to_owned()];
        let out = String::from_utf8(patched(stream.as_bytes(), &ids).unwrap()).unwrap();
        assert!(
            out.starts_with("id: 7\nretry: 3000\ndata:\n\nid: 8\ndata: {"),
            "{out}"
        );
        assert!(
            out.contains(r#""notifications":{"taskIds":["a1"]}"#),
            "{out}"
        );
        assert!(out.ends_with("\n\ndata: {\"partial\""), "{out}");
        assert!(patched("data: {\"jsonrpc\":\"2.0\"".as_bytes(), &ids).is_none());
    }
}
