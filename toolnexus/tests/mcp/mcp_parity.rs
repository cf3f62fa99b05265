//! MCP parity (SPEC §8): `title`, annotations and `outputSchema` in `to_mcp()` and the
//! server's `tools/list` (and nowhere else); `structuredContent` valid against the output
//! schema; `notifications/cancelled` stopping a call — driven by rmcp's own client over an
//! in-process pipe.
#![cfg(feature = "mcp")]

use crate::common::mcp_client;
use crate::common::mcp_tools;

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use rmcp::model::{CallToolRequest, CallToolRequestParams, CallToolResult, ClientRequest};
use rmcp::service::{PeerRequestOptions, RoleClient, RunningService};
use serde_json::{Value, json};
use toolnexus::{Json, JsonSchema, ToolResult, Toolkit, tool, tools};

use mcp_client::connect;
use mcp_tools::{McpTools, check_against, mcp_tools};

fn params(name: &str, arguments: Value) -> CallToolRequestParams {
    CallToolRequestParams::new(name.to_owned())
        .with_arguments(arguments.as_object().expect("an object").clone())
}

async fn call(client: &RunningService<RoleClient, ()>, name: &str, arguments: Value) -> Value {
    let result: CallToolResult = client
        .call_tool(params(name, arguments))
        .await
        .expect("tools/call is never a protocol error");
    serde_json::to_value(result).unwrap()
}

fn entry<'a>(definitions: &'a Value, name: &str) -> &'a Value {
    definitions
        .as_array()
        .unwrap()
        .iter()
        .find(|entry| entry["name"] == name)
        .unwrap_or_else(|| panic!("no entry for {name}"))
}

#[test]
fn to_mcp_lists_title_output_schema_and_the_hints_that_are_set() {
    let definitions = mcp_tools().toolkit.to_mcp();
    assert_eq!(
        entry(&definitions, "drop_table"),
        &json!({
            "name": "drop_table",
            "title": "Drop table",
            "description": "Drops a table",
            "inputSchema": {"type": "object", "properties": {}},
            // Read-only wins over destructive, as MCP and every port read the pair.
            "annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true},
        })
    );
    assert_eq!(
        entry(&definitions, "lookup")["annotations"],
        json!({"openWorldHint": false})
    );
    assert_eq!(
        entry(&definitions, "sizes")["outputSchema"],
        json!({
            "type": "object",
            "properties": {"result": {"type": "array", "items": {"type": "string"}}},
            "required": ["result"],
            "x-toolnexus-wrap-result": true,
        })
    );
    assert_eq!(
        entry(&definitions, "weather")["outputSchema"]["required"],
        json!(["city", "celsius"])
    );
    let plain = entry(&definitions, "plain").as_object().unwrap();
    let keys: Vec<_> = plain.keys().map(String::as_str).collect();
    assert_eq!(keys, ["name", "description", "inputSchema"]);
}

#[test]
fn other_providers_never_see_title_hints_or_output_schema() {
    let toolkit = mcp_tools().toolkit;
    for (provider, definitions) in [
        ("openai", toolkit.to_openai()),
        ("openai strict", toolkit.to_openai_strict()),
        ("openai responses", toolkit.to_openai_responses()),
        ("anthropic", toolkit.to_anthropic()),
        ("anthropic strict", toolkit.to_anthropic_strict()),
        ("gemini", toolkit.to_gemini()),
        ("gemini json schema", toolkit.to_gemini_json_schema()),
    ] {
        let text = definitions.to_string();
        for leaked in [
            "Drop table",
            "Dictionary lookup",
            "Hint",
            "annotations",
            "outputSchema",
            "output_schema",
            "x-toolnexus-wrap-result",
        ] {
            assert!(!text.contains(leaked), "{provider} got {leaked}: {text}");
        }
    }
}

