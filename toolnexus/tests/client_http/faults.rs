//! Faults the stand-in injects, and what the run makes of each: 429 and 503 waited out as
//! `Retry-After` says (seconds, an HTTP date) and retried; a 500 and a dropped connection
//! retried; a 400 not retried, its provider's own message in the `RunError` with everything
//! that ran; a malformed body, a truncated body or stream and a stream that stops sending
//! all errors, never a panic or a hang.

use std::time::{Duration, Instant, SystemTime};

use serde_json::json;
use toolnexus::Api;
use toolnexus::client::{Message, RunError};

use crate::stand_in::{Answer, StandIn};
use crate::wire::{self, ANSWER};
use crate::{client, run};

/// An OpenAI error body.
fn openai_error(message: &str) -> String {
    json!({"error": {"message": message, "type": "server_error", "code": null}}).to_string()
}

#[tokio::test]
async fn a_429_with_retry_after_in_seconds_is_waited_out_then_retried() {
    let chat = &wire::all()[0];
    let limited = Answer::Json(
        429,
        vec![("retry-after", "1".into())],
        openai_error("Rate limit reached"),
    );
    let server = StandIn::start(vec![
        limited,
        Answer::ok(&chat.first),
        Answer::ok(&chat.second),
    ])
    .await;
    let started = Instant::now();
    let result = run(&client(chat.api, chat.model, &server), false)
        .await
        .unwrap();
    assert!(
        started.elapsed() >= Duration::from_millis(950),
        "{:?}",
        started.elapsed()
    );
    assert_eq!((result.text.as_str(), server.received().len()), (ANSWER, 3));
}

#[tokio::test]
async fn a_503_with_retry_after_as_an_http_date_is_waited_out_then_retried() {
    let anthropic = &wire::all()[2];
    // Two seconds ahead, written to the second: between one and two seconds from now.
    let date = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(2));
    let overloaded =
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}});
    let busy = Answer::Json(503, vec![("retry-after", date)], overloaded.to_string());
    let script = vec![
        Answer::Sse(anthropic.first_sse.clone()),
        busy,
        Answer::Sse(anthropic.second_sse.clone()),
    ];
    let server = StandIn::start(script).await;
    let started = Instant::now();
    let result = run(&client(anthropic.api, anthropic.model, &server), true)
        .await
        .unwrap();
    assert!(
        started.elapsed() >= Duration::from_millis(950),
        "{:?}",
        started.elapsed()
    );
    assert_eq!((result.text.as_str(), server.received().len()), (ANSWER, 3));
}

#[tokio::test]
async fn a_500_or_a_dropped_connection_is_retried_on_every_api() {
    for wire in wire::all() {
        let failed = Answer::Json(500, Vec::new(), openai_error("The server had an error"));
        let script = vec![
            failed,
            Answer::ok(&wire.first),
            Answer::Drop,
            Answer::ok(&wire.second),
        ];
        let server = StandIn::start(script).await;
        let result = run(&client(wire.api, wire.model, &server), false).await;
        let result = result.unwrap_or_else(|error| panic!("{}: {error}", wire.api));
        assert_eq!(
            (result.text.as_str(), server.received().len()),
            (ANSWER, 4),
            "{}",
            wire.api
        );
    }
}

#[tokio::test]
async fn retries_used_up_end_the_run_with_the_last_status() {
    let chat = &wire::all()[0];
    let busy = || Answer::Json(503, Vec::new(), openai_error("Service Unavailable"));
    let server = StandIn::start(vec![busy(), busy(), busy(), Answer::ok(&chat.first)]).await;
    let error = run(&client(chat.api, chat.model, &server), false)
        .await
        .unwrap_err();
    assert_eq!((error.api, error.status), (Api::OpenAiChat, Some(503)));
    assert_eq!(error.message, "Service Unavailable");
    assert_eq!(
        server.received().len(),
        3,
        "the first call and its two retries"
    );
}

