//! `tests/mcp_auth.rs` again, against `HttpService` mounted at `/mcp` in an axum `Router`,
//! with `metadata_service()` routed at the two well-known paths.
#![cfg(feature = "mcp-http")]

#[path = "mcp_auth.rs"]
mod suite;
