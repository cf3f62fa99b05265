//! SPEC §9: `execute` of a macro tool costs at most 1.3× a hand-written floor — `serde_json`
//! decode of the same arguments struct, the call, and `to_string` — measured in the same run.
//! Also the error path (a missing field) against serde_json's own failing decode, and nested
//! arguments (an order of three items, then with an enum beside it), which the schema check
//! of SPEC §11 reads again.
//!
//! Run: `cargo bench -p toolnexus --bench execute`. With `TOOLNEXUS_BENCH_CALLS=N` and
//! `TOOLNEXUS_BENCH_ROUTINE=<name>` it times nothing: it makes N calls of that one routine
//! inside `measured`, for `valgrind --tool=callgrind --toggle-collect='execute::measured*'`
//! to count instructions per call (`scripts/callgrind-execute.sh` does this for every routine).

mod common;
mod counting;

use std::hint::black_box;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use counting::allocations;
use criterion::BatchSize;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use toolnexus::{Tool, ToolContext, ToolResult, Toolkit, tool, tools};

/// Add two numbers.
#[tool]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

/// Add two numbers, each within limits: `AddTool` with a schema that states them, whose
/// check is the whole difference (issue 17: within 1.3× of `AddTool`).
#[tool]
fn add_limited(
    #[schemars(range(min = -1e9, max = 1e9))] a: f64,
    #[schemars(range(min = -1e9, max = 1e9))] b: f64,
) -> f64 {
    a + b
}

/// Add two integers: the flat tool of integers of SPEC §9's `execute_json` budget, whose
/// schema carries only its types' own ranges, which the decoder enforces.
#[tool]
fn add_ints(a: i64, b: i64) -> i64 {
    a.wrapping_add(b)
}

/// `add_ints` with one real limit (`a` at most 10): it pays for that limit only.
#[tool]
fn add_capped(#[schemars(range(max = 10))] a: i64, b: i64) -> i64 {
    a.wrapping_add(b)
}

/// The integer floor's arguments struct, written by hand.
#[derive(Deserialize)]
struct IntArgs {
    a: i64,
    b: i64,
}

/// The integer floor's call: the same body as the tools'.
#[inline(never)]
fn add_ints_by_hand(a: i64, b: i64) -> i64 {
    a.wrapping_add(b)
}

/// A hand-written registry of the integer tools, looked up by name as `Toolkit` does
/// (SPEC §9: the floor "looks the tool up by name"): each entry decodes its arguments with
/// serde_json, calls, and `to_string`s, behind dynamic dispatch.
struct Registry<I> {
    by_name: std::collections::BTreeMap<String, Box<dyn Fn(I) -> String>>,
}

impl<I> Registry<I> {
    #[inline(never)]
    fn call(&self, name: &str, input: I) -> String {
        (self.by_name[name])(input)
    }
}

/// A floor: `decode` (`from_str` or `from_value` into `IntArgs`) behind a lookup by name.
fn registry<I: 'static>(decode: fn(I) -> IntArgs) -> Registry<I> {
    let entry = || -> Box<dyn Fn(I) -> String> {
        Box::new(move |args| {
            let IntArgs { a, b } = decode(args);
            add_ints_by_hand(a, b).to_string()
        })
    };
    let by_name = [
        ("add_ints".to_owned(), entry()),
        ("add_capped".to_owned(), entry()),
    ];
    Registry {
        by_name: by_name.into_iter().collect(),
    }
}

/// The floor's arguments struct, written by hand.
#[derive(Deserialize)]
struct Args {
    a: f64,
    b: f64,
}

/// The floor's call: the same body as the tool's.
#[inline(never)]
fn add_by_hand(a: f64, b: f64) -> f64 {
    a + b
}

/// Polls a future to completion with a no-op waker; every tool here is ready at once.
fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
    }
}

/// One line of an order.
#[derive(Deserialize, toolnexus::JsonSchema)]
struct Item {
    sku: String,
    quantity: u32,
}

/// An order.
#[derive(Deserialize, toolnexus::JsonSchema)]
struct Order {
    items: Vec<Item>,
    note: Option<String>,
}

/// Counts the units of an order, and whether it has a note.
#[tool]
fn units(order: Order) -> u64 {
    units_by_hand(&order)
}

