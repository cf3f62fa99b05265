//! Suspensions (SPEC §10, §16): answered in the loop with wait_for, or parked — written to
//! a file as JSON, read back by a fresh Client and Toolkit and resumed, nothing run twice.

use serde_json::json;
use toolnexus::client::{Client, Event, RunResult, Status};
use toolnexus::{Answer, Reason, Request, Toolkit};

use crate::scripted::*;

#[tokio::test]
async fn wait_for_answers_each_suspension_by_the_loop_rule() {
    let (deploys, deploy) = approval("deploy", "Deploy to production?");
    let (wipes, wipe) = approval("wipe", "Wipe the disk?");
    let toolkit = Toolkit::new().with(deploy).with(wipe);
    let model = Scripted::new([
        calling(vec![
            call("c1", "deploy", json!({})),
            call("c2", "wipe", json!({})),
        ]),
        answering("deployed, not wiped"),
    ]);
    let client = Client::with_model(model).wait_for(|request: Request| async move {
        match request.prompt.as_str() {
            "Deploy to production?" => Answer::approve(&request),
            _ => Answer::decline(&request, Reason::Declined),
        }
    });
    let result = client.run("ship it", &toolkit).await.unwrap();
    assert_eq!(result.status, Status::Done);
    let outputs: Vec<_> = result
        .tool_calls
        .iter()
        .map(|r| r.output.as_str())
        .collect();
    assert_eq!(outputs, ["deploy done", "declined/expired: Wipe the disk?"]);
    assert_eq!((runs(&deploys), runs(&wipes)), (2, 1));
}

#[tokio::test]
async fn a_second_suspension_is_unresolved() {
    let schema = json!({"type": "object"});
    let nagging = toolnexus::define_tool("nag", "Always asks", schema)
        .unwrap()
        .sync(|_: serde_json::Value, _: &toolnexus::ToolContext| {
            toolnexus::pending(Request::new("approval", "Really?"))
        });
    let model = Scripted::new([
        calling(vec![call("c1", "nag", json!({}))]),
        answering("gave up"),
    ]);
    let client = Client::with_model(model)
        .wait_for(|request: Request| async move { Answer::approve(&request) });
    let result = client
        .run("go", &Toolkit::new().with(nagging))
        .await
        .unwrap();
    assert_eq!(result.tool_calls[0].output, "unresolved: Really?");
}

fn parking_toolkit() -> (Toolkit, [std::sync::Arc<std::sync::atomic::AtomicUsize>; 3]) {
    let (deploys, deploy) = approval("deploy", "Deploy?");
    let (wipes, wipe) = approval("wipe", "Wipe?");
    let (adds, add) = counting("add");
    (
        Toolkit::new().with(deploy).with(wipe).with(add),
        [deploys, wipes, adds],
    )
}

fn parking_script() -> Scripted {
    Scripted::new([
        calling(vec![
            call("c1", "deploy", json!({})),
            call("c2", "add", json!({"a": 1})),
            call("c3", "wipe", json!({})),
        ]),
        answering("all done"),
    ])
}

