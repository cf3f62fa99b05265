//! The tool-calling loop of `toolnexus::client` on OpenAI Chat Completions, OpenAI Responses,
//! Anthropic Messages and Gemini, against a scripted stand-in model (no network, no API key).
//!
//! The model's replies are canned JSON in each API's real response shape, read into a
//! `Reply` by a small `Model` of our own (`examples/shared/canned.rs`, which `mcp_agent` runs
//! on too); `Client` does the rest: sends the toolkit's definitions for that API, runs each
//! turn's calls at once, sends the results back and asks again until the model stops calling
//! tools. The script has a turn with three calls at once (one fails, one returns an image)
//! and a deploy that waits for a login: the run parks on it, is stored as JSON, and a fresh
//! client resumes it with the user's answer.
//!
//! Run it with `cargo run --example agent_loop`.

#[path = "shared/canned.rs"]
mod canned;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use toolnexus::client::{Client, RunResult, Status};
use toolnexus::serde_json::{self, Value, json};
use toolnexus::{
    Answer, Api, ContentPart, ToolContext, ToolResult, Toolkit, auth_required,
    parts::ContentPartError, tool, tools,
};

/// Current temperature in a city, in °C.
#[tool]
async fn get_weather(
    /// City name, e.g. "Paris"
    city: String,
) -> Result<String, String> {
    tokio::time::sleep(Duration::from_millis(100)).await; // a slow weather service
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
    toolnexus::parts::attach(path)
}

/// Deploys a service to production. The user must log in first.
#[tool]
fn deploy(
    /// The service to deploy
    service: String,
    ctx: &ToolContext,
) -> ToolResult {
    // First call: no answer yet, so suspend and ask for a login; the run parks. `resume`
    // runs the tool again with the answer in the context.
    match ctx.answer.as_ref().and_then(|answer| answer.data.as_ref()) {
        Some(data) => ToolResult::ok(format!(
            "deployed {service} as {}",
            data["user"].as_str().unwrap_or("someone")
        )),
        None => auth_required("https://login.example.com/device?code=WXYZ-1234"),
    }
}

/// When the current turn's calls started, and how many are still running.
type TurnClock = Arc<Mutex<(Instant, usize)>>;

/// A client for `api` that prints each turn's calls and results as they finish.
fn client(api: Api, clock: &TurnClock) -> Client {
    let (started, finished) = (clock.clone(), clock.clone());
    Client::with_model(canned::Canned::new(api, move |turn| model(api, turn)))
        .tool_context(ToolContext {
            timeout: Some(Duration::from_secs(30)),
            ..Default::default()
        })
        .after_model(move |reply| {
            *started.lock().unwrap() = (Instant::now(), reply.tool_calls.len());
            std::future::ready(())
        })
        .after_tool(move |call, result| {
            println!("  > {} {} => {}", call.name, call.arguments, result.output);
            let mut clock = finished.lock().unwrap();
            clock.1 = clock.1.saturating_sub(1);
            if clock.1 == 0 {
                println!(
                    "  turn done: its calls ran at once, in {:?}",
                    clock.0.elapsed()
                );
            }
            std::future::ready(result)
        })
}

/// One run on `api`. The login `deploy` waits for parks the run; the parked run is stored as
/// JSON, and once the user has signed in a fresh client resumes it with their answer.
async fn agent_loop(api: Api, toolkit: &Toolkit) -> RunResult {
    let clock = TurnClock::new(Mutex::new((Instant::now(), 0)));
    let prompt = "Weather in Paris and Atlantis? Show me the dashboard, then deploy api.";
    let parked = client(api, &clock)
        .run(prompt, toolkit)
        .await
        .expect("the canned model never fails");
    assert_eq!(parked.status, Status::Pending);
    let request = parked.pending.clone().expect("parked on the login");
    println!(
        "  ~ suspended ({}): {} -> {}",
        request.kind,
        request.prompt,
        request.url.as_deref().unwrap_or("(no url)")
    );
    // Plain data: a file, a database row, a queue message; resumed here or in another process.
    let stored = serde_json::to_string(&parked).expect("a RunResult serializes");

    let mut signed_in = serde_json::Map::new();
    signed_in.insert("user".to_owned(), json!("ana@example.com"));
    let answer = Answer::approve(&request).with_data(signed_in);
    let parked: RunResult = serde_json::from_str(&stored).expect("read back");
    let resumed = client(api, &clock).resume(parked, answer, toolkit).await;
    resumed.expect("the answer is to the pending request")
}

