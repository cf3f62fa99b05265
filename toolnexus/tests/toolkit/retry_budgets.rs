//! SPEC §15B: retry budgets counted by `RunState` in `run_calls_in`; nothing changes without
//! one.

use crate::common;

use serde_json::{Value, json};
use toolnexus::{
    IntoToolResult, Retry, RunState, ToolCall, ToolContext, ToolResult, Toolkit, define_tool,
};

use common::block_on;

fn call(name: &str, arguments: &str) -> ToolCall {
    ToolCall {
        id: format!("call_{name}"),
        name: name.into(),
        arguments: arguments.into(),
    }
}

/// `{"ok": true}` succeeds, `{"ok": false}` asks for a retry, `{"fail": true}` fails plainly;
/// text that is not JSON is invalid arguments.
fn picky(name: &str) -> toolnexus::ToolDef {
    let schema = json!({
        "type": "object",
        "properties": {"ok": {"type": "boolean"}, "fail": {"type": "boolean"}},
        "required": ["ok"],
    });
    define_tool(name, "Succeeds when told to", schema).unwrap()
}

fn finish(def: toolnexus::ToolDef) -> toolnexus::FnTool {
    def.sync(|args: Value, _: &ToolContext| {
        if args["fail"] == true {
            return ToolResult::error("disk full");
        }
        let answer: Result<&str, Retry> = match args["ok"].as_bool() {
            Some(true) => Ok("done"),
            _ => Err(Retry::new("say ok")),
        };
        answer.into_tool_result()
    })
}

fn run(toolkit: &Toolkit, run: &mut RunState, calls: &[ToolCall]) -> Vec<ToolResult> {
    block_on(toolkit.run_calls_in(run, calls, &ToolContext::default()))
}

#[test]
fn the_call_past_the_default_budget_of_two_gets_the_spec_message_and_names_the_tool() {
    let toolkit = Toolkit::new().with(finish(picky("picky")));
    let mut state = RunState::default();
    let again = call("picky", r#"{"ok": false}"#);
    for expected in 1..=2 {
        let results = run(&toolkit, &mut state, std::slice::from_ref(&again));
        assert_eq!(results[0].output, "say ok");
        assert_eq!(state.retries_of("picky"), expected);
        assert_eq!(state.exhausted(), None);
    }
    let third = run(&toolkit, &mut state, std::slice::from_ref(&again));
    assert!(third[0].is_error);
    assert_eq!(
        third[0].output,
        "tool `picky` failed 3 times in a row: say ok"
    );
    assert_eq!(state.exhausted(), Some("picky"));
}

#[test]
fn a_success_resets_the_count_and_a_plain_error_neither_counts_nor_resets() {
    let toolkit = Toolkit::new().with(finish(picky("picky"))).retries(1);
    let mut state = RunState::default();
    run(&toolkit, &mut state, &[call("picky", r#"{"ok": false}"#)]);
    assert_eq!(state.retries_of("picky"), 1);
    let failed = run(
        &toolkit,
        &mut state,
        &[call("picky", r#"{"ok": true, "fail": true}"#)],
    );
    assert_eq!(failed[0].output, "disk full");
    assert_eq!(state.retries_of("picky"), 1);
    run(&toolkit, &mut state, &[call("picky", r#"{"ok": true}"#)]);
    assert_eq!(state.retries_of("picky"), 0);
    let again = run(&toolkit, &mut state, &[call("picky", r#"{"ok": false}"#)]);
    assert_eq!(again[0].output, "say ok");
    assert_eq!(state.exhausted(), None);
}

#[test]
fn invalid_arguments_count_as_retries() {
    let toolkit = Toolkit::new().with(finish(picky("picky"))).retries(0);
    let mut state = RunState::default();
    let results = run(&toolkit, &mut state, &[call("picky", "not json")]);
    assert!(
        results[0]
            .output
            .starts_with("tool `picky` failed 1 times in a row: invalid arguments for `picky`: "),
        "{}",
        results[0].output
    );
    assert_eq!(state.exhausted(), Some("picky"));
}

#[test]
fn a_tools_own_budget_beats_the_toolkits_and_counts_are_per_tool_in_call_order() {
    let toolkit = Toolkit::new()
        .with(finish(picky("patient").retries(3)))
        .with(finish(picky("hasty")))
        .retries(0);
    let mut state = RunState::default();
    let calls = [
        call("patient", r#"{"ok": false}"#),
        call("hasty", r#"{"ok": false}"#),
        call("patient", r#"{"ok": false}"#),
    ];
    let results = run(&toolkit, &mut state, &calls);
    assert_eq!(results[0].output, "say ok");
    assert_eq!(
        results[1].output,
        "tool `hasty` failed 1 times in a row: say ok"
    );
    assert_eq!(results[2].output, "say ok");
    assert_eq!(
        (state.retries_of("patient"), state.retries_of("hasty")),
        (2, 1)
    );
    assert_eq!(state.exhausted(), Some("hasty"));
}

#[test]
fn without_a_run_state_results_are_exactly_what_the_tool_gave() {
    let toolkit = Toolkit::new().with(finish(picky("picky"))).retries(0);
    let calls = [call("picky", r#"{"ok": false}"#), call("picky", "not json")];
    let ctx = ToolContext::default();
    for _ in 0..3 {
        let plain = block_on(toolkit.run_calls(&calls, &ctx));
        assert_eq!(
            plain[0],
            ToolResult::error("say ok").with_metadata("retry", true)
        );
        assert!(
            plain[1]
                .output
                .starts_with("invalid arguments for `picky`: ")
        );
    }
}

#[test]
fn an_unknown_tool_has_no_budget() {
    let toolkit = Toolkit::new().retries(0);
    let mut state = RunState::default();
    let results = run(&toolkit, &mut state, &[call("nope", "{}")]);
    assert_eq!(results[0].output, "Unknown tool: nope");
    assert_eq!(state.exhausted(), None);
}
