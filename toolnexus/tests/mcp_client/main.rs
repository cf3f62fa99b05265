//! The MCP client (`McpTools`): in front of our own server, against a stdio server that
//! misbehaves on request, and with schemas nobody here wrote.

mod mcp_client;
mod mcp_client_faults;
mod mcp_client_real_schemas;
mod mcp_client_tasks;