#[tokio::test]
async fn a_parked_run_is_stored_read_back_by_a_fresh_client_and_resumed_running_nothing_twice() {
    let (toolkit, [deploys, wipes, adds]) = parking_toolkit();
    let model = parking_script();
    let parked = Client::with_model(model.clone())
        .run("ship", &toolkit)
        .await
        .unwrap();
    assert_eq!(parked.status, Status::Pending);
    let pending = parked.pending.clone().unwrap();
    assert_eq!(
        pending.prompt, "Deploy?",
        "the first suspension in call order"
    );
    let turn = parked.parked.as_ref().unwrap();
    assert_eq!(turn.calls.len(), 3);
    assert!(turn.results[2].is_pending(), "the other suspension is kept");
    // What finished is recorded already: the parked run says what ran.
    assert_eq!(
        (parked.tool_call_count, parked.tool_calls[0].name.as_str()),
        (1, "add")
    );
    assert_eq!((runs(&deploys), runs(&wipes), runs(&adds)), (1, 1, 1));

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("parked.json");
    std::fs::write(&file, serde_json::to_string(&parked).unwrap()).unwrap();
    let stored: RunResult = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(stored, parked);

    // A fresh client and toolkit (same tools, their counters shared to prove what ran).
    let client = Client::with_model(model.clone());
    let wrong = Answer::approve(&Request::new("approval", "Deploy?"));
    let refused = client
        .resume(stored.clone(), wrong, &toolkit)
        .await
        .unwrap_err();
    assert!(
        refused.message.contains("nothing ran"),
        "{}",
        refused.message
    );
    assert!(refused.message.contains(&pending.id));
    assert_eq!(*refused.so_far, stored);
    assert_eq!(
        (runs(&deploys), runs(&wipes), runs(&adds), model.calls()),
        (1, 1, 1, 1)
    );

    let again = client
        .resume(stored, Answer::approve(&pending), &toolkit)
        .await
        .unwrap();
    assert_eq!(
        again.status,
        Status::Pending,
        "the other suspended call of the turn"
    );
    let second = again.pending.clone().unwrap();
    assert_eq!(second.prompt, "Wipe?");
    assert_eq!(
        (runs(&deploys), runs(&wipes), runs(&adds), model.calls()),
        (2, 1, 1, 1)
    );

    let done = client
        .resume(again, Answer::approve(&second), &toolkit)
        .await
        .unwrap();
    assert_eq!(
        (done.status, done.text.as_str()),
        (Status::Done, "all done")
    );
    assert_eq!(
        (runs(&deploys), runs(&wipes), runs(&adds), model.calls()),
        (2, 2, 1, 2)
    );
    let outputs: Vec<_> = done.tool_calls.iter().map(|r| r.output.as_str()).collect();
    // In the order run: `add` finished in the first turn, the others once answered.
    assert_eq!(outputs, [r#"add({"a":1})"#, "deploy done", "wipe done"]);
    assert_eq!((done.turns, done.tool_call_count), (2, 3));
    assert_eq!((&done.pending, &done.parked), (&None, &None));
}

#[tokio::test]
async fn a_declined_parked_call_is_answered_declined_and_the_loop_goes_on() {
    let (toolkit, [deploys, ..]) = parking_toolkit();
    let model = Scripted::new([
        calling(vec![call("c1", "deploy", json!({}))]),
        answering("ok, not deployed"),
    ]);
    let client = Client::with_model(model);
    let parked = client.run("ship", &toolkit).await.unwrap();
    let request = parked.pending.clone().unwrap();
    let done = client
        .resume(
            parked,
            Answer::decline(&request, Reason::Declined),
            &toolkit,
        )
        .await
        .unwrap();
    assert_eq!(done.tool_calls[0].output, "declined/expired: Deploy?");
    assert_eq!((done.status, runs(&deploys)), (Status::Done, 1));
}

#[tokio::test]
async fn a_run_that_is_not_pending_cannot_be_resumed() {
    let model = Scripted::new([answering("done")]);
    let client = Client::with_model(model);
    let done = client.run("go", &Toolkit::new()).await.unwrap();
    let answer = Answer::approve(&Request::new("approval", "?"));
    let error = client
        .resume(done, answer, &Toolkit::new())
        .await
        .unwrap_err();
    assert_eq!(
        error.message,
        "the run is not pending: there is nothing to resume"
    );
}

#[tokio::test]
async fn a_streamed_run_announces_its_parking() {
    let (toolkit, _) = parking_toolkit();
    let client = Client::with_model(parking_script());
    let events = collect(client.stream("ship", &toolkit)).await;
    let Some(Event::Done(result)) = events.last() else {
        panic!("{events:?}")
    };
    assert_eq!(result.status, Status::Pending);
    let pending: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::Pending(r) => Some(r),
            _ => None,
        })
        .collect();
    assert_eq!(pending, [result.pending.as_ref().unwrap()]);
}

