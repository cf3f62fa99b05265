//! `fill`: a tool that asks with the schema a test puts in `asked`, and once answered returns
//! the answer's data as JSON, counting the runs — what answers are checked against before
//! (SPEC §10B).
#![allow(
    dead_code,
    reason = "each test binary compiles this module on its own and uses only part of it"
)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use toolnexus::{Answer, Request, ToolContext, ToolResult, Toolkit, define_tool};

/// `fill`, the schema it asks with, and how many times it ran with an answer.
pub fn fill() -> (Toolkit, Arc<Mutex<Value>>, Arc<AtomicUsize>) {
    let asked = Arc::new(Mutex::new(json!({"type": "object", "properties": {}})));
    let runs = Arc::new(AtomicUsize::new(0));
    let (schema, counted) = (Arc::clone(&asked), Arc::clone(&runs));
    let tool = define_tool("fill", "Asks for a form", json!({"type": "object"}))
        .unwrap()
        .sync(move |_: Value, ctx: &ToolContext| match &ctx.answer {
            Some(answer) if answer.ok => {
                counted.fetch_add(1, Ordering::SeqCst);
                let data = Value::Object(answer.data.clone().unwrap_or_default());
                ToolResult::ok(data.to_string())
            }
            _ => {
                let schema = schema.lock().unwrap().clone();
                let data = json!({"schema": schema}).as_object().cloned().unwrap();
                toolnexus::pending(Request::new("input", "Fill in the form").with_data(data))
            }
        });
    (Toolkit::new().with(tool), asked, runs)
}

/// The `ok` answer to `request` with `data`.
pub fn accept(request: &Request, data: Value) -> Answer {
    Answer {
        id: request.id.clone(),
        ok: true,
        data: data.as_object().cloned(),
        reason: None,
    }
}
