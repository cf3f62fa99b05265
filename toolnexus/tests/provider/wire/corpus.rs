//! The corpus `scripts/provider-sdk-checks.py` validates with the providers' own SDK types:
//! for each API, the request bodies rendered from transcripts (same-API histories with their
//! echoes, histories from the other APIs, streamed and not) and the reply bodies and stream
//! events the tests read. `TOOLNEXUS_WIRE_CORPUS=DIR cargo test -p toolnexus --test provider
//! wire::corpus` writes it as `DIR/<api>.json`.

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use serde_json::{Value, json};
use toolnexus::client::{read_reply, request_body};
use toolnexus::{Api, Toolkit};

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

#[test]
fn the_sdk_corpus_holds_every_api_s_requests_and_replies() {
    let scripts = scripts();
    let target = std::env::var_os("TOOLNEXUS_WIRE_CORPUS");
    for api in Api::ALL {
        let corpus = corpus(api, &scripts);
        assert_eq!(
            corpus["requests"].as_array().unwrap().len(),
            2 * scripts.len()
        );
        assert!(corpus["stream_events"].as_array().unwrap().len() > 3 * scripts.len());
        if let Some(dir) = &target {
            std::fs::create_dir_all(dir).unwrap();
            let path = std::path::Path::new(dir).join(format!("{}.json", api_name(api)));
            std::fs::write(path, serde_json::to_string_pretty(&corpus).unwrap()).unwrap();
        }
    }
}
