//! Who may call: a static bearer token or the user's own validator, and the OAuth 2.1
//! Protected Resource Metadata (RFC 9728) that tells a client where to get a token.

use std::fmt;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::header::{AUTHORIZATION, CONTENT_TYPE, HeaderValue, WWW_AUTHENTICATE};
use hyper::http::{Extensions, request::Parts};
use hyper::{Response, StatusCode};
use serde_json::json;

use super::{ResponseBody, plain};

/// The path of the Protected Resource Metadata document (RFC 9728 §3).
pub(super) const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// What checks a request's bearer token.
#[derive(Clone)]
pub(super) enum Auth {
    /// One secret, compared in constant time.
    Token(Vec<u8>),
    /// The user's validator: the value it returns goes into the request's extensions.
    Verify(Verifier),
}

pub(super) type Verifier =
    Arc<dyn Fn(String) -> Pin<Box<dyn Future<Output = Option<Extensions>> + Send>> + Send + Sync>;

impl fmt::Debug for Auth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Token(_) => "<redacted>",
            Self::Verify(_) => "<verify_bearer>",
        })
    }
}

/// The resource a server protects and the authorization servers that issue its tokens.
#[derive(Clone, Debug)]
pub(super) struct ProtectedResource {
    pub(super) resource: String,
    pub(super) authorization_servers: Vec<String>,
}

/// The checks and answers of one endpoint's authorization.
pub(super) struct Guard {
    auth: Option<Auth>,
    /// The metadata document, when a protected resource is named.
    metadata: Option<Metadata>,
    /// `WWW-Authenticate` on the `401` for a request without a token. With a protected
    /// resource, the bare challenge naming its metadata: the start of an OAuth flow (RFC 6750
    /// §3.1 gives no error code then). Without one, `error="invalid_token"`: with no metadata to
    /// discover, the error tells a client (the MCP Inspector, say) that a static token is
    /// wanted, rather than inviting an OAuth flow that cannot succeed.
    missing: HeaderValue,
    /// `WWW-Authenticate` on the `401` for a refused token: always `error="invalid_token"`.
    rejected: HeaderValue,
}

/// The challenge for a refused token when no protected resource is named (RFC 6750 §3.1).
const REJECTED: &str =
    "Bearer error=\"invalid_token\", error_description=\"the bearer token was not accepted\"";

/// The metadata document and the paths it is served at.
#[derive(Clone)]
pub(super) struct Metadata {
    pub(super) document: Bytes,
    /// The path-suffixed well-known path (`/.well-known/oauth-protected-resource/mcp`).
    pub(super) suffixed_path: String,
}

impl Guard {
    /// Fails with `InvalidInput` for an empty token or a resource that is not an absolute
    /// `http`/`https` URL without a fragment.
    pub(super) fn new(
        auth: Option<Auth>,
        resource: Option<&ProtectedResource>,
    ) -> io::Result<Self> {
        if matches!(&auth, Some(Auth::Token(token)) if token.is_empty()) {
            return Err(invalid(
                "the bearer token is empty; give a secret, or no token at all".to_owned(),
            ));
        }
        let Some(resource) = resource else {
            return Ok(Self {
                auth,
                metadata: None,
                missing: HeaderValue::from_static(
                    "Bearer error=\"invalid_token\", error_description=\"no bearer token was sent\"",
                ),
                rejected: HeaderValue::from_static(REJECTED),
            });
        };
        let (origin, path) = split_url(&resource.resource).ok_or_else(|| {
            invalid(format!(
                "protected resource `{}` is not an absolute http or https URL without a fragment",
                resource.resource
            ))
        })?;
        let suffixed_path = format!("{WELL_KNOWN}{}", path.trim_end_matches('/'));
        let metadata_url = format!("{origin}{suffixed_path}");
        let bare = format!("Bearer resource_metadata=\"{metadata_url}\"");
        // The same error parameters after the metadata's.
        let rejected = format!("{bare}, {}", &REJECTED["Bearer ".len()..]);
        let (Ok(missing), Ok(rejected)) =
            (HeaderValue::try_from(bare), HeaderValue::try_from(rejected))
        else {
            return Err(invalid(format!(
                "protected resource `{}` is not a valid header value",
                resource.resource
            )));
        };
        let document = json!({
            "resource": resource.resource,
            "authorization_servers": resource.authorization_servers,
            "bearer_methods_supported": ["header"],
        });
        Ok(Self {
            auth,
            metadata: Some(Metadata {
                document: Bytes::from(document.to_string()),
                suffixed_path,
            }),
            missing,
            rejected,
        })
    }

