//! SPEC §12: state, extensions and injected values reach a `#[tool]` without reaching its
//! schema; layers run around every execution on every entry point; a visibility rule hides
//! tools per caller.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use toolnexus::context::FromToolContext;
use toolnexus::{
    Answer, Extension, Next, Request, State, Tool, ToolCall, ToolContext, ToolResult, Toolkit,
    define_tool, tool, toolbox, tools,
};

fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a current-thread runtime")
        .block_on(future)
}

struct Db {
    orders: Vec<&'static str>,
    queries: AtomicUsize,
}

fn db() -> Db {
    Db {
        orders: vec!["book", "pen", "lamp"],
        queries: AtomicUsize::new(0),
    }
}

#[derive(Clone, Debug, PartialEq)]
struct User {
    id: u64,
    admin: bool,
}

#[derive(Clone, Debug)]
struct TraceId(String);

impl FromToolContext for TraceId {
    fn from_tool_context(ctx: &ToolContext) -> Result<Self, String> {
        ctx.extension::<TraceId>()
            .cloned()
            .ok_or_else(|| "this call carries no trace id".to_owned())
    }
}

/// Lists the caller's orders.
#[tool]
async fn my_orders(
    db: State<Db>,
    /// How many to list.
    limit: u32,
    user: Extension<User>,
    #[param(inject)] trace: TraceId,
    tenant: Option<Extension<String>>,
) -> String {
    db.queries.fetch_add(1, Ordering::SeqCst);
    let orders: Vec<_> = db.orders.iter().take(limit as usize).collect();
    format!(
        "user {} ({}) tenant {:?}: {orders:?}",
        user.id,
        trace.0,
        tenant.map(|t| t.0)
    )
}

fn caller() -> ToolContext {
    ToolContext::default()
        .with_extension(User {
            id: 7,
            admin: false,
        })
        .with_extension(TraceId("t-1".into()))
}

#[test]
fn injected_parameters_never_reach_the_schema() {
    let toolkit = Toolkit::new().with_state(db()).with_all(tools![my_orders]);
    let schema = toolkit.tools()[0].input_schema();
    let properties: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
    assert_eq!(properties, ["limit"]);
    assert_eq!(schema["required"], json!(["limit"]));
    assert_eq!(schema["additionalProperties"], false);
}

