//! A complete tool-calling loop, for OpenAI and for Anthropic, against a scripted stand-in
//! model (no network, no API key).
//!
//! The model's replies are canned JSON in each provider's real shape. Everything else is what
//! you wire to a real provider: send `toolkit.to_openai()` / `to_anthropic()` as `tools`, run
//! each tool call through the toolkit (`call`, so a tool that needs a login can suspend and
//! resume), turn the results into the provider's tool-result messages with
//! `openai_tool_messages` / `anthropic_tool_results`, append them, and ask the model again
//! until it stops calling tools.
//!
//! Run it with `cargo run --example agent_loop`.

use toolnexus::serde_json::{self, Value, json};
use toolnexus::{
    Answer, ContentPart, ContentPartError, Request, ToolContext, ToolResult, Toolkit,
    anthropic_tool_results, auth_required, openai_tool_messages, tool, tools,
};

/// Current temperature in a city, in °C.
#[tool]
fn get_weather(
    /// City name, e.g. "Paris"
    city: String,
) -> Result<String, String> {
    match city.as_str() {
        "Paris" => Ok("Paris: 18°C, dry".to_owned()),
        "Oslo" => Ok("Oslo: 4°C, snow".to_owned()),
        _ => Err(format!("no weather station in {city}; try a capital city")),
    }
}

/// Takes a screenshot of the dashboard.
#[tool]
fn screenshot() -> Result<ContentPart, ContentPartError> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/media/fixture.png");
    toolnexus::attach(path)
}

/// Deploys a service to production. The user must log in first.
#[tool]
fn deploy(
    /// The service to deploy
    service: String,
    ctx: &ToolContext,
) -> ToolResult {
    // First call: no answer yet, so suspend and ask for a login. After the login, `call`
    // runs the tool again with the answer in the context.
    match ctx.answer.as_ref().and_then(|answer| answer.data.as_ref()) {
        Some(data) => ToolResult::ok(format!(
            "deployed {service} as {}",
            data["user"].as_str().unwrap_or("someone")
        )),
        None => auth_required("https://login.example.com/device?code=WXYZ-1234"),
    }
}

/// What `call` does when a tool suspends: show the prompt and url to the user, wait for them,
/// and hand back their answer. A real app would open a browser or post a chat message here.
async fn wait_for_login(request: Request) -> Answer {
    println!(
        "  ~ suspended ({}): {} -> {}",
        request.kind,
        request.prompt,
        request.url.as_deref().unwrap_or("(no url)")
    );
    println!("  ~ the user logs in as ana@example.com");
    let mut data = serde_json::Map::new();
    data.insert("user".to_owned(), json!("ana@example.com"));
    Answer {
        id: request.id,
        ok: true,
        data: Some(data),
        reason: None,
    }
}

/// Runs one tool call exactly as a model sent it: a name and raw arguments.
async fn run_call(toolkit: &Toolkit, name: &str, arguments: Value) -> ToolResult {
    let result = toolkit.call(name, arguments, wait_for_login).await;
    println!(
        "  > {name} => {}",
        serde_json::to_string(&result).expect("results serialize")
    );
    result
}

/// OpenAI sends arguments as a JSON string; an unparsable one gets the toolkit's standard
/// `invalid arguments` result, which the model reads and corrects.
async fn run_openai_call(toolkit: &Toolkit, name: &str, raw: &str) -> ToolResult {
    let arguments = if raw.trim().is_empty() {
        json!({})
    } else {
        match serde_json::from_str(raw) {
            Ok(arguments) => arguments,
            Err(_) => {
                return toolkit
                    .execute_json(name, raw, &ToolContext::default())
                    .await;
            }
        }
    };
    run_call(toolkit, name, arguments).await
}

/// The stand-in for `POST /v1/chat/completions`: canned assistant messages, one per turn.
fn openai_model(turn: usize) -> Value {
    match turn {
        0 => json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}},
            {"id": "call_2", "type": "function",
             "function": {"name": "screenshot", "arguments": ""}},
        ]}),
        1 => json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_3", "type": "function",
             "function": {"name": "deploy", "arguments": "{\"service\":\"api\"}"}},
        ]}),
        _ => json!({"role": "assistant",
                    "content": "Paris is 18°C and dry, the dashboard looks healthy, and api is deployed."}),
    }
}

