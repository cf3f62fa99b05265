//! The quickstart's tools as an MCP server, through rmcp (the official Rust MCP SDK): on
//! stdin/stdout by default, or over streamable HTTP.
//!
//! - stdio: `cargo run --example mcp_server --features mcp`, or point an MCP client at that
//!   command (see the README). Anything for humans goes to stderr: stdout is the protocol.
//! - HTTP: `cargo run --example mcp_server --features mcp-http -- --http 127.0.0.1:8765`
//!   serves `http://127.0.0.1:8765/mcp` until Ctrl-C or SIGTERM. Add `--stateless` for the
//!   mode without sessions (replicas behind a load balancer); set `MCP_BEARER_TOKEN` to
//!   require `Authorization: Bearer <token>` (an environment variable, so the secret does not
//!   show in the process list).
//!   Set `MCP_STATE_KEY` (32 bytes or more) to seal 2026-07-28 calls' `requestState` with it:
//!   replicas given the same key complete each other's approvals and forms, where without it
//!   each process seals with its own random key and refuses the others' as tampered with.
//!
//!   Set `MCP_REDIS_URL` (`redis://host:6379/`, feature `redis`) to keep both the record of
//!   used `requestState`s and the tasks in that Redis (`toolnexus::mcp::RedisStore`): replicas
//!   on one Redis run a replayed approval once, and any of them answers for any task. An
//!   unreachable Redis stops the server at start, naming the url.
//!
//!   `MCP_TASK_AFTER_MS` sets how long a call to a task-capable tool may run before the client
//!   gets a task instead (default 1000), `MCP_TASK_TTL_MS` how long an ended task's result is
//!   kept (default 3600000), `MCP_TASK_LEASE_MS` how long a replica that went away holds its
//!   tasks before another reports them `failed` (default 30000).
//!
//! Beside the quickstart's tools it serves the ones that show MCP's newer parts: `delete_note`
//! asks for approval, `pick_environment` asks for input with a form, `count_to` reports
//! progress, `note_stats` answers structured content (`Json<T>`, with an output schema), and
//! `whoami` reads who is calling (SPEC §12: the client's name and revision, as an extension of
//! the call's context). `long_count` may run as a task, and `publish_report` runs only as one,
//! after asking for approval (SPEC §14).
//! A client that can ask its user (elicitation, or 2026-07-28's input requests) shows the
//! questions; one that cannot sees them as `isError` text.

use std::time::Duration;

use serde::Serialize;
use toolnexus::mcp::ClientInfo;
use toolnexus::serde_json::json;
use toolnexus::{
    ContentPart, Extension, Json, JsonSchema, Request, ToolContext, ToolResult, Toolkit,
    parts::ContentPartError, pending, tool, tools,
};

/// Adds two numbers.
#[tool]
fn add(
    /// The first addend
    a: f64,
    /// The second addend
    b: f64,
) -> f64 {
    a + b
}

/// Current weather for a city.
#[tool]
async fn get_weather(
    /// City name, e.g. "Paris"
    city: String,
) -> Result<String, String> {
    match city.as_str() {
        "Paris" => Ok("Paris: 18°C, dry".to_owned()),
        "Oslo" => Ok("Oslo: 4°C, dry".to_owned()),
        _ => Err(format!("no weather station in {city}; try a capital city")),
    }
}

/// Takes a screenshot of the dashboard.
#[tool]
fn screenshot() -> Result<ContentPart, ContentPartError> {
    toolnexus::parts::attach(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/media/fixture.png"
    ))
}

/// Deletes a note, once a human approved.
#[tool(approval = "Delete note {id}?", destructive)]
fn delete_note(
    /// The note's number
    id: u32,
) -> String {
    format!("deleted note {id}")
}

