//! The MCP client (`McpTools`): in front of our own server, against a stdio server that
//! misbehaves on request, with schemas nobody here wrote, and signing in with OAuth.

#[path = "../common/mod.rs"]
mod common;

mod mcp_client;
mod mcp_client_faults;
mod mcp_client_oauth;
mod mcp_client_oauth_assertions;
mod mcp_client_oauth_jwt;
mod mcp_client_oauth_tokens;
mod mcp_client_polling;
mod mcp_client_real_schemas;
mod mcp_client_tasks;
mod oauth_fixture;
mod oauth_server;
