//! Answers that are not elicitation results (SPEC §10B, issue 51 item 3): generated shapes —
//! not an object, `action` missing, not a string or unknown, `content` not an object or
//! holding what no form sends, `_meta` not an object — each refused with `-32602` on the task
//! path (`tasks/update`) and on the MRTR path (a `tools/call` retry), and the tool never runs;
//! a valid answer afterwards still runs it, once.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::collection::{btree_map, vec};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use rmcp::model::{CallToolResponse, ErrorCode, InputRequiredResult, UpdateTaskParams};
use rmcp::service::ServiceError;
use serde_json::{Map, Value, json};
use toolnexus::mcp::McpServer;
use toolnexus::{State, Toolkit, tool, tools};

use super::mcp_tasks::connect;
use crate::common::tasks::{Client, call, get, input_key, started, until};

/// How many times a tool ran.
struct Runs(Arc<AtomicUsize>);

/// Publishes a report, as a task, once approved.
#[tool(task = "required", approval = "Publish report {name}?")]
async fn publish(name: String, runs: State<Runs>) -> String {
    runs.0.0.fetch_add(1, Ordering::SeqCst);
    format!("published {name}")
}

/// Deletes a note, once approved.
#[tool(approval = "Delete note {id}?")]
fn delete(id: u32, runs: State<Runs>) -> String {
    runs.0.0.fetch_add(1, Ordering::SeqCst);
    format!("deleted note {id}")
}

fn toolkit(runs: &Arc<AtomicUsize>) -> Toolkit {
    Toolkit::new()
        .with_state(Runs(Arc::clone(runs)))
        .with_all(tools![publish, delete])
}

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        "[a-z ]{0,8}".prop_map(Value::from),
    ]
}

/// Any JSON but an object.
fn not_an_object() -> impl Strategy<Value = Value> {
    prop_oneof![scalar(), vec(scalar(), 0..3).prop_map(Value::Array)]
}

/// Any JSON but a string.
fn not_a_string() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        vec(scalar(), 0..3).prop_map(Value::Array),
        btree_map("[a-z]{1,4}", scalar(), 0..3)
            .prop_map(|map| Value::Object(map.into_iter().collect())),
    ]
}

/// A value no form sends in `content`: null, an object, an array holding a non-string.
fn unsendable() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        btree_map("[a-z]{1,4}", scalar(), 0..3)
            .prop_map(|map| Value::Object(map.into_iter().collect())),
        (vec("[a-z]{0,4}", 0..3), not_a_string()).prop_map(|(strings, odd)| {
            let mut items: Vec<Value> = strings.into_iter().map(Value::from).collect();
            items.push(odd);
            Value::Array(items)
        }),
    ]
}

fn action() -> impl Strategy<Value = &'static str> {
    prop_oneof![Just("accept"), Just("decline"), Just("cancel")]
}

/// An answer that is not an elicitation result, of every kind the schema refuses.
fn malformed() -> impl Strategy<Value = Value> {
    let known = ["accept", "decline", "cancel"];
    prop_oneof![
        not_an_object(),
        Just(json!({})),
        Just(json!({"content": {}})),
        not_a_string().prop_map(|action| json!({"action": action, "content": {}})),
        "[a-zA-Z]{1,8}"
            .prop_filter("an action MCP knows", move |action| {
                !known.contains(&action.as_str())
            })
            .prop_map(|action| json!({"action": action})),
        (action(), not_an_object())
            .prop_map(|(action, content)| json!({"action": action, "content": content})),
        (action(), "[a-z]{1,6}", unsendable()).prop_map(|(action, key, value)| {
            let mut content = Map::new();
            content.insert(key, value);
            json!({"action": action, "content": content})
        }),
        (action(), not_an_object())
            .prop_map(|(action, meta)| json!({"action": action, "_meta": meta})),
    ]
}