/// The floor's arguments for `units`.
#[derive(Deserialize)]
struct OrderArgs {
    order: Order,
}

/// The units of the lines that name a SKU, then 1 if the order has a note: every field read.
#[inline(never)]
fn units_by_hand(order: &Order) -> u64 {
    let units: u64 = order
        .items
        .iter()
        .filter(|item| !item.sku.is_empty())
        .map(|item| u64::from(item.quantity))
        .sum();
    units * 10 + u64::from(order.note.is_some())
}

/// How an order is paid: an externally tagged enum, as serde and schemars write one.
#[derive(Deserialize, toolnexus::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Payment {
    Cash,
    Card { last4: String },
    Split(Vec<u32>),
}

/// Counts the units of an order, and how its payment is split.
#[tool]
fn paid_units(order: Order, payment: Payment) -> u64 {
    units_by_hand(&order) + payment_by_hand(&payment)
}

/// The floor's arguments for `paid_units`.
#[derive(Deserialize)]
struct PaidArgs {
    order: Order,
    payment: Payment,
}

/// 0 for cash, the card's digits, or the number of parts: every variant read.
#[inline(never)]
fn payment_by_hand(payment: &Payment) -> u64 {
    match payment {
        Payment::Cash => 0,
        Payment::Card { last4 } => last4.len() as u64,
        Payment::Split(parts) => parts.len() as u64,
    }
}

const ARGS: &str = r#"{"a":1.5,"b":2.25}"#;
const ORDER: &str = r#"{"order":{"items":[{"sku":"A-1","quantity":2},{"sku":"B-22","quantity":1},{"sku":"C-333","quantity":5}],"note":"leave at the door"}}"#;
const PAID: &str = r#"{"order":{"items":[{"sku":"A-1","quantity":2},{"sku":"B-22","quantity":1},{"sku":"C-333","quantity":5}],"note":"leave at the door"},"payment":{"card":{"last4":"4242"}}}"#;
const MISSING: &str = r#"{"a":1.5}"#;
const INTS: &str = r#"{"a":7,"b":-12}"#;