#[test]
fn state_extensions_and_injected_values_reach_the_fn() {
    let toolkit = Toolkit::new().with_state(db()).with_all(tools![my_orders]);
    let ctx = caller().with_extension(String::from("acme"));
    let result = block_on(toolkit.execute_json("my_orders", r#"{"limit": 2}"#, &ctx));
    assert_eq!(
        result.output,
        r#"user 7 (t-1) tenant Some("acme"): ["book", "pen"]"#
    );
    // The `Value` entry point takes the same path.
    let result = block_on(toolkit.execute("my_orders", json!({"limit": 1}), &caller()));
    assert_eq!(result.output, r#"user 7 (t-1) tenant None: ["book"]"#);
}

#[test]
fn a_missing_value_is_named_and_the_fn_never_runs() {
    let state = Arc::new(db());
    let counting = Toolkit::new().with_all(tools![my_orders]);
    // No state.
    let result = block_on(counting.execute_json("my_orders", r#"{"limit": 2}"#, &caller()));
    assert!(result.is_error);
    assert_eq!(
        result.output,
        "tool `my_orders` needs `State<Db>`, which the toolkit does not hold"
    );
    assert_eq!(
        counting.missing_state(),
        [("my_orders".to_owned(), "Db")],
        "found before any call"
    );

    let toolkit = Toolkit::new()
        .with_state(Arc::clone(&state))
        .with_state(db())
        .with_all(tools![my_orders]);
    assert!(toolkit.missing_state().is_empty());
    // No user.
    let ctx = ToolContext::default().with_extension(TraceId("t".into()));
    let result = block_on(toolkit.execute_json("my_orders", r#"{"limit": 2}"#, &ctx));
    assert_eq!(
        result.output,
        "tool `my_orders` needs `Extension<User>`, which this call does not carry"
    );
    // `FromToolContext` says why.
    let ctx = ToolContext::default().with_extension(User { id: 1, admin: true });
    let result = block_on(toolkit.execute_json("my_orders", r#"{"limit": 2}"#, &ctx));
    assert!(result.is_error);
    assert_eq!(
        result.output,
        "tool `my_orders`: this call carries no trace id"
    );
    // Bad arguments first: the §5 error, whatever is missing.
    let result = block_on(toolkit.execute_json("my_orders", r#"{"limit": -1}"#, &ctx));
    assert!(
        result
            .output
            .starts_with("invalid arguments for `my_orders`: field `limit`"),
        "{}",
        result.output
    );
    let held = toolkit.tools()[0].as_ref();
    let direct = block_on(held.execute(json!({"limit": 1}), &caller()));
    assert_eq!(
        direct.output, "tool `my_orders` needs `State<Db>`, which the toolkit does not hold",
        "outside a toolkit only the context's extensions are seen"
    );
    assert_eq!(state.queries.load(Ordering::SeqCst), 0);
}

#[test]
fn state_of_the_same_type_again_replaces_it_and_is_shared() {
    let first = Arc::new(db());
    let toolkit = Toolkit::new()
        .with_state(db())
        .with_state(Arc::clone(&first))
        .with_all(tools![count_queries]);
    for _ in 0..3 {
        block_on(toolkit.execute_json("count_queries", "", &ToolContext::default()));
    }
    assert_eq!(first.queries.load(Ordering::SeqCst), 3);
    let clone = toolkit.clone();
    block_on(clone.execute_json("count_queries", "", &ToolContext::default()));
    assert_eq!(
        first.queries.load(Ordering::SeqCst),
        4,
        "clones share the state"
    );
}

/// Counts the queries made through the shared handle.
#[tool]
fn count_queries(db: State<Arc<Db>>) -> usize {
    db.queries.fetch_add(1, Ordering::SeqCst) + 1
}

struct Shop {
    name: &'static str,
}

#[toolbox]
impl Shop {
    /// Greets the caller by id.
    #[tool]
    fn greet(&self, user: Extension<User>, loud: bool, db: State<Db>) -> String {
        let text = format!(
            "{} greets {} ({} orders)",
            self.name,
            user.id,
            db.orders.len()
        );
        if loud { text.to_uppercase() } else { text }
    }
}

#[test]
fn toolbox_methods_take_injected_values_too() {
    let shop = Arc::new(Shop { name: "corner" });
    let toolkit = Toolkit::new().with_state(db()).with_all(shop.tools());
    assert_eq!(
        toolkit.tools()[0].input_schema()["required"],
        json!(["loud"])
    );
    let result = block_on(toolkit.execute_json("greet", r#"{"loud": false}"#, &caller()));
    assert_eq!(result.output, "corner greets 7 (3 orders)");
}

#[test]
fn define_tool_closures_read_state_and_extensions_through_the_context() {
    let whoami = define_tool("whoami", "Who is calling", json!({"type": "object"}))
        .unwrap()
        .sync(|_: Value, ctx: &ToolContext| {
            let orders = ctx.state::<Db>().map_or(0, |db| db.orders.len());
            match ctx.extension::<User>() {
                Some(user) => format!("{} with {orders}", user.id),
                None => "nobody".to_owned(),
            }
        });
    let toolkit = Toolkit::new().with_state(db()).with(whoami);
    assert_eq!(
        block_on(toolkit.execute("whoami", json!({}), &caller())).output,
        "7 with 3"
    );
    assert_eq!(
        block_on(toolkit.execute("whoami", json!({}), &ToolContext::default())).output,
        "nobody"
    );
}

/// Adds two numbers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Deletes a note once approved.
#[tool(approval = "Delete note {id}?")]
fn delete_note(id: u32, user: Extension<User>) -> String {
    format!("note {id} deleted by {}", user.id)
}

type Log = Arc<Mutex<Vec<String>>>;

/// A layer that records `label: name(args)` before and `label: output` after.
fn recording(
    log: &Log,
    label: &'static str,
) -> impl Fn(ToolCall, ToolContext, Next) -> toolnexus::BoxFuture<'static, ToolResult>
+ Send
+ Sync
+ 'static {
    let log = Arc::clone(log);
    move |call: ToolCall, ctx: ToolContext, next: Next| {
        let log = Arc::clone(&log);
        Box::pin(async move {
            log.lock().unwrap().push(format!(
                "{label} in: {} {} {}",
                call.id, call.name, call.arguments
            ));
            let result = next.run(call, ctx).await;
            log.lock()
                .unwrap()
                .push(format!("{label} out: {}", result.output));
            result
        })
    }
}

fn taken(log: &Log) -> Vec<String> {
    std::mem::take(&mut *log.lock().unwrap())
}

#[test]
fn layers_run_outermost_first_on_every_entry_point() {
    let log = Log::default();
    let toolkit = Toolkit::new()
        .with_all(tools![add, delete_note])
        .around(recording(&log, "outer"))
        .around(recording(&log, "inner"));
    let ctx = caller();

    block_on(toolkit.execute_json("add", r#"{"a":1,"b":2}"#, &ctx));
    assert_eq!(
        taken(&log),
        [
            r#"outer in:  add {"a":1,"b":2}"#,
            r#"inner in:  add {"a":1,"b":2}"#,
            "inner out: 3",
            "outer out: 3"
        ]
    );

    block_on(toolkit.execute("add", json!({"a": 2, "b": 2}), &ctx));
    assert_eq!(taken(&log)[0], r#"outer in:  add {"a":2,"b":2}"#);

    let calls = [
        ToolCall {
            id: "call_1".into(),
            name: "add".into(),
            arguments: r#"{"a":1,"b":1}"#.into(),
        },
        ToolCall {
            id: "call_2".into(),
            name: "add".into(),
            arguments: r#"{"a":5,"b":5}"#.into(),
        },
    ];
    let results = block_on(toolkit.run_calls(&calls, &ctx));
    assert_eq!(
        (results[0].output.as_str(), results[1].output.as_str()),
        ("2", "10")
    );
    let seen = taken(&log);
    assert!(
        seen.contains(&r#"outer in: call_1 add {"a":1,"b":1}"#.to_owned()),
        "{seen:?}"
    );
    assert!(
        seen.contains(&r#"outer in: call_2 add {"a":5,"b":5}"#.to_owned()),
        "{seen:?}"
    );

    // `call_with`: both executions, the one after the answer too.
    let approve = |request: Request| async move {
        Answer {
            id: request.id,
            ok: true,
            data: None,
            reason: None,
        }
    };
    let done = block_on(toolkit.call_with("delete_note", json!({"id": 3}), &ctx, approve));
    assert_eq!(done.output, "note 3 deleted by 7");
    let seen = taken(&log);
    assert_eq!(
        seen.iter()
            .filter(|line| line.starts_with("outer in"))
            .count(),
        2,
        "{seen:?}"
    );
    assert_eq!(seen.last().unwrap(), "outer out: note 3 deleted by 7");
}

#[test]
fn a_layer_may_rewrite_the_call_and_the_context_answer_itself_or_change_the_result() {
    let toolkit = Toolkit::new()
        .with_all(tools![add, my_orders])
        .with_state(db())
        .around(
            |mut call: ToolCall, mut ctx: ToolContext, next: Next| async move {
                if call.name == "add" && call.arguments.contains("\"a\":0") {
                    return ToolResult::error("zero is not allowed here");
                }
                if call.name == "add" {
                    call.arguments = call.arguments.replace("\"b\":1", "\"b\":100");
                }
                ctx.insert_extension(TraceId("from-layer".into()));
                ctx.insert_extension(User {
                    id: 99,
                    admin: true,
                });
                let mut result = next.run(call, ctx).await;
                result.output.push('!');
                result
            },
        );
    let ctx = ToolContext::default();
    assert_eq!(
        block_on(toolkit.execute_json("add", r#"{"a":1,"b":1}"#, &ctx)).output,
        "101!"
    );
    let denied = block_on(toolkit.execute_json("add", r#"{"a":0,"b":1}"#, &ctx));
    assert_eq!(
        (denied.output.as_str(), denied.is_error),
        ("zero is not allowed here", true)
    );
    assert_eq!(
        block_on(toolkit.execute_json("my_orders", r#"{"limit":1}"#, &ctx)).output,
        r#"user 99 (from-layer) tenant None: ["book"]!"#
    );
}

#[test]
fn a_layer_that_renames_the_call_routes_it() {
    let toolkit = Toolkit::new()
        .with_all(tools![add, count_queries])
        .with_state(Arc::new(db()))
        .around(
            |mut call: ToolCall, ctx: ToolContext, next: Next| async move {
                if call.name == "add" {
                    call.name = "count_queries".into();
                    call.arguments = "{}".into();
                } else {
                    call.name = "nowhere".into();
                }
                next.run(call, ctx).await
            },
        );
    let ctx = ToolContext::default();
    assert_eq!(
        block_on(toolkit.execute_json("add", "{}", &ctx)).output,
        "1"
    );
    assert_eq!(
        block_on(toolkit.execute_json("count_queries", "{}", &ctx)).output,
        "Unknown tool: nowhere"
    );
}

#[test]
fn a_panicking_layer_is_contained_and_deadlines_enclose_the_chain() {
    let toolkit = Toolkit::new().with_all(tools![add]).around(
        |call: ToolCall, ctx: ToolContext, next: Next| async move {
            match call.arguments.as_str() {
                r#"{"a":1,"b":1}"# => panic!("layer bug"),
                r#"{"a":2,"b":2}"# => {
                    tokio::time::sleep(Duration::from_secs(30)).await;
                    next.run(call, ctx).await
                }
                _ => next.run(call, ctx).await,
            }
        },
    );
    let ctx = ToolContext::default();
    let panicked = block_on(toolkit.execute_json("add", r#"{"a":1,"b":1}"#, &ctx));
    assert!(panicked.is_error);
    assert_eq!(panicked.output, "tool `add` panicked: layer bug");
    let timed = ToolContext {
        timeout: Some(Duration::from_millis(20)),
        ..ToolContext::default()
    };
    let late = block_on(toolkit.execute_json("add", r#"{"a":2,"b":2}"#, &timed));
    assert_eq!(late.output, "tool `add` timed out after 20ms");
    let cancelled = ToolContext::default();
    cancelled.cancel.cancel();
    let stopped = block_on(toolkit.execute_json("add", r#"{"a":2,"b":2}"#, &cancelled));
    assert_eq!(stopped.output, "tool `add` was cancelled");
    assert_eq!(
        block_on(toolkit.execute_json("add", r#"{"a":3,"b":3}"#, &ctx)).output,
        "6",
        "the toolkit keeps working"
    );
}

fn visible_to_admins(tool: &dyn Tool, ctx: &ToolContext) -> bool {
    !tool.name().starts_with("delete_") || ctx.extension::<User>().is_some_and(|user| user.admin)
}

#[test]
fn hidden_tools_are_unknown_on_every_entry_point_before_any_layer() {
    let log = Log::default();
    let toolkit = Toolkit::new()
        .with_all(tools![add, delete_note])
        .around(recording(&log, "audit"))
        .visible_if(visible_to_admins);
    let guest = caller();
    let admin = ToolContext::default().with_extension(User { id: 1, admin: true });
    let names = |ctx: &ToolContext| -> Vec<String> {
        toolkit
            .visible_tools(ctx)
            .iter()
            .map(|tool| tool.name().to_owned())
            .collect()
    };
    assert_eq!(names(&guest), ["add"]);
    assert_eq!(names(&admin), ["add", "delete_note"]);
    assert_eq!(toolkit.tools().len(), 2, "tools() lists every tool");
    assert_eq!(toolkit.to_openai().as_array().unwrap().len(), 2);

    let unknown = "Unknown tool: delete_note";
    let args = json!({"id": 1});
    assert_eq!(
        block_on(toolkit.execute("delete_note", args.clone(), &guest)).output,
        unknown
    );
    assert_eq!(
        block_on(toolkit.execute_json("delete_note", r#"{"id":1}"#, &guest)).output,
        unknown
    );
    let call = ToolCall {
        id: "c".into(),
        name: "delete_note".into(),
        arguments: r#"{"id":1}"#.into(),
    };
    assert_eq!(
        block_on(toolkit.run_calls(&[call], &guest))[0].output,
        unknown
    );
    let asked = AtomicUsize::new(0);
    let never = |request: Request| {
        asked.fetch_add(1, Ordering::SeqCst);
        async move {
            Answer {
                id: request.id,
                ok: true,
                data: None,
                reason: None,
            }
        }
    };
    assert_eq!(
        block_on(toolkit.call_with("delete_note", args.clone(), &guest, never)).output,
        unknown
    );
    assert_eq!(
        asked.load(Ordering::SeqCst),
        0,
        "nobody is asked about a hidden tool"
    );
    assert!(taken(&log).is_empty(), "no layer ran for a hidden tool");

    let shown = block_on(toolkit.execute_json("delete_note", r#"{"id":1}"#, &admin));
    assert!(shown.is_pending(), "{shown:?}");
    assert_eq!(taken(&log).len(), 2);
}

#[test]
fn a_toolkit_without_additions_runs_tools_as_before() {
    let toolkit = Toolkit::new().with_all(tools![add]);
    assert!(toolkit.missing_state().is_empty());
    let ctx = ToolContext::default();
    assert_eq!(
        block_on(toolkit.execute_json("add", r#"{"a":1,"b":2}"#, &ctx)).output,
        "3"
    );
    assert_eq!(toolkit.visible_tools(&ctx).len(), 1);
}
