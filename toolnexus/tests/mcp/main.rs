//! The MCP server: rmcp's own client over an in-process pipe, stdio and streamable HTTP, every
//! protocol revision, suspensions and answers, the caller, the production defaults, tasks and
//! their store, and replicas sharing Redis (`redis/`, against a real `redis-server`). The HTTP
//! suites in `http/` run twice, with a [`Mount`](common::mcp_raw::Mount) each: served by
//! `HttpServer` (`turnkey`) and by `HttpService` mounted in an axum `Router` (`mounted`).
#![allow(
    clippy::duplicate_mod,
    reason = "each HTTP suite is compiled twice on purpose, once for each `Mount`"
)]

#[path = "../common/mod.rs"]
mod common;

mod mcp;
mod mcp_answers;
mod mcp_asking;
mod mcp_caller;
mod mcp_defaults;
mod mcp_load_balancer;
mod mcp_malformed_answers;
mod mcp_parity;
mod mcp_revisions;
mod mcp_stdio;
mod mcp_task_store;
mod mcp_tasks;
mod mcp_tasks_core;
mod mcp_tasks_owner;
mod mcp_tasks_params;
mod mcp_tasks_wire;
#[cfg(feature = "mcp-http")]
mod mounted;
mod redis;
#[cfg(feature = "mcp-http")]
mod turnkey;