/// The stand-in for `POST /v1/messages`: canned assistant messages, one per turn.
fn anthropic_model(turn: usize) -> Value {
    match turn {
        0 => json!({"role": "assistant", "stop_reason": "tool_use", "content": [
            {"type": "text", "text": "Let me check the weather and the dashboard."},
            {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Atlantis"}},
            {"type": "tool_use", "id": "toolu_2", "name": "screenshot", "input": {}},
        ]}),
        1 => json!({"role": "assistant", "stop_reason": "tool_use", "content": [
            {"type": "tool_use", "id": "toolu_3", "name": "deploy", "input": {"service": "web"}},
        ]}),
        _ => json!({"role": "assistant", "stop_reason": "end_turn", "content": [
            {"type": "text", "text": "Atlantis has no weather station; the dashboard is fine and web is deployed."},
        ]}),
    }
}

async fn openai_loop(toolkit: &Toolkit) -> Vec<Value> {
    let mut messages = vec![json!({"role": "user",
        "content": "Weather in Paris? Show me the dashboard, then deploy api."})];
    for turn in 0.. {
        let reply = openai_model(turn);
        messages.push(reply.clone());
        let Some(calls) = reply["tool_calls"].as_array() else {
            break;
        };
        let mut results = Vec::new();
        for call in calls {
            let name = call["function"]["name"].as_str().unwrap_or_default();
            let raw = call["function"]["arguments"].as_str().unwrap_or_default();
            results.push((
                call["id"].as_str().unwrap_or_default(),
                name,
                run_openai_call(toolkit, name, raw).await,
            ));
        }
        // One `tool` message per call, in order, then one `user` message with any images.
        messages.extend(openai_tool_messages(
            results
                .iter()
                .map(|(id, name, result)| (*id, *name, result)),
        ));
    }
    messages
}

async fn anthropic_loop(toolkit: &Toolkit) -> Vec<Value> {
    let mut messages = vec![json!({"role": "user",
        "content": "Weather in Atlantis? Show me the dashboard, then deploy web."})];
    for turn in 0.. {
        let reply = anthropic_model(turn);
        // The response carries more than a message; only role and content go back.
        messages.push(json!({"role": "assistant", "content": reply["content"]}));
        if reply["stop_reason"] != "tool_use" {
            break;
        }
        let mut results = Vec::new();
        for block in reply["content"].as_array().into_iter().flatten() {
            if block["type"] != "tool_use" {
                continue;
            }
            let name = block["name"].as_str().unwrap_or_default();
            let result = run_call(toolkit, name, block["input"].clone()).await;
            results.push((block["id"].as_str().unwrap_or_default(), result));
        }
        // All tool_result blocks of a turn go back in one `user` message.
        messages.push(anthropic_tool_results(
            results.iter().map(|(id, result)| (*id, result)),
        ));
    }
    messages
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let toolkit = Toolkit::new().with_all(tools![get_weather, screenshot, deploy]);

    println!("# OpenAI: tools\n\n{}\n", pretty(&toolkit.to_openai()));
    println!("# OpenAI: tool calls\n");
    let transcript = openai_loop(&toolkit).await;
    println!("\n# OpenAI: transcript\n");
    for message in &transcript {
        println!(
            "{}",
            serde_json::to_string(message).expect("JSON values serialize")
        );
    }

    println!(
        "\n# Anthropic: tools\n\n{}\n",
        pretty(&toolkit.to_anthropic())
    );
    println!("# Anthropic: tool calls\n");
    let transcript = anthropic_loop(&toolkit).await;
    println!("\n# Anthropic: transcript\n");
    for message in &transcript {
        println!(
            "{}",
            serde_json::to_string(message).expect("JSON values serialize")
        );
    }
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).expect("JSON values serialize")
}
