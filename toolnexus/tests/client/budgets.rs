//! The budgets (SPEC §16): max_turns (default 10), max_tool_calls, max_tokens, the whole
//! run's timeout, cancel, and §15B retry exhaustion end the run `Incomplete` with `limit`,
//! every call in the transcript with its result.

use std::time::{Duration, Instant};

use serde_json::json;
use toolnexus::client::{Client, Limit, Message, RunResult, Status};
use toolnexus::{Retry, Toolkit, define_tool};

use crate::scripted::*;

/// Every assistant tool call has its result in the next message.
fn every_call_answered(result: &RunResult) {
    for (at, message) in result.messages.iter().enumerate() {
        if let Message::Assistant { tool_calls, .. } = message {
            if tool_calls.is_empty() {
                continue;
            }
            let Some(Message::Tool { results }) = result.messages.get(at + 1) else {
                panic!("calls at {at} have no results: {:?}", result.messages);
            };
            let ids: Vec<_> = results.iter().map(|r| &r.call_id).collect();
            let calls: Vec<_> = tool_calls.iter().map(|c| &c.id).collect();
            assert_eq!(ids, calls);
        }
    }
}

fn forever_calling() -> impl Iterator<Item = Turn> {
    (0..100).map(|n| calling(vec![call(&format!("c{n}"), "add", json!({}))]))
}

#[tokio::test]
async fn max_turns_defaults_to_ten() {
    let (adds, add) = counting("add");
    let toolkit = Toolkit::new().with(add);
    let model = Scripted::new(forever_calling());
    let result = Client::with_model(model.clone())
        .run("loop", &toolkit)
        .await
        .unwrap();
    assert_eq!(
        (result.status, result.limit),
        (Status::Incomplete, Some(Limit::MaxTurns))
    );
    assert_eq!((result.turns, model.calls(), runs(&adds)), (10, 10, 10));
    every_call_answered(&result);

    let three = Client::with_model(Scripted::new(forever_calling())).max_turns(3);
    assert_eq!(three.run("loop", &toolkit).await.unwrap().turns, 3);
}

#[tokio::test]
async fn calls_past_max_tool_calls_are_answered_without_running_and_the_run_stops() {
    let (adds, add) = counting("add");
    let toolkit = Toolkit::new().with(add);
    let model = Scripted::new([
        calling(vec![call("c1", "add", json!({}))]),
        calling(vec![
            call("c2", "add", json!({})),
            call("c3", "add", json!({})),
            call("c4", "add", json!({})),
        ]),
        answering("never asked"),
    ]);
    let client = Client::with_model(model.clone()).max_tool_calls(2);
    let result = client.run("go", &toolkit).await.unwrap();
    assert_eq!(
        (result.status, result.limit),
        (Status::Incomplete, Some(Limit::MaxToolCalls))
    );
    assert_eq!(
        (runs(&adds), result.tool_call_count, result.tool_calls.len()),
        (2, 2, 2)
    );
    assert_eq!(model.calls(), 2);
    every_call_answered(&result);
    let Some(Message::Tool { results }) = result.messages.last() else {
        panic!()
    };
    assert!(!results[0].result.is_error);
    for refused in &results[1..] {
        assert!(refused.result.is_error);
        assert_eq!(
            refused.result.output,
            "not run: the run's limit of 2 tool calls was reached"
        );
    }
}

#[tokio::test]
async fn exactly_max_tool_calls_lets_the_model_answer() {
    let (_, add) = counting("add");
    let model = Scripted::new([
        calling(vec![call("c1", "add", json!({}))]),
        answering("done"),
    ]);
    let result = Client::with_model(model)
        .max_tool_calls(1)
        .run("go", &Toolkit::new().with(add))
        .await
        .unwrap();
    assert_eq!(result.status, Status::Done);
}