/// The stand-in for the provider: the script's turn `turn`, in `api`'s response shape.
fn model(api: Api, turn: usize) -> Value {
    let (calls, text): (&[(&str, Value)], &str) = match turn {
        0 => (
            &[
                ("get_weather", json!({"city": "Paris"})),
                ("get_weather", json!({"city": "Atlantis"})),
                ("screenshot", json!({})),
            ],
            "Let me check the weather and the dashboard.",
        ),
        1 => (&[("deploy", json!({"service": "api"}))], "Deploying."),
        _ => (
            &[],
            "Paris is 18°C, Atlantis has no station, the dashboard is fine, api is deployed.",
        ),
    };
    let id = |i: usize| format!("call_{turn}{i}");
    match api {
        Api::OpenAiChat => {
            let tool_calls: Vec<Value> = calls.iter().enumerate().map(|(i, (name, args))| json!(
                {"id": id(i), "type": "function", "function": {"name": name, "arguments": args.to_string()}}
            )).collect();
            let message = if calls.is_empty() {
                json!({"role": "assistant", "content": text})
            } else {
                json!({"role": "assistant", "content": null, "tool_calls": tool_calls})
            };
            json!({"id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-5",
                   "choices": [{"index": 0, "message": message,
                                "finish_reason": if calls.is_empty() { "stop" } else { "tool_calls" }}]})
        }
        Api::OpenAiResponses => {
            let mut output =
                vec![json!({"type": "reasoning", "id": format!("rs_{turn}"), "summary": []})];
            output.extend(calls.iter().enumerate().map(|(i, (name, args))| {
                json!(
                    {"type": "function_call", "id": format!("fc_{turn}{i}"), "call_id": id(i),
                     "name": name, "arguments": args.to_string(), "status": "completed"}
                )
            }));
            if calls.is_empty() {
                output.push(json!({"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                                   "content": [{"type": "output_text", "text": text, "annotations": []}]}));
            }
            json!({"id": "resp_1", "object": "response", "status": "completed", "model": "gpt-5", "output": output})
        }
        Api::Anthropic => {
            let mut content = vec![json!({"type": "text", "text": text})];
            content.extend(calls.iter().enumerate().map(|(i, (name, args))| json!(
                {"type": "tool_use", "id": format!("toolu_{turn}{i}"), "name": name, "input": args}
            )));
            json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                   "content": content, "stop_reason": if calls.is_empty() { "end_turn" } else { "tool_use" }})
        }
        // Gemini often sends no call ids; `tool_calls` gives them `call_<index>`.
        Api::Gemini => {
            let mut parts = vec![json!({"text": text})];
            parts.extend(
                calls
                    .iter()
                    .map(|(name, args)| json!({"functionCall": {"name": name, "args": args}})),
            );
            json!({"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}]})
        }
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let toolkit = Toolkit::new().with_all(tools![get_weather, screenshot, deploy]);
    for api in Api::ALL {
        println!("# {api}\n");
        let result = agent_loop(api, &toolkit).await;
        println!(
            "\n{:?} after {} turns and {} tool calls; the transcript:",
            result.status, result.turns, result.tool_call_count
        );
        for message in &result.messages {
            println!(
                "{}",
                compact(&serde_json::to_value(message).expect("messages serialize"))
            );
        }
        println!("{}\n", result.text);
    }
}

/// A message on one line, base64 images shortened so the transcript stays readable.
fn compact(value: &Value) -> String {
    let mut text = serde_json::to_string(value).expect("JSON values serialize");
    let mut from = 0;
    while let Some(at) = text[from..].find("iVBOR").map(|at| from + at) {
        let end = text[at..].find('"').map_or(text.len(), |len| at + len);
        text.replace_range(at + 5..end, "…");
        from = at + 5;
    }
    text
}
