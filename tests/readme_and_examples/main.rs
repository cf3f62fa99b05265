//! What the README says, checked against the repository (`readme.rs`, and `compile_time.rs` for
//! its figures against rig), and the examples it names run as a user runs them (`examples.rs`,
//! `chat.rs` for `examples/chat` against a stand-in provider, `mcp_client_stdio.rs` for
//! `McpTools` in front of `examples/mcp_server`, and `conformance_http.rs` for
//! `examples/conformance_server` as the MCP conformance suite calls it). The examples are the
//! root package's, built by `cargo test --workspace`; this package only runs them.

mod chat;
mod compile_time;
mod conformance_http;
mod examples;
mod mcp_client_stdio;
mod readme;
