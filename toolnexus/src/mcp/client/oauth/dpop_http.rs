//! The HTTP client under rmcp's `AuthClient` when DPoP is on (feature `oauth-jwt`): each
//! request to the MCP server carries a proof of the client's key (`Authorization: DPoP`,
//! `ath`), and is sent once more with the nonce the server asks for.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::Arc;

use http::{HeaderName, HeaderValue};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::auth::WWWAuthenticateParams;
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};

use super::dpop::Dpop;

/// The SSE stream rmcp's HTTP client answers a GET with.
type EventStream =
    Pin<Box<dyn futures_core::Stream<Item = Result<sse_stream::Sse, SseError>> + Send>>;
type HttpError = StreamableHttpError<reqwest::Error>;

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
