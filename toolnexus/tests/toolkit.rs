//! Toolkit: registration, execution, panics, the §10 loop rule, and the provider adapters with
//! their schema profiles.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Map, Value, json};
use toolnexus::{
    Answer, BoxFuture, GEMINI_RECURSION_DEPTH, Reason, Request, Tool, ToolContext, ToolResult,
    Toolkit, define_tool, gemini_schema, openai_strict_schema, pending,
};

use common::{add_tool, block_on, golden};

fn echo_args(name: &str) -> toolnexus::FnTool {
    define_tool(name, "Echo the arguments", json!({"type": "object"}))
        .unwrap()
        .sync(|args: Value, _: &ToolContext| args.to_string())
}

#[test]
fn first_registration_wins_and_lookup_finds_tools() {
    let first = define_tool("dup", "first", json!({"type": "object"}))
        .unwrap()
        .sync(|_: Value, _: &ToolContext| "first");
    let second: Arc<dyn Tool> = Arc::new(
        define_tool("dup", "second", json!({"type": "object"}))
            .unwrap()
            .sync(|_: Value, _: &ToolContext| "second"),
    );
    let mut tk = Toolkit::new()
        .with(first)
        .with(add_tool())
        .with_all([second, Arc::new(echo_args("echo")) as Arc<dyn Tool>]);
    assert!(!tk.register(Arc::new(add_tool())));
    let names: Vec<&str> = tk.tools().iter().map(|tool| tool.name()).collect();
    assert_eq!(names, ["dup", "add", "echo"]);
    assert_eq!(tk.len(), 3);
    assert!(!tk.is_empty());
    assert_eq!(tk.get("dup").unwrap().description(), "first");
    assert!(tk.get("missing").is_none());
    assert_eq!(format!("{tk:?}"), r#"["dup", "add", "echo"]"#);

    let ctx = ToolContext::default();
    block_on(async {
        assert_eq!(tk.execute("dup", json!({}), &ctx).await.output, "first");
        assert_eq!(
            tk.execute("add", json!({"a": 1, "b": 2}), &ctx)
                .await
                .output,
            "3"
        );
    });
}

#[test]
fn unknown_tool_is_an_error_result() {
    let tk = Toolkit::new().with(add_tool());
    let ctx = ToolContext::default();
    block_on(async {
        let result = tk.execute("sub", json!({}), &ctx).await;
        assert_eq!(result, ToolResult::error("Unknown tool: sub"));
        let result = tk.execute_json("sub", "not json", &ctx).await;
        assert_eq!(result, ToolResult::error("Unknown tool: sub"));
    });
}

#[test]
fn execute_json_reads_raw_model_arguments() {
    let tk = Toolkit::new().with(add_tool()).with(echo_args("echo"));
    let ctx = ToolContext::default();
    block_on(async {
        assert_eq!(
            tk.execute_json("add", r#"{"a":1.5,"b":2}"#, &ctx)
                .await
                .output,
            "3.5"
        );
        for blank in ["", "   ", "\n\t "] {
            let result = tk.execute_json("echo", blank, &ctx).await;
            assert_eq!(result, ToolResult::ok("{}"), "for {blank:?}");
        }
        let result = tk.execute_json("echo", r#"{"a": 1"#, &ctx).await;
        assert!(result.is_error);
        assert!(
            result
                .output
                .starts_with("invalid arguments for `echo`: EOF while parsing an object"),
            "{}",
            result.output
        );
    });
}

/// A tool whose `execute` panics before it even returns a future.
struct PanicsSynchronously;

impl Tool for PanicsSynchronously {
    fn name(&self) -> &str {
        "sync_boom"
    }
    fn description(&self) -> &str {
        "Panics while building its future"
    }
    fn input_schema(&self) -> &Map<String, Value> {
        static SCHEMA: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
        SCHEMA.get_or_init(|| {
            let mut schema = Map::new();
            schema.insert("type".into(), "object".into());
            schema
        })
    }
    fn execute<'a>(&'a self, _args: Value, _ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        panic!("no future for you")
    }
}

fn mid_await_panicker() -> toolnexus::FnTool {
    define_tool(
        "boom",
        "Panics after a yield point",
        json!({"type": "object"}),
    )
    .unwrap()
    .run(|args: Value, _ctx: ToolContext| async move {
        tokio::task::yield_now().await;
        match args["payload"].as_str() {
            Some("str") => panic!("static message"),
            Some("none") => std::panic::panic_any(42_u8),
            _ => panic!("call {} failed", args["n"]),
        }
        #[allow(unreachable_code)]
        ToolResult::ok("unreachable")
    })
}

fn slow_echo(counter: Arc<AtomicUsize>) -> toolnexus::FnTool {
    define_tool(
        "slow_echo",
        "Echoes n after yielding",
        json!({"type": "object"}),
    )
    .unwrap()
    .run(move |args: Value, _ctx: ToolContext| {
        let counter = Arc::clone(&counter);
        async move {
            tokio::task::yield_now().await;
            counter.fetch_add(1, Ordering::Relaxed);
            tokio::task::yield_now().await;
            args["n"].to_string()
        }
    })
}

#[test]
fn panic_while_building_the_future_becomes_an_error() {
    let tk = Toolkit::new().with(PanicsSynchronously).with(add_tool());
    let ctx = ToolContext::default();
    block_on(async {
        let result = tk.execute("sync_boom", json!({}), &ctx).await;
        assert_eq!(
            result,
            ToolResult::error("tool `sync_boom` panicked: no future for you")
        );
        assert_eq!(
            tk.execute("add", json!({"a": 1, "b": 1}), &ctx)
                .await
                .output,
            "2"
        );
    });
}

#[test]
fn panic_messages_cover_str_string_and_other_payloads() {
    let tk = Toolkit::new().with(mid_await_panicker());
    let ctx = ToolContext::default();
    block_on(async {
        let cases = [
            (json!({"payload": "str"}), "static message"),
            (json!({"n": 7}), "call 7 failed"),
            (
                json!({"payload": "none"}),
                "the panic payload is not a string",
            ),
        ];
        for (args, message) in cases {
            let result = tk.execute("boom", args, &ctx).await;
            assert!(result.is_error);
            assert_eq!(result.output, format!("tool `boom` panicked: {message}"));
        }
    });
}

#[test]
fn a_panic_mid_await_among_a_thousand_calls_leaves_every_other_call_intact() {
    let counter = Arc::new(AtomicUsize::new(0));
    let tk = Arc::new(
        Toolkit::new()
            .with(mid_await_panicker())
            .with(slow_echo(Arc::clone(&counter))),
    );
    // One thread, so the panicking future is interleaved with the others at every yield.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let results = runtime.block_on(async {
        let mut handles = Vec::new();
        for n in 0..1_001_u32 {
            let tk = Arc::clone(&tk);
            handles.push(tokio::spawn(async move {
                let ctx = ToolContext::default();
                // Call 500 panics; the 1,000 around it must not notice.
                let name = if n == 500 { "boom" } else { "slow_echo" };
                (n, tk.execute(name, json!({"n": n}), &ctx).await)
            }));
        }
        let mut results = Vec::new();
        for handle in handles {
            results.push(handle.await.expect("no task panicked"));
        }
        results
    });
    for (n, result) in results {
        if n == 500 {
            assert_eq!(
                result,
                ToolResult::error("tool `boom` panicked: call 500 failed")
            );
        } else {
            assert_eq!(result, ToolResult::ok(n.to_string()));
        }
    }
    assert_eq!(counter.load(Ordering::Relaxed), 1_000);
    // And the toolkit still works afterwards.
    let again = runtime.block_on(tk.execute("slow_echo", json!({"n": 1}), &ToolContext::default()));
    assert_eq!(again.output, "1");
}

