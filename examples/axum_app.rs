//! The MCP endpoint inside your own axum app: `/mcp` beside `/health`, behind an auth
//! middleware that turns a bearer token into a `User` request extension — which the `whoami`
//! tool reads as `Extension<User>` —, traced with tower-http's `TraceLayer`.
//!
//! ```sh
//! cargo run --example axum_app --features axum-app
//! curl -s localhost:8765/health
//! curl -s localhost:8765/mcp -H 'Authorization: Bearer alice-token' \
//!   -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
//!   -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"0"}}}'
//! ```
//!
//! `TOOLNEXUS_ADDR` picks another address (`127.0.0.1:0` for any free port; the address is
//! printed on stderr). `tests/readme_and_examples/examples.rs` runs it and speaks to it over HTTP.

use axum::extract::Request;
use axum::http::{StatusCode, header::AUTHORIZATION};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::get;
use toolnexus::mcp::{HttpOptions, HttpService, McpServer};
use toolnexus::{Extension, Toolkit, tool, tools};
use tower_http::trace::TraceLayer;

/// Who is calling: what the auth middleware puts in the request's extensions, for every
/// handler behind it to read, the MCP tools included.
#[derive(Clone, Debug)]
struct User {
    name: String,
}

/// Turns `Authorization: Bearer <token>` into a `User`; anything else is `401`. A real app
/// verifies a session or a JWT here.
async fn authenticate(mut request: Request, next: Next) -> Result<Response, StatusCode> {
    let token = request
        .headers()
        .get(AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "));
    let user = match token {
        Some("alice-token") => User {
            name: "alice".to_owned(),
        },
        Some("bob-token") => User {
            name: "bob".to_owned(),
        },
        _ => return Err(StatusCode::UNAUTHORIZED),
    };
    request.extensions_mut().insert(user);
    Ok(next.run(request).await)
}

/// Adds two integers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Says who is calling.
#[tool]
fn whoami(user: Extension<User>) -> String {
    format!("you are {}", user.name)
}

/// Who the token says the caller is: an axum handler reads the same extension.
async fn me(axum::Extension(user): axum::Extension<User>) -> String {
    user.name
}

/// The app: `/health` open to all, `/mcp` and `/me` behind `authenticate`, all of it traced.
fn app() -> std::io::Result<axum::Router> {
    let toolkit = Toolkit::new().with_all(tools![add, whoami]);
    // Mounted, the service allows no browser origin and any Host until told otherwise.
    let options = HttpOptions::new().allow_origins(["http://localhost:5173"]);
    let mcp = HttpService::new(McpServer::new(toolkit), options)?;
    Ok(axum::Router::new()
        .route_service("/mcp", mcp)
        .route("/me", get(me))
        .route_layer(middleware::from_fn(authenticate))
        .route("/health", get(|| async { "ok" }))
        .layer(TraceLayer::new_for_http()))
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let addr = std::env::var("TOOLNEXUS_ADDR").unwrap_or_else(|_| "127.0.0.1:8765".to_owned());
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    eprintln!("MCP at http://{}/mcp", listener.local_addr()?);
    axum::serve(listener, app()?).await
}
