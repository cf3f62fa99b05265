//! CORS for the origins the allow-list admits, so a page there can call the server with
//! `fetch`: preflights answered, and answers readable (with their `Mcp-Session-Id`).

use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::{Response, StatusCode};

/// What a preflight allows: the methods of the streamable HTTP transport.
const METHODS: &str = "GET, POST, DELETE, OPTIONS";

/// The request headers MCP clients send beyond the CORS-safelisted ones.
const HEADERS: &str = "Content-Type, Authorization, Mcp-Session-Id, Mcp-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID";

/// The answer headers a page may read beyond the safelisted ones.
const EXPOSED: &str = "Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate, Retry-After";

/// How long a browser may cache a preflight (Chromium caps it at 2 hours).
const MAX_AGE: &str = "600";

/// The answer to a preflight (`OPTIONS`) from `origin`, an allowed origin.
pub(super) fn preflight<B: Default>(origin: &HeaderValue) -> Response<B> {
    let mut response = Response::new(B::default());
    *response.status_mut() = StatusCode::NO_CONTENT;
    let headers = response.headers_mut();
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_METHODS,
        HeaderValue::from_static(METHODS),
    );
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_HEADERS,
        HeaderValue::from_static(HEADERS),
    );
    headers.insert(
        header::ACCESS_CONTROL_MAX_AGE,
        HeaderValue::from_static(MAX_AGE),
    );
    allow(headers, origin);
    response
}

/// Marks an answer to `origin`, an allowed origin, as readable by its page.
pub(super) fn allow(headers: &mut HeaderMap, origin: &HeaderValue) {
    headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin.clone());
    headers.insert(
        header::ACCESS_CONTROL_EXPOSE_HEADERS,
        HeaderValue::from_static(EXPOSED),
    );
    // The answer depends on the origin; a cache must not hand it to another one.
    headers.append(header::VARY, HeaderValue::from_static("Origin"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_preflight_allows_the_origin_the_methods_and_the_mcp_headers() {
        let origin = HeaderValue::from_static("http://localhost:5173");
        let response: Response<()> = preflight(&origin);
        assert_eq!(response.status(), StatusCode::NO_CONTENT);
        let headers = response.headers();
        assert_eq!(headers[header::ACCESS_CONTROL_ALLOW_ORIGIN], origin);
        let allowed = headers[header::ACCESS_CONTROL_ALLOW_HEADERS]
            .to_str()
            .unwrap();
        for name in [
            "Content-Type",
            "Authorization",
            "Mcp-Session-Id",
            "Mcp-Protocol-Version",
            "Mcp-Method",
            "Mcp-Name",
            "Last-Event-ID",
        ] {
            assert!(allowed.split(", ").any(|each| each == name), "{name}");
        }
        let methods = headers[header::ACCESS_CONTROL_ALLOW_METHODS]
            .to_str()
            .unwrap();
        assert!(methods.contains("POST") && methods.contains("DELETE"));
        assert!(
            headers[header::ACCESS_CONTROL_EXPOSE_HEADERS]
                .to_str()
                .unwrap()
                .contains("Mcp-Session-Id")
        );
        assert_eq!(headers[header::VARY], "Origin");
    }
}