/// Suspends until answered; with an answer, reports what it got.
fn deploy_tool(executions: Arc<AtomicUsize>, suspend_twice: bool) -> toolnexus::FnTool {
    define_tool(
        "deploy",
        "Deploys after approval",
        json!({"type": "object"}),
    )
    .unwrap()
    .sync(move |args: Value, ctx: &ToolContext| {
        executions.fetch_add(1, Ordering::Relaxed);
        if args["skip_approval"] == true {
            return ToolResult::ok("deployed without asking");
        }
        match &ctx.answer {
            Some(answer) if !suspend_twice => ToolResult::ok(format!(
                "deployed {} with {} (timeout {:?})",
                args["service"],
                answer
                    .data
                    .as_ref()
                    .map_or(Value::Null, |d| d["by"].clone()),
                ctx.timeout
            )),
            Some(_) => pending(Request::new("approval", "Really, really deploy?")),
            None => pending(
                Request::new("approval", "Deploy to production?")
                    .with_id("pnd-fixed")
                    .with_url("https://ci.example/approve"),
            ),
        }
    })
}

fn answer(ok: bool, reason: Option<Reason>) -> impl FnOnce(Request) -> std::future::Ready<Answer> {
    move |request: Request| {
        let mut data = Map::new();
        data.insert("by".into(), "alice".into());
        std::future::ready(Answer {
            id: request.id,
            ok,
            data: Some(data),
            reason,
        })
    }
}

