//! The toolnexus quickstart: three plain Rust functions become LLM tools, and a `Client` runs
//! the tool-calling loop with them.
//!
//! It prints the tools as OpenAI sees them, checks that every provider's schema says exactly
//! what the tools accept, then runs the loop against a scripted stand-in model (no network,
//! no API key): its first reply makes six tool calls exactly as a model sends them (a name and
//! a raw JSON arguments string, one with bad arguments, one to a tool that does not exist),
//! the loop runs them all at once and sends the results back, and the model answers.
//!
//! Run it with `cargo run --example quickstart`.

use serde::Deserialize;
use toolnexus::client::{Client, Message, Model, ModelError, ModelRequest, Reply};
use toolnexus::{
    Api, BoxFuture, ContentPart, JsonSchema, Profile, ToolCall, Toolkit, parts::ContentPartError,
    serde_json, tool, tools,
};

/// Adds two numbers.
#[tool]
fn add(
    /// The first addend
    a: f64,
    /// The second addend
    b: f64,
) -> f64 {
    a + b
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Unit {
    Celsius,
    Fahrenheit,
}

/// Why a forecast could not be made.
#[derive(Debug)]
struct UnknownCity(String);

impl std::fmt::Display for UnknownCity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "no weather station in {}; try a capital city", self.0)
    }
}

/// Current weather for a city.
///
/// Use it before suggesting clothes.
#[tool]
async fn get_weather(
    /// City name, e.g. "Paris"
    city: String,
    /// Temperature unit; Celsius when omitted
    unit: Option<Unit>,
    /// How many days to forecast
    #[param(default = 1)]
    days: u8,
) -> Result<String, UnknownCity> {
    let celsius = match city.as_str() {
        "Paris" => 18.0,
        "Oslo" => 4.0,
        _ => return Err(UnknownCity(city)),
    };
    let (value, symbol) = match unit.unwrap_or(Unit::Celsius) {
        Unit::Celsius => (celsius, "°C"),
        Unit::Fahrenheit => (celsius * 9.0 / 5.0 + 32.0, "°F"),
    };
    Ok(format!(
        "{city}: {value:.0}{symbol}, dry, for the next {days} day(s)"
    ))
}

/// Takes a screenshot of the dashboard.
#[tool]
fn screenshot() -> Result<ContentPart, ContentPartError> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/media/fixture.png");
    toolnexus::parts::attach(path)
}

/// The calls the scripted model makes, as a model sends them.
const CALLS: [(&str, &str); 6] = [
    ("add", r#"{"a": 2, "b": 40}"#),
    ("get_weather", r#"{"city": "Paris", "unit": "fahrenheit"}"#),
    ("get_weather", r#"{"city": "Atlantis"}"#),
    ("get_weather", r#"{"city": "Oslo", "days": "three"}"#),
    ("screenshot", ""),
    ("send_email", r#"{"to": "ana@example.com"}"#),
];

/// A stand-in for a real model (with the `client` feature, `Client::new(Api::OpenAiChat,
/// "gpt-5")` and an API key): it makes the calls above, then answers from their results.
struct ScriptedModel;

impl Model for ScriptedModel {
    fn api(&self) -> Api {
        Api::OpenAiChat
    }

    fn name(&self) -> &str {
        "scripted"
    }

    fn reply<'a>(&'a self, request: ModelRequest<'a>) -> BoxFuture<'a, Result<Reply, ModelError>> {
        let reply = match request.messages.last() {
            Some(Message::Tool { results }) => Reply {
                text: format!(
                    "I read {} results; 2 + 40 = {}.",
                    results.len(),
                    results[0].result.output
                ),
                ..Reply::default()
            },
            _ => Reply {
                tool_calls: (CALLS.iter().enumerate())
                    .map(|(i, (name, arguments))| ToolCall {
                        id: format!("call_{i}"),
                        name: (*name).to_owned(),
                        arguments: (*arguments).to_owned(),
                    })
                    .collect(),
                ..Reply::default()
            },
        };
        Box::pin(std::future::ready(Ok(reply)))
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let toolkit = Toolkit::new().with_all(tools![add, get_weather, screenshot]);

    println!("# Tools, as OpenAI sees them\n");
    println!("{}\n", pretty(&toolkit.to_openai()));

    println!("# What each provider's schema cannot say\n");
    for profile in Profile::ALL {
        let issues = toolkit.check(profile);
        if issues.is_empty() {
            println!("{profile}: no issues");
        }
        for issue in issues {
            println!("{profile}: {issue}");
        }
    }
    println!();

    println!("# The loop: the model's calls run at once, their results go back\n");
    let client = Client::with_model(ScriptedModel).system("You are a helpful assistant.");
    let result = client
        .run("Add 2 and 40, then the weather in Paris.", &toolkit)
        .await
        .expect("the scripted model never fails");
    // The transcript holds each call beside its result, as the model read it.
    let calls = result.messages.iter().filter_map(|message| match message {
        Message::Assistant { tool_calls, .. } => Some(tool_calls),
        _ => None,
    });
    let results = result.messages.iter().filter_map(|message| match message {
        Message::Tool { results } => Some(results),
        _ => None,
    });
    for (call, answer) in calls.flatten().zip(results.flatten()) {
        println!("{}({})", call.name, call.arguments);
        let json = serde_json::to_string(&answer.result).expect("results serialize");
        println!("  => {json}");
    }
    println!(
        "\n{:?} after {} turns and {} tool calls: {}",
        result.status, result.turns, result.tool_call_count, result.text
    );
}

fn pretty(value: &serde_json::Value) -> String {
    serde_json::to_string_pretty(value).expect("JSON values serialize")
}
