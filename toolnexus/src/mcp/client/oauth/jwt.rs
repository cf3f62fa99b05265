//! ES256 JSON Web Tokens the client signs (feature `oauth-jwt`): the client assertion of
//! `private_key_jwt` (RFC 7523) and DPoP proofs (RFC 9449), and the token requests they go
//! with.
//!
//! Signed with RustCrypto's `p256` rather than rmcp's `auth-client-credentials-jwt` feature:
//! that feature brings `jsonwebtoken` with aws-lc, a C library built from source, and DPoP
//! (which rmcp does not have) needs ES256 signing of our own anyway; one pure-Rust signer
//! serves both.

use std::time::Duration;

use base64::Engine;
use p256::ecdsa::signature::Signer;
use p256::ecdsa::{Signature, SigningKey};
use p256::pkcs8::DecodePrivateKey;
use serde_json::{Map, Value, json};

use std::sync::Arc;

use rmcp::transport::auth::{AuthorizationMetadata, OAuthTokenResponse};

use super::dpop::Dpop;
use super::{OAuthClient, plain};

/// How long a client assertion is good for: long enough for clock skew, short enough that
/// a copy is of little use.
const ASSERTION_LIFETIME_SECS: u64 = 300;
/// How long a token request may take, as rmcp's own OAuth requests.
const TOKEN_REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// The most of a token endpoint's answer that is read, as rmcp's own OAuth requests.
const MAX_TOKEN_RESPONSE_BYTES: usize = 1024 * 1024;

/// A P-256 private key that signs ES256 JWTs. Never printed: no `Debug`.
pub(crate) struct Es256Key(SigningKey);

impl Es256Key {
    /// The key in `pem`, PKCS#8 (`-----BEGIN PRIVATE KEY-----`), as `openssl genpkey` and
    /// WebCrypto's `exportKey("pkcs8")` write it.
    pub(crate) fn from_pem(pem: &str) -> Result<Self, String> {
        SigningKey::from_pkcs8_pem(pem.trim())
            .map(Self)
            .map_err(|_| {
                "the client's private key is not a P-256 (ES256) key in PKCS#8 PEM \
             (`-----BEGIN PRIVATE KEY-----`)"
                    .to_owned()
            })
    }

    /// A new key from the operating system's random source.
    pub(crate) fn generate() -> Result<Self, String> {
        loop {
            let mut secret = [0u8; 32];
            getrandom::fill(&mut secret)
                .map_err(|error| format!("no random source for a DPoP key: {error}"))?;
            // Fails only for zero or a value past the group order (about 2^-32): draw again.
            if let Ok(key) = SigningKey::from_slice(&secret) {
                return Ok(Self(key));
            }
        }
    }

    /// The public half as a JWK (RFC 7517/7518): what a DPoP proof's header carries.
    pub(crate) fn public_jwk(&self) -> Value {
        let point = self.0.verifying_key().to_encoded_point(false);
        let coordinate = |bytes: Option<&p256::FieldBytes>| bytes.map(b64).unwrap_or_default();
        json!({
            "kty": "EC",
            "crv": "P-256",
            "x": coordinate(point.x()),
            "y": coordinate(point.y()),
        })
    }

    /// The compact JWS of `claims` under `header` (to which `alg` is added).
    pub(crate) fn sign(&self, mut header: Map<String, Value>, claims: &Value) -> String {
        header.insert("alg".to_owned(), Value::from("ES256"));
        let input = format!(
            "{}.{}",
            b64(Value::Object(header).to_string()),
            b64(claims.to_string())
        );
        let signature: Signature = self.0.sign(input.as_bytes());
        format!("{input}.{}", b64(signature.to_bytes()))
    }

    /// The `client_assertion` of RFC 7523 §2.2 for `client_id`, addressed to `audience` (the
    /// authorization server's issuer identifier, as draft-ietf-oauth-rfc7523bis asks), with
    /// that draft's explicit type, as rmcp's own assertion has.
    fn client_assertion(&self, client_id: &str, audience: &str) -> Result<String, String> {
        let now = now();
        let claims = json!({
            "iss": client_id,
            "sub": client_id,
            "aud": audience,
            "iat": now,
            "exp": now + ASSERTION_LIFETIME_SECS,
            "jti": random_id()?,
        });
        let mut header = Map::new();
        header.insert("typ".to_owned(), Value::from("client-authentication+jwt"));
        Ok(self.sign(header, &claims))
    }
}

/// What the client credentials grant with `private_key_jwt` needs to know of the server.
pub(crate) struct AssertionGrant<'a> {
    pub client_id: &'a str,
    pub key: &'a Es256Key,
    pub token_endpoint: &'a str,
    /// The `aud` of the assertion: the issuer, else the token endpoint (RFC 7523 §3 allows it).
    pub audience: &'a str,
    pub scopes: &'a [String],
    pub resource: &'a str,
}

