//! Model-call faults (SPEC §16): retryable errors retried with backoff (Retry-After
//! honoured), others not; a RunError names the API, status and message and carries the run
//! so far.

use std::time::{Duration, Instant};

use serde_json::json;
use toolnexus::client::{Client, ModelError, Status};
use toolnexus::{Api, Toolkit};

use crate::scripted::*;

#[tokio::test]
async fn retryable_errors_are_retried_within_the_budget() {
    let model = Scripted::new([
        Turn::Fail(ModelError::http(503, "overloaded")),
        Turn::Fail(ModelError::transient("connection reset")),
        answering("made it"),
    ]);
    let client = Client::with_model(model.clone()).retry_backoff(Duration::from_millis(1));
    let result = client.run("go", &Toolkit::new()).await.unwrap();
    assert_eq!(
        (result.status, result.text.as_str()),
        (Status::Done, "made it")
    );
    assert_eq!((model.calls(), result.turns), (3, 1));
}

#[tokio::test]
async fn retries_used_up_is_a_run_error_carrying_the_run_so_far() {
    let (_, add) = counting("add");
    let toolkit = Toolkit::new().with(add);
    let model = Scripted::new([
        calling(vec![call("c1", "add", json!({"a": 1}))]),
        Turn::Fail(ModelError::http(429, "rate limited")),
        Turn::Fail(ModelError::http(429, "rate limited")),
        Turn::Fail(ModelError::http(500, "still down")),
    ]);
    let client = Client::with_model(model.clone()).retry_backoff(Duration::from_millis(1));
    let error = client.run("go", &toolkit).await.unwrap_err();
    assert_eq!(model.calls(), 4);
    assert_eq!(
        (error.api, error.status, error.message.as_str()),
        (Api::OpenAiChat, Some(500), "still down")
    );
    assert_eq!(
        error.to_string(),
        "OpenAI Chat Completions answered HTTP 500: still down"
    );
    assert_eq!(error.so_far.tool_calls.len(), 1);
    assert_eq!(error.so_far.messages.len(), 3, "prompt, calls, results");
    assert_eq!(error.so_far.turns, 1);
}

#[tokio::test]
async fn an_error_that_is_not_retryable_is_not_retried() {
    let model = Scripted::new([
        Turn::Fail(ModelError::http(400, "bad request: tools[0]")),
        answering("never"),
    ]);
    let error = Client::with_model(model.clone())
        .run("go", &Toolkit::new())
        .await
        .unwrap_err();
    assert_eq!(model.calls(), 1);
    assert_eq!(
        (error.status, error.message.as_str()),
        (Some(400), "bad request: tools[0]")
    );
    assert_eq!(error.so_far.messages.len(), 1);
}

#[tokio::test]
async fn retry_after_is_waited_instead_of_the_backoff() {
    let asked = ModelError::http(429, "slow down").with_retry_after(Duration::from_millis(30));
    let model = Scripted::new([Turn::Fail(asked), answering("ok")]);
    // A backoff of an hour: only Retry-After lets the test finish.
    let client = Client::with_model(model).retry_backoff(Duration::from_secs(3600));
    let started = Instant::now();
    let result = client.run("go", &Toolkit::new()).await.unwrap();
    let took = started.elapsed();
    assert_eq!(result.status, Status::Done);
    assert!(
        took >= Duration::from_millis(30) && took < Duration::from_secs(30),
        "{took:?}"
    );
}

#[tokio::test]
async fn zero_retries_fails_on_the_first_error() {
    let model = Scripted::new([
        Turn::Fail(ModelError::http(503, "down")),
        answering("never"),
    ]);
    let error = Client::with_model(model.clone())
        .retries(0)
        .run("go", &Toolkit::new())
        .await
        .unwrap_err();
    assert_eq!((model.calls(), error.status), (1, Some(503)));
}

#[tokio::test]
async fn a_timeout_during_the_backoff_ends_the_run_incomplete() {
    let model = Scripted::new([
        Turn::Fail(ModelError::http(503, "down")),
        answering("never"),
    ]);
    let client = Client::with_model(model.clone())
        .retry_backoff(Duration::from_secs(3600))
        .timeout(Duration::from_millis(50));
    let result = client.run("go", &Toolkit::new()).await.unwrap();
    assert_eq!(
        (result.status, result.limit),
        (Status::Incomplete, Some(toolnexus::client::Limit::Timeout))
    );
    assert_eq!(model.calls(), 1);
}

/// Polls `future` to its end on this thread, woken by `Thread::unpark`: no async runtime.
fn block_on<F: std::future::Future>(future: F) -> F::Output {
    struct Unpark(std::thread::Thread);
    impl std::task::Wake for Unpark {
        fn wake(self: std::sync::Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = std::task::Waker::from(std::sync::Arc::new(Unpark(std::thread::current())));
    let mut cx = std::task::Context::from_waker(&waker);
    let mut future = std::pin::pin!(future);
    loop {
        if let std::task::Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
        std::thread::park();
    }
}

/// The retry's wait and the run's timeout are on the toolkit's timer thread: a hand-rolled
/// executor sees them as tokio does.
#[test]
fn backoff_and_timeout_need_no_async_runtime() {
    let model = Scripted::new([
        Turn::Fail(ModelError::http(503, "busy")),
        answering("after the wait"),
    ]);
    let client = Client::with_model(model.clone()).retry_backoff(Duration::from_millis(40));
    let started = Instant::now();
    let result = block_on(client.run("go", &Toolkit::new())).unwrap();
    assert_eq!((result.text.as_str(), model.calls()), ("after the wait", 2));
    assert!(
        started.elapsed() >= Duration::from_millis(20),
        "{:?}",
        started.elapsed()
    );

    let hanging =
        Client::with_model(Scripted::new([Turn::Hang])).timeout(Duration::from_millis(50));
    let result = block_on(hanging.run("go", &Toolkit::new())).unwrap();
    assert_eq!(result.limit, Some(toolnexus::client::Limit::Timeout));
}
