//! Streaming (SPEC §16): the events of a run, its last `Done` the same RunResult `run`
//! returns for the same replies however the text is chunked; a stream that breaks after
//! yielding is not retried.

use std::time::Duration;

use proptest::prelude::*;
use serde_json::json;
use toolnexus::Toolkit;
use toolnexus::client::{Client, Event, ModelError, Status};

use crate::scripted::*;

fn script(text: &str) -> Vec<Turn> {
    vec![
        calling(vec![
            call("c1", "add", json!({"a": 2})),
            call("c2", "get_weather", json!({"city": "Paris"})),
        ]),
        answering(text),
    ]
}

fn toolkit() -> Toolkit {
    let (_, add) = counting("add");
    let (_, weather) = counting("get_weather");
    Toolkit::new().with(add).with(weather)
}

#[tokio::test]
async fn a_stream_yields_text_calls_results_usage_then_done() {
    let toolkit = toolkit();
    let mut model = Scripted::new(script("Sunny, and 4."));
    model.chunk = 4;
    let events = collect(Client::with_model(model).stream("go", &toolkit)).await;
    let kinds: Vec<String> = events
        .iter()
        .map(|event| match event {
            Event::Text(text) => format!("text {text}"),
            Event::ToolCall(call) => format!("call {}", call.id),
            Event::ToolResult(id, _) => format!("result {id}"),
            Event::Usage(usage) => format!("usage {}", usage.total()),
            Event::Pending(_) => "pending".into(),
            Event::Done(result) => format!("done {:?}", result.status),
            Event::Error(error) => format!("error {error}"),
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "call c1",
            "call c2",
            "usage 15",
            "result c1",
            "result c2",
            "text Sunn",
            "text y, a",
            "text nd 4",
            "text .",
            "usage 27",
            "done Done",
        ]
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]
    #[test]
    fn the_stream_s_done_is_run_s_result_however_the_text_is_chunked(text in "[a-zé ,.]{0,40}", chunk in 1usize..8) {
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        runtime.block_on(async {
            let toolkit = toolkit();
            let ran = Client::with_model(Scripted::new(script(&text))).run("go", &toolkit).await.unwrap();
            let mut model = Scripted::new(script(&text));
            model.chunk = chunk;
            let events = collect(Client::with_model(model).stream("go", &toolkit)).await;
            let streamed: String = events.iter().filter_map(|e| match e { Event::Text(t) => Some(t.as_str()), _ => None }).collect();
            prop_assert_eq!(&streamed, &text);
            let Some(Event::Done(result)) = events.last() else { panic!("{events:?}") };
            prop_assert_eq!(&**result, &ran);
            Ok(())
        })?;
    }
}

#[tokio::test]
async fn a_stream_that_fails_before_yielding_is_retried() {
    let model = Scripted::new([
        Turn::Fail(ModelError::http(503, "busy")),
        answering("hello"),
    ]);
    let client = Client::with_model(model.clone()).retry_backoff(Duration::from_millis(1));
    let events = collect(client.stream("go", &Toolkit::new())).await;
    let Some(Event::Done(result)) = events.last() else {
        panic!("{events:?}")
    };
    assert_eq!(
        (result.status, result.text.as_str(), model.calls()),
        (Status::Done, "hello", 2)
    );
}

#[tokio::test]
async fn a_stream_that_breaks_after_yielding_is_an_error_and_not_retried() {
    let broken = ModelError::transient("connection reset");
    let model = Scripted::new([
        Turn::BreakAfterText("Hel".into(), broken),
        answering("hello"),
    ]);
    let client = Client::with_model(model.clone()).retry_backoff(Duration::from_millis(1));
    let events = collect(client.stream("go", &Toolkit::new())).await;
    assert_eq!(events[0], Event::Text("Hel".into()));
    let Some(Event::Error(error)) = events.last() else {
        panic!("{events:?}")
    };
    assert_eq!(
        (error.message.as_str(), model.calls()),
        ("connection reset", 1)
    );
}

#[tokio::test]
async fn a_model_that_cannot_stream_says_so() {
    struct Plain;
    impl toolnexus::client::Model for Plain {
        fn api(&self) -> toolnexus::Api {
            toolnexus::Api::Anthropic
        }
        fn name(&self) -> &str {
            "plain"
        }
        fn reply<'a>(
            &'a self,
            _: toolnexus::client::ModelRequest<'a>,
        ) -> toolnexus::BoxFuture<'a, Result<toolnexus::client::Reply, ModelError>> {
            Box::pin(async { Ok(Default::default()) })
        }
    }
    let events = collect(Client::with_model(Plain).stream("go", &Toolkit::new())).await;
    let [Event::Error(error)] = &events[..] else {
        panic!("{events:?}")
    };
    assert_eq!(
        error.to_string(),
        "Anthropic Messages: model `plain` cannot stream"
    );
}

/// A model whose stream yields only the whole reply: the run still announces each call.
#[tokio::test]
async fn calls_the_model_did_not_announce_are_announced_from_its_reply() {
    struct Terse;
    impl toolnexus::client::Model for Terse {
        fn api(&self) -> toolnexus::Api {
            toolnexus::Api::Gemini
        }
        fn name(&self) -> &str {
            "terse"
        }
        fn reply<'a>(
            &'a self,
            _: toolnexus::client::ModelRequest<'a>,
        ) -> toolnexus::BoxFuture<'a, Result<toolnexus::client::Reply, ModelError>> {
            unreachable!("streamed only")
        }
        fn stream<'a>(
            &'a self,
            request: toolnexus::client::ModelRequest<'a>,
        ) -> toolnexus::client::BoxStream<'a, Result<toolnexus::client::ModelEvent, ModelError>>
        {
            let reply = match request.messages.len() {
                1 => toolnexus::client::Reply {
                    tool_calls: vec![
                        call("call_0", "add", json!({})),
                        call("call_1", "add", json!({})),
                    ],
                    ..Default::default()
                },
                _ => toolnexus::client::Reply {
                    text: "done".into(),
                    ..Default::default()
                },
            };
            let events = vec![Ok(toolnexus::client::ModelEvent::Done(reply))];
            Box::pin(Once(events.into_iter()))
        }
    }
    struct Once<I>(I);
    impl<I: Iterator + Unpin> futures_core::Stream for Once<I> {
        type Item = I::Item;
        fn poll_next(
            mut self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<Option<I::Item>> {
            std::task::Poll::Ready(self.0.next())
        }
    }
    let events = collect(Client::with_model(Terse).stream("go", &toolkit())).await;
    let announced: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::ToolCall(c) => Some(c.id.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(announced, ["call_0", "call_1"]);
    let Some(Event::Done(result)) = events.last() else {
        panic!("{events:?}")
    };
    assert_eq!((result.status, result.tool_call_count), (Status::Done, 2));
}
