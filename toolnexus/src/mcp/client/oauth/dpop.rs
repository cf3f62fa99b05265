//! DPoP (RFC 9449, the MCP extension `io.modelcontextprotocol/auth/dpop`; feature
//! `oauth-jwt`): the client's key, the proofs it signs, and the two places they are sent —
//! token requests (through [`DpopOAuthHttp`], rmcp's hook for every OAuth request) and
//! requests to the MCP server (through `dpop_http.rs`'s `DpopHttp`, the HTTP client under rmcp's
//! `AuthClient`). rmcp has no DPoP of its own.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http::HeaderMap;
use rmcp::transport::auth::{
    OAuthHttpClient, OAuthHttpClientError, OAuthHttpClientFuture, OAuthHttpRequest,
};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use super::OAuthClient;
use super::client_credentials::now;
use super::es256::{Es256Key, b64, random_id};

/// Nonces (one per server) and unbound tokens kept; past this a set starts over (a nonce is
/// only a hint, and a token forgotten is sent with a proof, which a server may ignore).
const MAX_KEPT: usize = 64;

/// The client's DPoP key, the nonces servers gave it, and the tokens issued unbound.
pub(crate) struct Dpop {
    key: Es256Key,
    /// The last `DPoP-Nonce` of each server, by origin (RFC 9449 §8 and §9).
    nonces: Mutex<HashMap<String, String>>,
    /// The SHA-256 of each access token issued with a `token_type` other than `DPoP`: the
    /// authorization server did not bind it, so it goes as a bearer token (§5, §7.1).
    unbound: Mutex<HashSet<String>>,
}

impl Dpop {
    pub(crate) fn new(key: Es256Key) -> Self {
        Self {
            key,
            nonces: Mutex::default(),
            unbound: Mutex::default(),
        }
    }

    /// Notes the access token of a successful token response if it was issued unbound.
    pub(crate) fn keep_token_type(&self, body: &[u8]) {
        let Ok(answer) = serde_json::from_slice::<Value>(body) else {
            return;
        };
        let text = |key: &str| answer.get(key).and_then(Value::as_str);
        if let (Some(token), Some(kind)) = (text("access_token"), text("token_type"))
            && !kind.eq_ignore_ascii_case("dpop")
        {
            let mut unbound = self.unbound.lock().unwrap_or_else(|p| p.into_inner());
            if unbound.len() >= MAX_KEPT {
                unbound.clear();
            }
            unbound.insert(hash(token));
        }
    }

    pub(crate) fn is_unbound(&self, token: &str) -> bool {
        self.unbound
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .contains(&hash(token))
    }

    /// A fresh proof (RFC 9449 §4.2) for a `method` request to `url`; `token` is the access
    /// token it goes with (its hash is `ath`), none for a token request.
    pub(crate) fn proof(
        &self,
        method: &str,
        url: &str,
        token: Option<&str>,
    ) -> Result<String, String> {
        let mut htu = reqwest::Url::parse(url)
            .map_err(|_| "a DPoP proof needs the request's URL, which does not parse")?;
        // `htu` is the URL without query and fragment (§4.2).
        htu.set_query(None);
        htu.set_fragment(None);
        let mut claims = json!({
            "jti": random_id()?,
            "htm": method,
            "htu": htu.as_str(),
            "iat": now(),
        });
        if let Some(token) = token {
            claims["ath"] = Value::from(hash(token));
        }
        if let Some(nonce) = self.nonce(url) {
            claims["nonce"] = Value::from(nonce);
        }
        let mut header = Map::new();
        header.insert("typ".to_owned(), Value::from("dpop+jwt"));
        header.insert("jwk".to_owned(), self.key.public_jwk());
        Ok(self.key.sign(header, &claims))
    }

    fn nonce(&self, url: &str) -> Option<String> {
        self.lock().get(&origin(url)?).cloned()
    }

