//! What went wrong with one HTTP call, as a [`ModelError`]: the provider's own message read
//! from its error body, whether trying again may help (429, 5xx, a dropped connection, a
//! timeout) and how long the provider asked to wait (`Retry-After`, seconds or an HTTP date,
//! at most a minute).

use std::time::{Duration, SystemTime};

use serde_json::Value;

use crate::client::model::ModelError;

/// The longest `Retry-After` honoured: a provider asking for more is waited on for a minute.
pub(crate) const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);

/// The most of an error body that is not JSON kept in the message (an HTML error page).
const MAX_PLAIN_BODY: usize = 500;

/// A provider's answer with a status other than 2xx, from its status, its `Retry-After` header
/// and its body.
pub(crate) fn status_error(status: u16, retry_after: Option<&str>, body: &[u8]) -> ModelError {
    let error = ModelError::http(status, provider_message(body, status));
    match retry_after.and_then(|value| parse_retry_after(value, SystemTime::now())) {
        Some(wait) if error.retryable => error.with_retry_after(wait),
        _ => error,
    }
}

/// The provider's own message in an error body. All four APIs nest it at `error.message`
/// (OpenAI `{"error": {"message", "type", "code"}}`, Anthropic `{"type": "error", "error":
/// {"type", "message"}}`, Gemini `{"error": {"code", "message", "status"}}`); some
/// OpenAI-compatible servers (Ollama) send `{"error": "…"}`. Anything else is kept as text,
/// cut short; an empty body says the status.
pub(crate) fn provider_message(body: &[u8], status: u16) -> String {
    if let Ok(json) = serde_json::from_slice::<Value>(body) {
        let error = json.get("error").unwrap_or(&json);
        let message = error.get("message").unwrap_or(error);
        if let Some(text) = message.as_str() {
            return text.to_owned();
        }
    }
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    if text.is_empty() {
        return format!("HTTP {status} with an empty body");
    }
    match text.char_indices().nth(MAX_PLAIN_BODY) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

/// `Retry-After` (RFC 9110 §10.2.3): a number of seconds or an HTTP date, as a wait from
/// `now`, capped at [`MAX_RETRY_AFTER`]; a date already past is no wait. `None` when it is
/// neither.
pub(crate) fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    let wait = match value.parse::<u64>() {
        Ok(seconds) => Duration::from_secs(seconds),
        Err(_) => {
            let date = httpdate::parse_http_date(value).ok()?;
            date.duration_since(now).unwrap_or(Duration::ZERO)
        }
    };
    Some(wait.min(MAX_RETRY_AFTER))
}

/// A call that got no complete answer (a timeout, a dropped or refused connection, a failed
/// TLS handshake): retryable, as it may pass on another try. The request itself is built and
/// checked before it is sent, so no fault here is the caller's.
pub(crate) fn transport_error(error: &(dyn std::error::Error + 'static)) -> ModelError {
    let message = chain(error);
    let timed_out = std::iter::successors(Some(error), |error| error.source()).any(|error| {
        error
            .downcast_ref::<std::io::Error>()
            .is_some_and(|error| error.kind() == std::io::ErrorKind::TimedOut)
    });
    if timed_out {
        ModelError::transient(format!("timed out: {message}"))
    } else {
        ModelError::transient(message)
    }
}

/// An error and its sources, `: `-joined (hyper-util's own `Display` says only its outermost
/// layer, "client error (Connect)").
fn chain(error: &dyn std::error::Error) -> String {
    let mut message = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        message.push_str(": ");
        message.push_str(&cause.to_string());
        source = cause.source();
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn retry_after_reads_seconds_and_http_dates_and_caps_them_at_a_minute() {
        let now = httpdate::parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT").unwrap();
        assert_eq!(parse_retry_after("7", now), Some(Duration::from_secs(7)));
        assert_eq!(parse_retry_after(" 0 ", now), Some(Duration::ZERO));
        assert_eq!(parse_retry_after("3600", now), Some(MAX_RETRY_AFTER));
        let later = "Sun, 06 Nov 1994 08:49:49 GMT";
        assert_eq!(parse_retry_after(later, now), Some(Duration::from_secs(12)));
        let past = "Sun, 06 Nov 1994 08:00:00 GMT";
        assert_eq!(parse_retry_after(past, now), Some(Duration::ZERO));
        let far = "Mon, 07 Nov 1994 08:49:37 GMT";
        assert_eq!(parse_retry_after(far, now), Some(MAX_RETRY_AFTER));
        for nonsense in ["", "soon", "-3", "1.5", "Sun, 32 Nov 1994 08:49:37 GMT"] {
            assert_eq!(parse_retry_after(nonsense, now), None, "{nonsense:?}");
        }
    }

    #[test]
    fn each_providers_error_body_gives_its_own_message() {
        let openai = br#"{"error":{"message":"Invalid 'messages[1]'","type":"invalid_request_error","code":null}}"#;
        let anthropic = br#"{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: required"}}"#;
        let gemini =
            br#"{"error":{"code":400,"message":"API key not valid.","status":"INVALID_ARGUMENT"}}"#;
        let ollama = br#"{"error":"model 'qwen3:8b' not found"}"#;
        assert_eq!(provider_message(openai, 400), "Invalid 'messages[1]'");
        assert_eq!(provider_message(anthropic, 400), "max_tokens: required");
        assert_eq!(provider_message(gemini, 400), "API key not valid.");
        assert_eq!(provider_message(ollama, 404), "model 'qwen3:8b' not found");
        assert_eq!(provider_message(b"  Bad Gateway\n", 502), "Bad Gateway");
        assert_eq!(provider_message(b"", 503), "HTTP 503 with an empty body");
        let page = "x".repeat(2000);
        assert_eq!(
            provider_message(page.as_bytes(), 500).chars().count(),
            MAX_PLAIN_BODY + 1
        );
    }

    #[test]
    fn statuses_are_classified_and_only_retryable_ones_keep_retry_after() {
        let limited = status_error(429, Some("2"), b"{}");
        assert!(limited.retryable);
        assert_eq!(limited.retry_after, Some(Duration::from_secs(2)));
        let down = status_error(503, None, b"");
        assert!(down.retryable);
        assert_eq!(down.retry_after, None);
        let refused = status_error(400, Some("2"), br#"{"error":{"message":"bad"}}"#);
        assert!(!refused.retryable);
        assert_eq!(refused.retry_after, None);
        assert_eq!(
            (refused.status, refused.message.as_str()),
            (Some(400), "bad")
        );
    }

    proptest! {
        #[test]
        fn any_error_body_and_retry_after_read_without_a_panic(
            status in 100u16..600,
            retry_after in ".{0,40}",
            body in proptest::collection::vec(any::<u8>(), 0..300),
        ) {
            let error = status_error(status, Some(&retry_after), &body);
            prop_assert_eq!(error.status, Some(status));
            prop_assert!(error.retry_after.is_none_or(|wait| wait <= MAX_RETRY_AFTER));
        }
    }
}