/// The answer of issue 51: content that is not an object, taken for an approval.
fn not_an_object_approval() -> Value {
    json!({"action": "accept", "content": "yes"})
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

fn cases() -> Config {
    Config {
        cases: 96,
        failure_persistence: None,
        ..Config::default()
    }
}

/// Asserts `outcome` is a `-32602` error.
fn assert_refused<T: std::fmt::Debug>(answer: &Value, outcome: Result<T, ServiceError>) {
    match outcome {
        Err(ServiceError::McpError(error)) => {
            assert_eq!(error.code, ErrorCode::INVALID_PARAMS, "{answer}: {error:?}");
        }
        other => panic!("{answer} was not refused: {other:?}"),
    }
}

/// `tasks/update` of task `id` with `answer` to request `key`.
async fn update(client: &Client, id: &str, key: &str, answer: Value) -> Result<(), ServiceError> {
    let responses = [(key.to_owned(), answer)].into();
    client
        .update_task(UpdateTaskParams::new(id, responses))
        .await
}

/// The retry of `delete` (note 4) with `state` and `answer` to request `key`.
async fn retry(
    client: &Client,
    key: &str,
    state: &str,
    answer: Value,
) -> Result<CallToolResponse, ServiceError> {
    let params = call("delete", json!({"id": 4}))
        .with_input_responses([(key.to_owned(), answer)].into())
        .with_request_state(state.to_owned());
    client.call_tool_once(params).await
}

#[test]
fn on_the_task_path_a_malformed_answer_is_invalid_params_and_runs_nothing() {
    let runtime = runtime();
    let runs = Arc::new(AtomicUsize::new(0));
    let (client, id, key) = runtime.block_on(async {
        let (client, _) = connect(McpServer::new(toolkit(&runs)), true).await;
        let id = started(&client, "publish", json!({"name": "q1"}))
            .await
            .task
            .task_id;
        let key = input_key(&until(&client, &id, "input_required").await);
        (client, id, key)
    });
    let refused = runtime.block_on(update(&client, &id, &key, not_an_object_approval()));
    assert_refused(&not_an_object_approval(), refused);
    TestRunner::new(cases())
        .run(&malformed(), |answer| {
            let refused = runtime.block_on(update(&client, &id, &key, answer.clone()));
            assert_refused(&answer, refused);
            Ok(())
        })
        .unwrap();
    runtime.block_on(async {
        assert_eq!(get(&client, &id).await["status"], "input_required");
        assert_eq!(
            runs.load(Ordering::SeqCst),
            0,
            "a malformed answer ran the tool"
        );
        let approved = json!({"action": "accept", "content": {}});
        update(&client, &id, &key, approved).await.unwrap();
        let done = until(&client, &id, "completed").await;
        assert_eq!(done["result"]["content"][0]["text"], "published q1");
        assert_eq!(runs.load(Ordering::SeqCst), 1);
    });
}

#[test]
fn on_the_mrtr_path_a_malformed_answer_is_invalid_params_and_runs_nothing() {
    let runtime = runtime();
    let runs = Arc::new(AtomicUsize::new(0));
    let (client, question) = runtime.block_on(async {
        let (client, _) = connect(McpServer::new(toolkit(&runs)), false).await;
        let asked = client.call_tool_once(call("delete", json!({"id": 4})));
        let question: InputRequiredResult = match asked.await.unwrap() {
            CallToolResponse::InputRequired(question) => question,
            other => panic!("expected input_required, got {other:?}"),
        };
        (client, question)
    });
    let key = question.input_requests.as_ref().unwrap().keys().next();
    let key = key.unwrap().clone();
    let state = question.request_state.clone().unwrap();
    let refused = runtime.block_on(retry(&client, &key, &state, not_an_object_approval()));
    assert_refused(&not_an_object_approval(), refused);
    TestRunner::new(cases())
        .run(&malformed(), |answer| {
            let refused = runtime.block_on(retry(&client, &key, &state, answer.clone()));
            assert_refused(&answer, refused);
            Ok(())
        })
        .unwrap();
    assert_eq!(
        runs.load(Ordering::SeqCst),
        0,
        "a malformed answer ran the tool"
    );
    // A refused answer does not use the state up: the right one still completes the call.
    let approved = json!({"action": "accept", "content": {}});
    match runtime
        .block_on(retry(&client, &key, &state, approved))
        .unwrap()
    {
        CallToolResponse::Complete(done) => {
            assert_eq!(done.content[0].as_text().unwrap().text, "deleted note 4");
        }
        other => panic!("expected the result, got {other:?}"),
    }
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}
