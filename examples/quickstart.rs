//! The toolnexus quickstart: three plain Rust functions become LLM tools.
//!
//! It prints the tools as OpenAI sees them, checks that every provider's schema says exactly
//! what the tools accept, then runs a scripted list of tool calls exactly as a model sends
//! them (a name and a raw JSON arguments string) and prints each result.
//!
//! Run it with `cargo run --example quickstart`.

use serde::Deserialize;
use toolnexus::{
    ContentPart, JsonSchema, Profile, ToolContext, Toolkit, parts::ContentPartError, serde_json,
    tool, tools,
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

    println!("# Tool calls, as a model sends them\n");
    let calls = [
        ("add", r#"{"a": 2, "b": 40}"#),
        ("get_weather", r#"{"city": "Paris", "unit": "fahrenheit"}"#),
        ("get_weather", r#"{"city": "Atlantis"}"#),
        ("get_weather", r#"{"city": "Oslo", "days": "three"}"#),
        ("screenshot", ""),
        ("send_email", r#"{"to": "ana@example.com"}"#),
    ];
    let ctx = ToolContext::default();
    for (name, arguments) in calls {
        let result = toolkit.execute_json(name, arguments, &ctx).await;
        println!("{name}({arguments})");
        println!(
            "  => {}",
            serde_json::to_string(&result).expect("results serialize")
        );
    }
}

fn pretty(value: &serde_json::Value) -> String {
    serde_json::to_string_pretty(value).expect("JSON values serialize")
}
