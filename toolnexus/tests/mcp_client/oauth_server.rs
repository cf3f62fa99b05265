//! A stand-in OAuth 2.1 authorization server for the sign-in tests, written here (no
//! Debian or PyPI package gives one that runs without a database or a JVM): RFC 8414
//! metadata, dynamic registration (RFC 7591), the authorization endpoint that redirects at
//! once (the person said yes), and a token endpoint that checks PKCE S256 and the `resource`
//! parameter, refreshes, and issues opaque tokens it can revoke. Beside it, under `/idp`, an
//! enterprise IdP whose token exchange (RFC 8693) turns the person's ID token into an
//! ID-JAG; the token endpoint redeems that, or a workload's JWT, as the JWT-bearer grant
//! (RFC 7523), checking each JWT's signature (HS256), issuer, audience and expiry. It also
//! verifies what the feature `oauth-jwt` signs: `private_key_jwt` client assertions (RFC
//! 7523) and DPoP proofs (RFC 9449), binding a token to the proof's key and asking for
//! nonces when told to.
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
    /// Every client assertion and DPoP proof received (token endpoint and MCP server).
    pub signed: Vec<String>,
    /// The claims of each client assertion that verified.
    pub assertions: Vec<serde_json::Value>,
    /// DPoP-bound access tokens: the thumbprint of the key each is bound to.
    pub bound: HashMap<String, String>,
    /// Every proof `jti` seen, to refuse a replay.
    pub jtis: HashSet<String>,
    /// Token requests with a valid DPoP proof, and requests to the MCP server with one.
    pub token_proofs: usize,
    pub resource_proofs: usize,
    /// `use_dpop_nonce` answers given by the token endpoint and by the MCP server.
    pub token_nonce_challenges: usize,
    pub resource_nonce_challenges: usize,
}

/// What the servers ask of DPoP (RFC 9449).
#[derive(Default, Clone)]
pub struct DpopRule {
    /// Token requests without a valid proof are refused, and the MCP server checks proofs.
    pub required: bool,
    /// The nonce a token request's proof must carry (§8), if any.
    pub token_nonce: Option<String>,
    /// The nonce a proof sent to the MCP server must carry (§9), if any.
    pub resource_nonce: Option<String>,
    /// The MCP server hands out a new nonce with every challenge (a nonce never satisfied).
    pub rotate_resource_nonce: bool,
    /// Proofs are checked but tokens issued unbound, as `Bearer` (a server without DPoP).
    pub unbound_tokens: bool,
}

