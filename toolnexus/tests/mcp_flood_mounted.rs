//! `tests/mcp_flood.rs` again, against `HttpService` mounted at `/mcp` in an axum `Router`
//! (`common/mcp_raw.rs` serves so for a test binary whose name ends in `_mounted`).
#![cfg(feature = "mcp-http")]

#[path = "mcp_flood.rs"]
mod suite;
