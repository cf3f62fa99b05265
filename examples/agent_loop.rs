//! One tool-calling loop, written once, for OpenAI Chat Completions, OpenAI Responses,
//! Anthropic Messages and Gemini, against a scripted stand-in model (no network, no API key).
//!
//! The model's replies are canned JSON in each API's real response shape. Everything else is
//! what you wire to a real provider: send the toolkit's definitions for that API as `tools`,
//! read the reply's calls with `tool_calls`, run them all at once with `run_calls` (a tool
//! that suspends for a login is answered with `call_with`), append `tool_results` and ask
//! again until the model stops calling tools. The script has a turn with three calls at once
//! (one fails, one returns an image) and a deploy that waits for a login.
//!
//! Run it with `cargo run --example agent_loop`.

use std::time::{Duration, Instant};

use toolnexus::serde_json::{self, Value, json};
use toolnexus::{
    Answer, Api, ContentPart, Request, ToolContext, ToolResult, Toolkit, auth_required,
    parts::ContentPartError, tool, tool_calls, tool_results, tools,
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
    // First call: no answer yet, so suspend and ask for a login. After the login, `call_with`
    // runs the tool again with the answer in the context.
    match ctx.answer.as_ref().and_then(|answer| answer.data.as_ref()) {
        Some(data) => ToolResult::ok(format!(
            "deployed {service} as {}",
            data["user"].as_str().unwrap_or("someone")
        )),
        None => auth_required("https://login.example.com/device?code=WXYZ-1234"),
    }
}

/// What `call_with` does when a tool suspends: show the prompt and url to the user, wait for
/// them, and hand back their answer. A real app would open a browser or post a message here.
async fn wait_for_login(request: Request) -> Answer {
    println!(
        "  ~ suspended ({}): {} -> {}",
        request.kind,
        request.prompt,
        request.url.as_deref().unwrap_or("(no url)")
    );
    let mut data = serde_json::Map::new();
    data.insert("user".to_owned(), json!("ana@example.com"));
    Answer {
        id: request.id,
        ok: true,
        data: Some(data),
        reason: None,
    }
}

/// The loop, the same for every API: ask, run the calls, answer them, until no calls come.
async fn agent_loop(api: Api, toolkit: &Toolkit) -> Vec<Value> {
    let ctx = ToolContext {
        timeout: Some(Duration::from_secs(30)),
        ..Default::default()
    };
    let mut conversation = vec![user_prompt(
        api,
        "Weather in Paris and Atlantis? Show me the dashboard, then deploy api.",
    )];
    for turn in 0.. {
        let reply = model(api, turn); // POST the conversation and `tools`, get the reply
        conversation.extend(assistant_turn(api, &reply));
        let calls = tool_calls(api, &reply).expect("the provider's own response shape");
        if calls.is_empty() {
            break;
        }
        let started = Instant::now();
        let mut results = toolkit.run_calls(&calls, &ctx).await;
        println!(
            "  ran {} call(s) at once in {:?}",
            calls.len(),
            started.elapsed()
        );
        for (call, result) in calls.iter().zip(&mut results) {
            if result.is_pending() {
                let args = serde_json::from_str(&call.arguments).unwrap_or_else(|_| json!({}));
                *result = toolkit
                    .call_with(&call.name, args, &ctx, wait_for_login)
                    .await;
            }
            println!("  > {} {} => {}", call.name, call.arguments, result.output);
        }
        conversation.extend(tool_results(api, &calls, &results));
    }
    conversation
}

/// The tool definitions each API takes as `tools`.
fn definitions(api: Api, toolkit: &Toolkit) -> Value {
    match api {
        Api::OpenAiChat => toolkit.to_openai(),
        Api::OpenAiResponses => toolkit.to_openai_responses(),
        Api::Anthropic => toolkit.to_anthropic(),
        Api::Gemini => toolkit.to_gemini(),
    }
}

/// The user's first message.
fn user_prompt(api: Api, text: &str) -> Value {
    match api {
        Api::Gemini => json!({"role": "user", "parts": [{"text": text}]}),
        _ => json!({"role": "user", "content": text}),
    }
}

/// The model's turn as it goes back into the conversation: a response carries more than that.
fn assistant_turn(api: Api, reply: &Value) -> Vec<Value> {
    match api {
        Api::OpenAiChat => vec![reply["choices"][0]["message"].clone()],
        // Every output item goes back, reasoning included.
        Api::OpenAiResponses => reply["output"].as_array().cloned().unwrap_or_default(),
        Api::Anthropic => vec![json!({"role": "assistant", "content": reply["content"]})],
        Api::Gemini => vec![reply["candidates"][0]["content"].clone()],
    }
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
        println!(
            "# {api}\n\ntools: {}\n",
            compact(&definitions(api, &toolkit))
        );
        let conversation = agent_loop(api, &toolkit).await;
        println!("\ntranscript:");
        for message in &conversation {
            println!("{}", compact(message));
        }
        println!();
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