#[test]
fn call_re_executes_once_with_the_answer() {
    let executions = Arc::new(AtomicUsize::new(0));
    let tk = Toolkit::new().with(deploy_tool(Arc::clone(&executions), false));
    block_on(async {
        let seen = Arc::new(std::sync::Mutex::new(None));
        let seen_in = Arc::clone(&seen);
        let result = tk
            .call(
                "deploy",
                json!({"service": "api"}),
                |request: Request| async move {
                    tokio::task::yield_now().await;
                    *seen_in.lock().unwrap() = Some(request.clone());
                    answer(true, None)(request).await
                },
            )
            .await;
        assert_eq!(
            result,
            ToolResult::ok(r#"deployed "api" with "alice" (timeout None)"#)
        );
        let request = seen.lock().unwrap().clone().unwrap();
        assert_eq!(request.id, "pnd-fixed");
        assert_eq!(request.url.as_deref(), Some("https://ci.example/approve"));
    });
    assert_eq!(executions.load(Ordering::Relaxed), 2);
}

#[test]
fn call_with_keeps_the_callers_context() {
    let tk = Toolkit::new().with(deploy_tool(Arc::new(AtomicUsize::new(0)), false));
    let ctx = ToolContext {
        timeout: Some(Duration::from_secs(5)),
        ..ToolContext::default()
    };
    let result =
        block_on(tk.call_with("deploy", json!({"service": "db"}), &ctx, answer(true, None)));
    assert_eq!(
        result.output,
        r#"deployed "db" with "alice" (timeout Some(5s))"#
    );
}

#[test]
fn call_without_a_suspension_never_asks() {
    let executions = Arc::new(AtomicUsize::new(0));
    let tk = Toolkit::new().with(deploy_tool(Arc::clone(&executions), false));
    let result = block_on(tk.call(
        "deploy",
        json!({"skip_approval": true}),
        |_: Request| async { unreachable!("wait_for must not be called") },
    ));
    assert_eq!(result, ToolResult::ok("deployed without asking"));
    assert_eq!(executions.load(Ordering::Relaxed), 1);
    let unknown = block_on(tk.call("nope", json!({}), answer(true, None)));
    assert_eq!(unknown, ToolResult::error("Unknown tool: nope"));
}

#[test]
fn call_reports_any_refusal_as_declined_expired_whatever_the_reason() {
    let cases = [
        Some(Reason::Declined),
        None,
        Some(Reason::Expired),
        Some(Reason::Cancelled),
    ];
    // SPEC §10 and every port (Python 0.21.0's client.py, the upstream Rust crate): one
    // literal wording whatever the reason.
    let expected = "declined/expired: Deploy to production?";
    for reason in cases {
        let executions = Arc::new(AtomicUsize::new(0));
        let tk = Toolkit::new().with(deploy_tool(Arc::clone(&executions), false));
        let result = block_on(tk.call("deploy", json!({}), answer(false, reason)));
        assert_eq!(result, ToolResult::error(expected));
        assert!(!result.is_pending());
        assert_eq!(executions.load(Ordering::Relaxed), 1, "no re-execution");
    }
}

#[test]
fn call_gives_up_when_the_tool_suspends_again() {
    let executions = Arc::new(AtomicUsize::new(0));
    let tk = Toolkit::new().with(deploy_tool(Arc::clone(&executions), true));
    let result = block_on(tk.call("deploy", json!({}), answer(true, None)));
    assert_eq!(
        result,
        ToolResult::error("unresolved: Deploy to production?")
    );
    assert!(!result.is_pending());
    assert_eq!(executions.load(Ordering::Relaxed), 2);
}

// ---------------------------------------------------------------------------------------------
// Adapters

#[test]
fn adapters_match_the_golden_shapes() {
    let golden = golden();
    let tk = Toolkit::new().with(add_tool());
    assert_eq!(tk.to_openai(), golden["adapters"]["openai"]);
    assert_eq!(tk.to_anthropic(), golden["adapters"]["anthropic"]);
    assert_eq!(tk.to_gemini(), golden["adapters"]["gemini"]);
    assert_eq!(
        tk.to_mcp(),
        json!([{
            "name": "add",
            "description": "Add two numbers",
            "inputSchema": golden["adapters"]["anthropic"][0]["input_schema"],
        }])
    );
    let strict = tk.to_openai_strict();
    assert_eq!(strict[0]["type"], "function");
    assert_eq!(strict[0]["function"]["strict"], true);
    assert_eq!(
        strict[0]["function"]["parameters"],
        json!({
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"],
            "additionalProperties": false,
        })
    );
}

#[test]
fn adapters_clone_the_cached_schema_and_leave_it_unchanged() {
    let tk = Toolkit::new().with(schema_tool("weather", weather_schema()));
    let before = tk.get("weather").unwrap().input_schema().clone();
    let _ = (
        tk.to_openai(),
        tk.to_openai_strict(),
        tk.to_gemini(),
        tk.to_anthropic(),
        tk.to_mcp(),
    );
    assert_eq!(tk.get("weather").unwrap().input_schema(), &before);
    assert_eq!(
        tk.to_openai()[0]["function"]["parameters"],
        Value::Object(before.clone())
    );
    assert_eq!(tk.to_mcp()[0]["inputSchema"], Value::Object(before));
}

#[test]
fn a_tool_without_parameters_is_declared_without_parameters_for_gemini() {
    let tk = Toolkit::new().with(
        define_tool(
            "now",
            "Current time",
            json!({"type": "object", "properties": {}}),
        )
        .unwrap()
        .sync(|_: Value, _: &ToolContext| "noon"),
    );
    assert_eq!(
        tk.to_gemini(),
        json!([{"functionDeclarations": [{"name": "now", "description": "Current time"}]}])
    );
    assert_eq!(
        tk.to_openai_strict()[0]["function"]["parameters"],
        json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false})
    );
}

