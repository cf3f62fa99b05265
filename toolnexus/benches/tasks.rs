//! Issue 40, item 7: what tasks cost (SPEC §14). A `tools/call` of a task-capable tool that
//! ends inline, against the same tool without `task`, both served by `McpServer` to a
//! 2026-07-28 client that declared the tasks extension over an in-process pipe; and the
//! memory 10,000 live tasks hold.
//!
//! Run: `cargo bench -p toolnexus --features mcp --bench tasks`. With `TOOLNEXUS_BENCH_CALLS=N`
//! and `TOOLNEXUS_BENCH_ROUTINE=plain|task` it times nothing: it makes N calls inside
//! `measured_loop`, for `valgrind --tool=callgrind --toggle-collect='tasks::measured_loop*'`
//! (everything on one thread). `TOOLNEXUS_BENCH_ROUTINE=live` starts 10,000 tasks that never
//! end and prints the resident memory they added. With `mcp-http`, it also times `tasks/get`
//! of an ended task against a `tools/call` of `add`, both on one keep-alive HTTP connection
//! to `HttpServer` (2026-07-28 has no sessions), taking turns round by round: p50 of each.

mod common;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, ClientConfig, Implementation,
    ProtocolVersion,
};
use rmcp::service::{RoleClient, RunningService};
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt, ServiceExt};
use serde_json::json;
use toolnexus::mcp::McpServer;
use toolnexus::{Toolkit, tool, tools};

/// Add two numbers.
#[tool]
async fn add(a: f64, b: f64) -> f64 {
    a + b
}

/// Add two numbers; may run as a task.
#[tool(name = "add", task)]
async fn add_task(a: f64, b: f64) -> f64 {
    a + b
}

/// Waits forever, as a task.
#[tool(name = "add", task = "required")]
async fn wait(a: f64, b: f64) -> f64 {
    std::future::pending::<()>().await;
    a + b
}

/// A 2026-07-28 client that declares the tasks extension.
#[derive(Clone)]
struct Client;

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        capabilities.extensions = Some(
            [(
                rmcp::model::TASKS_EXTENSION_ID.to_owned(),
                Default::default(),
            )]
            .into(),
        );
        ClientConfig::new(capabilities, Implementation::new("bench", "0"))
            .with_protocol_version(ProtocolVersion::V_2026_07_28)
    }
}

type Connected = RunningService<RoleClient, Client>;

async fn connect(server: McpServer) -> Connected {
    let (server_end, client_end) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        let running = server.serve(server_end).await.expect("server starts");
        let _ = running.waiting().await;
    });
    let lifecycle = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    Client
        .serve_with_lifecycle(client_end, lifecycle)
        .await
        .expect("client connects")
}

/// `calls` calls of `add`, each answered inline and checked.
async fn calls_of_add(client: &Connected, params: &CallToolRequestParams, calls: usize) {
    for _ in 0..calls {
        match client
            .call_tool_once(params.clone())
            .await
            .expect("tools/call")
        {
            CallToolResponse::Complete(result) => {
                assert_eq!(result.content[0].as_text().unwrap().text, "42");
            }
            other => panic!("answered inline: {other:?}"),
        }
    }
}

/// What callgrind counts: `calls` calls driven to completion.
#[inline(never)]
fn measured_loop(
    runtime: &tokio::runtime::Runtime,
    client: &Connected,
    params: &CallToolRequestParams,
    calls: usize,
) {
    runtime.block_on(calls_of_add(client, params, calls));
}

/// Resident memory of this process, in bytes (Linux).
fn resident() -> usize {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: usize = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    pages * 4096
}

/// Starts 10,000 tasks that never end and prints the memory they added.
fn live(runtime: &tokio::runtime::Runtime, params: &CallToolRequestParams) {
    let server = McpServer::new(Toolkit::new().with_all(tools![wait])).max_tasks(20_000);
    let client = runtime.block_on(connect(server));
    runtime.block_on(async {
        // Warm up: buffers and the first allocations of the runtime.
        for _ in 0..100 {
            client.call_tool_once(params.clone()).await.unwrap();
        }
        let before = resident();
        for _ in 0..10_000 {
            match client.call_tool_once(params.clone()).await.unwrap() {
                CallToolResponse::Task(_) => {}
                other => panic!("a task: {other:?}"),
            }
        }
        let after = resident();
        println!(
            "10,000 live tasks: {:.1} MB resident ({} bytes each)",
            (after - before) as f64 / 1e6,
            (after - before) / 10_000
        );
    });
}

/// Instant: ends as soon as it runs.
#[cfg(feature = "mcp-http")]
#[tool(task = "required")]
async fn instant() -> &'static str {
    "done"
}

