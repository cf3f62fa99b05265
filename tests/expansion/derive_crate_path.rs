//! Both derives reach a renamed toolnexus through `#[toolnexus(crate = "…")]`:
//! `::toolnexus` is this crate here, so a path that ignored the attribute would not compile.
#![deny(warnings)]

use tnx::IntoToolResult;

/// A point.
#[derive(serde::Deserialize, tnx::JsonSchema)]
#[toolnexus(crate = "tnx")]
pub struct Point {
    pub x: f64,
}

/// A generic one, with schemars' own attributes beside ours.
#[derive(tnx::JsonSchema)]
#[toolnexus(crate = "::tnx")]
#[serde(rename_all = "camelCase")]
pub enum Shape<T> {
    Dot(T),
    LineOf { from_x: T, to_x: T },
}

#[derive(tnx::ToolOutput)]
#[toolnexus(crate = "tnx")]
pub enum Moved {
    #[output("moved to {0}")]
    To(f64),
    #[output(error, "cannot move {name}")]
    Stuck {
        name: String,
        #[part]
        picture: Option<tnx::ContentPart>,
        #[metadata]
        tries: u32,
    },
}

#[derive(tnx::ToolOutput)]
#[toolnexus(crate = "tnx")]
#[output(json)]
pub struct Report<T: serde::Serialize>(T);

#[test]
fn the_derives_reach_toolnexus_through_the_given_crate_path() {
    let _ = tnx::schemars::schema_for!(Point);
    let _ = tnx::schemars::schema_for!(Shape<u8>);
    let _ = Moved::To(1.0).into_tool_result();
    let _ = Report(3).into_tool_result();
}