fn schema_tool(name: &str, schema: Value) -> toolnexus::FnTool {
    define_tool(name, format!("The {name} tool"), schema)
        .unwrap()
        .sync(|_: Value, _: &ToolContext| "ok")
}

/// Optional, defaulted, enum and nested fields, the way `#[tool]` + schemars emit them.
fn weather_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "City name"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "description": "Unit"},
            "days": {"type": "integer", "minimum": 0, "maximum": 255, "default": 3},
            "at": {"type": ["string", "null"], "format": "date-time"},
            "place": {
                "type": "object",
                "description": "Where exactly",
                "properties": {
                    "lat": {"type": "number", "format": "double"},
                    "lon": {"type": "number"},
                    "label": {"type": ["string", "null"], "default": null},
                },
                "required": ["lat", "lon"],
                "additionalProperties": false,
            },
            "tags": {"type": "array", "items": {"type": "string", "format": "uuid"}},
        },
        "required": ["city"],
        "additionalProperties": false,
    })
}

/// A recursive type: schemars keeps `$defs` + `$ref` for it.
fn tree_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "root": {"$ref": "#/$defs/Node", "description": "The tree"},
            "spare": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]},
        },
        "required": ["root"],
        "additionalProperties": false,
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {
                    "value": {"type": "integer"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                    "parent": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]},
                },
                "required": ["value", "children"],
            },
        },
    })
}

/// An externally tagged enum (oneOf of const-tagged objects) and a `const`.
fn shape_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "shape": {
                "oneOf": [
                    {
                        "type": "object",
                        "properties": {"kind": {"type": "string", "const": "circle"}, "r": {"type": "number"}},
                        "required": ["kind", "r"],
                    },
                    {
                        "type": "object",
                        "properties": {"kind": {"type": "string", "const": "square"}, "side": {"type": "number"}},
                        "required": ["kind", "side"],
                    },
                ],
            },
            "version": {"const": 2},
            "mode": {"enum": ["fast", "slow", null]},
            "level": {"enum": [1, 2, 3], "type": "integer"},
            "either": {"type": ["string", "integer"], "description": "A name or an id"},
            "limits": {"type": "object", "additionalProperties": {"type": "integer"}},
            "merged": {"allOf": [{"$ref": "#/$defs/Base"}, {"properties": {"extra": {"type": "boolean"}}}]},
        },
        "required": ["shape", "merged"],
        "$defs": {
            "Base": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
        },
    })
}

fn schemas() -> Vec<(&'static str, Value)> {
    vec![
        (
            "add",
            golden()["adapters"]["anthropic"][0]["input_schema"].clone(),
        ),
        ("weather", weather_schema()),
        ("tree", tree_schema()),
        ("shape", shape_schema()),
    ]
}