/// `tasks/get` p50 against `tools/call` p50 over one keep-alive HTTP connection.
#[cfg(feature = "mcp-http")]
fn over_http(runtime: &tokio::runtime::Runtime) {
    use std::time::{Duration, Instant};
    use toolnexus::mcp::{HttpOptions, HttpServer};

    runtime.block_on(async {
        let toolkit = Toolkit::new().with_all(tools![add, instant]);
        let http = HttpServer::bind("127.0.0.1:0", McpServer::new(toolkit), HttpOptions::new())
            .await
            .unwrap();
        let url = format!("http://{}/mcp", http.local_addr());
        tokio::spawn(http.run_until(std::future::pending()));
        let client = reqwest::Client::new();
        let post = |method: &'static str, name: String, mut params: serde_json::Value| {
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities":
                    {"extensions": {"io.modelcontextprotocol/tasks": {}}},
                "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "0"},
            });
            let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
            let request = client
                .post(&url)
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .header("mcp-protocol-version", "2026-07-28")
                .header("mcp-method", method)
                .header("mcp-name", name)
                .body(body.to_string());
            async move {
                let text = request.send().await.unwrap().text().await.unwrap();
                serde_json::from_str::<serde_json::Value>(&text).unwrap()
            }
        };
        let created = post(
            "tools/call",
            "instant".into(),
            json!({"name": "instant", "arguments": {}}),
        )
        .await;
        let id = created["result"]["taskId"]
            .as_str()
            .expect("a task")
            .to_owned();
        loop {
            let now = post("tasks/get", id.clone(), json!({"taskId": id})).await;
            if now["result"]["status"] == "completed" {
                break;
            }
        }
        let call = || {
            post(
                "tools/call",
                "add".into(),
                json!({"name": "add", "arguments": {"a": 2, "b": 40}}),
            )
        };
        let get = || post("tasks/get", id.clone(), json!({"taskId": id}));
        for _ in 0..20 {
            call().await;
            get().await;
        }
        let (mut calls, mut gets): (Vec<Duration>, Vec<Duration>) = (Vec::new(), Vec::new());
        for _ in 0..20 {
            for _ in 0..50 {
                let started = Instant::now();
                let answer = call().await;
                calls.push(started.elapsed());
                assert_eq!(answer["result"]["content"][0]["text"], "42");
            }
            for _ in 0..50 {
                let started = Instant::now();
                let answer = get().await;
                gets.push(started.elapsed());
                assert_eq!(answer["result"]["status"], "completed");
            }
        }
        calls.sort();
        gets.sort();
        let (call, get) = (calls[calls.len() / 2], gets[gets.len() / 2]);
        println!(
            "over HTTP: tools/call p50 {:.0} µs, tasks/get p50 {:.0} µs, ratio {:.3} (budget 1.2)",
            call.as_secs_f64() * 1e6,
            get.as_secs_f64() * 1e6,
            get.as_secs_f64() / call.as_secs_f64()
        );
    });
}

fn main() {
    let mut c = common::criterion();
    let mut summary = common::Summary::new();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let params = CallToolRequestParams::new("add")
        .with_arguments(json!({"a": 2, "b": 40}).as_object().unwrap().clone());
    let plain = || Toolkit::new().with_all(tools![add]);
    let task = || Toolkit::new().with_all(tools![add_task]);

    if let (Ok(calls), Ok(routine)) = (
        std::env::var("TOOLNEXUS_BENCH_CALLS"),
        std::env::var("TOOLNEXUS_BENCH_ROUTINE"),
    ) {
        let calls: usize = calls.parse().expect("TOOLNEXUS_BENCH_CALLS is a number");
        let toolkit = match routine.as_str() {
            "plain" => plain(),
            "task" => task(),
            "live" => return live(&runtime, &params),
            #[cfg(feature = "mcp-http")]
            "http" => return over_http(&runtime),
            other => panic!("no routine {other}"),
        };
        let connected = runtime.block_on(connect(McpServer::new(toolkit)));
        runtime.block_on(calls_of_add(&connected, &params, 100));
        measured_loop(&runtime, &connected, &params, calls);
        return;
    }

    let (floor, subject) = runtime.block_on(async {
        let floor = connect(McpServer::new(plain())).await;
        (floor, connect(McpServer::new(task())).await)
    });
    let call = |client: &Connected| runtime.block_on(calls_of_add(client, &params, 1));
    let mut bench = c.benchmark_group("task_capable_inline");
    bench.bench_function("plain", |b| b.iter(|| call(&floor)));
    bench.bench_function("task", |b| b.iter(|| call(&subject)));
    bench.finish();
    summary.compare_interleaved(
        "task_capable_inline",
        "plain",
        "task",
        Some(1.03),
        || (),
        |()| call(&floor),
        |()| call(&subject),
    );
    c.final_summary();
    summary.print();
    live(&runtime, &params);
}
