//! The whole turn against vectors checked by the providers' own SDKs
//! (`scripts/turn-vectors.py`: openai, anthropic and google-genai on PyPI): each API's
//! response body gives the calls its SDK reads, and `tool_results` writes what its SDK's
//! request types accept, value for value as the vectors hold it.

use serde_json::Value;
use toolnexus::{
    Api, ToolCall, ToolContext, ToolResult, Toolkit, define_tool, tool_calls, tool_results,
};

fn vector(name: &str) -> Value {
    let path = format!(
        "{}/tests/conformance/turn/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

fn api_of(vector: &Value) -> Api {
    match vector["api"].as_str().unwrap() {
        "OpenAiChat" => Api::OpenAiChat,
        "OpenAiResponses" => Api::OpenAiResponses,
        "Anthropic" => Api::Anthropic,
        "Gemini" => Api::Gemini,
        other => panic!("unknown api {other}"),
    }
}

#[test]
fn each_api_reads_its_calls_and_writes_its_answer_as_its_sdk_does() {
    for name in ["chat", "responses", "anthropic", "gemini"] {
        let vector = vector(name);
        let api = api_of(&vector);
        let calls = tool_calls(api, &vector["response"]).unwrap();
        let expected: Vec<ToolCall> = vector["calls"]
            .as_array()
            .unwrap()
            .iter()
            .map(|call| ToolCall {
                id: call["id"].as_str().unwrap().into(),
                name: call["name"].as_str().unwrap().into(),
                arguments: call["arguments"].as_str().unwrap().into(),
            })
            .collect();
        assert_eq!(calls, expected, "{name}: calls");
        let results: Vec<ToolResult> = serde_json::from_value(vector["results"].clone()).unwrap();
        let answer = tool_results(api, &calls, &results);
        assert_eq!(Value::Array(answer), vector["answer"], "{name}: answer");
    }
}

#[test]
fn responses_definitions_are_flat_and_strict_where_strict_mode_can_say_it() {
    let vector = vector("responses");
    let definitions = &vector["definitions"];
    let mut toolkit = Toolkit::new();
    for tool in definitions["tools"].as_array().unwrap() {
        let defined = define_tool(
            tool["name"].as_str().unwrap(),
            tool["description"].as_str().unwrap(),
            tool["schema"].clone(),
        )
        .unwrap()
        .sync(|_: Value, _: &ToolContext| "");
        toolkit = toolkit.with(defined);
    }
    assert_eq!(toolkit.to_openai_responses(), definitions["expected"]);
}
