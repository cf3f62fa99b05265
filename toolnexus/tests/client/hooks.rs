//! The hooks (SPEC §16): before_model changes what is sent (not the transcript),
//! after_model sees each reply, before_tool runs, rewrites or skips a call, after_tool
//! changes what the model reads.

use std::sync::{Arc, Mutex};

use serde_json::json;
use toolnexus::client::{Client, Message, Status, ToolDecision};
use toolnexus::{ToolResult, Toolkit};

use crate::scripted::*;

#[tokio::test]
async fn before_model_changes_the_request_and_not_the_transcript() {
    let model = Scripted::new([answering("ok")]);
    let client =
        Client::with_model(model.clone()).before_model(|mut messages, _tools| async move {
            messages.insert(0, Message::system("summary of earlier turns"));
            (messages, json!([]))
        });
    let (_, add) = counting("add");
    let result = client.run("go", &Toolkit::new().with(add)).await.unwrap();
    let seen = model.seen.lock().unwrap();
    assert_eq!(seen[0].0[0], Message::system("summary of earlier turns"));
    assert_eq!(seen[0].1, json!([]));
    assert_eq!(result.messages[0], Message::user("go"));
}

#[tokio::test]
async fn after_model_sees_every_reply() {
    let texts = Arc::new(Mutex::new(Vec::new()));
    let seen = texts.clone();
    let (_, add) = counting("add");
    let model = Scripted::new([
        calling(vec![call("c1", "add", json!({}))]),
        answering("four"),
    ]);
    let client = Client::with_model(model).after_model(move |reply| {
        let seen = seen.clone();
        async move {
            seen.lock()
                .unwrap()
                .push((reply.text, reply.tool_calls.len()))
        }
    });
    client.run("go", &Toolkit::new().with(add)).await.unwrap();
    assert_eq!(
        *texts.lock().unwrap(),
        [(String::new(), 1), ("four".to_owned(), 0)]
    );
}

#[tokio::test]
async fn before_tool_runs_rewrites_or_skips_each_call() {
    let (adds, add) = counting("add");
    let (deletes, delete) = counting("delete");
    let toolkit = Toolkit::new().with(add).with(delete);
    let model = Scripted::new([
        calling(vec![
            call("c1", "add", json!({"a": 1})),
            call("c2", "delete", json!({"path": "/"})),
            call("c3", "add", json!({"a": 5})),
        ]),
        answering("done"),
    ]);
    let client = Client::with_model(model.clone()).before_tool(|call| async move {
        match (call.name.as_str(), call.arguments.as_str()) {
            ("delete", _) => ToolDecision::Skip(ToolResult::error("deleting is not allowed")),
            ("add", r#"{"a":5}"#) => ToolDecision::Rewrite(json!({"a": 6})),
            _ => ToolDecision::Run,
        }
    });
    let result = client.run("go", &toolkit).await.unwrap();
    assert_eq!(result.status, Status::Done);
    assert_eq!(
        (
            crate::scripted::runs(&adds),
            crate::scripted::runs(&deletes)
        ),
        (2, 0)
    );
    let outputs: Vec<_> = result
        .tool_calls
        .iter()
        .map(|r| r.output.as_str())
        .collect();
    assert_eq!(
        outputs,
        [
            r#"add({"a":1})"#,
            "deleting is not allowed",
            r#"add({"a":6})"#
        ]
    );
    // The model reads the skip's result in its call's place.
    let seen = model.seen.lock().unwrap();
    let Message::Tool { results } = &seen[1].0[2] else {
        panic!()
    };
    assert_eq!(results[1].result.output, "deleting is not allowed");
}

#[tokio::test]
async fn after_tool_changes_what_the_model_reads() {
    let (_, add) = counting("add");
    let model = Scripted::new([calling(vec![call("c1", "add", json!({}))]), answering("ok")]);
    let client = Client::with_model(model.clone()).after_tool(|call, result| async move {
        ToolResult::ok(format!("{} said {}", call.name, result.output))
    });
    let result = client.run("go", &Toolkit::new().with(add)).await.unwrap();
    assert_eq!(result.tool_calls[0].output, "add said add({})");
    let seen = model.seen.lock().unwrap();
    let Message::Tool { results } = &seen[1].0[2] else {
        panic!()
    };
    assert_eq!(results[0].result.output, "add said add({})");
}
