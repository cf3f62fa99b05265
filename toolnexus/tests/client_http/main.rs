//! `Client::new` over HTTP (feature `client`, SPEC §16 "Transport" and "Faults"): each API's
//! exact requests for a two-turn run with two parallel calls, whole and streamed, and every
//! fault a stand-in server on loopback injects. No key in these tests is real.

mod faults;
mod requests;
mod secrets;
mod stand_in;
mod tls;
mod typed;
mod wire;

use std::future::poll_fn;
use std::pin::pin;
use std::time::Duration;

use futures_core::Stream;
use toolnexus::client::{Client, Event, RunError, RunResult};
use toolnexus::{Api, Toolkit, tool, tools};

use crate::stand_in::StandIn;

/// A recognisable fake key: no error, `Debug` or message may show it.
pub const FAKE_KEY: &str = "sk-test-FAKEKEY-0123456789";

/// The weather in a city.
#[tool]
fn get_weather(city: String) -> String {
    format!("Sunny, 21 °C in {city}")
}

/// Adds two numbers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// The run's tools.
pub fn toolkit() -> Toolkit {
    Toolkit::new().with_all(tools![get_weather, add])
}

/// A client of `api` on the stand-in, with the fake key, an extra header and request field,
/// and retries without waiting.
pub fn client(api: Api, model: &str, server: &StandIn) -> Client {
    let base = match api {
        Api::OpenAiChat | Api::OpenAiResponses => format!("{}/v1", server.base),
        Api::Anthropic | Api::Gemini => server.base.clone(),
    };
    Client::new(api, model)
        .base_url(base)
        .api_key(FAKE_KEY)
        .header("x-stand-in-trace", "run-1")
        .request_param("temperature", 0.25)
        .retry_backoff(Duration::from_millis(1))
}

/// Every event of a streamed run.
pub async fn events(stream: impl Stream<Item = Event>) -> Vec<Event> {
    let mut stream = pin!(stream);
    let mut all = Vec::new();
    while let Some(event) = poll_fn(|cx| stream.as_mut().poll_next(cx)).await {
        all.push(event);
    }
    all
}

/// A streamed run's end: its `Done` result or its `Error`, the last event.
pub async fn streamed(
    client: &Client,
    toolkit: &Toolkit,
) -> (Vec<Event>, Result<RunResult, RunError>) {
    let mut all = events(client.stream("Weather in Paris, and 2 + 2?", toolkit)).await;
    let end = match all.pop() {
        Some(Event::Done(result)) => Ok(*result),
        Some(Event::Error(error)) => Err(*error),
        other => panic!("a stream ends with Done or Error, not {other:?}"),
    };
    (all, end)
}

/// A whole or streamed run of the two-turn prompt.
pub async fn run(client: &Client, stream: bool) -> Result<RunResult, RunError> {
    let toolkit = toolkit();
    if stream {
        streamed(client, &toolkit).await.1
    } else {
        client.run("Weather in Paris, and 2 + 2?", &toolkit).await
    }
}
