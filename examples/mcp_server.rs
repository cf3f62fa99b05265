//! The quickstart's tools as an MCP server on stdin/stdout, through rmcp (the official Rust
//! MCP SDK).
//!
//! Run it with `cargo run --example mcp_server --features mcp`, or point an MCP client at
//! that command (see the README). Anything for humans goes to stderr: stdout is the protocol.

use toolnexus::{ContentPart, ContentPartError, Toolkit, tool, tools};

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

/// Current weather for a city.
#[tool]
async fn get_weather(
    /// City name, e.g. "Paris"
    city: String,
) -> Result<String, String> {
    match city.as_str() {
        "Paris" => Ok("Paris: 18°C, dry".to_owned()),
        "Oslo" => Ok("Oslo: 4°C, dry".to_owned()),
        _ => Err(format!("no weather station in {city}; try a capital city")),
    }
}

/// Takes a screenshot of the dashboard.
#[tool]
fn screenshot() -> Result<ContentPart, ContentPartError> {
    toolnexus::attach(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/media/fixture.png"
    ))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let toolkit = Toolkit::new().with_all(tools![add, get_weather, screenshot]);
    eprintln!("toolnexus MCP server: {} tools on stdio", toolkit.len());
    toolnexus::mcp::serve_stdio(toolkit).await
}
