//! A real model runs the loop: the answer streamed to the terminal as it is written, each
//! tool call and result shown as it happens.
//!
//! Set one of these and run `cargo run --example chat --features client -- "your question"`:
//!
//! - `OPENAI_API_KEY`: OpenAI Chat Completions (`gpt-4.1-mini`);
//! - `ANTHROPIC_API_KEY`: Anthropic Messages (`claude-sonnet-4-5`);
//! - `GEMINI_API_KEY`: Gemini (`gemini-2.5-flash`);
//! - `TOOLNEXUS_BASE_URL`: any OpenAI-compatible server, e.g. Ollama at
//!   `http://127.0.0.1:11434/v1` or llama.cpp's `llama-server` at `http://127.0.0.1:8080/v1`
//!   (no key needed; `OPENAI_API_KEY` is sent if set).
//!
//! `TOOLNEXUS_MODEL` names another model of that provider. With none set, it says what to set
//! and exits with status 2.

use std::future::poll_fn;
use std::io::Write;
use std::pin::pin;
use std::process::ExitCode;

use futures_core::Stream;

use toolnexus::client::{Client, Event};
use toolnexus::{Api, Toolkit, tool, tools};

/// Current weather in a city.
#[tool]
fn get_weather(
    /// City name, e.g. "Paris"
    city: String,
) -> String {
    // A canned forecast: the point is the loop, not the weather service.
    format!("{city}: 18°C, dry, light wind from the west")
}

/// Adds two numbers.
#[tool]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

/// What to set, when nothing is.
const NOTHING_SET: &str = "\
chat talks to a real model: set one of
  OPENAI_API_KEY      OpenAI Chat Completions (gpt-4.1-mini)
  ANTHROPIC_API_KEY   Anthropic Messages (claude-sonnet-4-5)
  GEMINI_API_KEY      Gemini (gemini-2.5-flash)
  TOOLNEXUS_BASE_URL  any OpenAI-compatible server, e.g. http://127.0.0.1:11434/v1 for Ollama
and optionally TOOLNEXUS_MODEL for another model of that provider.";

/// The client the environment asks for, or `None` when it names no provider.
fn client_from_env() -> Option<Client> {
    let set = |name: &str| std::env::var(name).ok().filter(|value| !value.is_empty());
    let model = |default: &str| set("TOOLNEXUS_MODEL").unwrap_or_else(|| default.to_owned());
    let client = if let Some(base) = set("TOOLNEXUS_BASE_URL") {
        let client = Client::new(Api::OpenAiChat, model("qwen3:8b")).base_url(base);
        match set("OPENAI_API_KEY") {
            Some(key) => client.api_key(key),
            None => client,
        }
    } else if let Some(key) = set("OPENAI_API_KEY") {
        Client::new(Api::OpenAiChat, model("gpt-4.1-mini")).api_key(key)
    } else if let Some(key) = set("ANTHROPIC_API_KEY") {
        Client::new(Api::Anthropic, model("claude-sonnet-4-5")).api_key(key)
    } else if let Some(key) = set("GEMINI_API_KEY") {
        Client::new(Api::Gemini, model("gemini-2.5-flash")).api_key(key)
    } else {
        return None;
    };
    Some(client.system("You are a concise assistant. Use the tools when they help."))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let Some(client) = client_from_env() else {
        eprintln!("{NOTHING_SET}");
        return ExitCode::from(2);
    };
    let prompt = std::env::args().skip(1).collect::<Vec<_>>().join(" ");
    let prompt = match prompt.trim() {
        "" => "What's the weather in Paris, and what is 2 + 2?".to_owned(),
        asked => asked.to_owned(),
    };
    let toolkit = Toolkit::new().with_all(tools![get_weather, add]);
    let model = client.model();
    eprintln!("{} on {}: {prompt}", model.name(), model.api());

    let mut events = pin!(client.stream(prompt, &toolkit));
    let mut stdout = std::io::stdout();
    while let Some(event) = poll_fn(|cx| events.as_mut().poll_next(cx)).await {
        match event {
            Event::Text(piece) => {
                print!("{piece}");
                let _ = stdout.flush();
            }
            Event::ToolCall(call) => eprintln!("\n[{} {}]", call.name, call.arguments),
            Event::ToolResult(_, result) => eprintln!("[= {}]", result.output),
            Event::Done(result) => {
                println!();
                eprintln!(
                    "[{} turns, {} tool calls, {} tokens in, {} out]",
                    result.turns,
                    result.tool_call_count,
                    result.usage.input_tokens,
                    result.usage.output_tokens
                );
            }
            Event::Error(error) => {
                eprintln!("\n{error}");
                return ExitCode::FAILURE;
            }
            Event::Usage(_) | Event::Pending(_) => {}
        }
    }
    ExitCode::SUCCESS
}
