//! Issue 16, item 7: a `tools/call` that does not suspend costs what it cost before MCP
//! suspensions and progress existed. The floor is the server as it was (commit `cebdc25`):
//! `Toolkit::execute` with a default context, cancellation, and the result converted by a
//! JSON round trip — served to rmcp's client over an in-process pipe, like the subject,
//! `McpServer` today. rmcp's client puts a `progressToken` on every call, so the subject's
//! progress path is in every call measured; the second pair has the client declare
//! elicitation, which makes the server keep a copy of the arguments.
//!
//! Run: `cargo bench -p toolnexus --features mcp --bench mcp`. With `TOOLNEXUS_BENCH_CALLS=N`
//! and `TOOLNEXUS_BENCH_ROUTINE=before|today|before_elicitation|today_elicitation` it times
//! nothing: it makes N calls inside `measured_loop`, for `valgrind --tool=callgrind
//! --toggle-collect='mcp::measured_loop*'` to count instructions per call (everything runs on
//! one thread: the client, the pipe and the server task).

mod common;

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities, ClientConfig,
    ElicitationCapability, FormElicitationCapability, Implementation, ServerCapabilities,
    ServerConfig,
};
use rmcp::service::{RequestContext, RoleClient, RoleServer, RunningService};
use rmcp::{ClientHandler, ErrorData, ServerHandler, ServiceExt};
use serde_json::{Value, json};
use toolnexus::mcp::McpServer;
use toolnexus::{ToolContext, Toolkit, tool, tools};

/// Add two numbers.
#[tool]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

/// The server before issue 16, as it was written then.
#[derive(Clone)]
struct Before {
    toolkit: Arc<Toolkit>,
}

impl ServerHandler for Before {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = Value::Object(request.arguments.unwrap_or_default());
        let ctx = ToolContext::default();
        let result = until_done(
            self.toolkit.execute(&request.name, args, &ctx),
            context.ct.cancelled(),
            || ctx.cancel.cancel(),
        )
        .await;
        let wire = match self.toolkit.get(&request.name) {
            Some(tool) => result.to_mcp_for(tool.as_ref()),
            None => result.to_mcp(),
        };
        let converted: CallToolResult =
            serde_json::from_value(wire).unwrap_or_else(|_| CallToolResult::error(vec![]));
        Ok(converted.into())
    }
}

async fn until_done<T>(
    work: impl Future<Output = T>,
    cancelled: impl Future<Output = ()>,
    on_cancel: impl FnOnce(),
) -> T {
    let mut work = pin!(work);
    tokio::select! {
        biased;
        () = cancelled => {
            on_cancel();
            work.await
        }
        output = &mut work => output,
    }
}

/// A 2025-11-25 client that declares elicitation, or not.
#[derive(Clone)]
struct Client {
    elicitation: bool,
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        if self.elicitation {
            capabilities.elicitation =
                Some(ElicitationCapability::new().with_form(FormElicitationCapability::default()));
        }
        ClientConfig::new(capabilities, Implementation::new("bench", "0"))
    }
}

type Connected = RunningService<RoleClient, Client>;

async fn connect<S: ServerHandler>(server: S, client: Client) -> Connected {
    let (server_end, client_end) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        let running = server.serve(server_end).await.expect("server starts");
        let _ = running.waiting().await;
    });
    client.serve(client_end).await.expect("client connects")
}

/// `calls` calls of `add`, each checked.
async fn calls_of_add(client: &Connected, params: &CallToolRequestParams, calls: usize) {
    for _ in 0..calls {
        let result = client.call_tool(params.clone()).await.expect("tools/call");
        assert_eq!(result.content[0].as_text().unwrap().text, "42");
    }
}

/// What callgrind counts: `calls` calls driven to completion. A sync frame, so everything
/// the runtime polls meanwhile — the client, the pipe, the server task — runs inside it.
#[inline(never)]
fn measured_loop(
    runtime: &tokio::runtime::Runtime,
    client: &Connected,
    params: &CallToolRequestParams,
    calls: usize,
) {
    runtime.block_on(calls_of_add(client, params, calls));
}

fn main() {
    let mut c = common::criterion();
    let mut summary = common::Summary::new();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let toolkit = Arc::new(Toolkit::new().with_all(tools![add]));
    let params = CallToolRequestParams::new("add")
        .with_arguments(json!({"a": 2, "b": 40}).as_object().unwrap().clone());

    if let (Ok(calls), Ok(routine)) = (
        std::env::var("TOOLNEXUS_BENCH_CALLS"),
        std::env::var("TOOLNEXUS_BENCH_ROUTINE"),
    ) {
        let calls: usize = calls.parse().expect("TOOLNEXUS_BENCH_CALLS is a number");
        let client = Client {
            elicitation: routine.ends_with("_elicitation"),
        };
        let connected = runtime.block_on(async {
            if routine.starts_with("before") {
                let before = Before {
                    toolkit: Arc::clone(&toolkit),
                };
                connect(before, client).await
            } else {
                connect(McpServer::new(Arc::clone(&toolkit)), client).await
            }
        });
        // Warm up: the first calls allocate buffers that later calls reuse.
        runtime.block_on(calls_of_add(&connected, &params, 100));
        measured_loop(&runtime, &connected, &params, calls);
        return;
    }

    for (group, elicitation) in [("mcp_call", false), ("mcp_call_elicitation", true)] {
        let client = Client { elicitation };
        let (before, today) = runtime.block_on(async {
            let before = connect(
                Before {
                    toolkit: Arc::clone(&toolkit),
                },
                client.clone(),
            )
            .await;
            let today = connect(McpServer::new(Arc::clone(&toolkit)), client).await;
            (before, today)
        });
        let call = |client: &Connected| {
            let result = runtime
                .block_on(client.call_tool(params.clone()))
                .expect("tools/call");
            assert_eq!(result.content[0].as_text().unwrap().text, "42");
            result
        };
        let floor = |()| call(&before);
        let subject = |()| call(&today);
        let mut bench = c.benchmark_group(group);
        bench.bench_function("before", |b| b.iter(|| floor(())));
        bench.bench_function("today", |b| b.iter(|| subject(())));
        bench.finish();
        summary.compare_interleaved(group, "before", "today", Some(1.05), || (), floor, subject);
        runtime.block_on(async {
            let _ = before.cancel().await;
            let _ = today.cancel().await;
        });
    }

    c.final_summary();
    summary.print();
}