    pub(super) fn metadata(&self) -> Option<&Metadata> {
        self.metadata.as_ref()
    }

    /// Whether requests need a bearer token that no protected resource tells how to get.
    pub(super) fn wants_static_token(&self) -> bool {
        self.auth.is_some() && self.metadata.is_none()
    }

    /// Lets `parts` through, with what the validator returned in its extensions, or answers
    /// `401` with the challenge.
    pub(super) async fn check(&self, parts: &mut Parts) -> Result<(), Response<ResponseBody>> {
        let Some(auth) = &self.auth else {
            return Ok(());
        };
        let Some(given) = bearer(parts.headers.get(AUTHORIZATION)) else {
            return Err(self.unauthorized(Refusal::Missing));
        };
        let allowed = match auth {
            Auth::Token(token) => constant_time_eq(given, token),
            Auth::Verify(verify) => {
                let Ok(given) = std::str::from_utf8(given) else {
                    return Err(self.unauthorized(Refusal::Rejected));
                };
                match verify(given.to_owned()).await {
                    Some(extensions) => {
                        parts.extensions.extend(extensions);
                        true
                    }
                    None => false,
                }
            }
        };
        if allowed {
            Ok(())
        } else {
            Err(self.unauthorized(Refusal::Rejected))
        }
    }

    fn unauthorized(&self, refusal: Refusal) -> Response<ResponseBody> {
        let (body, challenge) = match refusal {
            Refusal::Missing => (
                "Unauthorized: no bearer token was sent; send Authorization: Bearer <token>",
                &self.missing,
            ),
            Refusal::Rejected => (
                "Unauthorized: the bearer token was not accepted",
                &self.rejected,
            ),
        };
        let mut response = plain(StatusCode::UNAUTHORIZED, body);
        response
            .headers_mut()
            .insert(WWW_AUTHENTICATE, challenge.clone());
        response
    }
}

/// Why a request was refused.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Refusal {
    /// No `Authorization: Bearer` header.
    Missing,
    /// A token that the secret or the validator refused.
    Rejected,
}

impl Metadata {
    /// The document, as JSON any page may read (it is public by design).
    pub(super) fn response(&self) -> Response<ResponseBody> {
        let mut response = Response::new(Full::new(self.document.clone()).boxed_unsync());
        let headers = response.headers_mut();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        headers.insert(
            hyper::header::ACCESS_CONTROL_ALLOW_ORIGIN,
            HeaderValue::from_static("*"),
        );
        response
    }
}

/// `scheme://authority` and the path of an absolute `http`/`https` URL without a fragment.
fn split_url(url: &str) -> Option<(&str, &str)> {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))?;
    if url.contains('#') || rest.is_empty() {
        return None;
    }
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    if authority_end == 0 {
        return None;
    }
    let origin_end = url.len() - rest.len() + authority_end;
    let path = &url[origin_end..];
    let path = &path[..path.find('?').unwrap_or(path.len())];
    Some((&url[..origin_end], path))
}

/// The token of `Authorization: Bearer <token>` (scheme case-insensitive).
fn bearer(header: Option<&HeaderValue>) -> Option<&[u8]> {
    let value = header?.as_bytes();
    let space = value.iter().position(|&byte| byte == b' ')?;
    let (scheme, given) = (&value[..space], value[space + 1..].trim_ascii_start());
    (scheme.eq_ignore_ascii_case(b"bearer") && !given.is_empty()).then_some(given)
}

/// Compares every byte whatever the first difference, so the answer's timing does not reveal
/// how much of a guess was right; only the length can leave early, and the length of a token
/// is no secret worth keeping.
fn constant_time_eq(given: &[u8], expected: &[u8]) -> bool {
    if given.len() != expected.len() {
        return false;
    }
    std::hint::black_box(difference(given.iter().zip(expected))) == 0
}

/// The OR of every pair's XOR: it reads every pair, whichever differs first.
fn difference<'a>(pairs: impl Iterator<Item = (&'a u8, &'a u8)>) -> u8 {
    pairs.fold(0_u8, |difference, (a, b)| difference | (a ^ b))
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, message)
}