impl AssertionGrant<'_> {
    /// The token endpoint's answer (a successful one: the token response's JSON), or why not.
    pub(crate) async fn exchange(&self, dpop: Option<&Dpop>) -> Result<Vec<u8>, String> {
        let assertion = self.key.client_assertion(self.client_id, self.audience)?;
        let mut form = reqwest::Url::parse("http://form.invalid/").map_err(|e| e.to_string())?;
        {
            // A URL's query serializer is the `application/x-www-form-urlencoded` one.
            let mut pairs = form.query_pairs_mut();
            pairs
                .append_pair("grant_type", "client_credentials")
                .append_pair(
                    "client_assertion_type",
                    "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
                )
                .append_pair("client_assertion", &assertion)
                .append_pair("resource", self.resource);
            if !self.scopes.is_empty() {
                pairs.append_pair("scope", &self.scopes.join(" "));
            }
        }
        let body = form.query().unwrap_or_default().as_bytes().to_vec();
        let request = http::Request::post(self.token_endpoint)
            .header(
                http::header::CONTENT_TYPE,
                "application/x-www-form-urlencoded",
            )
            .header(http::header::ACCEPT, "application/json")
            .body(body)
            .map_err(|_| "the token endpoint is not a URL".to_owned())?;
        let answer = token_request(&request, dpop)
            .await
            .map_err(|error| format!("the token request failed: {error}"))?;
        if answer.status().is_success() {
            return Ok(answer.into_body());
        }
        let refusal: Value = serde_json::from_slice(answer.body()).unwrap_or_default();
        let text = |key: &str| refusal.get(key).and_then(Value::as_str).unwrap_or_default();
        Err(format!(
            "the authorization server refused the client's signed assertion (HTTP {}): {} {}",
            answer.status().as_u16(),
            text("error"),
            text("error_description"),
        )
        .trim_end()
        .to_owned())
    }
}

/// Sends a token request (a POST to the token endpoint): with a DPoP proof when `dpop`, and
/// once more with the nonce the server asks for when it answers `use_dpop_nonce` (RFC 9449
/// §8). Redirects are not followed (a token request is not to be replayed elsewhere).
pub(crate) async fn token_request(
    request: &http::Request<Vec<u8>>,
    dpop: Option<&Dpop>,
) -> Result<http::Response<Vec<u8>>, String> {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(TOKEN_REQUEST_TIMEOUT)
        .build()
        .map_err(|error| error.to_string())?;
    let url = request.uri().to_string();
    let mut retried = false;
    loop {
        let mut sent = client
            .request(request.method().clone(), &url)
            .headers(request.headers().clone())
            .body(request.body().clone());
        if let Some(dpop) = dpop {
            sent = sent.header("DPoP", dpop.proof(request.method().as_str(), &url, None)?);
        }
        let answer = sent
            .send()
            .await
            .map_err(|error| error.without_url().to_string())?;
        let status = answer.status();
        let headers = answer.headers().clone();
        let body = read_bounded(answer).await?;
        if let Some(dpop) = dpop {
            let nonce = dpop.keep_nonce(&url, &headers);
            if !retried && nonce && asks_for_nonce(status, &body) {
                retried = true;
                continue;
            }
            if status.is_success() {
                dpop.keep_token_type(&body);
            }
        }
        let mut response = http::Response::builder().status(status);
        if let Some(kept) = response.headers_mut() {
            *kept = headers;
        }
        return response.body(body).map_err(|error| error.to_string());
    }
}

/// Whether a token endpoint's error answer is `use_dpop_nonce` (RFC 9449 §8).
fn asks_for_nonce(status: reqwest::StatusCode, body: &[u8]) -> bool {
    status.is_client_error()
        && serde_json::from_slice::<Value>(body)
            .ok()
            .is_some_and(|answer| answer.get("error") == Some(&Value::from("use_dpop_nonce")))
}

async fn read_bounded(mut answer: reqwest::Response) -> Result<Vec<u8>, String> {
    let mut body = Vec::new();
    while let Some(chunk) = answer
        .chunk()
        .await
        .map_err(|e| e.without_url().to_string())?
    {
        if body.len() + chunk.len() > MAX_TOKEN_RESPONSE_BYTES {
            return Err(format!(
                "the token endpoint's answer is over {MAX_TOKEN_RESPONSE_BYTES} bytes"
            ));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// Seconds since the Unix epoch.
pub(crate) fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_secs())
}

/// 128 random bits, base64url: a `jti`.
pub(crate) fn random_id() -> Result<String, String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|error| format!("no random source: {error}"))?;
    Ok(b64(bytes))
}

pub(crate) fn b64(bytes: impl AsRef<[u8]>) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

