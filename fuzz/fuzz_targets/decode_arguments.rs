//! Raw model argument strings through a toolkit of `#[tool]` fns: every outcome is a success
//! or an `invalid arguments for …` error, never a panic.
#![no_main]

use std::sync::OnceLock;
use std::task::{Context, Poll, Waker};

use libfuzzer_sys::fuzz_target;
use toolnexus::{ToolContext, Toolkit, serde_json::Value, tool, tools};

/// Adds two numbers.
#[tool]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

/// Greets someone.
#[tool]
fn greet(name: Option<String>, #[param(default = 1)] times: u8, tags: Vec<String>) -> String {
    format!("{}{times}{}", name.unwrap_or_default(), tags.len())
}

/// Stores any JSON value.
#[tool]
fn store(value: Value) -> usize {
    value.to_string().len()
}

fn toolkit() -> &'static Toolkit {
    static TOOLKIT: OnceLock<Toolkit> = OnceLock::new();
    TOOLKIT.get_or_init(|| Toolkit::new().with_all(tools![add, greet, store]))
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let ctx = ToolContext::default();
    for name in ["add", "greet", "store"] {
        let mut future = std::pin::pin!(toolkit().execute_json(name, text, &ctx));
        // The tools are synchronous, so one poll finishes them.
        let Poll::Ready(result) = future.as_mut().poll(&mut Context::from_waker(Waker::noop()))
        else {
            panic!("a synchronous tool did not finish in one poll");
        };
        assert!(
            !result.is_error || result.output.starts_with(&format!("invalid arguments for `{name}`: ")),
            "{}",
            result.output
        );
    }
});