/// Deploys, after asking which environment.
#[tool]
fn pick_environment(ctx: &ToolContext) -> ToolResult {
    let chosen = ctx.answer.as_ref().and_then(|answer| {
        let env = answer.data.as_ref()?.get("env")?.as_str()?;
        Some(env.to_owned())
    });
    match chosen {
        Some(env) => ToolResult::ok(format!("deploying to {env}")),
        None => {
            let schema = json!({
                "type": "object",
                "properties": {"env": {"type": "string", "enum": ["staging", "production"]}},
                "required": ["env"],
            });
            let mut data = toolnexus::serde_json::Map::new();
            data.insert("schema".to_owned(), schema);
            pending(Request::new("input", "Which environment?").with_data(data))
        }
    }
}

/// Counts to `n`, a step every 100 ms, reporting progress.
#[tool]
async fn count_to(
    /// Where to stop (at most 50)
    n: u8,
    ctx: ToolContext,
) -> String {
    let n = n.min(50);
    for step in 0..=n {
        ctx.report_progress(f64::from(step), Some(f64::from(n)), Some("counting"));
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    format!("counted to {n}")
}

/// Counts to `n`, sleeping `delay_ms` per step and reporting each step; a long count runs as a
/// task the client polls.
#[tool(task)]
async fn long_count(
    /// Where to stop (at most 1,000)
    #[schemars(range(max = 1000))]
    n: u32,
    /// How long each step takes, in milliseconds (at most 10,000)
    #[schemars(range(max = 10000))]
    delay_ms: u64,
    ctx: ToolContext,
) -> String {
    for i in 1..=n {
        tokio::time::sleep(Duration::from_millis(delay_ms)).await;
        ctx.report_progress(f64::from(i), Some(f64::from(n)), None);
    }
    format!("counted to {n}")
}

/// Publishes a report, once a human approved; always runs as a task.
#[tool(task = "required", approval = "Publish report {name}?")]
async fn publish_report(
    /// The report's name
    name: String,
) -> String {
    tokio::time::sleep(Duration::from_millis(500)).await;
    format!("published {name}")
}

/// How many notes there are, and how long they are.
#[derive(Serialize, JsonSchema)]
struct NoteStats {
    notes: u32,
    words: u32,
}

/// Statistics about the notes, as structured content.
#[tool(read_only)]
fn note_stats() -> Json<NoteStats> {
    Json(NoteStats {
        notes: 3,
        words: 120,
    })
}

/// Says which client is calling, and at which protocol revision.
#[tool(read_only)]
fn whoami(client: Option<Extension<ClientInfo>>) -> String {
    let Some(Extension(client)) = client else {
        return "an unknown client".to_owned();
    };
    let unknown = || "?".to_owned();
    format!(
        "{} {} at {}",
        client.name.unwrap_or_else(unknown),
        client.version.unwrap_or_else(unknown),
        client.revision.unwrap_or_else(unknown)
    )
}

type Error = Box<dyn std::error::Error + Send + Sync>;

const USAGE: &str = "usage: mcp_server [--http ADDR [--stateless]]";

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    let toolkit = Toolkit::new().with_all(tools![
        add,
        get_weather,
        screenshot,
        delete_note,
        pick_environment,
        count_to,
        note_stats,
        whoami,
        long_count,
        publish_report
    ]);
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        [] => {
            use toolnexus::mcp::{LineTransport, ServiceExt};
            eprintln!("toolnexus MCP server: {} tools on stdio", toolkit.len());
            let stdio = LineTransport::new(tokio::io::stdin(), tokio::io::stdout());
            server(toolkit).await?.serve(stdio).await?.waiting().await?;
            Ok(())
        }
        ["--http", addr] => serve_http(server(toolkit).await?, addr, false).await,
        ["--http", addr, "--stateless"] => serve_http(server(toolkit).await?, addr, true).await,
        _ => Err(USAGE.into()),
    }
}

