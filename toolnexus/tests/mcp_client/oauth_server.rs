//! A stand-in OAuth 2.1 authorization server for the sign-in tests, written here (no
//! Debian or PyPI package gives one that runs without a database or a JVM): RFC 8414
//! metadata, dynamic registration (RFC 7591), the authorization endpoint that redirects at
//! once (the person said yes), and a token endpoint that checks PKCE S256 and the `resource`
//! parameter, refreshes, and issues opaque tokens it can revoke. Beside it, under `/idp`, an
//! enterprise IdP whose token exchange (RFC 8693) turns the person's ID token into an
//! ID-JAG; the token endpoint redeems that, or a workload's JWT, as the JWT-bearer grant
//! (RFC 7523), checking each JWT's signature (HS256), issuer, audience and expiry.
#![allow(dead_code, reason = "each test uses the part of the stand-in it needs")]

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use base64::Engine;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
const ID_JAG: &str = "urn:ietf:params:oauth:token-type:id-jag";
/// What the IdP signs its ID tokens and ID-JAGs with.
const IDP_KEY: &[u8] = b"stand-in enterprise IdP key";
/// What the workload platform signs its workloads' JWTs with (the issuer the authorization
/// server trusts).
const PLATFORM_KEY: &[u8] = b"stand-in workload platform key";
const PLATFORM: &str = "https://platform.example";
/// The person's ID token and the ID-JAG name the app by these: its client at the IdP, and
/// at this authorization server (the confidential client `machine`).
pub const IDP_CLIENT: &str = "idp-client";
pub const IDP_SECRET: &str = "idp-secret-x9";

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
    /// Token exchanges asked of the IdP, and JWT-bearer grants asked of the token endpoint.
    pub token_exchanges: usize,
    pub jwt_bearer: usize,
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
                "grant_types_supported": ["authorization_code", "refresh_token", "client_credentials", JWT_BEARER],
                "code_challenge_methods_supported": *pkce.lock().unwrap(),
                "token_endpoint_auth_methods_supported": ["none", "client_secret_basic"],
                "scopes_supported": ["mcp:read", "mcp:write"],
            })
        };
        let (on_authorize, on_token, on_register, on_exchange) = (
            server.clone(),
            server.clone(),
            server.clone(),
            server.clone(),
        );
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
            )
            .route(
                "/idp/token",
                post(move |headers: HeaderMap, body: Bytes| {
                    on_exchange.clone().exchange(headers, body)
                }),
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

    /// The enterprise IdP's issuer identifier (its token endpoint is `/token` under it).
    pub fn idp_issuer(&self) -> String {
        format!("{}/idp", self.url)
    }

    /// An ID token the IdP issued to `alice` for the app's client there, good for
    /// `lifetime` seconds (negative: already expired).
    pub fn id_token(&self, lifetime: i64) -> String {
        let now = now();
        let claims = json!({
            "iss": self.idp_issuer(), "sub": "alice", "aud": IDP_CLIENT,
            "iat": now, "exp": now + lifetime,
        });
        jsonwebtoken::encode(
            &Header::default(),
            &claims,
            &EncodingKey::from_secret(IDP_KEY),
        )
        .unwrap()
    }

    /// A JWT the workload platform issued to the agent for this authorization server,
    /// good for `lifetime` seconds (negative: already expired).
    pub fn workload_jwt(&self, lifetime: i64) -> String {
        let now = now();
        let claims = json!({
            "iss": PLATFORM, "sub": "system:serviceaccount:agents:planner", "aud": self.url,
            "jti": format!("jti-{now}-{lifetime}"), "iat": now, "exp": now + lifetime,
        });
        let key = EncodingKey::from_secret(PLATFORM_KEY);
        jsonwebtoken::encode(&Header::default(), &claims, &key).unwrap()
    }

    /// The IdP's token exchange: the person's ID token for an ID-JAG naming this
    /// authorization server (the `audience`) and the MCP server (the `resource`).
    async fn exchange(self, headers: HeaderMap, body: Bytes) -> Response {
        let asked = form(&String::from_utf8_lossy(&body));
        let field = |key: &str| asked.get(key).cloned().unwrap_or_default();
        let resource = self.resource.lock().unwrap().clone();
        self.seen().token_exchanges += 1;
        if field("grant_type") != "urn:ietf:params:oauth:grant-type:token-exchange" {
            return refusal(
                StatusCode::BAD_REQUEST,
                "unsupported_grant_type",
                "not a token exchange",
            );
        }
        if field("requested_token_type") != ID_JAG
            || field("subject_token_type") != "urn:ietf:params:oauth:token-type:id_token"
        {
            return refusal(
                StatusCode::BAD_REQUEST,
                "invalid_request",
                "an ID token for an ID-JAG only",
            );
        }
        if basic(&headers) != Some((IDP_CLIENT.to_owned(), IDP_SECRET.to_owned())) {
            return refusal(
                StatusCode::UNAUTHORIZED,
                "invalid_client",
                "wrong client at the IdP",
            );
        }
        let Some(person) = verify(
            &field("subject_token"),
            IDP_KEY,
            &self.idp_issuer(),
            IDP_CLIENT,
        ) else {
            return invalid_grant("the ID token is not one of ours, or expired");
        };
        if field("audience") != self.url || field("resource") != resource {
            return refusal(StatusCode::BAD_REQUEST, "invalid_target", "not this server");
        }
        let now = now();
        let claims = json!({
            "iss": self.idp_issuer(), "sub": person["sub"], "aud": self.url,
            "client_id": "machine", "resource": resource, "scope": "mcp:read",
            "jti": format!("jag-{now}-{}", self.seen().token_exchanges), "iat": now, "exp": now + 300,
        });
        let header = Header {
            typ: Some("oauth-id-jag+jwt".to_owned()),
            ..Header::default()
        };
        let jag =
            jsonwebtoken::encode(&header, &claims, &EncodingKey::from_secret(IDP_KEY)).unwrap();
        self.seen().issued.push(jag.clone());
        json_response(
            StatusCode::OK,
            &json!({
                "access_token": jag, "issued_token_type": ID_JAG,
                "token_type": "N_A", "expires_in": 300,
            }),
        )
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
        let mut refreshable = true;
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
            JWT_BEARER => {
                seen.jwt_bearer += 1;
                // Neither grant gets a refresh token: the assertion is the way to renew.
                refreshable = false;
                let assertion = field("assertion");
                let typ = jsonwebtoken::decode_header(&assertion)
                    .ok()
                    .and_then(|h| h.typ);
                if typ.as_deref() == Some("oauth-id-jag+jwt") {
                    // An ID-JAG: for the client it names, which must authenticate.
                    let machine = Some(("machine".to_owned(), "machine-secret".to_owned()));
                    if basic(&headers) != machine {
                        return refusal(StatusCode::UNAUTHORIZED, "invalid_client", "wrong client");
                    }
                    let Some(jag) =
                        verify(&assertion, IDP_KEY, &format!("{}/idp", self.url), &self.url)
                    else {
                        return invalid_grant("the ID-JAG is not the IdP's, or expired");
                    };
                    if jag["client_id"] != "machine" || jag["resource"] != resource.as_str() {
                        return invalid_grant("the ID-JAG is for another client or server");
                    }
                    jag["scope"].as_str().unwrap_or_default().to_owned()
                } else {
                    // A workload's JWT: trusted for its issuer, for this server only.
                    if verify(&assertion, PLATFORM_KEY, PLATFORM, &self.url).is_none() {
                        return invalid_grant("the workload JWT is not the platform's, or expired");
                    }
                    if field("resource") != resource {
                        return refusal(
                            StatusCode::BAD_REQUEST,
                            "invalid_target",
                            "not this server",
                        );
                    }
                    match field("scope").as_str() {
                        "" => "mcp:read".to_owned(),
                        "mcp:read" => "mcp:read".to_owned(),
                        _ => {
                            return refusal(
                                StatusCode::BAD_REQUEST,
                                "invalid_scope",
                                "mcp:read only",
                            );
                        }
                    }
                }
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
        seen.issued.push(access.clone());
        let mut answer = json!({
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": *self.expires_in.lock().unwrap(),
            "scope": scope,
        });
        if refreshable {
            seen.refresh.insert(refresh.clone());
            seen.issued.push(refresh.clone());
            answer["refresh_token"] = refresh.into();
        }
        json_response(StatusCode::OK, &answer)
    }
}

fn invalid_grant(why: &str) -> Response {
    refusal(StatusCode::BAD_REQUEST, "invalid_grant", why)
}

fn refusal(status: StatusCode, error: &str, why: &str) -> Response {
    json_response(status, &json!({"error": error, "error_description": why}))
}

/// The claims of `jwt` when it is signed with `key` (HS256), from `issuer`, for `audience`,
/// and not expired.
fn verify(jwt: &str, key: &[u8], issuer: &str, audience: &str) -> Option<Value> {
    let mut validation = Validation::new(Algorithm::HS256);
    validation.set_issuer(&[issuer]);
    validation.set_audience(&[audience]);
    validation.leeway = 0;
    jsonwebtoken::decode::<Value>(jwt, &DecodingKey::from_secret(key), &validation)
        .ok()
        .map(|data| data.claims)
}

/// The client id and secret of an HTTP Basic `Authorization` header (each form-decoded, as
/// RFC 6749 §2.3.1 encodes them).
fn basic(headers: &HeaderMap) -> Option<(String, String)> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(value.strip_prefix("Basic ")?)
        .ok()?;
    let text = String::from_utf8(decoded).ok()?;
    let (id, secret) = text.split_once(':')?;
    Some((decode(id), decode(secret)))
}

fn now() -> i64 {
    let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
    i64::try_from(since.unwrap().as_secs()).unwrap()
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
