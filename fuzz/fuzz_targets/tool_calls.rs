//! Arbitrary bytes as a response body of each API: `tool_calls` gives calls or an error that
//! names the API, never a panic, and whatever it reads `tool_results` can answer.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolnexus::serde_json::{self, Value};
use toolnexus::{Api, ToolResult, tool_calls, tool_results};

fuzz_target!(|data: &[u8]| {
    let Ok(body) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    for api in Api::ALL {
        match tool_calls(api, &body) {
            Ok(calls) => {
                let results: Vec<ToolResult> = calls
                    .iter()
                    .map(|c| ToolResult::ok(c.arguments.clone()))
                    .collect();
                let _ = tool_results(api, &calls, &results);
            }
            Err(error) => assert!(
                error.to_string().starts_with(&format!("{api} response: ")),
                "{error}"
            ),
        }
    }
});
