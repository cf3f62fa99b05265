//! What the README says, checked against the repository (`readme.rs`), and the examples it
//! names run as a user runs them (`examples.rs`, and `mcp_client_stdio.rs` for `McpTools` in
//! front of `examples/mcp_server`). The examples are the root package's, built by
//! `cargo test --workspace`; this package only runs them.

mod chat;
mod examples;
mod mcp_client_stdio;
mod readme;
