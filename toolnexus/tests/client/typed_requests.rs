//! Typed answers' requests (SPEC §16B): each API asked by its own means (the bodies
//! `request_body_for` renders), and a type an API's profile cannot say reported before any
//! request.

use serde::Deserialize;
use serde_json::json;
use std::collections::HashMap;
use toolnexus::client::{AnswerSchema, Client, Message, ModelRequest, request_body_for};
use toolnexus::{Api, IssueKind, JsonSchema, Toolkit};

use crate::scripted::counting;
use crate::typed::{Answering, answer};

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Verdict {
    guilty: bool,
}

/// A map with any keys: strict mode cannot say its entries.
#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Prices {
    by_city: HashMap<String, f64>,
}

/// A model of `api` that answers with its replies in order and keeps every request's body as
#[tokio::test]
async fn each_api_is_asked_by_its_own_means() {
    let strict = json!({
        "type": "object",
        "properties": {"guilty": {"type": "boolean"}},
        "required": ["guilty"],
        "additionalProperties": false,
    });
    let plain = json!({
        "type": "object",
        "properties": {"guilty": {"type": "boolean"}},
        "required": ["guilty"],
    });
    let mut bodies = Vec::new();
    for api in Api::ALL {
        let model = Answering::new(api, [answer(api, "Verdict", r#"{"guilty": false}"#)]);
        Client::with_model(model.clone())
            .run_typed::<Verdict>("Guilty?", &Toolkit::new())
            .await
            .unwrap();
        bodies.push(model.bodies().remove(0));
    }
    let body = |api: Api| &bodies[Api::ALL.iter().position(|at| *at == api).unwrap()];
    assert_eq!(
        *body(Api::OpenAiChat),
        json!({
            "model": "m",
            "messages": [{"role": "user", "content": "Guilty?"}],
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "Verdict", "schema": strict, "strict": true},
            },
        })
    );
    assert_eq!(
        *body(Api::OpenAiResponses),
        json!({
            "model": "m",
            "input": [{"role": "user", "content": "Guilty?"}],
            "text": {"format": {
                "type": "json_schema", "name": "Verdict", "schema": strict, "strict": true,
            }},
        })
    );
    assert_eq!(
        body(Api::Anthropic)["tools"],
        json!([{
            "name": "Verdict",
            "description": "Gives your final answer: call it once you have everything you need; its input is the answer.",
            "input_schema": plain,
        }])
    );
    assert_eq!(
        body(Api::Anthropic)["tool_choice"],
        json!({"type": "any", "disable_parallel_tool_use": true})
    );
    assert_eq!(
        *body(Api::Gemini),
        json!({
            "contents": [{"role": "user", "parts": [{"text": "Guilty?"}]}],
            // An empty toolkit's definitions declare no function: no `tools` beside the answer.
            "generationConfig": {
                "responseMimeType": "application/json",
                "responseJsonSchema": plain,
            },
        })
    );
}

#[tokio::test]
async fn anthropic_s_answer_tool_comes_after_the_toolkit_s_tools() {
    let (_, add) = counting("add");
    let toolkit = Toolkit::new().with(add);
    let model = Answering::new(
        Api::Anthropic,
        [answer(Api::Anthropic, "Verdict", r#"{"guilty": true}"#)],
    );
    let typed = Client::with_model(model.clone())
        .run_typed::<Verdict>("Guilty?", &toolkit)
        .await
        .unwrap();
    assert_eq!(typed.value, Verdict { guilty: true });
    let tools = &model.bodies()[0]["tools"];
    let names: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["add", "Verdict"]);
}

#[tokio::test]
async fn a_type_strict_mode_cannot_say_is_reported_before_any_request() {
    for api in [Api::OpenAiChat, Api::OpenAiResponses] {
        let issues = AnswerSchema::of::<Prices>(api).unwrap_err();
        assert_eq!(issues.len(), 1);
        assert_eq!(
            (
                issues[0].tool.as_str(),
                issues[0].path.as_str(),
                issues[0].kind
            ),
            ("Prices", "by_city", IssueKind::Unsaid)
        );
        let model = Answering::new(api, [answer(api, "Prices", r#"{"by_city": {}}"#)]);
        let error = Client::with_model(model.clone())
            .run_typed::<Prices>("Prices?", &Toolkit::new())
            .await
            .unwrap_err();
        assert!(model.bodies().is_empty(), "{api}: the model was called");
        assert_eq!(error.so_far.turns, 0);
        assert!(
            error.message.starts_with(&format!(
                "the answer cannot be asked of {api} without narrowing it (OpenAI strict mode cannot say it):\n- `Prices` at `by_city`: the entries of a map"
            )),
            "{}",
            error.message
        );
    }
    // Anthropic's plain schema and Gemini's JSON Schema say a map: it is asked for.
    for api in [Api::Anthropic, Api::Gemini] {
        let model = Answering::new(
            api,
            [answer(api, "Prices", r#"{"by_city": {"Paris": 2.5}}"#)],
        );
        let typed = Client::with_model(model)
            .run_typed::<Prices>("Prices?", &Toolkit::new())
            .await
            .unwrap();
        assert_eq!(typed.value.by_city["Paris"], 2.5);
    }
}

#[tokio::test]
async fn an_answer_that_is_not_an_object_is_reported_on_every_api() {
    for api in Api::ALL {
        let issues = AnswerSchema::of::<Vec<String>>(api).unwrap_err();
        assert_eq!(issues[0].lost, "an answer that is not an object", "{api}");
        let model = Answering::new(api, []);
        let error = Client::with_model(model.clone())
            .run_typed::<Vec<String>>("List?", &Toolkit::new())
            .await
            .unwrap_err();
        assert!(
            error.message.contains("wrap the type in a struct"),
            "{}",
            error.message
        );
        assert!(model.bodies().is_empty());
    }
}

#[tokio::test]
async fn an_answer_named_as_a_tool_is_refused_before_any_request() {
    let (_, tool) = counting("Verdict");
    let model = Answering::new(Api::Anthropic, []);
    let error = Client::with_model(model.clone())
        .run_typed::<Verdict>("Guilty?", &Toolkit::new().with(tool))
        .await
        .unwrap_err();
    assert_eq!(
        error.message,
        "the answer `Verdict` cannot be asked for: the toolkit has a tool of that name"
    );
    assert!(model.bodies().is_empty());
}

#[tokio::test]
async fn a_request_without_an_answer_is_request_body_s() {
    let messages = [Message::system("Be brief."), Message::user("Hi")];
    for api in Api::ALL {
        let tools = json!([{"name": "t"}]);
        for stream in [false, true] {
            assert_eq!(
                request_body_for(api, "m", ModelRequest::new(&messages, &tools), stream),
                toolnexus::client::request_body(api, "m", &messages, &tools, stream)
            );
        }
    }
}
