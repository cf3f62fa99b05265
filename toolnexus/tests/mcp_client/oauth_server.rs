//! A stand-in OAuth 2.1 authorization server for the sign-in tests, written here (no
//! Debian or PyPI package gives one that runs without a database or a JVM): RFC 8414
//! metadata, dynamic registration (RFC 7591), the authorization endpoint that redirects at
//! once (the person said yes), and a token endpoint that checks PKCE S256 and the `resource`
//! parameter, refreshes, and issues opaque tokens it can revoke.
#![allow(dead_code, reason = "each test uses the part of the stand-in it needs")]

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use base64::Engine;
use serde_json::json;
use sha2::{Digest, Sha256};

/// What the authorization server saw and issued.
#[derive(Default)]
pub struct Seen {
    /// Codes given out: their PKCE challenge, `resource` and `scope`.
    codes: HashMap<String, (String, String, String)>,
    /// Live access tokens, with their scope.
    pub access: HashMap<String, String>,
    pub refresh: HashSet<String>,
    /// Every token ever issued (access and refresh), for the log check.
    pub issued: Vec<String>,
    pub authorizations: Vec<HashMap<String, String>>,
    pub registrations: usize,
    pub code_exchanges: usize,
    pub refreshes: usize,
    pub client_credentials: usize,
    pub next: usize,
}

#[derive(Clone)]
pub struct AuthServer {
    pub url: String,
    pub seen: Arc<Mutex<Seen>>,
    /// The resource tokens are issued for (the `resource` a request must name).
    pub resource: Arc<Mutex<String>>,
    /// The `expires_in` of the tokens it issues (3600 unless a test says).
    pub expires_in: Arc<Mutex<u64>>,
    /// The PKCE methods its metadata lists (`["S256"]` unless a test says).
    pub pkce_methods: Arc<Mutex<Vec<&'static str>>>,
}

