//! The flood against `HttpService` mounted at `/mcp` in an axum `Router`.

use crate::common::mcp_raw::Mount;

const MOUNT: Mount = Mount::Router;

#[path = "mcp_flood.rs"]
mod mcp_flood;