/// `toolkit` as an MCP server, sealing `requestState` with `MCP_STATE_KEY` when it is set,
/// with the task settings of `MCP_TASK_AFTER_MS`, `MCP_TASK_TTL_MS` and `MCP_TASK_LEASE_MS`, its stores on the
/// Redis of `MCP_REDIS_URL` when that is set.
async fn server(toolkit: Toolkit) -> Result<toolnexus::mcp::McpServer, Error> {
    let mut server = shared(toolnexus::mcp::McpServer::new(toolkit)).await?;
    if let Some(after) = millis("MCP_TASK_AFTER_MS")? {
        server = server.task_after(after);
    }
    if let Some(ttl) = millis("MCP_TASK_TTL_MS")? {
        server = server.task_ttl(ttl);
    }
    if let Some(lease) = millis("MCP_TASK_LEASE_MS")? {
        server = server.task_lease(lease);
    }
    match std::env::var("MCP_STATE_KEY") {
        Ok(key) => Ok(server
            .with_state_key(key)
            .map_err(|error| format!("MCP_STATE_KEY: {error}"))?),
        Err(std::env::VarError::NotPresent) => Ok(server),
        Err(error) => Err(format!("MCP_STATE_KEY: {error}").into()),
    }
}

/// `server` with the used `requestState`s and the tasks on the Redis of `MCP_REDIS_URL`, when
/// it is set: what replicas behind a load balancer share.
#[cfg(feature = "redis")]
async fn shared(server: toolnexus::mcp::McpServer) -> Result<toolnexus::mcp::McpServer, Error> {
    match std::env::var("MCP_REDIS_URL") {
        Ok(url) => {
            let store = toolnexus::mcp::RedisStore::connect(&url)
                .await
                .map_err(|error| format!("MCP_REDIS_URL: {error}"))?;
            let store = std::sync::Arc::new(store);
            Ok(server
                .with_state_store(store.clone())
                .with_task_store(store))
        }
        Err(std::env::VarError::NotPresent) => Ok(server),
        Err(error) => Err(format!("MCP_REDIS_URL: {error}").into()),
    }
}

#[cfg(not(feature = "redis"))]
async fn shared(server: toolnexus::mcp::McpServer) -> Result<toolnexus::mcp::McpServer, Error> {
    match std::env::var_os("MCP_REDIS_URL") {
        Some(_) => Err("MCP_REDIS_URL needs the `redis` feature (--features redis)".into()),
        None => Ok(server),
    }
}

/// The environment variable `name` as a number of milliseconds, if it is set.
fn millis(name: &str) -> Result<Option<Duration>, Error> {
    match std::env::var(name) {
        Ok(text) => match text.trim().parse::<u64>() {
            Ok(ms) => Ok(Some(Duration::from_millis(ms))),
            Err(_) => {
                Err(format!("{name}: expected a whole number of milliseconds, got {text:?}").into())
            }
        },
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(error) => Err(format!("{name}: {error}").into()),
    }
}

#[cfg(feature = "mcp-http")]
async fn serve_http(
    server: toolnexus::mcp::McpServer,
    addr: &str,
    stateless: bool,
) -> Result<(), Error> {
    use toolnexus::mcp::{HttpOptions, HttpServer};

    let mut options = HttpOptions::new().stateless(stateless);
    if let Ok(token) = std::env::var("MCP_BEARER_TOKEN") {
        options = options.bearer_token(token);
    }
    // MCP authorization: the URL clients reach this server at and who issues its tokens, so a
    // client refused with 401 finds where to sign in (RFC 9728).
    if let Ok(resource) = std::env::var("MCP_RESOURCE") {
        let issuer = std::env::var("MCP_AUTHORIZATION_SERVER")
            .map_err(|_| "MCP_RESOURCE needs MCP_AUTHORIZATION_SERVER, the token issuer's URL")?;
        options = options.protected_resource(resource, [issuer]);
    }
    let tools = server.toolkit().len();
    let http = HttpServer::bind(addr, server, options).await?;
    eprintln!(
        "toolnexus MCP server: {tools} tools at http://{}/mcp{} (Ctrl-C to stop)",
        http.local_addr(),
        if stateless { ", stateless" } else { "" }
    );
    http.run().await;
    eprintln!("toolnexus MCP server: stopped");
    Ok(())
}

#[cfg(not(feature = "mcp-http"))]
async fn serve_http(_: toolnexus::mcp::McpServer, _: &str, _: bool) -> Result<(), Error> {
    Err("this build serves stdio only: build with `--features mcp-http` for --http".into())
}
