//! Reading rmcp's event streams: an event's `data`, where an event ends, and whether a message
//! is the answer to a request.

use serde::de::IgnoredAny;
use serde_json::Value;

/// The `data` lines of one event, joined as the event-stream format joins them.
pub(super) fn data_of(event: &[u8]) -> Vec<u8> {
    let mut data = Vec::new();
    for line in event.split(|&byte| byte == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let Some(value) = line.strip_prefix(b"data:") else {
            continue;
        };
        if !data.is_empty() {
            data.push(b'\n');
        }
        data.extend_from_slice(value.strip_prefix(b" ").unwrap_or(value));
    }
    data
}

/// The keys that tell an answer from other messages; the rest (the result itself) is skipped
/// unbuilt.
#[derive(serde::Deserialize)]
struct Probe {
    id: Option<Value>,
    method: Option<IgnoredAny>,
    result: Option<IgnoredAny>,
    error: Option<IgnoredAny>,
}

/// Whether `data` is the JSON-RPC answer (result or error) to request `id`.
pub(super) fn is_answer(data: &[u8], id: &Value) -> bool {
    let Ok(message) = serde_json::from_slice::<Probe>(data) else {
        return false;
    };
    message.id.as_ref() == Some(id)
        && message.method.is_none()
        && (message.result.is_some() || message.error.is_some())
}

/// Where `needle` first occurs in `haystack`.
pub(super) fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}