#[cfg(test)]
mod tests {
    use crate::mcp::server::http::auth::*;

    fn parts(authorization: Option<&'static str>) -> Parts {
        let mut request = hyper::Request::new(());
        if let Some(value) = authorization {
            request
                .headers_mut()
                .insert(AUTHORIZATION, HeaderValue::from_static(value));
        }
        request.into_parts().0
    }

    fn check(guard: &Guard, authorization: Option<&'static str>) -> Result<Parts, u16> {
        let mut parts = parts(authorization);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        runtime
            .block_on(guard.check(&mut parts))
            .map(|()| parts)
            .map_err(|response| response.status().as_u16())
    }

    #[test]
    fn only_the_exact_bearer_token_matches() {
        let guard = Guard::new(Some(Auth::Token(b"s3cret".to_vec())), None).unwrap();
        assert!(check(&guard, Some("Bearer s3cret")).is_ok());
        assert!(check(&guard, Some("bearer s3cret")).is_ok());
        for refused in [
            Some("Bearer s3cre"),
            Some("Bearer s3cretx"),
            Some("Basic s3cret"),
            Some("s3cret"),
            Some("Bearer "),
            None,
        ] {
            assert_eq!(check(&guard, refused).unwrap_err(), 401, "{refused:?}");
        }
    }

    #[derive(Clone, Debug, PartialEq)]
    struct User(String);

    /// What the validator returns is in the request's extensions, which rmcp hands its handler
    /// inside the request's `http::request::Parts`.
    #[test]
    fn a_verified_identity_is_put_in_the_request_s_extensions() {
        let verify: Verifier = Arc::new(|token: String| {
            Box::pin(async move {
                (token == "alice-token").then(|| {
                    let mut extensions = Extensions::new();
                    extensions.insert(User("alice".to_owned()));
                    extensions
                })
            })
        });
        let guard = Guard::new(Some(Auth::Verify(verify)), None).unwrap();
        let parts = check(&guard, Some("Bearer alice-token")).unwrap();
        assert_eq!(
            parts.extensions.get::<User>(),
            Some(&User("alice".to_owned()))
        );
        assert_eq!(check(&guard, Some("Bearer mallory")).unwrap_err(), 401);
    }

    #[test]
    fn the_metadata_url_is_path_suffixed_and_bad_resources_are_refused() {
        let resource = |url: &str| ProtectedResource {
            resource: url.to_owned(),
            authorization_servers: vec!["https://auth.example.com".to_owned()],
        };
        let guard = Guard::new(None, Some(&resource("https://api.example.com/mcp"))).unwrap();
        assert_eq!(
            guard.missing,
            "Bearer resource_metadata=\"https://api.example.com/.well-known/oauth-protected-resource/mcp\""
        );
        let metadata = guard.metadata().unwrap();
        assert_eq!(
            metadata.suffixed_path,
            "/.well-known/oauth-protected-resource/mcp"
        );
        let root = Guard::new(None, Some(&resource("http://127.0.0.1:8080"))).unwrap();
        assert_eq!(
            root.missing,
            "Bearer resource_metadata=\"http://127.0.0.1:8080/.well-known/oauth-protected-resource\""
        );
        for bad in [
            "api.example.com/mcp",
            "ftp://x/mcp",
            "https://x/mcp#a",
            "https:///mcp",
        ] {
            let error = Guard::new(None, Some(&resource(bad))).err().unwrap();
            assert!(error.to_string().contains(&format!("`{bad}`")), "{error}");
        }
    }

    /// The comparison does not stop at the first byte that differs: a guess wrong in its
    /// first byte costs as many reads as one wrong only in its last.
    #[test]
    fn the_comparison_reads_every_byte_whichever_differs() {
        let token = b"0123456789abcdef";
        for guess in [b"X123456789abcdef", b"0123456789abcdeX", token] {
            let read = std::cell::Cell::new(0);
            let pairs = guess
                .iter()
                .zip(token)
                .inspect(|_| read.set(read.get() + 1));
            let same = difference(pairs) == 0;
            assert_eq!(same, guess == token);
            assert_eq!(read.get(), token.len());
        }
        assert!(constant_time_eq(token, token));
        assert!(!constant_time_eq(b"X123456789abcdef", token));
    }
}
