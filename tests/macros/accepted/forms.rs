//! Every supported `#[tool]` form compiles without a warning.
#![deny(warnings)]
#![allow(
    clippy::result_large_err,
    clippy::default_constructed_unit_structs,
    reason = "a `Request` as the error, and the generated `Default`, are forms under test"
)]

use std::sync::Arc;

use serde::Deserialize;
use toolnexus::schemars::JsonSchema;
use toolnexus::{Json, Request, Tool, ToolContext, ToolResult, tool, toolbox, tools};

#[derive(Deserialize, JsonSchema)]
#[schemars(crate = "toolnexus::schemars")]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    Celsius,
    Fahrenheit,
}

/// Adds two numbers.
#[tool]
pub fn add(a: f64, b: f64) -> f64 {
    a + b
}

/// Current weather for a city.
///
/// # Arguments
///
/// * `city` - City name
#[tool(name = "weather", description = "Weather for a city")]
pub(crate) async fn get_weather(
    city: String,
    /// Temperature unit
    unit: Option<Unit>,
    #[param(default = 3)] days: u8,
    #[param(default)] verbose: bool,
    #[param(default = "metric")] system: String,
    ctx: &ToolContext,
) -> Result<String, std::io::Error> {
    let _ = (unit, verbose, system, ctx.cancel.is_cancelled());
    Ok(format!("{city}: {days} days"))
}

/// Renamed, described, forwarded and keyword parameters; the context by value, first.
#[tool]
fn search(
    ctx: ToolContext,
    #[param(rename = "q", description = "The query")] query: String,
    #[serde(alias = "kind")] r#type: Option<String>,
    #[schemars(range(min = 1, max = 50))] limit: u32,
) -> Json<Vec<String>> {
    let _ = (ctx.answer, r#type, limit);
    Json(vec![query])
}

/// Suspends until approved.
#[tool]
fn deploy(ctx: &ToolContext) -> Result<ToolResult, Request> {
    match &ctx.answer {
        Some(answer) if answer.ok => Ok(ToolResult::ok("deployed")),
        _ => Err(Request::new("approval", "Deploy?")),
    }
}

/// Returns nothing.
#[tool]
fn noop() {}

pub struct Calendar {
    owner: String,
}

#[toolbox]
impl Calendar {
    /// Books a slot.
    #[tool]
    async fn book(&self, slot: String, ctx: &ToolContext) -> String {
        let _ = ctx;
        format!("{} booked {slot}", self.owner)
    }

    /// Lists the owner.
    #[tool(name = "calendar_owner")]
    pub fn owner(&self) -> &str {
        &self.owner
    }

    fn helper(&self) -> usize {
        self.owner.len()
    }
}

#[test]
fn every_form_compiles_and_registers() {
    let mut all: Vec<Arc<dyn Tool>> = tools![add, get_weather, search, deploy, noop];
    let calendar = Arc::new(Calendar {
        owner: "ana".into(),
    });
    let _ = calendar.helper();
    all.extend(calendar.tools());
    assert_eq!(all.len(), 7);
    assert_eq!(AddTool::NAME, "add");
    assert_eq!(GetWeatherTool::NAME, "weather");
    assert_eq!(GetWeatherTool::DESCRIPTION, "Weather for a city");
    let _ = (GetWeatherTool, SearchTool::default(), DeployTool, NoopTool);
}
