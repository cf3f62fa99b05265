//! The flood against `HttpServer`.

use crate::common::mcp_raw::Mount;

const MOUNT: Mount = Mount::Turnkey;

#[path = "mcp_flood.rs"]
mod mcp_flood;
