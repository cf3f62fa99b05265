//! The corpus `scripts/provider-sdk-checks.py` validates with the providers' own SDK types:
//! for each API, the request bodies rendered from transcripts (same-API histories with their
//! echoes, histories from the other APIs, streamed and not) and the reply bodies and stream
//! events the tests read, and typed runs' requests (SPEC §16B: the answer schema asked by each
//! API's own means). `TOOLNEXUS_WIRE_CORPUS=DIR cargo test -p toolnexus --test provider
//! wire::corpus` writes it as `DIR/<api>.json`.

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use serde::Deserialize;
use serde_json::{Value, json};
use toolnexus::client::request_body_for;
use toolnexus::client::{AnswerSchema, Message, ModelRequest, read_reply, request_body};
use toolnexus::{Api, JsonSchema, Toolkit};

use super::history::{check_pairing, conversation};
use super::replies::{Script, script};
use crate::common::add_tool;

/// The scripts the corpus is made of: generated from a fixed seed, so the corpus is the same
/// on every run, each with reasoning and parallel calls somewhere among them.
fn scripts() -> Vec<Script> {
    let mut runner = TestRunner::deterministic();
    let strategy = script();
    let mut scripts: Vec<Script> = (0..16)
        .map(|_| strategy.new_tree(&mut runner).unwrap().current())
        .collect();
    scripts.push(Script {
        text: "Checking both.".into(),
        calls: vec![
            ("get_weather".into(), json!({"city": "Paris"})),
            ("add".into(), json!({"a": 2, "b": 2})),
        ],
        input_tokens: 120,
        output_tokens: 48,
        thinking: Some((
            "The user wants two things.".into(),
            "EqQBCkgIARABGAIiQA==".into(),
        )),
        cuts: vec![3, 9, 17],
        interleave: vec![1, 0, 1, 1, 0],
        tag: 7,
    });
    scripts
}

fn api_name(api: Api) -> &'static str {
    match api {
        Api::OpenAiChat => "openai_chat",
        Api::OpenAiResponses => "openai_responses",
        Api::Anthropic => "anthropic",
        Api::Gemini => "gemini",
    }
}

/// One API's corpus: `requests` (each a whole body; `stream` set in some), `replies` (whole
/// bodies) and `stream_events` (the data of every streamed event, `[DONE]` left out).
fn corpus(api: Api, scripts: &[Script]) -> Value {
    let toolkit = Toolkit::new().with(add_tool());
    let tools = toolkit.definitions(api, &Default::default());
    let mut requests = Vec::new();
    for (at, script) in scripts.iter().enumerate() {
        let source = Api::ALL[at % Api::ALL.len()];
        let histories = [
            vec![(api, script.clone())],
            vec![
                (source, script.clone()),
                (api, scripts[(at + 1) % scripts.len()].clone()),
            ],
        ];
        for (turns, stream) in histories.iter().zip([at % 2 == 0, at % 3 == 0]) {
            let body = request_body(api, "model-x", &conversation(turns), &tools, stream);
            check_pairing(api, &body);
            requests.push(body);
        }
    }
    requests.extend(typed_requests(api, scripts, &tools));
    let replies: Vec<Value> = scripts.iter().map(|script| script.whole(api)).collect();
    for reply in &replies {
        read_reply(api, reply).unwrap();
    }
    let stream_events: Vec<Value> = scripts
        .iter()
        .flat_map(|script| script.stream_events(api))
        .collect();
    json!({"requests": requests, "replies": replies, "stream_events": stream_events})
}

/// A typed run's answer: nested objects, a list, an optional, an enum and a bounded integer.
#[derive(Deserialize, JsonSchema)]
#[expect(dead_code, reason = "only its schema is sent")]
struct Forecast {
    city: String,
    days: Vec<Day>,
    note: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[expect(dead_code, reason = "only its schema is sent")]
struct Day {
    #[schemars(range(min = -90, max = 60))]
    high: i32,
    sky: Sky,
}

#[derive(Deserialize, JsonSchema)]
enum Sky {
    Clear,
    Cloudy,
    Rain,
}

/// How many typed requests each API's corpus holds.
const TYPED_REQUESTS: usize = 8;

/// Typed runs' requests (SPEC §16B): histories of the first scripts with and without tools,
/// streamed and not, half of them after a refused answer and its retry message.
fn typed_requests(api: Api, scripts: &[Script], tools: &Value) -> Vec<Value> {
    let answer = AnswerSchema::of::<Forecast>(api).unwrap();
    let none = json!([]);
    (0..TYPED_REQUESTS)
        .map(|at| {
            let mut messages = conversation(&[(api, scripts[at / 2].clone())]);
            if at % 2 == 1 {
                messages.push(Message::Assistant {
                    text: r#"{"city": "Paris", "days": [{"high": 150, "sky": "Clear"}]}"#.into(),
                    tool_calls: Vec::new(),
                    echo: None,
                });
                messages.push(Message::user(
                    "Your answer does not fit the schema of `Forecast`: field `days[0].high`: \
                     150 is greater than the maximum of 60. Answer again with the whole \
                     answer, corrected.",
                ));
            }
            let offered = if at % 4 < 2 { tools } else { &none };
            let request = ModelRequest::new(&messages, offered).with_answer(&answer);
            let body = request_body_for(api, "model-x", request, at % 3 == 0);
            check_pairing(api, &body);
            body
        })
        .collect()
}

#[test]
fn the_sdk_corpus_holds_every_api_s_requests_and_replies() {
    let scripts = scripts();
    let target = std::env::var_os("TOOLNEXUS_WIRE_CORPUS");
    for api in Api::ALL {
        let corpus = corpus(api, &scripts);
        assert_eq!(
            corpus["requests"].as_array().unwrap().len(),
            2 * scripts.len() + TYPED_REQUESTS
        );
        assert!(corpus["stream_events"].as_array().unwrap().len() > 3 * scripts.len());
        if let Some(dir) = &target {
            std::fs::create_dir_all(dir).unwrap();
            let path = std::path::Path::new(dir).join(format!("{}.json", api_name(api)));
            std::fs::write(path, serde_json::to_string_pretty(&corpus).unwrap()).unwrap();
        }
    }
}