fn all_tools() -> Toolkit {
    Toolkit::new().with_all(
        schemas()
            .into_iter()
            .map(|(name, schema)| Arc::new(schema_tool(name, schema)) as Arc<dyn Tool>),
    )
}

/// Visits every schema position under `schema`, the root included.
fn walk(schema: &Value, path: &str, visit: &mut dyn FnMut(&Map<String, Value>, &str)) {
    let Value::Object(map) = schema else { return };
    visit(map, path);
    for key in ["properties", "$defs", "definitions", "patternProperties"] {
        if let Some(Value::Object(children)) = map.get(key) {
            for (name, child) in children {
                walk(child, &format!("{path}/{key}/{name}"), visit);
            }
        }
    }
    for key in ["anyOf", "oneOf", "allOf", "prefixItems"] {
        if let Some(Value::Array(children)) = map.get(key) {
            for (at, child) in children.iter().enumerate() {
                walk(child, &format!("{path}/{key}/{at}"), visit);
            }
        }
    }
    for key in ["items", "additionalProperties", "not"] {
        if let Some(child) = map.get(key) {
            walk(child, &format!("{path}/{key}"), visit);
        }
    }
}

fn is_object(map: &Map<String, Value>) -> bool {
    map.get("type") == Some(&json!("object"))
        || map
            .get("type")
            .and_then(Value::as_array)
            .is_some_and(|t| t.contains(&json!("object")))
        || map.contains_key("properties")
}

fn admits_null(schema: &Value) -> bool {
    let Value::Object(map) = schema else {
        return schema == &Value::Bool(true);
    };
    if map
        .get("enum")
        .and_then(Value::as_array)
        .is_some_and(|e| e.contains(&Value::Null))
        && !map.contains_key("type")
    {
        return true;
    }
    match map.get("type") {
        Some(Value::String(t)) => t == "null",
        Some(Value::Array(types)) => {
            types.contains(&json!("null"))
                && map
                    .get("enum")
                    .is_none_or(|e| e.as_array().unwrap().contains(&Value::Null))
        }
        _ => map
            .get("anyOf")
            .and_then(Value::as_array)
            .is_some_and(|branches| branches.iter().any(admits_null)),
    }
}

/// OpenAI strict mode, as documented: every object closed and fully required, what was
/// optional now nullable, no `default`, no `oneOf`, every `$ref` resolvable.
pub(crate) fn check_strict(name: &str, portable: &Value, strict: &Value) {
    let root = strict.as_object().unwrap();
    walk(strict, "#", &mut |map, path| {
        assert!(!map.contains_key("default"), "{name} {path}: default left");
        assert!(!map.contains_key("oneOf"), "{name} {path}: oneOf left");
        if let Some(Value::String(reference)) = map.get("$ref") {
            let target = reference.strip_prefix('#').unwrap();
            assert!(
                strict.pointer(target).is_some(),
                "{name} {path}: dangling {reference}"
            );
        }
        if is_object(map) {
            assert_eq!(
                map.get("additionalProperties"),
                Some(&json!(false)),
                "{name} {path}: object not closed"
            );
            let properties = map["properties"].as_object().unwrap();
            let required: Vec<&str> = map["required"]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| n.as_str().unwrap())
                .collect();
            let names: Vec<&str> = properties.keys().map(String::as_str).collect();
            assert_eq!(required, names, "{name} {path}: not fully required");
        }
    });
    // Every property that was optional in the portable schema now admits null.
    walk(portable, "#", &mut |map, path| {
        let Some(Value::Object(properties)) = map.get("properties") else {
            return;
        };
        let required = map
            .get("required")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        for (property, _) in properties {
            if required.contains(&json!(property)) {
                continue;
            }
            let strict_path = format!("{}/properties/{}", &path[1..], property);
            let rewritten = strict
                .pointer(&strict_path)
                .unwrap_or_else(|| panic!("{name}: {strict_path} missing from the strict schema"));
            assert!(
                admits_null(rewritten),
                "{name} {strict_path}: optional but not nullable: {rewritten}"
            );
        }
    });
    assert_eq!(root.get("type"), Some(&json!("object")));
}

