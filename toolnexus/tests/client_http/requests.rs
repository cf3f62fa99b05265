//! What each API receives for the two-turn run with two parallel calls, whole and streamed:
//! the path, the headers (its key header, `anthropic-version`, the extra header) and the
//! body's shape (model, stream flag, the extra field, the calls and their results echoed in
//! call order on the second turn).

use serde_json::{Value, json};
use toolnexus::Api;
use toolnexus::client::{Event, Status};

use crate::stand_in::{Answer, Received, StandIn};
use crate::wire::{self, ANSWER, Wire};
use crate::{FAKE_KEY, client, streamed, toolkit};

#[tokio::test]
async fn each_api_receives_its_own_requests_for_a_two_turn_run() {
    for wire in wire::all() {
        let server = StandIn::start(vec![Answer::ok(&wire.first), Answer::ok(&wire.second)]).await;
        let client = client(wire.api, wire.model, &server);
        let result = client
            .run("Weather in Paris, and 2 + 2?", &toolkit())
            .await
            .unwrap();
        check_result(&wire, &result);
        check_requests(&wire, &server.received(), false);
    }
}

#[tokio::test]
async fn each_api_receives_its_own_requests_for_a_streamed_two_turn_run() {
    for wire in wire::all() {
        // Each event split in two writes, so no chunk of bytes is a whole event.
        let halves = |events: &[String]| -> Vec<String> {
            events
                .iter()
                .flat_map(|event| {
                    let cut = event
                        .char_indices()
                        .nth(event.chars().count() / 2)
                        .unwrap()
                        .0;
                    [event[..cut].to_owned(), event[cut..].to_owned()]
                })
                .collect()
        };
        let server = StandIn::start(vec![
            Answer::Sse(halves(&wire.first_sse)),
            Answer::Sse(halves(&wire.second_sse)),
        ])
        .await;
        let client = client(wire.api, wire.model, &server);
        let (events, end) = streamed(&client, &toolkit()).await;
        let result = end.unwrap_or_else(|error| panic!("{}: {error}", wire.api));
        check_result(&wire, &result);
        check_requests(&wire, &server.received(), true);
        let calls: Vec<&str> = events
            .iter()
            .filter_map(|event| match event {
                Event::ToolCall(call) => Some(call.name.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(calls, ["get_weather", "add"], "{}", wire.api);
        let text: String = events
            .iter()
            .filter_map(|event| match event {
                Event::Text(piece) => Some(piece.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(text, ANSWER, "{}", wire.api);
        // The streamed run ends with what the whole run returns.
        let whole_server =
            StandIn::start(vec![Answer::ok(&wire.first), Answer::ok(&wire.second)]).await;
        let whole = crate::client(wire.api, wire.model, &whole_server)
            .run("Weather in Paris, and 2 + 2?", &toolkit())
            .await
            .unwrap();
        assert_eq!(result, whole, "{}", wire.api);
    }
}

/// The run's outcome: both calls ran, in order, and the second reply's text is the answer.
fn check_result(wire: &Wire, result: &toolnexus::client::RunResult) {
    assert_eq!(result.status, Status::Done, "{}", wire.api);
    assert_eq!(result.text, ANSWER, "{}", wire.api);
    assert_eq!(
        (result.turns, result.tool_call_count),
        (2, 2),
        "{}",
        wire.api
    );
    let outputs: Vec<(&str, String)> = result
        .tool_calls
        .iter()
        .map(|record| (record.name.as_str(), record.output.to_string()))
        .collect();
    assert_eq!(outputs[0].0, "get_weather");
    assert!(
        outputs[0].1.contains("Sunny, 21 °C in Paris"),
        "{outputs:?}"
    );
    assert_eq!(outputs[1], ("add", "4".to_owned()));
    assert_eq!(
        (result.usage.input_tokens, result.usage.output_tokens),
        (100, 40),
        "{}",
        wire.api
    );
}

/// Both requests: path, headers, body.
fn check_requests(wire: &Wire, received: &[Received], stream: bool) {
    let api = wire.api;
    assert_eq!(received.len(), 2, "{api}: {received:#?}");
    let path = match (api, stream) {
        (Api::OpenAiChat, _) => "/v1/chat/completions".to_owned(),
        (Api::OpenAiResponses, _) => "/v1/responses".to_owned(),
        (Api::Anthropic, _) => "/v1/messages".to_owned(),
        (Api::Gemini, false) => format!("/v1beta/models/{}:generateContent", wire.model),
        (Api::Gemini, true) => format!(
            "/v1beta/models/{}:streamGenerateContent?alt=sse",
            wire.model
        ),
    };
    for request in received {
        assert_eq!(
            (request.method.as_str(), request.target.as_str()),
            ("POST", path.as_str()),
            "{api}"
        );
        let header = |name: &str| request.headers.get(name).map(String::as_str);
        assert_eq!(header("content-type"), Some("application/json"), "{api}");
        assert_eq!(header("x-stand-in-trace"), Some("run-1"), "{api}");
        let bearer = format!("Bearer {FAKE_KEY}");
        let (key_header, key_value) = match api {
            Api::OpenAiChat | Api::OpenAiResponses => ("authorization", bearer.as_str()),
            Api::Anthropic => ("x-api-key", FAKE_KEY),
            Api::Gemini => ("x-goog-api-key", FAKE_KEY),
        };
        assert_eq!(header(key_header), Some(key_value), "{api}");
        let others = ["authorization", "x-api-key", "x-goog-api-key"];
        assert!(
            others
                .iter()
                .all(|name| *name == key_header || header(name).is_none()),
            "{api}"
        );
        let version = (api == Api::Anthropic).then_some("2023-06-01");
        assert_eq!(header("anthropic-version"), version, "{api}");
        let body = &request.body;
        assert_eq!(body["temperature"], json!(0.25), "{api}: the extra field");
        match api {
            Api::Gemini => assert!(body.get("model").is_none(), "Gemini's model is in the URL"),
            _ => assert_eq!(body["model"], json!(wire.model), "{api}"),
        }
        let stream_flag = match (api, stream) {
            (Api::Gemini, _) | (_, false) => Value::Null,
            _ => json!(true),
        };
        assert_eq!(
            body.get("stream").cloned().unwrap_or(Value::Null),
            stream_flag,
            "{api}"
        );
        if api == Api::OpenAiChat && stream {
            assert_eq!(body["stream_options"], json!({"include_usage": true}));
        }
        if api == Api::Anthropic {
            assert_eq!(body["max_tokens"], json!(4096));
        }
        let tools = match api {
            Api::Gemini => body["tools"][0]["functionDeclarations"].clone(),
            _ => body["tools"].clone(),
        };
        assert_eq!(tools.as_array().map(Vec::len), Some(2), "{api}: {body}");
    }
    let (calls, results) = echoed(api, &received[1].body);
    let expected_ids = match api {
        Api::Gemini => ["get_weather", "add"],
        _ => ["call_1", "call_2"],
    };
    assert_eq!(
        calls, expected_ids,
        "{api}: the calls echoed, in order: {}",
        received[1].body
    );
    let ids: Vec<&str> = results.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(
        ids, expected_ids,
        "{api}: each result after its call, in order"
    );
    assert!(
        results[0].1.contains("Sunny, 21 °C in Paris"),
        "{api}: {results:?}"
    );
    assert!(results[1].1.contains('4'), "{api}: {results:?}");
    assert!(
        echoes_nothing(api, &received[0].body),
        "{api}: the first request has no calls"
    );
}

/// The second request's echoed calls (ids; Gemini names) and results (id or name, content).
fn echoed(api: Api, body: &Value) -> (Vec<String>, Vec<(String, String)>) {
    let text = |value: &Value| {
        value
            .as_str()
            .map_or_else(|| value.to_string(), str::to_owned)
    };
    let mut calls = Vec::new();
    let mut results = Vec::new();
    let items: Vec<&Value> = match api {
        Api::OpenAiChat => body["messages"].as_array().unwrap().iter().collect(),
        Api::OpenAiResponses => body["input"].as_array().unwrap().iter().collect(),
        Api::Anthropic => flat(&body["messages"], "content"),
        Api::Gemini => flat(&body["contents"], "parts"),
    };
    for item in items {
        match api {
            Api::OpenAiChat => {
                for call in item["tool_calls"].as_array().into_iter().flatten() {
                    calls.push(text(&call["id"]));
                }
                if item["role"] == "tool" {
                    results.push((text(&item["tool_call_id"]), text(&item["content"])));
                }
            }
            Api::OpenAiResponses if item["type"] == "function_call" => {
                calls.push(text(&item["call_id"]))
            }
            Api::OpenAiResponses if item["type"] == "function_call_output" => {
                results.push((text(&item["call_id"]), text(&item["output"])));
            }
            Api::Anthropic if item["type"] == "tool_use" => calls.push(text(&item["id"])),
            Api::Anthropic if item["type"] == "tool_result" => {
                results.push((text(&item["tool_use_id"]), text(&item["content"])));
            }
            Api::Gemini if item.get("functionCall").is_some() => {
                calls.push(text(&item["functionCall"]["name"]))
            }
            Api::Gemini if item.get("functionResponse").is_some() => {
                let response = &item["functionResponse"];
                results.push((text(&response["name"]), text(&response["response"])));
            }
            _ => {}
        }
    }
    (calls, results)
}

/// The blocks (`content`, `parts`) of every message.
fn flat<'a>(messages: &'a Value, blocks: &str) -> Vec<&'a Value> {
    messages
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|message| message[blocks].as_array().into_iter().flatten())
        .collect()
}

/// Whether `body` echoes no call and no result (the first turn's).
fn echoes_nothing(api: Api, body: &Value) -> bool {
    let (calls, results) = echoed(api, body);
    calls.is_empty() && results.is_empty()
}
