//! DPoP (RFC 9449, the MCP extension `io.modelcontextprotocol/auth/dpop`; feature
//! `oauth-jwt`): the client's key, the proofs it signs, and the two places they are sent —
//! token requests (through [`DpopOAuthHttp`], rmcp's hook for every OAuth request) and
//! requests to the MCP server (through [`DpopHttp`], the HTTP client under rmcp's
//! `AuthClient`). rmcp has no DPoP of its own.

use std::collections::{HashMap, HashSet};
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use http::{HeaderMap, HeaderName, HeaderValue};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::auth::{
    OAuthHttpClient, OAuthHttpClientError, OAuthHttpClientFuture, OAuthHttpRequest,
    WWWAuthenticateParams,
};
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use super::OAuthClient;
use super::jwt::{Es256Key, b64, now, random_id, token_request};

/// The SSE stream rmcp's HTTP client answers a GET with.
type EventStream =
    Pin<Box<dyn futures_core::Stream<Item = Result<sse_stream::Sse, SseError>> + Send>>;
type HttpError = StreamableHttpError<reqwest::Error>;

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

    fn is_unbound(&self, token: &str) -> bool {
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

/// The HTTP client under rmcp's `AuthClient`: reqwest, and with DPoP on, a bound token as
/// `Authorization: DPoP <token>` with a fresh proof on every request (RFC 9449 §7), sent
/// once more with the server's nonce when it answers `use_dpop_nonce` (§9).
#[derive(Clone)]
pub(crate) struct DpopHttp {
    pub http: reqwest::Client,
    pub dpop: Option<Arc<Dpop>>,
}

impl DpopHttp {
    /// Makes `call` with the headers the token needs: none without a token; the bearer
    /// token (rmcp's own way) without DPoP; else the DPoP pair, again after a nonce challenge.
    async fn send<T, F, Fut>(
        &self,
        method: http::Method,
        uri: &str,
        token: Option<String>,
        headers: HashMap<HeaderName, HeaderValue>,
        call: F,
    ) -> Result<T, HttpError>
    where
        F: Fn(Option<String>, HashMap<HeaderName, HeaderValue>) -> Fut,
        Fut: Future<Output = Result<T, HttpError>>,
    {
        let (Some(dpop), Some(token)) = (&self.dpop, token.as_deref()) else {
            return call(token, headers).await;
        };
        if dpop.is_unbound(token) {
            return call(Some(token.to_owned()), headers).await;
        }
        let signed = |headers: &HashMap<HeaderName, HeaderValue>| {
            dpop_headers(dpop, &method, uri, token, headers.clone())
        };
        match call(None, signed(&headers)?).await {
            Err(StreamableHttpError::AuthRequired(challenge))
                if asks_for_nonce(&challenge.www_authenticate_header, uri)
                    && self.learn_nonce(dpop, &method, uri, token, &headers).await =>
            {
                call(None, signed(&headers)?).await
            }
            answer => answer,
        }
    }

    /// Reads the nonce a server wants. rmcp's HTTP client hands back a 401's challenge but
    /// not its `DPoP-Nonce` header, so the same request is made once more without a body
    /// (a server asking for a nonce refuses the request before reading it) and the nonce
    /// read from that answer: one extra round trip for each nonce a server hands out.
    async fn learn_nonce(
        &self,
        dpop: &Dpop,
        method: &http::Method,
        uri: &str,
        token: &str,
        headers: &HashMap<HeaderName, HeaderValue>,
    ) -> bool {
        let Ok(signed) = dpop_headers(dpop, method, uri, token, headers.clone()) else {
            return false;
        };
        let mut probe = self.http.request(method.clone(), uri);
        for (name, value) in signed {
            probe = probe.header(name, value);
        }
        match probe.send().await {
            Ok(answer) => dpop.keep_nonce(uri, answer.headers()),
            Err(_) => false,
        }
    }
}

/// `headers` with `Authorization: DPoP <token>` and a fresh `DPoP` proof.
fn dpop_headers(
    dpop: &Dpop,
    method: &http::Method,
    uri: &str,
    token: &str,
    mut headers: HashMap<HeaderName, HeaderValue>,
) -> Result<HashMap<HeaderName, HeaderValue>, HttpError> {
    let unsendable = |_| {
        HttpError::UnexpectedServerResponse("the access token is not a valid header value".into())
    };
    let proof = dpop
        .proof(method.as_str(), uri, Some(token))
        .map_err(|why| HttpError::UnexpectedServerResponse(why.into()))?;
    headers.insert(
        http::header::AUTHORIZATION,
        HeaderValue::try_from(format!("DPoP {token}")).map_err(unsendable)?,
    );
    headers.insert(
        HeaderName::from_static("dpop"),
        HeaderValue::try_from(proof).map_err(unsendable)?,
    );
    Ok(headers)
}

/// Whether the MCP server's challenge is `use_dpop_nonce` (RFC 9449 §9).
fn asks_for_nonce(challenge: &str, uri: &str) -> bool {
    reqwest::Url::parse(uri).is_ok_and(|url| {
        WWWAuthenticateParams::parse(challenge, &url)
            .error
            .as_deref()
            == Some("use_dpop_nonce")
    })
}

impl StreamableHttpClient for DpopHttp {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        self.post_message_with_response_limits(
            uri,
            message,
            session_id,
            auth_token,
            custom_headers,
            StreamableHttpResponseLimits::default(),
        )
        .await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        let mut limits = StreamableHttpResponseLimits::default();
        limits.max_sse_event_size = max_sse_event_size;
        self.post_message_with_response_limits(
            uri,
            message,
            session_id,
            auth_token,
            custom_headers,
            limits,
        )
        .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        self.send(
            http::Method::POST,
            &uri,
            auth_token,
            custom_headers,
            |token, headers| {
                self.http.post_message_with_response_limits(
                    uri.clone(),
                    message.clone(),
                    session_id.clone(),
                    token,
                    headers,
                    limits,
                )
            },
        )
        .await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), HttpError> {
        self.send(
            http::Method::DELETE,
            &uri,
            auth_token,
            custom_headers,
            |token, headers| {
                self.http
                    .delete_session(uri.clone(), session_id.clone(), token, headers)
            },
        )
        .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<EventStream, HttpError> {
        self.send(
            http::Method::GET,
            &uri,
            auth_token,
            custom_headers,
            |token, headers| {
                self.http.get_stream(
                    uri.clone(),
                    session_id.clone(),
                    last_event_id.clone(),
                    token,
                    headers,
                )
            },
        )
        .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<EventStream, HttpError> {
        self.send(
            http::Method::GET,
            &uri,
            auth_token,
            custom_headers,
            |token, headers| {
                self.http.get_stream_with_max_sse_event_size(
                    uri.clone(),
                    session_id.clone(),
                    last_event_id.clone(),
                    token,
                    headers,
                    max_sse_event_size,
                )
            },
        )
        .await
    }
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
        self.config.dpop =
            Some(super::jwt::Es256Key::generate().map(|key| Arc::new(Dpop::new(key))));
        self
    }
}