impl AuthServer {
    pub async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let server = Self {
            url: url.clone(),
            seen: Arc::default(),
            resource: Arc::default(),
            expires_in: Arc::new(Mutex::new(3600)),
            pkce_methods: Arc::new(Mutex::new(vec!["S256"])),
        };
        let pkce = Arc::clone(&server.pkce_methods);
        let metadata = move || {
            json!({
                "issuer": url,
                "authorization_endpoint": format!("{url}/authorize"),
                "token_endpoint": format!("{url}/token"),
                "registration_endpoint": format!("{url}/register"),
                "response_types_supported": ["code"],
                "grant_types_supported": ["authorization_code", "refresh_token", "client_credentials"],
                "code_challenge_methods_supported": *pkce.lock().unwrap(),
                "token_endpoint_auth_methods_supported": ["none", "client_secret_basic"],
                "scopes_supported": ["mcp:read", "mcp:write"],
            })
        };
        let (on_authorize, on_token, on_register) =
            (server.clone(), server.clone(), server.clone());
        let app = Router::new()
            .route(
                "/.well-known/oauth-authorization-server",
                get(move || {
                    let metadata = metadata();
                    async move { json_response(StatusCode::OK, &metadata) }
                }),
            )
            .route(
                "/register",
                post(move |body: Bytes| on_register.clone().register(body)),
            )
            .route(
                "/authorize",
                get(move |uri: Uri| on_authorize.clone().authorize(uri)),
            )
            .route(
                "/token",
                post(move |headers: HeaderMap, body: Bytes| on_token.clone().token(headers, body)),
            );
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        server
    }

    pub fn seen(&self) -> std::sync::MutexGuard<'_, Seen> {
        self.seen.lock().unwrap()
    }

    /// Whether `token` is a live access token (what the resource server's `verify_bearer`
    /// asks, as an introspection call would).
    pub fn scope_of(&self, token: &str) -> Option<String> {
        self.seen().access.get(token).cloned()
    }

    /// Every access token stops working (they expired); refresh tokens still work.
    pub fn expire_access_tokens(&self) {
        self.seen().access.clear();
    }

    /// Every token stops working, refresh tokens too: only a new login helps.
    pub fn revoke_everything(&self) {
        let mut seen = self.seen();
        seen.access.clear();
        seen.refresh.clear();
    }

    async fn register(self, body: Bytes) -> Response {
        let asked: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
        self.seen().registrations += 1;
        json_response(
            StatusCode::CREATED,
            &json!({
                "client_id": "registered-client",
                "redirect_uris": asked["redirect_uris"],
                "token_endpoint_auth_method": "none",
                "grant_types": ["authorization_code", "refresh_token"],
                "response_types": ["code"],
            }),
        )
    }

    async fn authorize(self, uri: Uri) -> Response {
        let query = form(uri.query().unwrap_or_default());
        let mut seen = self.seen();
        seen.authorizations.push(query.clone());
        seen.next += 1;
        let code = format!("code-{}", seen.next);
        let field = |key: &str| query.get(key).cloned().unwrap_or_default();
        seen.codes.insert(
            code.clone(),
            (field("code_challenge"), field("resource"), field("scope")),
        );
        let location = format!(
            "{}?code={code}&state={}",
            field("redirect_uri"),
            encode(&field("state"))
        );
        (StatusCode::FOUND, [(header::LOCATION, location)]).into_response()
    }

    async fn token(self, headers: HeaderMap, body: Bytes) -> Response {
        let authorization = headers
            .get(header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        let asked = form(&String::from_utf8_lossy(&body));
        let field = |key: &str| asked.get(key).cloned().unwrap_or_default();
        let resource = self.resource.lock().unwrap().clone();
        let mut seen = self.seen();
        let scope = match field("grant_type").as_str() {
            "authorization_code" => {
                seen.code_exchanges += 1;
                let Some((challenge, sent_resource, scope)) = seen.codes.remove(&field("code"))
                else {
                    return invalid_grant("unknown code");
                };
                let digest = Sha256::digest(field("code_verifier").as_bytes());
                let computed = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(digest);
                if computed != challenge {
                    return invalid_grant("code_verifier does not match the challenge");
                }
                if sent_resource != resource || field("resource") != resource {
                    return invalid_grant("resource is not this server's resource");
                }
                scope
            }
            "client_credentials" => {
                // Confidential client `machine`: HTTP Basic or the body, as the metadata allows.
                let basic = format!(
                    "Basic {}",
                    base64::engine::general_purpose::STANDARD.encode("machine:machine-secret")
                );
                let in_body =
                    field("client_id") == "machine" && field("client_secret") == "machine-secret";
                if authorization != basic && !in_body {
                    return invalid_grant("wrong client credentials");
                }
                if field("resource") != resource {
                    return invalid_grant("resource is not this server's resource");
                }
                seen.client_credentials += 1;
                "mcp:read".to_owned()
            }
            "refresh_token" => {
                seen.refreshes += 1;
                if !seen.refresh.remove(&field("refresh_token")) {
                    return invalid_grant("unknown refresh token");
                }
                "mcp:read mcp:write".to_owned()
            }
            _ => return invalid_grant("unsupported grant"),
        };
        seen.next += 1;
        let access = format!("secret-access-{}-x9", seen.next);
        let refresh = format!("secret-refresh-{}-x9", seen.next);
        seen.access.insert(access.clone(), scope.clone());
        seen.refresh.insert(refresh.clone());
        seen.issued.extend([access.clone(), refresh.clone()]);
        json_response(
            StatusCode::OK,
            &json!({
                "access_token": access,
                "token_type": "Bearer",
                "expires_in": *self.expires_in.lock().unwrap(),
                "refresh_token": refresh,
                "scope": scope,
            }),
        )
    }
}

fn invalid_grant(why: &str) -> Response {
    json_response(
        StatusCode::BAD_REQUEST,
        &json!({"error": "invalid_grant", "error_description": why}),
    )
}

fn json_response(status: StatusCode, body: &serde_json::Value) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

/// `application/x-www-form-urlencoded` (a query or a body) as a map.
pub fn form(text: &str) -> HashMap<String, String> {
    text.split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            (decode(key), decode(value))
        })
        .collect()
}

fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("");
                out.push(u8::from_str_radix(hex, 16).unwrap_or(b'?'));
                i += 2;
            }
            other => out.push(other),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn encode(text: &str) -> String {
    text.bytes()
        .map(|byte| match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (byte as char).to_string()
            }
            other => format!("%{other:02X}"),
        })
        .collect()
}
