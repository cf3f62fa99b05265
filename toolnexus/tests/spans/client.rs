//! The run's spans as OpenTelemetry sees them (SPEC §16): one `invoke_agent` per run, a
//! `chat {model}` per model call with the model, the usage and the finish reason, and the
//! toolkit's `execute_tool` spans beneath the run's.
#![cfg(feature = "tracing")]

use std::collections::{BTreeMap, VecDeque};
use std::sync::Mutex;

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use serde_json::{Value, json};
use toolnexus::client::{Client, Model, ModelError, ModelRequest, Reply, Status, Usage};
use toolnexus::{Api, BoxFuture, ToolCall, ToolContext, Toolkit, define_tool};
use tracing_subscriber::layer::SubscriberExt;

/// Answers with its replies in order.
struct Replies(Mutex<VecDeque<Reply>>);

impl Model for Replies {
    fn api(&self) -> Api {
        Api::Anthropic
    }
    fn name(&self) -> &str {
        "claude-test"
    }
    fn reply<'a>(&'a self, _: ModelRequest<'a>) -> BoxFuture<'a, Result<Reply, ModelError>> {
        let next = self.0.lock().unwrap().pop_front();
        Box::pin(async move { next.ok_or_else(|| ModelError::fatal("no more replies")) })
    }
}

fn attributes(span: &SpanData) -> BTreeMap<String, String> {
    span.attributes
        .iter()
        .map(|kv| (kv.key.as_str().to_owned(), kv.value.as_str().into_owned()))
        .collect()
}

#[test]
fn a_run_is_an_invoke_agent_span_over_chat_and_execute_tool_spans() {
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let subscriber = tracing_subscriber::registry()
        .with(tracing_opentelemetry::layer().with_tracer(provider.tracer("toolnexus-test")));
    let lookup = define_tool("lookup", "Looks up", json!({"type": "object"}))
        .unwrap()
        .sync(|_: Value, _: &ToolContext| "found");
    let toolkit = Toolkit::new().with(lookup);
    let call = ToolCall {
        id: "toolu_1".into(),
        name: "lookup".into(),
        arguments: "{}".into(),
    };
    let model = Replies(Mutex::new(VecDeque::from([
        Reply {
            tool_calls: vec![call],
            usage: Usage {
                input_tokens: 11,
                output_tokens: 3,
            },
            finish_reason: Some("tool_use".into()),
            ..Reply::default()
        },
        Reply {
            text: "found it".into(),
            usage: Usage {
                input_tokens: 17,
                output_tokens: 4,
            },
            finish_reason: Some("end_turn".into()),
            ..Reply::default()
        },
    ])));
    tracing::subscriber::with_default(subscriber, || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let result = runtime
            .block_on(Client::with_model(model).run("find it", &toolkit))
            .unwrap();
        assert_eq!(result.status, Status::Done);
    });
    provider.force_flush().unwrap();
    let spans = exporter.get_finished_spans().unwrap();
    let named =
        |name: &str| -> Vec<&SpanData> { spans.iter().filter(|s| s.name == name).collect() };
    let [agent] = named("invoke_agent")[..] else {
        panic!("{spans:?}")
    };
    assert_eq!(attributes(agent)["gen_ai.request.model"], "claude-test");
    let agent_id = agent.span_context.span_id();
    let chats = named("chat claude-test");
    assert_eq!(chats.len(), 2);
    let turns: Vec<_> = chats
        .iter()
        .map(|chat| {
            assert_eq!(chat.parent_span_id, agent_id);
            let fields = attributes(chat);
            assert_eq!(fields["gen_ai.operation.name"], "chat");
            assert_eq!(fields["gen_ai.request.model"], "claude-test");
            (
                fields["gen_ai.usage.input_tokens"].clone(),
                fields["gen_ai.usage.output_tokens"].clone(),
                fields["gen_ai.response.finish_reasons"].clone(),
            )
        })
        .collect();
    let expected = [("11", "3", "tool_use"), ("17", "4", "end_turn")]
        .map(|(i, o, r)| (i.to_owned(), o.to_owned(), r.to_owned()));
    assert!(
        turns.iter().all(|turn| expected.contains(turn)),
        "{turns:?}"
    );
    assert_ne!(turns[0], turns[1]);
    let [tool] = named("execute_tool lookup")[..] else {
        panic!("{spans:?}")
    };
    assert_eq!(tool.parent_span_id, agent_id);
    assert_eq!(attributes(tool)["gen_ai.tool.call.id"], "toolu_1");
}

#[test]
fn a_failed_model_call_s_chat_span_names_the_status() {
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let subscriber = tracing_subscriber::registry()
        .with(tracing_opentelemetry::layer().with_tracer(provider.tracer("toolnexus-test")));
    struct Refusing;
    impl Model for Refusing {
        fn api(&self) -> Api {
            Api::Gemini
        }
        fn name(&self) -> &str {
            "gemini-test"
        }
        fn reply<'a>(&'a self, _: ModelRequest<'a>) -> BoxFuture<'a, Result<Reply, ModelError>> {
            Box::pin(async { Err(ModelError::http(400, "bad request")) })
        }
    }
    tracing::subscriber::with_default(subscriber, || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let error = runtime
            .block_on(Client::with_model(Refusing).run("hi", &Toolkit::new()))
            .unwrap_err();
        assert_eq!(error.status, Some(400));
    });
    provider.force_flush().unwrap();
    let spans = exporter.get_finished_spans().unwrap();
    let chat = spans
        .iter()
        .find(|s| s.name == "chat gemini-test")
        .expect("a chat span");
    assert_eq!(attributes(chat)["error.type"], "400");
}