/// Each API's own error body for a 400, and the message in it.
fn refusals() -> [(Api, serde_json::Value, &'static str); 4] {
    [
        (
            Api::OpenAiChat,
            json!({"error": {"message": "Invalid 'messages[3].tool_call_id'", "type": "invalid_request_error", "param": "messages", "code": null}}),
            "Invalid 'messages[3].tool_call_id'",
        ),
        (
            Api::OpenAiResponses,
            json!({"error": {"message": "No tool output found for function call call_1.", "type": "invalid_request_error", "param": "input", "code": null}}),
            "No tool output found for function call call_1.",
        ),
        (
            Api::Anthropic,
            json!({"type": "error", "error": {"type": "invalid_request_error", "message": "messages.2: `tool_use` ids were found without `tool_result` blocks"}}),
            "messages.2: `tool_use` ids were found without `tool_result` blocks",
        ),
        (
            Api::Gemini,
            json!({"error": {"code": 400, "message": "Please ensure that function response turn comes immediately after a function call turn.", "status": "INVALID_ARGUMENT"}}),
            "Please ensure that function response turn comes immediately after a function call turn.",
        ),
    ]
}

#[tokio::test]
async fn a_400_is_not_retried_and_the_run_error_keeps_the_message_and_everything_that_ran() {
    for (wire, (api, body, message)) in wire::all().into_iter().zip(refusals()) {
        for stream in [false, true] {
            let first = match stream {
                false => Answer::ok(&wire.first),
                true => Answer::Sse(wire.first_sse.clone()),
            };
            let refused = Answer::Json(400, vec![("retry-after", "1".into())], body.to_string());
            let server = StandIn::start(vec![first, refused, Answer::ok(&wire.second)]).await;
            let error = run(&client(api, wire.model, &server), stream)
                .await
                .unwrap_err();
            assert_eq!((error.api, error.status), (api, Some(400)), "{api}");
            assert_eq!(error.message, message, "{api}");
            assert_eq!(
                error.to_string(),
                format!("{api} answered HTTP 400: {message}")
            );
            assert_eq!(server.received().len(), 2, "{api}: no retry of a 400");
            kept_the_first_turn(&error);
        }
    }
}

/// The run so far: both calls ran and their results follow them in the transcript.
fn kept_the_first_turn(error: &RunError) {
    let so_far = &error.so_far;
    let names: Vec<&str> = so_far
        .tool_calls
        .iter()
        .map(|record| record.name.as_str())
        .collect();
    assert_eq!(names, ["get_weather", "add"], "{}", error.api);
    assert_eq!(so_far.tool_calls[1].output.to_string(), "4");
    let results: Vec<&str> = so_far
        .messages
        .iter()
        .filter_map(|message| match message {
            Message::Tool { results } => Some(results),
            _ => None,
        })
        .flatten()
        .map(|answer| answer.call_id.as_str())
        .collect();
    assert_eq!(results.len(), 2, "{}: {:?}", error.api, so_far.messages);
}

#[tokio::test]
async fn a_body_that_is_not_json_or_of_the_wrong_shape_ends_the_run_without_a_retry() {
    for wire in wire::all() {
        let broken = Answer::Json(200, Vec::new(), r#"{"choices": [{"message": "#.into());
        let server = StandIn::start(vec![Answer::ok(&wire.first), broken]).await;
        let error = run(&client(wire.api, wire.model, &server), false)
            .await
            .unwrap_err();
        assert_eq!((error.api, error.status), (wire.api, None));
        assert!(
            error.message.contains("is not JSON"),
            "{}: {}",
            wire.api,
            error.message
        );
        assert_eq!(server.received().len(), 2, "{}: not retried", wire.api);
        kept_the_first_turn(&error);

        let wrong =
            Answer::ok(&json!({"candidates": "none", "choices": 7, "content": {}, "output": 1}));
        let server = StandIn::start(vec![wrong]).await;
        let error = run(&client(wire.api, wire.model, &server), false)
            .await
            .unwrap_err();
        assert_eq!(server.received().len(), 1, "{}: not retried", wire.api);
        assert!(!error.message.is_empty(), "{}", wire.api);
    }
}

#[tokio::test]
async fn a_truncated_body_or_stream_is_an_error() {
    for wire in wire::all() {
        let cut = wire.first.to_string()[..40].to_owned();
        let server = StandIn::start(vec![Answer::Truncated(cut)]).await;
        let error = run(&client(wire.api, wire.model, &server).retries(0), false)
            .await
            .unwrap_err();
        assert_eq!(
            (error.api, error.status),
            (wire.api, None),
            "{}",
            error.message
        );

        // The stream ends before the API's last event.
        let mut events = wire.first_sse.clone();
        events.truncate(events.len() / 2);
        let server = StandIn::start(vec![Answer::Sse(events)]).await;
        let error = run(&client(wire.api, wire.model, &server), true)
            .await
            .unwrap_err();
        assert_eq!(
            (error.api, error.status),
            (wire.api, None),
            "{}",
            error.message
        );
        assert_eq!(
            server.received().len(),
            1,
            "{}: a broken stream is not retried",
            wire.api
        );
    }
}

#[tokio::test]
async fn a_model_that_stops_sending_times_out_instead_of_hanging() {
    let gemini = &wire::all()[3];
    for stream in [false, true] {
        let started_events = gemini.first_sse[..1].to_vec();
        let server = StandIn::start(vec![Answer::Stall(started_events)]).await;
        let client = client(gemini.api, gemini.model, &server)
            .read_timeout(Duration::from_millis(300))
            .retries(0);
        let started = Instant::now();
        let error = tokio::time::timeout(Duration::from_secs(10), run(&client, stream))
            .await
            .expect("the run ends on its own")
            .unwrap_err();
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
        assert!(error.message.contains("timed out"), "{}", error.message);
        assert_eq!((error.api, error.status), (Api::Gemini, None));
    }
}

#[tokio::test]
async fn a_base_url_that_is_not_http_or_https_fails_at_once_without_a_retry() {
    let chat = &wire::all()[0];
    for base in [
        "localhost:11434/v1",
        "ftp://127.0.0.1/v1",
        "http:///v1",
        "not a url",
    ] {
        let client = toolnexus::client::Client::new(chat.api, chat.model)
            .base_url(base)
            .retry_backoff(Duration::from_secs(5));
        let started = Instant::now();
        let error = run(&client, false).await.unwrap_err();
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "{base}: retried"
        );
        assert!(
            error.message.contains("is not an http:// or https:// URL"),
            "{base}: {}",
            error.message
        );
    }
}

#[tokio::test]
async fn a_refused_connection_is_an_error_naming_its_cause() {
    let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}/v1", closed.local_addr().unwrap());
    drop(closed);
    let chat = &wire::all()[0];
    let client = toolnexus::client::Client::new(chat.api, chat.model)
        .base_url(base)
        .retries(0);
    let error = run(&client, false).await.unwrap_err();
    assert_eq!((error.api, error.status), (Api::OpenAiChat, None));
    // The cause under hyper-util's "client error (Connect)", not that layer alone.
    assert!(
        error.message.contains("client error (Connect): ")
            && error.message.to_lowercase().contains("connection refused"),
        "{}",
        error.message
    );
}
