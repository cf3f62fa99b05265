//! SPEC §15 costs: a local search over 1,000 tools answers in under 1 ms, the index is built
//! once per toolkit (not per search), and `run_calls_in` with no search and no retry costs at
//! most 2% more than `run_calls`. (The definition bytes of a run are counted exactly, in
//! `tests/toolkit/search_recall.rs`, not here.)
//!
//! Run: `cargo bench -p toolnexus --bench tool_search`. With `TOOLNEXUS_BENCH_CALLS=N` and
//! `TOOLNEXUS_BENCH_ROUTINE=run_calls|run_calls_in` it times nothing: it makes N turns of that
//! routine inside `measured_loop`, for `valgrind --tool=callgrind
//! --toggle-collect='tool_search::measured_loop*'` to count instructions per turn, which the
//! wall clock of a shared machine cannot resolve to 2%.

mod common;

use std::future::Future;
use std::hint::black_box;
use std::pin::pin;
use std::task::{Context, Poll, Waker};
use std::time::Instant;

use serde_json::{Value, json};
use toolnexus::{RunState, ToolCall, ToolContext, Toolkit, define_tool};

/// The tools of the catalog fixture, again under numbered prefixes until there are `count`.
fn catalog(count: usize) -> Toolkit {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/tool_catalog.json"
    );
    let fixture: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let real: Vec<&Value> = fixture["servers"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|tools| tools.as_array().unwrap())
        .collect();
    let mut toolkit = Toolkit::new();
    for at in 0..count {
        let tool = real[at % real.len()];
        let name = match at / real.len() {
            0 => tool["name"].as_str().unwrap().to_owned(),
            copy => format!("s{copy}_{}", tool["name"].as_str().unwrap()),
        };
        let def = define_tool(
            name,
            tool["description"].as_str().unwrap(),
            tool["inputSchema"].clone(),
        );
        toolkit.register(std::sync::Arc::new(
            def.unwrap().sync(|_: Value, _: &ToolContext| ""),
        ));
    }
    toolkit.defer_all_but(Vec::<String>::new())
}

/// Polls a future that is ready at once (synchronous tools only).
fn ready<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(output) => output,
        Poll::Pending => unreachable!("every tool here is synchronous"),
    }
}

fn main() {
    let mut c = common::criterion();
    let mut summary = common::Summary::new();

    // (a) a search over 1,000 tools, index built; budget 1 ms.
    let thousand = catalog(1000);
    assert_eq!(thousand.len(), 1000);
    assert!(!thousand.search("open pull requests", 5).is_empty());
    let query = "list the open pull requests of a repository";
    let mut group = c.benchmark_group("tool_search_1000");
    group.bench_function("search", |b| {
        b.iter(|| thousand.search(black_box(query), 5).len())
    });
    // (b) the first search of a toolkit builds the index; later ones reuse it.
    group.bench_function("first_search_of_a_fresh_toolkit", |b| {
        b.iter_batched(
            || catalog(1000),
            |toolkit| toolkit.search(black_box(query), 5).len(),
            criterion::BatchSize::LargeInput,
        )
    });
    group.finish();
    let rounds = 200;
    let start = Instant::now();
    for _ in 0..rounds {
        black_box(thousand.search(black_box(query), 5));
    }
    let per_search = start.elapsed() / rounds;
    println!(
        "search over 1000 tools: {per_search:?} per search (budget 1 ms): {}",
        if per_search.as_micros() < 1000 {
            "within"
        } else {
            "OVER"
        }
    );

    // (c) run_calls_in without searches or retries vs run_calls; budget 1.02.
    let add = define_tool(
        "add",
        "Adds two integers",
        json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}),
    )
    .unwrap()
    .sync(|args: Value, _: &ToolContext| args["a"].as_i64().unwrap_or(0) + args["b"].as_i64().unwrap_or(0));
    let toolkit = Toolkit::new().with(add);
    let calls: Vec<ToolCall> = (0..3)
        .map(|at| ToolCall {
            id: format!("call_{at}"),
            name: "add".into(),
            arguments: format!(r#"{{"a": {at}, "b": 2}}"#),
        })
        .collect();
    let ctx = ToolContext::default();
    let floor = |()| ready(toolkit.run_calls(&calls, &ctx));
    let mut run = RunState::default();
    let mut subject = |()| ready(toolkit.run_calls_in(&mut run, &calls, &ctx));
    if let Ok(turns) = std::env::var("TOOLNEXUS_BENCH_CALLS") {
        let turns: usize = turns.parse().expect("TOOLNEXUS_BENCH_CALLS is a number");
        match std::env::var("TOOLNEXUS_BENCH_ROUTINE").as_deref() {
            Ok("run_calls") => measured_loop(turns, floor),
            Ok("run_calls_in") => measured_loop(turns, subject),
            other => panic!("TOOLNEXUS_BENCH_ROUTINE is run_calls or run_calls_in, not {other:?}"),
        }
        return;
    }
    let mut group = c.benchmark_group("run_calls_in");
    group.bench_function("run_calls", |b| b.iter(|| floor(())));
    group.bench_function("run_calls_in", |b| b.iter(|| subject(())));
    group.finish();
    summary.compare_interleaved(
        "run_calls_in",
        "run_calls",
        "run_calls_in",
        Some(1.02),
        || (),
        floor,
        subject,
    );

    c.final_summary();
    summary.print();
}

/// `turns` runs of `routine`, the only code callgrind counts (results dropped inside, as a
/// caller drops them).
#[inline(never)]
fn measured_loop<O>(turns: usize, mut routine: impl FnMut(()) -> O) {
    for _ in 0..turns {
        drop(black_box(routine(())));
    }
}