/// SPEC §10B: an answer whose data breaks the schema the request asked with is refused, in
/// the loop and on resume alike, and the tool does not run with it.
#[tokio::test]
async fn an_answer_that_breaks_the_asked_schema_is_refused_both_ways() {
    use crate::asking::{accept, fill};
    let (toolkit, asked, answered) = fill();
    *asked.lock().unwrap() = json!({"type": "object", "properties": {"env": {"enum": ["staging", "production"]}}, "required": ["env"]});
    let refusal = "answer to `fill`: field `env`: unknown variant `moon`, expected one of `staging`, `production`";
    let script = || {
        Scripted::new([
            calling(vec![call("c1", "fill", json!({}))]),
            answering("ok"),
        ])
    };

    let client = Client::with_model(script())
        .wait_for(|request: Request| async move { accept(&request, json!({"env": "moon"})) });
    let result = client.run("go", &toolkit).await.unwrap();
    assert_eq!(result.tool_calls[0].output, refusal);

    let client = Client::with_model(script());
    let parked = client.run("go", &toolkit).await.unwrap();
    let request = parked.pending.clone().unwrap();
    let resumed = client
        .resume(parked, accept(&request, json!({"env": "moon"})), &toolkit)
        .await
        .unwrap();
    assert_eq!(resumed.tool_calls[0].output, refusal);
    assert_eq!(runs(&answered), 0);

    let client = Client::with_model(script());
    let parked = client.run("go", &toolkit).await.unwrap();
    let request = parked.pending.clone().unwrap();
    let resumed = client
        .resume(
            parked,
            accept(&request, json!({"env": "staging"})),
            &toolkit,
        )
        .await
        .unwrap();
    assert_eq!(resumed.tool_calls[0].output, r#"{"env":"staging"}"#);
    assert_eq!(runs(&answered), 1);
}

#[tokio::test]
async fn a_tampered_parked_run_is_refused_without_a_panic_and_nothing_runs() {
    let (toolkit, [deploys, wipes, adds]) = parking_toolkit();
    let client = Client::with_model(parking_script());
    let mut parked = client.run("ship", &toolkit).await.unwrap();
    let request = parked.pending.clone().unwrap();
    parked.parked.as_mut().unwrap().results.truncate(1);
    let error = client
        .resume(parked.clone(), Answer::approve(&request), &toolkit)
        .await
        .unwrap_err();
    assert_eq!(
        error.message,
        "the parked turn is malformed: 3 calls but 1 results; nothing ran"
    );

    parked.parked.as_mut().unwrap().results.clear();
    parked.parked.as_mut().unwrap().calls.clear();
    let error = client
        .resume(parked, Answer::approve(&request), &toolkit)
        .await
        .unwrap_err();
    assert!(
        error
            .message
            .starts_with("the parked turn has no call waiting on request"),
        "{}",
        error.message
    );
    assert_eq!((runs(&deploys), runs(&wipes), runs(&adds)), (1, 1, 1));
}

#[tokio::test]
async fn a_timeout_while_wait_for_waits_ends_the_call_cancelled_and_the_run_incomplete() {
    let (toolkit, [deploys, ..]) = parking_toolkit();
    let model = Scripted::new([calling(vec![
        call("c1", "deploy", json!({})),
        call("c2", "add", json!({})),
    ])]);
    let client = Client::with_model(model)
        .timeout(std::time::Duration::from_millis(100))
        .wait_for(|_: Request| std::future::pending::<Answer>());
    let result = client.run("ship", &toolkit).await.unwrap();
    assert_eq!(
        (result.status, result.limit),
        (Status::Incomplete, Some(toolnexus::client::Limit::Timeout))
    );
    let outputs: Vec<_> = result
        .tool_calls
        .iter()
        .map(|r| r.output.as_str())
        .collect();
    assert_eq!(outputs, ["add({})", "tool `deploy` was cancelled"]);
    assert_eq!(runs(&deploys), 1);
}

/// `add`, and two deferred tools a search must load first: `deploy`, which asks for approval
/// (its runs counted), and `rollback`.
fn deferred_toolkit() -> (Toolkit, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    let runs = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = runs.clone();
    let schema = json!({"type": "object"});
    let deploy = toolnexus::define_tool("deploy", "Deploys the service", schema.clone())
        .unwrap()
        .deferred(true)
        .sync(move |_: serde_json::Value, ctx: &toolnexus::ToolContext| {
            counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            match &ctx.answer {
                Some(answer) if answer.ok => toolnexus::ToolResult::ok("deployed"),
                _ => toolnexus::pending(Request::new("approval", "Deploy?")),
            }
        });
    let rollback = toolnexus::define_tool("rollback", "Rolls the service back", schema)
        .unwrap()
        .deferred(true)
        .sync(|_: serde_json::Value, _: &toolnexus::ToolContext| "rolled back");
    let (_, add) = counting("add");
    (Toolkit::new().with(add).with(deploy).with(rollback), runs)
}

/// Turn 0 searches for `deploy`; turn 1 calls it (it suspends) and searches for `rollback`.
fn deferred_script() -> Scripted {
    Scripted::new([
        calling(vec![call(
            "s1",
            "search_tools",
            json!({"query": "deploy", "limit": 1}),
        )]),
        calling(vec![
            call("c1", "deploy", json!({})),
            call(
                "s2",
                "search_tools",
                json!({"query": "rollback", "limit": 1}),
            ),
        ]),
        answering("deployed"),
    ])
}

/// The names of the tools request `at` of `model` carried.
fn tools_sent(model: &Scripted, at: usize) -> Vec<String> {
    let seen = model.seen.lock().unwrap();
    (seen[at].1.as_array().unwrap().iter())
        .map(|tool| tool["function"]["name"].as_str().unwrap().to_owned())
        .collect()
}

/// What `examples/mcp_agent` relies on (SPEC §15 through §16): a deferred tool is sent only
/// once a search loaded it, and what a search loaded stays loaded across a suspension of the
/// same turn — answered by `wait_for`, or parked, stored as JSON and resumed by a fresh client
/// and toolkit.
#[tokio::test]
async fn tools_a_search_loaded_stay_loaded_across_a_suspension_answered_or_parked() {
    let (toolkit, deploys) = deferred_toolkit();
    let model = deferred_script();
    let answered = Client::with_model(model.clone())
        .wait_for(|request: Request| async move { Answer::approve(&request) })
        .run("ship", &toolkit)
        .await
        .unwrap();
    assert_eq!(
        (answered.status, answered.text.as_str()),
        (Status::Done, "deployed")
    );
    assert_eq!(tools_sent(&model, 0), ["add", "search_tools"]);
    assert_eq!(tools_sent(&model, 1), ["add", "deploy", "search_tools"]);
    assert_eq!(
        tools_sent(&model, 2),
        ["add", "deploy", "rollback", "search_tools"]
    );
    assert_eq!(
        runs(&deploys),
        2,
        "suspended once, run again with the answer"
    );

    let (toolkit, deploys) = deferred_toolkit();
    let model = deferred_script();
    let parked = Client::with_model(model.clone())
        .run("ship", &toolkit)
        .await
        .unwrap();
    assert_eq!((parked.status, model.calls()), (Status::Pending, 2));
    let stored = serde_json::to_string(&parked).unwrap();
    let request = parked.pending.unwrap();

    // Another process: a fresh client (its model has the last reply left) and toolkit.
    let (toolkit, resumed_deploys) = deferred_toolkit();
    let model = Scripted::new([answering("deployed")]);
    let parked: RunResult = serde_json::from_str(&stored).unwrap();
    let done = Client::with_model(model.clone())
        .resume(parked, Answer::approve(&request), &toolkit)
        .await
        .unwrap();
    assert_eq!((done.status, done.turns), (Status::Done, 3));
    assert_eq!(
        tools_sent(&model, 0),
        ["add", "deploy", "rollback", "search_tools"]
    );
    assert_eq!((runs(&deploys), runs(&resumed_deploys)), (1, 1));
    // The searches finished in the parked turns; `deploy` once answered.
    let ran: Vec<_> = (done.tool_calls.iter())
        .map(|r| (r.name.as_str(), r.is_error))
        .collect();
    assert_eq!(
        ran,
        [
            ("search_tools", false),
            ("search_tools", false),
            ("deploy", false)
        ]
    );
    assert_eq!(done.tool_calls[2].output, "deployed");
}