#[tokio::test]
async fn tools_list_is_to_mcp_with_every_mcp_only_part() {
    let toolkit = mcp_tools().toolkit;
    let expected = toolkit.to_mcp();
    let client = connect(toolkit).await;
    let listed = serde_json::to_value(client.list_all_tools().await.unwrap()).unwrap();
    assert_eq!(listed, expected);
    // Same keys in the same order, not just equal maps.
    assert_eq!(listed.to_string(), expected.to_string());
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn structured_content_is_valid_against_the_output_schema() {
    let toolkit = mcp_tools().toolkit;
    let definitions = toolkit.to_mcp();
    let client = connect(toolkit).await;
    let cases = [
        (
            "weather",
            json!({"city": "Paris"}),
            json!({"city": "Paris", "celsius": 18.5}),
        ),
        ("sizes", json!({}), json!({"result": ["S", "M", "XL"]})),
        (
            "maybe_point",
            json!({"some": true}),
            json!({"result": {"x": 1, "y": 2}}),
        ),
        (
            "maybe_point",
            json!({"some": false}),
            json!({"result": null}),
        ),
    ];
    for (name, arguments, structured) in cases {
        let result = call(&client, name, arguments).await;
        assert_eq!(result["isError"], false, "{result}");
        assert_eq!(result["structuredContent"], structured, "{name}");
        let schema = &entry(&definitions, name)["outputSchema"];
        check_against(schema, &result["structuredContent"])
            .unwrap_or_else(|error| panic!("{name}: {error}"));
        // The text block still carries the output, for clients that read only text.
        let text = result["content"][0]["text"].as_str().unwrap();
        if !text.is_empty() {
            assert_eq!(serde_json::from_str::<Value>(text).unwrap(), {
                let structured = &result["structuredContent"];
                if schema["x-toolnexus-wrap-result"] == true {
                    structured["result"].clone()
                } else {
                    structured.clone()
                }
            });
        }
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn errors_suspensions_and_tools_without_a_schema_carry_no_structured_content() {
    let McpTools { toolkit, .. } = mcp_tools();
    let client = connect(toolkit).await;
    for name in ["sold_out", "plain"] {
        let result = call(&client, name, json!({})).await;
        assert!(
            result.get("structuredContent").is_none(),
            "{name}: {result}"
        );
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn output_that_breaks_its_schema_is_an_error_keeping_the_output() {
    let McpTools { toolkit, .. } = mcp_tools();
    let client = connect(toolkit).await;
    let result = call(&client, "broken", json!({})).await;
    assert_eq!(result["isError"], true);
    assert!(result.get("structuredContent").is_none());
    let message = result["content"][0]["text"].as_str().unwrap();
    assert!(
        message
            .starts_with("tool `broken` declares an output schema, but its output is not JSON ("),
        "{message}"
    );
    assert_eq!(result["content"][1]["text"], "sunny, mostly");
    client.cancel().await.unwrap();
}

#[test]
fn to_mcp_for_without_a_schema_or_on_error_is_to_mcp() {
    let toolkit = mcp_tools().toolkit;
    let plain = toolkit.get("plain").unwrap();
    let weather = toolkit.get("weather").unwrap();
    let ok = ToolResult::ok(r#"{"city":"Oslo","celsius":4}"#);
    assert_eq!(ok.to_mcp_for(plain.as_ref()), ok.to_mcp());
    let failed = ToolResult::error(r#"{"city":"Oslo","celsius":4}"#);
    assert_eq!(failed.to_mcp_for(weather.as_ref()), failed.to_mcp());
    let suspended = toolnexus::pending(toolnexus::Request::new("approval", "Go?"));
    assert_eq!(suspended.to_mcp_for(weather.as_ref()), suspended.to_mcp());
    // An object schema wants an object.
    let list = ToolResult::ok("[1]").to_mcp_for(weather.as_ref());
    assert_eq!(
        list["content"][0]["text"],
        "tool `weather` declares an output schema, but its output is an array where the schema wants an object"
    );
    // `ToolResult`'s own wire form is untouched by all this.
    assert_eq!(
        serde_json::to_value(&ok).unwrap(),
        json!({"output": r#"{"city":"Oslo","celsius":4}"#, "isError": false})
    );
}

#[tokio::test]
async fn notifications_cancelled_stops_the_call_and_drops_the_tool() {
    let McpTools {
        toolkit,
        stuck_dropped,
    } = mcp_tools();
    let client = connect(toolkit).await;
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(params("stuck", json!({}))));
    let handle = client
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .unwrap();
    // Give the server a moment to start the call, then cancel it.
    tokio::time::sleep(Duration::from_millis(50)).await;
    handle
        .cancel(Some("changed my mind".to_owned()))
        .await
        .unwrap();
    let give_up = Instant::now() + Duration::from_secs(30);
    while !stuck_dropped.load(Ordering::SeqCst) {
        assert!(Instant::now() < give_up, "the tool was never dropped");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // The server still serves.
    let plain = call(&client, "plain", json!({})).await;
    assert_eq!(plain["content"][0]["text"], "plain");
    client.cancel().await.unwrap();
}

#[derive(serde::Serialize, JsonSchema)]
struct Forecast {
    city: String,
    highs: Vec<i32>,
}

/// The coming days' highs for a city.
#[tool(title = "Forecast", read_only, open_world)]
fn forecast(city: String) -> Result<Json<Forecast>, String> {
    match city.as_str() {
        "" => Err("name a city".to_owned()),
        _ => Ok(Json(Forecast {
            city,
            highs: vec![18, 21],
        })),
    }
}

/// Counts the words of a text.
#[tool(idempotent)]
fn count_words(text: String) -> Json<usize> {
    Json(text.split_whitespace().count())
}

#[tokio::test]
async fn a_tool_fn_returning_json_is_served_with_its_schema_and_structured_content() {
    let toolkit = Toolkit::new().with_all(tools![forecast, count_words]);
    let definitions = toolkit.to_mcp();
    assert_eq!(entry(&definitions, "forecast")["title"], "Forecast");
    assert_eq!(
        entry(&definitions, "forecast")["annotations"],
        json!({"readOnlyHint": true, "openWorldHint": true})
    );
    assert_eq!(
        entry(&definitions, "count_words")["annotations"],
        json!({"idempotentHint": true})
    );
    let client = connect(toolkit).await;
    let cases = [
        (
            "forecast",
            json!({"city": "Oslo"}),
            json!({"city": "Oslo", "highs": [18, 21]}),
        ),
        (
            "count_words",
            json!({"text": "one two three"}),
            json!({"result": 3}),
        ),
    ];
    for (name, arguments, structured) in cases {
        let result = call(&client, name, arguments).await;
        assert_eq!(result["structuredContent"], structured, "{result}");
        check_against(&entry(&definitions, name)["outputSchema"], &structured)
            .unwrap_or_else(|error| panic!("{name}: {error}"));
    }
    let failed = call(&client, "forecast", json!({"city": ""})).await;
    assert_eq!(failed["isError"], true);
    assert!(failed.get("structuredContent").is_none(), "{failed}");
    client.cancel().await.unwrap();
}