#[tokio::test]
async fn max_tokens_counts_input_and_output_summed() {
    let (_, add) = counting("add");
    let toolkit = Toolkit::new().with(add);
    // Each calling turn uses 15 tokens: the third call would start at 30.
    let client = Client::with_model(Scripted::new(forever_calling())).max_tokens(30);
    let result = client.run("go", &toolkit).await.unwrap();
    assert_eq!(
        (result.status, result.limit, result.turns),
        (Status::Incomplete, Some(Limit::MaxTokens), 2)
    );
    assert_eq!(result.usage.total(), 30);
    every_call_answered(&result);
}

#[tokio::test]
async fn a_timeout_drops_a_hanging_model_call_and_keeps_what_ran() {
    let (_, add) = counting("add");
    let toolkit = Toolkit::new().with(add);
    let model = Scripted::new([calling(vec![call("c1", "add", json!({}))]), Turn::Hang]);
    let started = Instant::now();
    let result = Client::with_model(model)
        .timeout(Duration::from_millis(100))
        .run("go", &toolkit)
        .await
        .unwrap();
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(
        (result.status, result.limit),
        (Status::Incomplete, Some(Limit::Timeout))
    );
    assert_eq!((result.turns, result.tool_call_count), (1, 1));
    every_call_answered(&result);
}

#[tokio::test]
async fn a_timeout_cancels_hanging_tools_and_keeps_the_others_results() {
    let (_, add) = counting("add");
    let toolkit = Toolkit::new().with(add).with(stuck("wait"));
    let model = Scripted::new([calling(vec![
        call("c1", "add", json!({})),
        call("c2", "wait", json!({})),
    ])]);
    let result = Client::with_model(model)
        .timeout(Duration::from_millis(100))
        .run("go", &toolkit)
        .await
        .unwrap();
    assert_eq!(
        (result.status, result.limit),
        (Status::Incomplete, Some(Limit::Timeout))
    );
    let outputs: Vec<_> = result
        .tool_calls
        .iter()
        .map(|r| r.output.as_str())
        .collect();
    assert_eq!(outputs, ["add({})", "tool `wait` was cancelled"]);
    every_call_answered(&result);
}

#[tokio::test]
async fn cancel_ends_the_run_before_and_during_the_tools() {
    let model = Scripted::new([answering("never")]);
    let result = Client::with_model(model.clone())
        .cancel(cancelled())
        .run("go", &Toolkit::new())
        .await
        .unwrap();
    assert_eq!(
        (result.status, result.limit, model.calls()),
        (Status::Incomplete, Some(Limit::Cancelled), 0)
    );

    let signal = toolnexus::context::CancelSignal::default();
    let stop = signal.clone();
    let toolkit = Toolkit::new().with(stuck("wait"));
    let model = Scripted::new([calling(vec![call("c1", "wait", json!({}))])]);
    let canceller = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(50)).await;
        stop.cancel();
    });
    let result = Client::with_model(model)
        .cancel(signal)
        .run("go", &toolkit)
        .await
        .unwrap();
    canceller.await.unwrap();
    assert_eq!(
        (result.status, result.limit),
        (Status::Incomplete, Some(Limit::Cancelled))
    );
    assert_eq!(result.tool_calls[0].output, "tool `wait` was cancelled");
    every_call_answered(&result);
}

#[tokio::test]
async fn a_tool_failing_past_its_retry_budget_ends_the_run() {
    let schema = json!({"type": "object"});
    let book = define_tool("book", "Books a room", schema)
        .unwrap()
        .retries(1)
        .sync(
            |_: serde_json::Value, _: &toolnexus::ToolContext| -> Result<String, Retry> {
                Err(Retry::new("no such room"))
            },
        );
    let toolkit = Toolkit::new().with(book);
    let model =
        Scripted::new((0..5).map(|n| calling(vec![call(&format!("c{n}"), "book", json!({}))])));
    let result = Client::with_model(model)
        .run("book", &toolkit)
        .await
        .unwrap();
    assert_eq!(
        (result.status, result.limit, result.turns),
        (Status::Incomplete, Some(Limit::Retries), 2)
    );
    assert_eq!(
        result.tool_calls[1].output,
        "tool `book` failed 2 times in a row: no such room"
    );
    every_call_answered(&result);
}
