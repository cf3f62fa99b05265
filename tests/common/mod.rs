//! Fixtures shared by the tests package's binaries: where the repository lives, the PNG fixture the
//! examples use, a runtime to block on, the two entry points of a tool, and a unit enum
//! parameter type.
#![allow(
    dead_code,
    reason = "each test binary compiles this module on its own and uses only part of it"
)]

use std::path::PathBuf;

use serde::Deserialize;
use serde_json::Value;
use toolnexus::{JsonSchema, Tool, ToolContext, ToolResult};

/// The repository's root, which holds `examples/` and this package, `tests/`.
pub fn root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// `examples/media/fixture.png`: 82 bytes, the PNG whose `attach_png` golden vector the runtime
/// crate's conformance tests check.
pub fn fixture_png() -> PathBuf {
    root().join("examples/media/fixture.png")
}

/// The fixture's bytes in base64, from the `.base64` file committed beside it.
pub fn fixture_png_base64() -> String {
    std::fs::read_to_string(root().join("examples/media/fixture.png.base64"))
        .unwrap()
        .trim()
        .to_owned()
}

/// Runs `future` to completion on a fresh current-thread runtime.
pub fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a current-thread runtime")
        .block_on(future)
}

/// `Tool::execute` with a default context.
pub fn from_value(tool: &dyn Tool, args: Value) -> ToolResult {
    block_on(tool.execute(args, &ToolContext::default()))
}

/// `Tool::execute_json` with a default context.
pub fn from_text(tool: &dyn Tool, args: &str) -> ToolResult {
    block_on(tool.execute_json(args, &ToolContext::default()))
}

/// Both entry points, asserted identical; the shared result.
pub fn both(tool: &dyn Tool, args: Value) -> ToolResult {
    let text = args.to_string();
    let value = from_value(tool, args);
    assert_eq!(from_text(tool, &text), value, "{text}");
    value
}

// A unit-only enum, the commonest enum parameter. A plain comment: a doc comment would become
// the schema's `description` and change the snapshots.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    Celsius,
    Fahrenheit,
}