/// Gemini's OpenAPI 3.0 subset: known keywords only, no references, no type arrays, string
/// enums, and objects that list their properties.
pub(crate) fn check_gemini(name: &str, lowered: &Value) {
    const ALLOWED: [&str; 19] = [
        "type",
        "format",
        "title",
        "description",
        "nullable",
        "enum",
        "properties",
        "required",
        "items",
        "anyOf",
        "minItems",
        "maxItems",
        "minLength",
        "maxLength",
        "pattern",
        "minimum",
        "maximum",
        "minProperties",
        "maxProperties",
    ];
    walk(lowered, "#", &mut |map, path| {
        for key in map.keys() {
            assert!(
                ALLOWED.contains(&key.as_str()),
                "{name} {path}: `{key}` is not OpenAPI 3.0 for Gemini"
            );
        }
        if let Some(kind) = map.get("type") {
            let kind = kind
                .as_str()
                .unwrap_or_else(|| panic!("{name} {path}: type array {kind}"));
            assert!(
                ["string", "number", "integer", "boolean", "array", "object"].contains(&kind),
                "{name} {path}: type {kind}"
            );
            if kind == "array" {
                assert!(
                    map.contains_key("items"),
                    "{name} {path}: array without items"
                );
            }
        }
        if let Some(Value::Array(values)) = map.get("enum") {
            assert!(
                values.iter().all(Value::is_string),
                "{name} {path}: non-string enum"
            );
        }
        if let Some(Value::Array(required)) = map.get("required") {
            let properties = map["properties"].as_object().unwrap();
            for field in required {
                assert!(
                    properties.contains_key(field.as_str().unwrap()),
                    "{name} {path}: required {field} missing"
                );
            }
        }
    });
}

#[test]
fn every_strict_schema_follows_openai_strict_rules() {
    let tk = all_tools();
    let strict = tk.to_openai_strict();
    for ((name, portable), entry) in schemas().iter().zip(strict.as_array().unwrap()) {
        assert_eq!(entry["function"]["name"], *name);
        assert_eq!(entry["function"]["strict"], true);
        check_strict(name, portable, &entry["function"]["parameters"]);
    }
}

#[test]
fn every_gemini_schema_is_in_the_openapi_subset() {
    let tk = all_tools();
    let declarations = tk.to_gemini()[0]["functionDeclarations"].clone();
    for ((name, _), declaration) in schemas().iter().zip(declarations.as_array().unwrap()) {
        assert_eq!(declaration["name"], *name);
        check_gemini(name, &declaration["parameters"]);
    }
}

#[test]
fn strict_rewrites_optional_nested_and_enum_fields() {
    let strict = Value::Object(openai_strict_schema(weather_schema().as_object().unwrap()));
    assert_eq!(
        strict["properties"]["unit"],
        json!({"type": ["string", "null"], "enum": ["celsius", "fahrenheit", null], "description": "Unit"})
    );
    assert_eq!(
        strict["properties"]["days"],
        json!({"type": ["integer", "null"], "minimum": 0, "maximum": 255})
    );
    assert_eq!(
        strict["properties"]["at"]["type"],
        json!(["string", "null"])
    );
    assert_eq!(
        strict["properties"]["place"]["type"],
        json!(["object", "null"])
    );
    assert_eq!(
        strict["properties"]["place"]["required"],
        json!(["lat", "lon", "label"])
    );
    assert_eq!(
        strict["properties"]["place"]["properties"]["label"],
        json!({"type": ["string", "null"]})
    );
    assert_eq!(
        strict["properties"]["city"],
        json!({"type": "string", "description": "City name"})
    );
}

