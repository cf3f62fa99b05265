//! Every `#[derive(ToolOutput)]` form compiles without a single warning.
#![deny(warnings)]

use std::fmt::Debug;

use serde::Serialize;
use toolnexus::{ContentPart, IntoToolResult, ToolOutput, ToolResult};

#[derive(Serialize)]
pub struct Summary {
    pub deployed: u32,
}

#[derive(ToolOutput)]
pub enum Deploy<T: Debug, U> {
    #[output("deployed {service} to {env}")]
    Done {
        service: String,
        env: String,
    },
    #[output(error, "no such service: {0:?}")]
    Unknown(T),
    #[output(
        pending,
        kind = "approval",
        prompt = "Approve {0}?",
        url = "https://ci/{0}"
    )]
    NeedsApproval(String),
    #[output("chart for {city}")]
    Chart {
        city: String,
        #[part]
        png: ContentPart,
        #[part]
        extra: Option<Vec<ContentPart>>,
        #[metadata]
        rows: U,
    },
    #[output(json)]
    Report(Summary),
    #[output(json)]
    Pair(u8, U),
    #[output(transparent)]
    Wrapped(Option<String>),
    #[output("idle")]
    Idle,
    Raw(ToolResult),
}

#[derive(ToolOutput)]
#[output("{0}")]
pub struct Text(pub String);

#[test]
fn every_output_mode_compiles_and_lowers() {
    let result = Deploy::<u8, u8>::Idle.into_tool_result();
    assert_eq!(result.output, "idle");
    assert_eq!(Text("t".into()).into_tool_result().output, "t");
}
