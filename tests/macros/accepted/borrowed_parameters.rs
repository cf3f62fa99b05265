//! Signatures people already have: borrowed parameters and lifetimes work as written.
#![deny(warnings)]
#![allow(
    clippy::multiple_bound_locations,
    clippy::needless_lifetimes,
    reason = "lifetimes and bounds spelled out, as people already have them"
)]

use std::borrow::Cow;
use std::sync::Arc;

use serde::Deserialize;
use toolnexus::{JsonSchema, ToolContext, tool, toolbox, tools};

#[derive(Deserialize, JsonSchema)]
pub struct Point {
    x: f64,
    y: f64,
}

/// Shouts a text.
#[tool]
fn shout(text: &str, suffix: Option<&str>) -> String {
    format!("{}{}", text.to_uppercase(), suffix.unwrap_or("!"))
}

/// Shouts with an explicit lifetime, returning a borrow of its argument.
#[tool]
fn first_word<'a>(text: &'a str) -> &'a str {
    text.split(' ').next().unwrap_or_default()
}

/// Sums a slice.
#[tool]
async fn sum(values: &[f64], ctx: &ToolContext) -> f64 {
    let _ = ctx;
    values.iter().sum()
}

/// Measures a point.
#[tool]
fn norm(point: &Point, origin: Option<&Point>) -> f64 {
    let (ox, oy) = origin.map_or((0.0, 0.0), |o| (o.x, o.y));
    ((point.x - ox).powi(2) + (point.y - oy).powi(2)).sqrt()
}

/// Echoes a copy-on-write text.
#[tool]
fn echo(text: Cow<'_, str>, other: std::borrow::Cow<'static, str>) -> String {
    format!("{text}{other}")
}

/// Points in a list.
#[tool]
fn count<'a, 'b: 'a>(points: &'a [Point], label: &'b str) -> String
where
    'b: 'a,
{
    format!("{label}: {}", points.len())
}

pub struct Notes {
    prefix: String,
}

#[toolbox]
impl Notes {
    /// Adds a note.
    #[tool]
    async fn add_note(&self, text: &str, tags: Option<&[String]>) -> String {
        format!("{}{text} {:?}", self.prefix, tags.unwrap_or_default())
    }
}

#[test]
fn borrowed_parameters_compile_and_register() {
    let all = tools![shout, first_word, sum, norm, echo, count];
    assert_eq!(all.len(), 6);
    let notes = Arc::new(Notes {
        prefix: "- ".into(),
    });
    assert_eq!(notes.tools()[0].name(), "add_note");
}
