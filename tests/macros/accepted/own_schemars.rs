//! A parameter type deriving the user's own schemars (the same major as toolnexus'), not
//! `toolnexus::JsonSchema`: it is the same trait, so the tool compiles.
#![deny(warnings)]

use toolnexus::tool;

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Point {
    pub x: f64,
}

/// Reads a point.
#[tool]
pub fn norm(point: Point) -> f64 {
    point.x.abs()
}

#[test]
fn a_parameter_deriving_the_users_own_schemars_1_compiles() {
    let _ = NormTool;
}