#[test]
fn strict_wraps_references_and_composites_in_any_of() {
    let strict = Value::Object(openai_strict_schema(tree_schema().as_object().unwrap()));
    // Required references stay as they are; optional ones are already nullable.
    assert_eq!(
        strict["properties"]["root"],
        json!({"$ref": "#/$defs/Node", "description": "The tree"})
    );
    assert_eq!(
        strict["properties"]["spare"],
        json!({"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]})
    );
    let node = &strict["$defs"]["Node"];
    assert_eq!(node["additionalProperties"], false);
    assert_eq!(node["required"], json!(["value", "children", "parent"]));

    let strict = Value::Object(openai_strict_schema(shape_schema().as_object().unwrap()));
    assert_eq!(
        strict["properties"]["version"],
        json!({"anyOf": [{"const": 2}, {"type": "null"}]})
    );
    assert_eq!(
        strict["properties"]["merged"],
        json!({"allOf": [
            {"$ref": "#/$defs/Base"},
            {"properties": {"extra": {"type": ["boolean", "null"]}}, "required": ["extra"], "additionalProperties": false},
        ]})
    );
    assert_eq!(
        strict["properties"]["mode"],
        json!({"enum": ["fast", "slow", null]})
    );
    assert_eq!(
        strict["properties"]["level"],
        json!({"enum": [1, 2, 3, null], "type": ["integer", "null"]})
    );
    assert_eq!(
        strict["properties"]["limits"],
        json!({"type": ["object", "null"], "additionalProperties": false, "properties": {}, "required": []})
    );
    assert!(strict["properties"]["shape"]["anyOf"].is_array());
}

/// How deep `children` nests in a lowered tree.
fn depth(node: &Value) -> usize {
    match node.pointer("/properties/children/items") {
        Some(child) => 1 + depth(child),
        None => 1,
    }
}

#[test]
fn gemini_unrolls_recursion_to_the_documented_depth() {
    let lowered = Value::Object(gemini_schema(tree_schema().as_object().unwrap()));
    assert!(!lowered.to_string().contains("$ref"));
    let root = &lowered["properties"]["root"];
    assert_eq!(root["description"], "The tree");
    assert_eq!(depth(root), GEMINI_RECURSION_DEPTH);
    // At the deepest level the recursive fields are gone, and so is their `required` entry.
    let mut deepest = root;
    while let Some(child) = deepest.pointer("/properties/children/items") {
        deepest = child;
    }
    assert_eq!(deepest["properties"], json!({"value": {"type": "integer"}}));
    assert_eq!(deepest["required"], json!(["value"]));
    // An optional reference becomes a nullable object.
    let spare = &lowered["properties"]["spare"];
    assert_eq!(spare["nullable"], true);
    assert_eq!(spare["type"], "object");
    assert_eq!(depth(spare), GEMINI_RECURSION_DEPTH);
    assert_eq!(lowered["required"], json!(["root"]));
}

#[test]
fn gemini_lowers_nullables_enums_consts_and_composites() {
    let lowered = Value::Object(gemini_schema(weather_schema().as_object().unwrap()));
    assert_eq!(
        lowered["properties"]["at"],
        json!({"type": "string", "format": "date-time", "nullable": true})
    );
    assert_eq!(
        lowered["properties"]["days"],
        json!({"type": "integer", "minimum": 0, "maximum": 255})
    );
    assert_eq!(
        lowered["properties"]["place"]["properties"]["lat"],
        json!({"type": "number", "format": "double"})
    );
    assert_eq!(
        lowered["properties"]["tags"],
        json!({"type": "array", "items": {"type": "string"}})
    );

    let lowered = Value::Object(gemini_schema(shape_schema().as_object().unwrap()));
    let shape = &lowered["properties"]["shape"];
    assert_eq!(
        shape["anyOf"][0]["properties"]["kind"],
        json!({"type": "string", "enum": ["circle"]})
    );
    assert_eq!(lowered["properties"]["version"], json!({"type": "integer"}));
    assert_eq!(
        lowered["properties"]["mode"],
        json!({"type": "string", "nullable": true, "enum": ["fast", "slow"]})
    );
    assert_eq!(lowered["properties"]["level"], json!({"type": "integer"}));
    assert_eq!(
        lowered["properties"]["either"],
        json!({"description": "A name or an id", "anyOf": [{"type": "string"}, {"type": "integer"}]})
    );
    assert_eq!(lowered["properties"]["limits"], json!({"type": "object"}));
    assert_eq!(
        lowered["properties"]["merged"],
        json!({"type": "object", "properties": {"id": {"type": "string"}, "extra": {"type": "boolean"}}, "required": ["id"]})
    );
}

#[test]
fn gemini_drops_dangling_references() {
    let schema = json!({
        "type": "object",
        "properties": {
            "ok": {"type": "string"},
            "gone": {"$ref": "#/$defs/Missing"},
            "elsewhere": {"$ref": "https://example.com/schema.json"},
        },
        "required": ["ok", "gone"],
    });
    let lowered = Value::Object(gemini_schema(schema.as_object().unwrap()));
    assert_eq!(
        lowered,
        json!({"type": "object", "properties": {"ok": {"type": "string"}}, "required": ["ok"]})
    );
}

#[test]
fn gemini_unrolls_a_schema_that_refers_to_its_own_root() {
    let schema = json!({
        "type": "object",
        "properties": {"name": {"type": "string"}, "next": {"$ref": "#"}},
    });
    let lowered = Value::Object(gemini_schema(schema.as_object().unwrap()));
    assert!(!lowered.to_string().contains("$ref"));
    let mut levels = 1;
    let mut at = &lowered;
    while let Some(next) = at.pointer("/properties/next") {
        levels += 1;
        at = next;
    }
    assert_eq!(levels, GEMINI_RECURSION_DEPTH + 1);
}

/// The same checks through `#[tool]`, on the schemas the macro really emits.
mod through_the_macro {
    use serde::Deserialize;
    use serde_json::json;
    use toolnexus::schemars::JsonSchema;
    use toolnexus::{ToolContext, Toolkit, tool, tools};

    use super::{block_on, check_gemini, check_strict};

    #[derive(Deserialize, JsonSchema)]
    #[schemars(crate = "toolnexus::schemars")]
    #[serde(rename_all = "lowercase")]
    enum Unit {
        Celsius,
        Fahrenheit,
    }

    #[derive(Deserialize, JsonSchema)]
    #[schemars(crate = "toolnexus::schemars")]
    #[serde(tag = "kind", rename_all = "snake_case")]
    enum Shape {
        Circle { radius: f64 },
        Square { side: f64 },
    }

    #[derive(Deserialize, JsonSchema)]
    #[schemars(crate = "toolnexus::schemars")]
    struct Region {
        country: String,
        city: Option<String>,
    }

    #[derive(Deserialize, JsonSchema)]
    #[schemars(crate = "toolnexus::schemars")]
    struct Node {
        name: String,
        children: Vec<Node>,
    }

    /// Forecast for a place.
    #[tool]
    fn forecast(
        region: Region,
        unit: Option<Unit>,
        #[param(default = 3)] days: u8,
        shape: Option<Shape>,
    ) -> String {
        let unit = match unit {
            Some(Unit::Celsius) | None => "C",
            Some(Unit::Fahrenheit) => "F",
        };
        let area = match shape {
            Some(Shape::Circle { radius }) => radius * radius * 3.0,
            Some(Shape::Square { side }) => side * side,
            None => 0.0,
        };
        format!("{} {:?} {days} {unit} {area}", region.country, region.city)
    }

    /// Lists a tree's node names, depth first.
    #[tool]
    fn node_names(tree: Node) -> String {
        fn walk(node: &Node, names: &mut Vec<String>) {
            names.push(node.name.clone());
            node.children.iter().for_each(|child| walk(child, names));
        }
        let mut names = Vec::new();
        walk(&tree, &mut names);
        names.join(",")
    }

    /// Panics after yielding once.
    #[tool]
    async fn explode(after: u32) -> String {
        tokio::task::yield_now().await;
        panic!("exploded after {after}")
    }

    fn toolkit() -> Toolkit {
        Toolkit::new().with_all(tools![forecast, node_names, explode])
    }

    #[test]
    fn macro_schemas_pass_every_profile_check() {
        let tk = toolkit();
        let strict = tk.to_openai_strict();
        let gemini = tk.to_gemini();
        for (at, tool) in tk.tools().iter().enumerate() {
            let portable = serde_json::Value::Object(tool.input_schema().clone());
            check_strict(
                tool.name(),
                &portable,
                &strict[at]["function"]["parameters"],
            );
            let lowered = &gemini[0]["functionDeclarations"][at]["parameters"];
            check_gemini(tool.name(), lowered);
            assert!(!lowered.to_string().contains("$ref"), "{}", tool.name());
        }
        let tree = &gemini[0]["functionDeclarations"][1]["parameters"]["properties"]["tree"];
        assert_eq!(super::depth(tree), toolnexus::GEMINI_RECURSION_DEPTH + 1);
    }

    #[test]
    fn macro_tools_run_through_the_toolkit() {
        let tk = toolkit();
        let ctx = ToolContext::default();
        block_on(async {
            let result = tk
                .execute_json(
                    "forecast",
                    r#"{"region":{"country":"FR"},"unit":"fahrenheit"}"#,
                    &ctx,
                )
                .await;
            assert_eq!(result.output, "FR None 3 F 0");
            let result = tk.execute_json("forecast", "", &ctx).await;
            assert!(result.is_error);
            assert!(
                result
                    .output
                    .starts_with("invalid arguments for `forecast`: "),
                "{}",
                result.output
            );
            let result = tk
                .execute(
                    "node_names",
                    json!({"tree": {"name": "a", "children": [{"name": "b", "children": []}]}}),
                    &ctx,
                )
                .await;
            assert_eq!(result.output, "a,b");
            let result = tk.execute("explode", json!({"after": 1}), &ctx).await;
            assert_eq!(result.output, "tool `explode` panicked: exploded after 1");
            assert!(result.is_error);
        });
    }
}
