//! Fixtures shared by the runtime crate's tests: the cross-port golden vectors and the PNG they
//! describe (both in `tests/conformance/`), the `add` tool they describe, a runtime to block on,
//! and (in `profile_checks`) the providers' schema rules. Each test binary (`tests/<area>/main.rs`)
//! declares this module once; its other modules reach it as `crate::common`.
#![allow(
    dead_code,
    reason = "each test binary compiles this module on its own and uses only part of it"
)]

pub mod asking;
#[cfg(feature = "mcp")]
pub mod mcp_client;
#[cfg(feature = "mcp-http")]
pub mod mcp_raw;
#[cfg(feature = "mcp")]
pub mod mcp_tools;
pub mod profile_checks;
#[cfg(feature = "mcp")]
pub mod tasks;

use std::path::PathBuf;

use serde_json::{Value, json};
use toolnexus::{FnTool, ToolContext, ToolResult, define_tool};

const GOLDEN: &str = include_str!("../conformance/golden.json");

/// The cross-port vectors (`tests/conformance/golden.json`).
pub fn golden() -> Value {
    serde_json::from_str(GOLDEN).expect("golden.json parses")
}

/// `tests/conformance/fixture.png`: the 82-byte PNG that `golden()["attach_png"]` describes (the
/// same bytes as the root package's `examples/media/fixture.png`, kept here so this package's
/// tests read only its own files).
pub fn fixture_png() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/fixture.png")
}

/// Adds two numbers: the tool whose definitions `golden()["adapters"]` holds.
pub fn add_tool() -> FnTool {
    define_tool(
        "add",
        "Add two numbers",
        json!({
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"],
        }),
    )
    .unwrap()
    .sync(
        |args: Value, _: &ToolContext| match (args["a"].as_f64(), args["b"].as_f64()) {
            (Some(a), Some(b)) => ToolResult::ok((a + b).to_string()),
            _ => ToolResult::error("invalid arguments for `add`: a and b must be numbers"),
        },
    )
}

/// Runs `future` to completion on a fresh current-thread runtime.
pub fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(future)
}
