//! The HTTP suites (`http/`) against `HttpServer`, the turnkey server.

use crate::common::mcp_raw::Mount;

const MOUNT: Mount = Mount::Turnkey;

#[path = "http/mcp_auth.rs"]
mod mcp_auth;
#[path = "http/mcp_hostile.rs"]
mod mcp_hostile;
#[path = "http/mcp_http.rs"]
mod mcp_http;
#[path = "http/mcp_http_polling.rs"]
mod mcp_http_polling;
#[path = "http/mcp_http_revisions.rs"]
mod mcp_http_revisions;
