//! The client the official MCP conformance suite drives: it reads the scenario from
//! `MCP_CONFORMANCE_SCENARIO` and the server's URL from its last argument. The `auth/*`
//! scenarios are in `auth.rs`.
//!
//! ```text
//! npx @modelcontextprotocol/conformance client --command "target/debug/examples/conformance_client" --scenario auth/metadata-default
//! ```

mod auth;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let server_url = std::env::args()
        .next_back()
        .ok_or("the server's URL is the last argument")?;
    if scenario.starts_with("auth/") {
        return auth::run(&scenario, &server_url).await;
    }
    Err(format!("scenario `{scenario}` is not an auth/* scenario").into())
}