    /// Keeps the `DPoP-Nonce` of an answer from `url`, if it has one; whether it had.
    pub(crate) fn keep_nonce(&self, url: &str, headers: &HeaderMap) -> bool {
        let (Some(origin), Some(nonce)) = (
            origin(url),
            headers.get("dpop-nonce").and_then(|v| v.to_str().ok()),
        ) else {
            return false;
        };
        let mut nonces = self.lock();
        if nonces.len() >= MAX_KEPT {
            nonces.clear();
        }
        nonces.insert(origin, nonce.to_owned());
        true
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, String>> {
        self.nonces.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A token's SHA-256, base64url: a proof's `ath` (§4.2).
fn hash(token: &str) -> String {
    b64(Sha256::digest(token.as_bytes()))
}

fn origin(url: &str) -> Option<String> {
    reqwest::Url::parse(url)
        .ok()
        .map(|url| url.origin().ascii_serialization())
}

/// rmcp's OAuth requests with a DPoP proof on each token request: the code exchange, the
/// refresh and the client credentials grant get DPoP-bound tokens (RFC 9449 §5); discovery
/// and registration go as they are.
pub(crate) struct DpopOAuthHttp {
    pub inner: Box<dyn OAuthHttpClient>,
    pub dpop: Arc<Dpop>,
}

impl OAuthHttpClient for DpopOAuthHttp {
    fn execute(&self, request: OAuthHttpRequest) -> OAuthHttpClientFuture<'_> {
        if !is_token_request(&request.request) {
            return self.inner.execute(request);
        }
        Box::pin(async move {
            token_request(&request.request, Some(&self.dpop))
                .await
                .map_err(OAuthHttpClientError::from)
        })
    }
}

/// A token request is the one form-encoded POST with a `grant_type` (RFC 6749 §4); rmcp's
/// other OAuth requests are GETs and the JSON registration.
fn is_token_request(request: &http::Request<Vec<u8>>) -> bool {
    let form = request
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/x-www-form-urlencoded"));
    request.method() == http::Method::POST
        && form
        && request
            .body()
            .split(|&byte| byte == b'&')
            .any(|pair| pair.starts_with(b"grant_type="))
}

/// How long a token request may take, as rmcp's own OAuth requests.
const TOKEN_REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// The most of a token endpoint's answer that is read, as rmcp's own OAuth requests.
const MAX_TOKEN_RESPONSE_BYTES: usize = 1024 * 1024;

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
            if !retried && nonce && token_asks_for_nonce(status, &body) {
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
fn token_asks_for_nonce(status: reqwest::StatusCode, body: &[u8]) -> bool {
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

impl OAuthClient {
    /// Asks for DPoP-bound tokens and proves possession of their key on every use (RFC
    /// 9449; the MCP extension `io.modelcontextprotocol/auth/dpop`, SEP-1932): a token
    /// copied off the wire is of no use without the key, which never leaves this process.
    ///
    /// The client makes a P-256 key of its own (one per `OAuthClient`, shared by its clones,
    /// in memory only). Each token request (the code exchange, a refresh, the client
    /// credentials grant) carries a `DPoP` proof, an ES256 JWT of type `dpop+jwt` with the
    /// public key as its `jwk`, a random `jti`, `htm` and `htu` (the method and the URL
    /// without its query), and `iat`. Each request to the MCP server sends the token as
    /// `Authorization: DPoP <token>` with a fresh proof that also carries `ath`, the token's
    /// SHA-256. A server that answers `use_dpop_nonce` gets the same request once more with
    /// its `DPoP-Nonce` in the proof, and later proofs to it carry that nonce (§8, §9).
    ///
    /// A token the authorization server issues with a `token_type` other than `DPoP` (it
    /// did not bind it) is sent as a bearer token, without a proof (§7.1). Tokens in a
    /// [`FileTokenStore`](super::FileTokenStore) outlive the key: after a restart the server refuses them and the
    /// client signs in again. With DPoP on, the OAuth requests go through
    /// rmcp's default HTTP client, whose addresses are not filtered (rmcp's own filters
    /// the addresses discovered URLs resolve to): DPoP takes rmcp's hook for a custom
    /// OAuth HTTP client, which comes without that filter.
    ///
    /// When the MCP server asks for a nonce, the client learns it from a second, bodiless
    /// request of the same method to the same URL (the server refuses it before reading a
    /// body): rmcp's HTTP client reports a `401`'s challenge but not its other headers.
    ///
    /// ```no_run
    /// use toolnexus::mcp::{McpTools, OAuthClient};
    ///
    /// let oauth = OAuthClient::new("http://127.0.0.1:8976/callback").dpop();
    /// let server = McpTools::http("https://mcp.example.com/mcp").oauth(oauth.clone());
    /// // Connect and sign in as without DPoP; the tokens are bound to the client's key.
    /// ```
    pub fn dpop(mut self) -> Self {
        self.config.dpop = Some(Es256Key::generate().map(|key| Arc::new(Dpop::new(key))));
        self
    }
}
