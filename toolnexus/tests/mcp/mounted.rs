//! The HTTP suites (`http/`) again, against `HttpService` mounted at `/mcp` in an axum `Router`,
//! with `metadata_service()` routed at the two well-known paths.

use crate::common::mcp_raw::Mount;

const MOUNT: Mount = Mount::Router;

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
