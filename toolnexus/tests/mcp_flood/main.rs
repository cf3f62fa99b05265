//! The session flood (`mcp_flood.rs`), run once served by `HttpServer` (`turnkey`) and once by
//! `HttpService` mounted in an axum `Router` (`mounted`): a test binary of its own, since it
//! reads the process's resident size, and its tests take turns ([`TURN`]).
#![allow(
    clippy::duplicate_mod,
    reason = "each HTTP suite is compiled twice on purpose, once for each `Mount`"
)]

#[path = "../common/mod.rs"]
mod common;
#[cfg(feature = "mcp-http")]
mod mounted;
#[cfg(feature = "mcp-http")]
mod turnkey;

/// Held by each test here for its whole run, so no two run at once.
#[cfg(feature = "mcp-http")]
static TURN: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