fn main() {
    let mut c = common::criterion();
    let mut summary = common::Summary::new();
    let ctx = ToolContext::default();
    let toolkit = Toolkit::new().with_all(tools![add]);
    let args: Value = serde_json::from_str(ARGS).unwrap();
    let missing: Value = serde_json::from_str(MISSING).unwrap();

    // The subject and the floor must agree before their speed is compared.
    assert_eq!(block_on(AddTool.execute(args.clone(), &ctx)).output, "3.75");
    assert_eq!(
        block_on(toolkit.execute_json("add", ARGS, &ctx)).output,
        "3.75"
    );
    let failed = block_on(AddTool.execute(missing.clone(), &ctx));
    assert!(failed.is_error, "{failed:?}");
    assert!(failed.output.contains("missing field `b`"), "{failed:?}");
    assert_eq!(json!({"a": 1.5, "b": 2.25}), args);
    print_allocations(&toolkit, &ctx, &args);

    // Each routine is written once and used by criterion and by the interleaved run. The
    // argument `Value` is cloned outside the timed region for floor and subject alike.
    let floor_from_value = |args: Value| {
        let Args { a, b } = serde_json::from_value(args).unwrap();
        add_by_hand(a, b).to_string()
    };
    // Not a floor: the floor plus what `Tool::execute`'s signature imposes — the result as a
    // `ToolResult` inside a `Box::pin`ned future — to show what the remaining gap is made of.
    let floor_boxed = |args: Value| {
        let Args { a, b } = serde_json::from_value(args).unwrap();
        let future: toolnexus::BoxFuture<'_, ToolResult> =
            Box::pin(async move { ToolResult::ok(add_by_hand(a, b).to_string()) });
        block_on(future)
    };
    let tool_execute = |args: Value| block_on(AddTool.execute(args, black_box(&ctx)));
    let floor_from_str = |text: &str| {
        let Args { a, b } = serde_json::from_str(black_box(text)).unwrap();
        add_by_hand(a, b).to_string()
    };
    // Not a floor: the text parsed into a `Value` first, then decoded, as `execute_json` must
    // while `Tool::execute` takes a `Value`. Shows where `execute_json`'s time goes.
    let str_via_value = |text: &str| {
        let args: Value = serde_json::from_str(black_box(text)).unwrap();
        let Args { a, b } = serde_json::from_value(args).unwrap();
        add_by_hand(a, b).to_string()
    };
    let execute_json = |text: &str| block_on(toolkit.execute_json("add", black_box(text), &ctx));
    let tool_execute_json = |text: &str| block_on(AddTool.execute_json(black_box(text), &ctx));
    let toolkit_execute = |args: Value| block_on(toolkit.execute("add", args, black_box(&ctx)));
    let limited_tool_execute =
        |args: Value| block_on(AddLimitedTool.execute(args, black_box(&ctx)));
    let limited_tool_execute_json =
        |text: &str| block_on(AddLimitedTool.execute_json(black_box(text), &ctx));
    assert_eq!(limited_tool_execute_json(ARGS).output, "3.75");
    let nested_floor_from_str = |text: &str| {
        let OrderArgs { order } = serde_json::from_str(black_box(text)).unwrap();
        units_by_hand(&order).to_string()
    };
    let nested_tool_execute_json =
        |text: &str| block_on(UnitsTool.execute_json(black_box(text), &ctx));
    let order: Value = serde_json::from_str(ORDER).unwrap();
    let nested_floor_from_value = |args: Value| {
        let OrderArgs { order } = serde_json::from_value(args).unwrap();
        units_by_hand(&order).to_string()
    };
    let nested_tool_execute = |args: Value| block_on(UnitsTool.execute(args, black_box(&ctx)));
    assert_eq!(nested_tool_execute_json(ORDER).output, "81");
    assert_eq!(nested_floor_from_str(ORDER), "81");
    assert_eq!(nested_tool_execute(order.clone()).output, "81");
    let paid_floor_from_str = |text: &str| {
        let PaidArgs { order, payment } = serde_json::from_str(black_box(text)).unwrap();
        (units_by_hand(&order) + payment_by_hand(&payment)).to_string()
    };
    let paid_tool_execute_json =
        |text: &str| block_on(PaidUnitsTool.execute_json(black_box(text), &ctx));
    assert_eq!(paid_floor_from_str(PAID), "85");
    assert_eq!(paid_tool_execute_json(PAID).output, "85");
    let floor_error_from_value = |args: Value| {
        serde_json::from_value::<Args>(args)
            .err()
            .unwrap()
            .to_string()
    };
    let floor_error_from_str = |text: &str| {
        serde_json::from_str::<Args>(black_box(text))
            .err()
            .unwrap()
            .to_string()
    };

    // The flat tool of integers, by name, against floors that look their entry up by name.
    let ints_toolkit = Toolkit::new().with_all(tools![add_ints, add_capped]);
    let ints: Value = serde_json::from_str(INTS).unwrap();
    let by_name_str: Registry<&'static str> = registry(|text| serde_json::from_str(text).unwrap());
    let by_name_value: Registry<Value> = registry(|args| serde_json::from_value(args).unwrap());
    let ints_floor_from_str = |text: &'static str| by_name_str.call(black_box("add_ints"), text);
    let ints_floor_from_value = |args: Value| by_name_value.call(black_box("add_ints"), args);
    let ints_toolkit_execute_json = |text: &str| {
        block_on(ints_toolkit.execute_json(black_box("add_ints"), black_box(text), &ctx))
    };
    let ints_toolkit_execute =
        |args: Value| block_on(ints_toolkit.execute(black_box("add_ints"), args, &ctx));
    let capped_toolkit_execute_json = |text: &str| {
        block_on(ints_toolkit.execute_json(black_box("add_capped"), black_box(text), &ctx))
    };
    let capped_toolkit_execute =
        |args: Value| block_on(ints_toolkit.execute(black_box("add_capped"), args, &ctx));
    assert_eq!(ints_floor_from_str(INTS), "-5");
    assert_eq!(ints_floor_from_value(ints.clone()), "-5");
    assert_eq!(ints_toolkit_execute_json(INTS).output, "-5");
    assert_eq!(ints_toolkit_execute(ints.clone()).output, "-5");
    assert_eq!(capped_toolkit_execute_json(INTS).output, "-5");
    assert_eq!(capped_toolkit_execute(ints.clone()).output, "-5");
    let over = capped_toolkit_execute_json(r#"{"a":11,"b":0}"#);
    assert!(
        over.output.contains("greater than the maximum of 10"),
        "{over:?}"
    );

    // Not toolnexus: a floor plus the `jsonschema` crate's compiled validator over the tool's
    // own schema — what the tree check would cost were it that crate (issue 25, item 1).
    let validator = |schema: &Map<String, Value>| {
        jsonschema::validator_for(&Value::Object(schema.clone())).expect("a valid schema")
    };
    let (units_validator, limited_validator) = (
        validator(UnitsTool.input_schema()),
        validator(AddLimitedTool.input_schema()),
    );
    let capped_validator = validator(ints_toolkit.get("add_capped").unwrap().input_schema());
    let nested_jsonschema_from_value = |args: Value| {
        let valid = units_validator.validate(&args).is_ok();
        let OrderArgs { order } = serde_json::from_value(args).unwrap();
        (valid, units_by_hand(&order).to_string())
    };
    let limited_jsonschema_from_value = |args: Value| {
        let valid = limited_validator.validate(&args).is_ok();
        let Args { a, b } = serde_json::from_value(args).unwrap();
        (valid, add_by_hand(a, b).to_string())
    };
    let capped_jsonschema_from_value = |args: Value| {
        let valid = capped_validator.validate(&args).is_ok();
        (valid, by_name_value.call(black_box("add_ints"), args))
    };
    assert_eq!(
        nested_jsonschema_from_value(order.clone()),
        (true, "81".to_owned())
    );
    assert_eq!(
        limited_jsonschema_from_value(args.clone()),
        (true, "3.75".to_owned())
    );
    assert_eq!(
        capped_jsonschema_from_value(ints.clone()),
        (true, "-5".to_owned())
    );
    let over = json!({"a": 11, "b": 0});
    let refused = capped_validator.validate(&over).unwrap_err();
    println!(
        "jsonschema refuses {{\"a\":11,\"b\":0}}: at {:?}: {refused}",
        refused.instance_path.to_string()
    );

    if let Some((routine, calls)) = callgrind_request() {
        let value = || args.clone();
        let missing_value = || missing.clone();
        let (text, missing_text) = (|| ARGS, || MISSING);
        match routine.as_str() {
            "floor_from_value" => measured(calls, value, floor_from_value),
            "floor_boxed" => measured(calls, value, floor_boxed),
            "tool_execute" => measured(calls, value, tool_execute),
            "toolkit_execute" => measured(calls, value, toolkit_execute),
            "floor_from_str" => measured(calls, text, floor_from_str),
            "str_via_value" => measured(calls, text, str_via_value),
            "tool_execute_json" => measured(calls, text, tool_execute_json),
            "limited_tool_execute" => measured(calls, value, limited_tool_execute),
            "limited_tool_execute_json" => measured(calls, text, limited_tool_execute_json),
            "toolkit_execute_json" => measured(calls, text, execute_json),
            "error_floor_from_value" => measured(calls, missing_value, floor_error_from_value),
            "error_tool_execute" => measured(calls, missing_value, tool_execute),
            "error_floor_from_str" => measured(calls, missing_text, floor_error_from_str),
            "error_toolkit_execute_json" => measured(calls, missing_text, execute_json),
            "nested_floor_from_str" => measured(calls, || ORDER, nested_floor_from_str),
            "nested_tool_execute_json" => measured(calls, || ORDER, nested_tool_execute_json),
            "nested_floor_from_value" => measured(calls, || order.clone(), nested_floor_from_value),
            "nested_tool_execute" => measured(calls, || order.clone(), nested_tool_execute),
            "paid_floor_from_str" => measured(calls, || PAID, paid_floor_from_str),
            "paid_tool_execute_json" => measured(calls, || PAID, paid_tool_execute_json),
            "ints_floor_from_str" => measured(calls, || INTS, ints_floor_from_str),
            "ints_toolkit_execute_json" => measured(calls, || INTS, ints_toolkit_execute_json),
            "capped_toolkit_execute_json" => {
                measured(calls, || INTS, capped_toolkit_execute_json);
            }
            "ints_floor_from_value" => measured(calls, || ints.clone(), ints_floor_from_value),
            "ints_toolkit_execute" => measured(calls, || ints.clone(), ints_toolkit_execute),
            "capped_toolkit_execute" => measured(calls, || ints.clone(), capped_toolkit_execute),
            "nested_jsonschema_from_value" => {
                measured(calls, || order.clone(), nested_jsonschema_from_value)
            }
            "limited_jsonschema_from_value" => {
                measured(calls, value, limited_jsonschema_from_value)
            }
            "capped_jsonschema_from_value" => {
                measured(calls, || ints.clone(), capped_jsonschema_from_value)
            }
            other => panic!("no routine named {other}"),
        }
        return;
    }

    let mut group = c.benchmark_group("execute");
    let value = || args.clone();
    group.bench_function("floor_from_value", |b| {
        b.iter_batched(value, floor_from_value, BatchSize::SmallInput);
    });
    group.bench_function("tool_execute", |b| {
        b.iter_batched(value, tool_execute, BatchSize::SmallInput);
    });
    group.bench_function("floor_boxed", |b| {
        b.iter_batched(value, floor_boxed, BatchSize::SmallInput);
    });
    group.bench_function("floor_from_str", |b| b.iter(|| floor_from_str(ARGS)));
    group.bench_function("tool_execute_json", |b| b.iter(|| tool_execute_json(ARGS)));
    group.bench_function("toolkit_execute_json", |b| b.iter(|| execute_json(ARGS)));
    group.bench_function("str_via_value", |b| b.iter(|| str_via_value(ARGS)));
    group.finish();
    summary.compare_interleaved(
        "execute",
        "floor_boxed",
        "tool_execute",
        None,
        value,
        floor_boxed,
        tool_execute,
    );
    let text = || ARGS;
    summary.compare_interleaved(
        "execute",
        "floor_from_value",
        "tool_execute",
        Some(1.3),
        value,
        floor_from_value,
        tool_execute,
    );
    summary.compare_interleaved(
        "execute",
        "floor_from_str",
        "tool_execute_json",
        Some(1.3),
        text,
        floor_from_str,
        tool_execute_json,
    );
    summary.compare_interleaved(
        "execute",
        "floor_from_str",
        "toolkit_execute_json",
        Some(1.3),
        text,
        floor_from_str,
        execute_json,
    );
    summary.compare_interleaved(
        "execute",
        "str_via_value",
        "toolkit_execute_json",
        None,
        text,
        str_via_value,
        execute_json,
    );

    let mut group = c.benchmark_group("execute_error");
    let value = || missing.clone();
    group.bench_function("floor_from_value", |b| {
        b.iter_batched(value, floor_error_from_value, BatchSize::SmallInput);
    });
    group.bench_function("tool_execute", |b| {
        b.iter_batched(value, tool_execute, BatchSize::SmallInput);
    });
    group.bench_function("floor_from_str", |b| {
        b.iter(|| floor_error_from_str(MISSING));
    });
    group.bench_function("toolkit_execute_json", |b| b.iter(|| execute_json(MISSING)));
    group.finish();
    let text = || MISSING;
    summary.compare_interleaved(
        "execute_error",
        "floor_from_value",
        "tool_execute",
        None,
        value,
        floor_error_from_value,
        tool_execute,
    );
    summary.compare_interleaved(
        "execute_error",
        "floor_from_str",
        "toolkit_execute_json",
        None,
        text,
        floor_error_from_str,
        execute_json,
    );

    let mut group = c.benchmark_group("execute_nested");
    let value = || order.clone();
    group.bench_function("floor_from_value", |b| {
        b.iter_batched(value, nested_floor_from_value, BatchSize::SmallInput);
    });
    group.bench_function("tool_execute", |b| {
        b.iter_batched(value, nested_tool_execute, BatchSize::SmallInput);
    });
    group.bench_function("floor_from_str", |b| {
        b.iter(|| nested_floor_from_str(ORDER))
    });
    group.bench_function("tool_execute_json", |b| {
        b.iter(|| nested_tool_execute_json(ORDER));
    });
    group.finish();
    summary.compare_interleaved(
        "execute_nested",
        "floor_from_value",
        "tool_execute",
        None,
        value,
        nested_floor_from_value,
        nested_tool_execute,
    );
    summary.compare_interleaved(
        "execute_nested",
        "floor_from_str",
        "tool_execute_json",
        None,
        || ORDER,
        nested_floor_from_str,
        nested_tool_execute_json,
    );

    let mut group = c.benchmark_group("execute_ints");
    group.bench_function("floor_from_str", |b| b.iter(|| ints_floor_from_str(INTS)));
    group.bench_function("toolkit_execute_json", |b| {
        b.iter(|| ints_toolkit_execute_json(INTS));
    });
    group.finish();
    summary.compare_interleaved(
        "execute_ints",
        "floor_from_str",
        "toolkit_execute_json",
        Some(1.15),
        || INTS,
        ints_floor_from_str,
        ints_toolkit_execute_json,
    );
    summary.compare_interleaved(
        "execute_ints",
        "floor_from_value",
        "toolkit_execute",
        Some(1.3),
        || ints.clone(),
        ints_floor_from_value,
        ints_toolkit_execute,
    );

    c.final_summary();
    summary.print();
}

/// The routine and call count `TOOLNEXUS_BENCH_ROUTINE` / `TOOLNEXUS_BENCH_CALLS` ask for.
fn callgrind_request() -> Option<(String, usize)> {
    let calls = std::env::var("TOOLNEXUS_BENCH_CALLS").ok()?;
    let routine = std::env::var("TOOLNEXUS_BENCH_ROUTINE").expect("TOOLNEXUS_BENCH_ROUTINE");
    Some((
        routine,
        calls.parse().expect("TOOLNEXUS_BENCH_CALLS is a number"),
    ))
}

/// Warms `routine` up, makes `calls` inputs, then runs it on each inside [`measured_loop`],
/// the only code callgrind counts: inputs are made, and outputs dropped, outside it (an
/// output's drop is counted: a call's result is dropped by its caller).
fn measured<I, O>(calls: usize, mut setup: impl FnMut() -> I, mut routine: impl FnMut(I) -> O) {
    drop(routine(setup()));
    let inputs: Vec<I> = (0..calls).map(|_| setup()).collect();
    measured_loop(inputs, &mut routine);
}

#[inline(never)]
fn measured_loop<I, O>(inputs: Vec<I>, routine: &mut impl FnMut(I) -> O) {
    for input in inputs {
        drop(black_box(routine(input)));
    }
}

/// Allocations per call, subject and floor, printed once before timing.
fn print_allocations(toolkit: &Toolkit, ctx: &ToolContext, args: &Value) {
    let count = |f: &dyn Fn()| {
        f(); // warm any lazy state first
        allocations(f).1
    };
    let value_clone = count(&|| drop(black_box(args.clone())));
    let rows: [(&str, usize); 8] = [
        (
            "floor: from_value + call + to_string",
            count(&|| {
                let Args { a, b } = serde_json::from_value(args.clone()).unwrap();
                black_box(add_by_hand(a, b).to_string());
            }) - value_clone,
        ),
        (
            "floor + ToolResult in a Box::pin'd future",
            count(&|| {
                let Args { a, b } = serde_json::from_value(args.clone()).unwrap();
                let future: toolnexus::BoxFuture<'_, ToolResult> =
                    Box::pin(async move { ToolResult::ok(add_by_hand(a, b).to_string()) });
                drop(block_on(future));
            }) - value_clone,
        ),
        (
            "Tool::execute",
            count(&|| drop(block_on(AddTool.execute(args.clone(), ctx)))) - value_clone,
        ),
        (
            "Toolkit::execute",
            count(&|| drop(block_on(toolkit.execute("add", args.clone(), ctx)))) - value_clone,
        ),
        (
            "floor: from_str + call + to_string",
            count(&|| {
                let Args { a, b } = serde_json::from_str(ARGS).unwrap();
                black_box(add_by_hand(a, b).to_string());
            }),
        ),
        (
            "from_str::<Value> + from_value + call + to_string",
            count(&|| {
                let value: Value = serde_json::from_str(ARGS).unwrap();
                let Args { a, b } = serde_json::from_value(value).unwrap();
                black_box(add_by_hand(a, b).to_string());
            }),
        ),
        (
            "AddTool.execute_json",
            count(&|| drop(block_on(AddTool.execute_json(ARGS, ctx)))),
        ),
        (
            "Toolkit::execute_json",
            count(&|| drop(block_on(toolkit.execute_json("add", ARGS, ctx)))),
        ),
    ];
    println!("allocations per call (the argument Value's clone excluded):");
    for (what, n) in rows {
        println!("  {what}: {n}");
    }
}