impl OAuthClient {
    /// The private key the pre-registered [`client_id`](Self::client_id) authenticates with
    /// instead of a secret, for the [`client_credentials`](Self::client_credentials) grant:
    /// `private_key_jwt` (RFC 7523 §2.2, OpenID Connect's client authentication), as the
    /// extension `io.modelcontextprotocol/oauth-client-credentials` (SEP-1046) describes.
    /// `pem` is a P-256 key in PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`, as `openssl genpkey
    /// -algorithm EC -pkeyopt ec_paramgen_curve:P-256` writes it); the authorization server
    /// holds its public half.
    ///
    /// Each token request carries a fresh assertion, signed ES256: `iss` and `sub` the client
    /// id, `aud` the authorization server's issuer (its token endpoint when the metadata names
    /// no issuer), a five-minute `exp`, a random `jti`, and the `typ`
    /// `client-authentication+jwt` of draft-ietf-oauth-rfc7523bis. An authorization server
    /// whose metadata lists auth methods without `private_key_jwt`, or signing algorithms
    /// without `ES256`, is refused before anything is sent. A key that does not read is
    /// refused at the first sign-in, naming what is wrong but never its content; the key is
    /// kept in memory only and never printed.
    ///
    /// Signed with RustCrypto's pure-Rust `p256` rather than rmcp's
    /// `auth-client-credentials-jwt`, which brings `jsonwebtoken` with aws-lc: a C library
    /// compiled from source (a C toolchain on every build machine, and more build time
    /// than the signing it is used for). DPoP ([`dpop`](Self::dpop)) needs ES256 of its own
    /// anyway, which rmcp does not offer, and one signer serves both.
    ///
    /// ```no_run
    /// use toolnexus::mcp::{McpTools, OAuthClient};
    ///
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// let pem = std::fs::read_to_string("agent-key.pem")?;
    /// let oauth = OAuthClient::new("http://127.0.0.1/unused")
    ///     .client_id("reporting-agent")
    ///     .client_private_key(pem)
    ///     .client_credentials();
    /// let tools = McpTools::http("https://mcp.example.com/mcp").oauth(oauth).connect().await?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn client_private_key(mut self, pem: impl AsRef<str>) -> Self {
        self.config.private_key = Some(Es256Key::from_pem(pem.as_ref()).map(Arc::new));
        self
    }

    /// The client credentials grant with `private_key_jwt`: the tokens the authorization
    /// server of `metadata` issues for a signed assertion, without a refresh token (the
    /// client can sign another assertion whenever it needs).
    pub(super) async fn assert_itself(
        &self,
        client_id: &str,
        key: &Es256Key,
        metadata: &AuthorizationMetadata,
        resource: &str,
    ) -> Result<OAuthTokenResponse, String> {
        let listed = |field: &str| -> Option<Vec<String>> {
            let values = metadata.additional_fields.get(field)?.as_array()?;
            Some(
                values
                    .iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect(),
            )
        };
        if let Some(methods) = listed("token_endpoint_auth_methods_supported")
            && !methods.iter().any(|method| method == "private_key_jwt")
        {
            return Err(plain(format!(
                "the authorization server does not take `private_key_jwt` client \
                 authentication (it lists {methods:?})"
            )));
        }
        if let Some(algorithms) = listed("token_endpoint_auth_signing_alg_values_supported")
            && !algorithms.iter().any(|algorithm| algorithm == "ES256")
        {
            return Err(plain(format!(
                "the authorization server does not take ES256 client assertions (it lists \
                 {algorithms:?})"
            )));
        }
        let endpoint = &metadata.token_endpoint;
        if !secure_enough(endpoint, resource) {
            return Err(plain(format!(
                "the token endpoint `{endpoint}` is not HTTPS (plain HTTP only on loopback)"
            )));
        }
        let grant = AssertionGrant {
            client_id,
            key,
            token_endpoint: endpoint,
            audience: metadata.issuer.as_deref().unwrap_or(endpoint),
            scopes: &self.config.scopes,
            resource,
        };
        let dpop = self.dpop_state()?;
        let body = grant.exchange(dpop.as_deref()).await.map_err(plain)?;
        let mut tokens: OAuthTokenResponse = serde_json::from_slice(&body)
            .map_err(|_| plain("the token endpoint's answer is not a token response"))?;
        tokens.set_refresh_token(None);
        Ok(tokens)
    }
}

/// Whether a token endpoint may be sent a client's credentials: HTTPS, or plain HTTP when it
/// and the MCP server are both on loopback (a local test), rmcp's rule for its own grant.
pub(super) fn secure_enough(endpoint: &str, resource: &str) -> bool {
    let loopback = |url: &str| {
        reqwest::Url::parse(url).is_ok_and(|url| {
            let host = url.host_str().unwrap_or_default();
            let host = host.trim_start_matches('[').trim_end_matches(']');
            host.eq_ignore_ascii_case("localhost")
                || host
                    .parse::<std::net::IpAddr>()
                    .is_ok_and(|ip| ip.is_loopback())
        })
    };
    endpoint.starts_with("https://")
        || (endpoint.starts_with("http://") && loopback(endpoint) && loopback(resource))
}
