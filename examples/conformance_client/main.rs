//! A client driver for the official MCP conformance suite's client scenarios, on `McpTools`:
//! the suite starts it with the scenario in `MCP_CONFORMANCE_SCENARIO` and the URL of its
//! scenario server as the last argument (`scripts/mcp-conformance.sh` runs every non-auth
//! client scenario with it).
//!
//! `cargo run --example conformance_client --features oauth-jwt -- http://127.0.0.1:3000/mcp`
//!
//! The `auth/*` scenarios are in `auth.rs`. Of the others, every
//! scenario connects (`server/discover`, or `initialize` for an older server) and lists
//! the tools; then `json-schema-ref-no-deref` stops (it serves only `tools/list`),
//! `json-schema-2020-12-preservation` echoes the schema it was given, a scenario that spells
//! out its calls in `MCP_CONFORMANCE_CONTEXT` gets those, and the others call each listed tool
//! with arguments made from its schema; any question the server asks (an elicitation, an
//! input-required result) is accepted with the form's defaults.

mod auth;

use toolnexus::mcp::McpTools;
use toolnexus::serde_json::{Map, Value, json};
use toolnexus::{Answer, Request, Tool, Toolkit};

type Error = Box<dyn std::error::Error>;

const USAGE: &str = "usage: MCP_CONFORMANCE_SCENARIO=<scenario> conformance_client <server-url>";

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    let (Ok(scenario), Some(url)) = (
        std::env::var("MCP_CONFORMANCE_SCENARIO"),
        std::env::args().skip(1).last(),
    ) else {
        return Err(USAGE.into());
    };
    if scenario.starts_with("auth/") {
        return auth::run(&scenario, &url).await;
    }
    let server = McpTools::http(url)
        .connect()
        .await?
        .on_elicitation(|request: Request| std::future::ready(accept(request)));
    let tools = server.tools();
    eprintln!("{scenario}: {} tools", tools.len());
    match scenario.as_str() {
        "json-schema-ref-no-deref" => Ok(()),
        "json-schema-2020-12-preservation" => echo_schema(&tools).await,
        _ => match context_calls() {
            Some(calls) => call_as_told(tools, calls).await,
            None => call_each(tools).await,
        },
    }
}

/// The calls a scenario spells out in `MCP_CONFORMANCE_CONTEXT` (`{"toolCalls": [{"name",
/// "arguments"}]}`, e.g. the header encodings of `http-custom-headers`), if it does.
fn context_calls() -> Option<Vec<(String, Value)>> {
    let context: Value =
        toolnexus::serde_json::from_str(&std::env::var("MCP_CONFORMANCE_CONTEXT").ok()?).ok()?;
    let calls = context.get("toolCalls")?.as_array()?;
    Some(
        calls
            .iter()
            .filter_map(|call| {
                let name = call.get("name")?.as_str()?.to_owned();
                Some((name, call.get("arguments").cloned().unwrap_or(json!({}))))
            })
            .collect(),
    )
}

/// Makes the calls the scenario spelled out, with its arguments.
async fn call_as_told(
    tools: Vec<std::sync::Arc<dyn Tool>>,
    calls: Vec<(String, Value)>,
) -> Result<(), Error> {
    let toolkit = Toolkit::new().with_all(tools);
    for (name, args) in calls {
        let result = toolkit
            .call(&name, args, |request| std::future::ready(accept(request)))
            .await;
        eprintln!("{name}: {} (error: {})", result.output, result.is_error);
    }
    Ok(())
}

/// Round-trips the focal tool's input schema through `json_schema_echo`, as received.
async fn echo_schema(tools: &[std::sync::Arc<dyn Tool>]) -> Result<(), Error> {
    let focal = tools
        .iter()
        .find(|tool| tool.name() == "json_schema_2020_12_tool")
        .ok_or("no json_schema_2020_12_tool listed")?;
    let schema = Value::Object(focal.input_schema().clone());
    let toolkit = Toolkit::new().with_all(tools.iter().cloned());
    let echoed = toolkit
        .call("json_schema_echo", json!({"schema": schema}), |request| {
            std::future::ready(accept(request))
        })
        .await;
    eprintln!("json_schema_echo: {}", echoed.output);
    Ok(())
}

/// Calls every tool once, with arguments its schema accepts.
async fn call_each(tools: Vec<std::sync::Arc<dyn Tool>>) -> Result<(), Error> {
    let toolkit = Toolkit::new().with_all(tools.iter().cloned());
    for tool in &tools {
        let args = arguments(tool.input_schema());
        let result = toolkit
            .call(tool.name(), args, |request| {
                std::future::ready(accept(request))
            })
            .await;
        eprintln!(
            "{}: {} (error: {})",
            tool.name(),
            result.output,
            result.is_error
        );
    }
    Ok(())
}

/// Arguments for a schema: each required property (every one when none is required) a value
/// of its type — numbers 2, 3, … in order (the suite's `add_numbers` expects 2 and 3).
fn arguments(schema: &Map<String, Value>) -> Value {
    let properties = schema.get("properties").and_then(Value::as_object);
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut number = 1;
    let mut args = Map::new();
    for (name, property) in properties.into_iter().flatten() {
        if !required.is_empty() && !required.contains(&name.as_str()) {
            continue;
        }
        let value = match property.get("type").and_then(Value::as_str) {
            Some("number" | "integer") => {
                number += 1;
                json!(number)
            }
            Some("boolean") => json!(true),
            Some("array") => json!([]),
            Some("object") => json!({}),
            _ => property
                .get("enum")
                .and_then(|values| values.get(0))
                .cloned()
                .unwrap_or_else(|| json!("test")),
        };
        args.insert(name.clone(), value);
    }
    Value::Object(args)
}

/// Accepts a question with its form's defaults (`{"confirmed": true}` for a form without).
fn accept(request: Request) -> Answer {
    let schema = request.data.as_ref().and_then(|data| data.get("schema"));
    let mut content: Map<String, Value> = schema
        .and_then(|schema| schema.get("properties"))
        .and_then(Value::as_object)
        .map(|properties| {
            properties
                .iter()
                .filter_map(|(name, property)| {
                    Some((name.clone(), property.get("default")?.clone()))
                })
                .collect()
        })
        .unwrap_or_default();
    if content.is_empty() {
        content.insert("confirmed".to_owned(), json!(true));
    }
    Answer {
        id: request.id,
        ok: true,
        data: Some(content),
        reason: None,
    }
}