/// The public half of the key `private_key_jwt` tests sign with (`CLIENT_KEY_PEM` in
/// `mcp_client_oauth_jwt.rs`), as JWK coordinates.
const CLIENT_KEY_X: &str = "KHf-Wju5idL6uDGR5Anj7r-DeGZaVMS4t4YhyjoZb1E";
const CLIENT_KEY_Y: &str = "5W2MYLkPqzEcNMXgXGFJ7nO3zWSSEJRaNp2Jt3x2LN4";
const JWT_ASSERTION: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

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
    /// The client authentication methods its metadata lists.
    pub auth_methods: Arc<Mutex<Vec<&'static str>>>,
    pub dpop: Arc<Mutex<DpopRule>>,
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
            auth_methods: Arc::new(Mutex::new(vec![
                "none",
                "client_secret_basic",
                "private_key_jwt",
            ])),
            dpop: Arc::default(),
        };
        let pkce = Arc::clone(&server.pkce_methods);
        let methods = Arc::clone(&server.auth_methods);
        let metadata = move || {
            json!({
                "issuer": url,
                "authorization_endpoint": format!("{url}/authorize"),
                "token_endpoint": format!("{url}/token"),
                "registration_endpoint": format!("{url}/register"),
                "response_types_supported": ["code"],
                "grant_types_supported": ["authorization_code", "refresh_token", "client_credentials", JWT_BEARER],
                "code_challenge_methods_supported": *pkce.lock().unwrap(),
                "token_endpoint_auth_methods_supported": *methods.lock().unwrap(),
                "token_endpoint_auth_signing_alg_values_supported": ["ES256"],
                "dpop_signing_alg_values_supported": ["ES256"],
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
        let now = now() as i64;
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
        let now = now() as i64;
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
        let rule = self.dpop.lock().unwrap().clone();
        let mut seen = self.seen();
        // DPoP (RFC 9449 §5): a proof binds the token to its key; §8: the nonce asked for.
        let proof = headers.get("dpop").and_then(|value| value.to_str().ok());
        let bound_to = match proof {
            Some(proof) => {
                let endpoint = format!("{}/token", self.url);
                let nonce = rule.token_nonce.as_deref();
                match check_proof(&mut seen, proof, "POST", &endpoint, None, nonce) {
                    Ok(thumbprint) => Some(thumbprint),
                    Err(Refusal::Nonce) => {
                        seen.token_nonce_challenges += 1;
                        let nonce = nonce.unwrap_or_default().to_owned();
                        let mut answer = refusal(
                            StatusCode::BAD_REQUEST,
                            "use_dpop_nonce",
                            "a DPoP nonce is required",
                        );
                        answer
                            .headers_mut()
                            .insert("dpop-nonce", nonce.parse().unwrap());
                        return answer;
                    }
                    Err(Refusal::Proof(why)) => {
                        return refusal(StatusCode::BAD_REQUEST, "invalid_dpop_proof", &why);
                    }
                }
            }
            None if rule.required => {
                return refusal(
                    StatusCode::BAD_REQUEST,
                    "invalid_dpop_proof",
                    "a DPoP proof is required",
                );
            }
            None => None,
        };
        if bound_to.is_some() {
            seen.token_proofs += 1;
        }
        let bound_to = bound_to.filter(|_| !rule.unbound_tokens);
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
            "client_credentials" if field("client_assertion_type") == JWT_ASSERTION => {
                // `signed-machine` authenticates with an ES256 assertion (RFC 7523 §2.2).
                let assertion = field("client_assertion");
                seen.signed.push(assertion.clone());
                if asked.contains_key("client_id") || asked.contains_key("client_secret") {
                    return refusal(
                        StatusCode::BAD_REQUEST,
                        "invalid_request",
                        "an assertion and a client_id or secret",
                    );
                }
                match check_assertion(&mut seen, &assertion, &self.url) {
                    Ok(claims) => seen.assertions.push(claims),
                    Err(why) => return refusal(StatusCode::BAD_REQUEST, "invalid_client", &why),
                }
                if field("resource") != resource {
                    return invalid_grant("resource is not this server's resource");
                }
                seen.client_credentials += 1;
                "mcp:read".to_owned()
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
        if let Some(thumbprint) = &bound_to {
            seen.bound.insert(access.clone(), thumbprint.clone());
        }
        let mut answer = json!({
            "access_token": access,
            "token_type": if bound_to.is_some() { "DPoP" } else { "Bearer" },
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

/// Why a DPoP proof was refused: it lacks the nonce asked for, or something else is wrong.
pub enum Refusal {
    Nonce,
    Proof(String),
}

/// Checks a DPoP proof (RFC 9449 §4.3) for a `method` request to `url`, with `token` its
/// `ath` and `nonce` the one it must carry: the thumbprint (RFC 7638) of its key.
pub fn check_proof(
    seen: &mut Seen,
    proof: &str,
    method: &str,
    url: &str,
    token: Option<&str>,
    nonce: Option<&str>,
) -> Result<String, Refusal> {
    use jsonwebtoken::jwk::ThumbprintHash;
    use jsonwebtoken::{Algorithm, DecodingKey, Validation};
    seen.signed.push(proof.to_owned());
    let wrong = |why: &str| Refusal::Proof(why.to_owned());
    let header = jsonwebtoken::decode_header(proof).map_err(|_| wrong("not a JWT"))?;
    if header.typ.as_deref() != Some("dpop+jwt") || header.alg != Algorithm::ES256 {
        return Err(wrong("not an ES256 dpop+jwt"));
    }
    let jwk = header.jwk.ok_or_else(|| wrong("no jwk"))?;
    let key = DecodingKey::from_jwk(&jwk).map_err(|_| wrong("the jwk is not a key"))?;
    let mut validation = Validation::new(Algorithm::ES256);
    validation.required_spec_claims.clear();
    validation.validate_exp = false;
    let claims = jsonwebtoken::decode::<serde_json::Value>(proof, &key, &validation)
        .map_err(|_| wrong("the signature does not verify"))?
        .claims;
    let text = |key: &str| claims.get(key).and_then(|v| v.as_str()).unwrap_or_default();
    let now = now();
    let iat = claims.get("iat").and_then(|v| v.as_u64()).unwrap_or(0);
    if text("htm") != method || text("htu") != url || now.abs_diff(iat) > 60 {
        return Err(wrong("htm, htu or iat do not match the request"));
    }
    if let Some(token) = token {
        let hash = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .encode(Sha256::digest(token.as_bytes()));
        if text("ath") != hash {
            return Err(wrong("ath is not the token's hash"));
        }
    }
    if nonce.is_some_and(|nonce| text("nonce") != nonce) {
        return Err(Refusal::Nonce);
    }
    if text("jti").is_empty() || !seen.jtis.insert(text("jti").to_owned()) {
        return Err(wrong("no jti, or one seen before (a replay)"));
    }
    Ok(jwk.thumbprint(ThumbprintHash::SHA256))
}

/// Checks a `private_key_jwt` client assertion of `signed-machine` (RFC 7523 §3) addressed to
/// the issuer `issuer`: its claims.
fn check_assertion(
    seen: &mut Seen,
    assertion: &str,
    issuer: &str,
) -> Result<serde_json::Value, String> {
    use jsonwebtoken::{Algorithm, DecodingKey, Validation};
    let key = DecodingKey::from_ec_components(CLIENT_KEY_X, CLIENT_KEY_Y).unwrap();
    let mut validation = Validation::new(Algorithm::ES256);
    validation.set_audience(&[issuer]);
    validation.set_issuer(&["signed-machine"]);
    validation.sub = Some("signed-machine".to_owned());
    validation.set_required_spec_claims(&["exp", "aud", "iss", "sub"]);
    let claims = jsonwebtoken::decode::<serde_json::Value>(assertion, &key, &validation)
        .map_err(|error| format!("the assertion does not verify: {error}"))?
        .claims;
    let jti = claims
        .get("jti")
        .and_then(|v| v.as_str())
        .unwrap_or_default();
    if jti.is_empty() || !seen.jtis.insert(jti.to_owned()) {
        return Err("the assertion has no jti, or one seen before".to_owned());
    }
    Ok(claims)
}

pub fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
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
