//! Signing in with an assertion instead of a login: an ID-JAG the enterprise IdP issues for
//! the person (enterprise-managed authorization) or the workload's own JWT (workload identity
//! federation), each redeemed with the RFC 7523 JWT-bearer grant. No person is asked.

use std::fmt;
use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use oauth2::basic::BasicTokenType;
use oauth2::{ClientSecret, Scope, TokenResponse};
use rmcp::transport::auth::enterprise::{
    EmaAuthorizationServer, EmaClientAuthentication, EmaError, EmaExchangeRequest, EmaExchangeStage,
};
use rmcp::transport::auth::{
    AuthorizationManager, AuthorizationMetadata, AuthorizationMetadataResolution,
    OAuthTokenResponse, VendorExtraTokenFields, default_oauth_http_client,
};
use serde_json::Value;

use super::client_credentials::received;
use super::{OAuthClient, Unattended, plain};

const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/// rmcp's bounds on its own token requests, kept for the workload's grant too.
const TIMEOUT: Duration = Duration::from_secs(30);
const MAX_ANSWER_BYTES: usize = 1 << 20;

type BoxError = Box<dyn std::error::Error + Send + Sync>;
type Fetch = Pin<Box<dyn Future<Output = Result<String, BoxError>> + Send>>;

/// Where a credential that rotates comes from: asked afresh before each sign-in.
#[derive(Clone)]
pub(super) struct Source(Arc<dyn Fn() -> Fetch + Send + Sync>);

impl Source {
    pub(super) fn new<F, Fut>(source: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<String, BoxError>> + Send + 'static,
    {
        Self(Arc::new(move || Box::pin(source())))
    }

    /// A fresh credential; `what` names it in the error (which never quotes it).
    async fn fetch(&self, what: &str) -> Result<String, String> {
        let text = (self.0)()
            .await
            .map_err(|error| format!("sign-in failed: could not get the {what}: {error}"))?;
        // A token read from a file usually ends in a newline, which no JWT contains.
        let text = text.trim();
        if text.is_empty() {
            return Err(format!("sign-in failed: the {what} is empty"));
        }
        Ok(text.to_owned())
    }
}

/// How an [`OAuthClient`] signs in with an assertion (the JWT-bearer grant).
#[derive(Clone)]
pub(super) enum Grant {
    Enterprise {
        idp: EnterpriseIdp,
        id_token: Source,
    },
    Workload {
        assertion: Source,
    },
}

/// The enterprise identity provider the person signed in to (single sign-on), for
/// [`OAuthClient::enterprise_idp`]: its issuer and token endpoint, and this app's client
/// registered there.
///
/// Both come from the IdP's metadata (its OpenID configuration), as an administrator
/// approved it: nothing here is discovered, so a server cannot point the person's ID token
/// elsewhere. Each endpoint must be `https` (or `http` on loopback).
#[derive(Clone)]
#[must_use]
pub struct EnterpriseIdp {
    issuer: String,
    token_endpoint: String,
    client_id: String,
    client_secret: Option<String>,
}

impl fmt::Debug for EnterpriseIdp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EnterpriseIdp")
            .field("issuer", &self.issuer)
            .field("token_endpoint", &self.token_endpoint)
            .field("client_id", &self.client_id)
            .finish_non_exhaustive()
    }
}

impl EnterpriseIdp {
    /// The IdP whose issuer identifier is `issuer` (the `iss` of the ID-JAGs it signs),
    /// exchanging tokens at `token_endpoint`, where this app is the public client
    /// `client_id`.
    pub fn new(
        issuer: impl Into<String>,
        token_endpoint: impl Into<String>,
        client_id: impl Into<String>,
    ) -> Self {
        Self {
            issuer: issuer.into(),
            token_endpoint: token_endpoint.into(),
            client_id: client_id.into(),
            client_secret: None,
        }
    }

    /// The secret of [`new`](Self::new)'s `client_id` (a confidential client at the IdP),
    /// sent as HTTP Basic, the method every OAuth server supports.
    pub fn client_secret(mut self, secret: impl Into<String>) -> Self {
        self.client_secret = Some(secret.into());
        self
    }
}

impl OAuthClient {
    /// Signs in to `resource` with `grant`, no person asked: the tokens go to the store as a
    /// login's do, and the connection's client is the one signed in.
    pub(super) async fn sign_in_with_assertion(
        &self,
        grant: &Grant,
        mut manager: AuthorizationManager,
        found: AuthorizationMetadataResolution,
        resource: &str,
    ) -> Result<(), String> {
        let metadata = &found.metadata;
        // An assertion is a credential: it goes to no token endpoint guessed from the
        // server's URL, nor to one that does not take it.
        if !found.source.is_discovered() {
            return Err("sign-in failed: the server names no authorization server, and an assertion goes to no guessed token endpoint".to_owned());
        }
        let grants = metadata
            .additional_fields
            .get("grant_types_supported")
            .and_then(Value::as_array);
        if grants.is_some_and(|grants| !grants.iter().any(|kind| kind == JWT_BEARER)) {
            return Err("sign-in failed: the authorization server does not offer the JWT-bearer grant (its `grant_types_supported`)".to_owned());
        }
        let (tokens, granted) = match grant {
            Grant::Enterprise { idp, id_token } => {
                self.enterprise(idp, id_token, metadata, resource).await?
            }
            Grant::Workload { assertion } => self.workload(assertion, metadata, resource).await?,
        };
        let client_id = self.config.client_id.clone().unwrap_or_default();
        // With no refresh token, rmcp's refresh of an expired token then says a sign-in is
        // needed (a `401`, then this grant again with a fresh assertion) rather than failing
        // for want of a client.
        manager.configure_client_id(&client_id).map_err(plain)?;
        let kept = received(client_id, tokens, granted).with_issuer(metadata.issuer.clone());
        self.keep_own_tokens(manager, kept, resource).await?;
        Ok(())
    }

    /// Enterprise-managed authorization on rmcp's `auth-enterprise-managed`: the ID token
    /// exchanged at the IdP for an ID-JAG (RFC 8693), which rmcp checks (type, issuer,
    /// audience, client, resource, expiry, scopes) and redeems at the authorization server
    /// (RFC 7523) as this app's pre-registered client.
    async fn enterprise(
        &self,
        idp: &EnterpriseIdp,
        id_token: &Source,
        metadata: &AuthorizationMetadata,
        resource: &str,
    ) -> Result<(OAuthTokenResponse, Vec<String>), String> {
        let Some(client_id) = &self.config.client_id else {
            return Err("sign-in failed: enterprise-managed authorization needs the `client_id` registered with the MCP server's authorization server".to_owned());
        };
        let Some(issuer) = &metadata.issuer else {
            return Err("sign-in failed: the authorization server's metadata names no `issuer`, which an ID-JAG is addressed to".to_owned());
        };
        let at_idp = match &idp.client_secret {
            Some(secret) => {
                EmaClientAuthentication::ClientSecretBasic(ClientSecret::new(secret.clone()))
            }
            None => EmaClientAuthentication::None,
        };
        let idp_server =
            EmaAuthorizationServer::new(&idp.issuer, &idp.token_endpoint, &idp.client_id)
                .with_client_authentication(at_idp);
        let server = EmaAuthorizationServer::new(issuer, &metadata.token_endpoint, client_id)
            .with_client_authentication(self.client_authentication(metadata));
        let id_token = id_token.fetch("enterprise ID token").await?;
        let http = default_oauth_http_client().map_err(plain)?;
        let token = EmaExchangeRequest::new_with_id_token(idp_server, server, resource, &id_token)
            .with_scopes(self.config.scopes.clone())
            .exchange(&http, &http)
            .await
            .map_err(refused)?;
        let mut granted: Vec<String> = token.scopes.into_iter().collect();
        granted.sort();
        let mut tokens = OAuthTokenResponse::new(
            token.access_token,
            BasicTokenType::Bearer,
            VendorExtraTokenFields::default(),
        );
        tokens.set_expires_in(token.expires_in.as_ref());
        if !granted.is_empty() {
            tokens.set_scopes(Some(granted.iter().cloned().map(Scope::new).collect()));
        }
        Ok((tokens, granted))
    }

    /// How the pre-registered client proves itself at the authorization server: its secret
    /// as HTTP Basic (RFC 8414's default), in the body only where the metadata lists that
    /// and not Basic; a public client without one.
    fn client_authentication(&self, metadata: &AuthorizationMetadata) -> EmaClientAuthentication {
        let Some(secret) = &self.config.client_secret else {
            return EmaClientAuthentication::None;
        };
        let methods = metadata
            .additional_fields
            .get("token_endpoint_auth_methods_supported")
            .and_then(Value::as_array);
        let lists = |method: &str| {
            methods.is_some_and(|methods| methods.iter().any(|listed| listed == method))
        };
        let secret = ClientSecret::new(secret.clone());
        if lists("client_secret_post") && !lists("client_secret_basic") {
            EmaClientAuthentication::ClientSecretPost(secret)
        } else {
            EmaClientAuthentication::ClientSecretBasic(secret)
        }
    }

    /// Workload identity federation: the workload's JWT as the JWT-bearer grant's
    /// `assertion`, with the `resource` (and the client id, when one is configured).
    async fn workload(
        &self,
        assertion: &Source,
        metadata: &AuthorizationMetadata,
        resource: &str,
    ) -> Result<(OAuthTokenResponse, Vec<String>), String> {
        let endpoint = reqwest::Url::parse(&metadata.token_endpoint).map_err(|_| {
            "sign-in failed: the authorization server's token endpoint is not a URL".to_owned()
        })?;
        if !private_in_transit(&endpoint) {
            return Err("sign-in failed: a workload's JWT goes only to an `https` token endpoint (or `http` on loopback)".to_owned());
        }
        let assertion = assertion.fetch("workload JWT").await?;
        // Built apart: the serializer is not `Send`, so it must be gone before an await.
        let body = {
            let mut form = oauth2::url::form_urlencoded::Serializer::new(String::new());
            form.append_pair("grant_type", JWT_BEARER)
                .append_pair("assertion", &assertion)
                .append_pair("resource", resource);
            if !self.config.scopes.is_empty() {
                form.append_pair("scope", &self.config.scopes.join(" "));
            }
            if let Some(id) = &self.config.client_id {
                form.append_pair("client_id", id);
            }
            form.finish()
        };
        // The assertion must not follow a redirect to wherever the endpoint points.
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(TIMEOUT)
            .build()
            .map_err(plain)?;
        let mut answer = http
            .post(endpoint)
            .header(
                reqwest::header::CONTENT_TYPE,
                "application/x-www-form-urlencoded",
            )
            .header(reqwest::header::ACCEPT, "application/json")
            .body(body)
            .send()
            .await
            .map_err(|error| format!("sign-in failed: the token request failed: {error}"))?;
        let status = answer.status();
        let mut body = Vec::new();
        while let Some(chunk) = answer
            .chunk()
            .await
            .map_err(|error| format!("sign-in failed: the token response broke off: {error}"))?
        {
            if body.len() + chunk.len() > MAX_ANSWER_BYTES {
                return Err("sign-in failed: the token response is over 1 MiB".to_owned());
            }
            body.extend_from_slice(&chunk);
        }
        if !status.is_success() {
            return Err(format!(
                "sign-in failed: the authorization server refused the workload's JWT-bearer grant: {} (HTTP {})",
                error_code(&body).unwrap_or("no error code"),
                status.as_u16()
            ));
        }
        let mut tokens: OAuthTokenResponse = serde_json::from_slice(&body).map_err(|_| {
            "sign-in failed: the authorization server's answer is not a token response".to_owned()
        })?;
        if *tokens.token_type() != BasicTokenType::Bearer {
            return Err(
                "sign-in failed: the authorization server issued a token that is not a bearer token"
                    .to_owned(),
            );
        }
        // Renewing is this grant again with a fresh JWT: a refresh token would only be a
        // long-lived credential the workload does not need.
        tokens.set_refresh_token(None);
        let granted = tokens.scopes().map_or_else(
            || self.config.scopes.clone(),
            |scopes| scopes.iter().map(|scope| scope.to_string()).collect(),
        );
        Ok((tokens, granted))
    }
}

/// Whether a request to `url` is private on the way: `https`, or `http` that stays on this
/// machine.
fn private_in_transit(url: &reqwest::Url) -> bool {
    let host = url.host_str().unwrap_or_default();
    let loopback = host.eq_ignore_ascii_case("localhost")
        || host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    url.scheme() == "https" || (url.scheme() == "http" && loopback)
}

/// The OAuth `error` code of a refusal (RFC 6749 §5.2), when it is one: a short word, so
/// nothing else the answer holds is repeated.
fn error_code(body: &[u8]) -> Option<&str> {
    #[derive(serde::Deserialize)]
    struct Refusal<'a> {
        error: &'a str,
    }
    let code = serde_json::from_slice::<Refusal<'_>>(body).ok()?.error;
    let word = |byte: u8| byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'-' | b'.');
    (!code.is_empty() && code.len() <= 64 && code.bytes().all(word)).then_some(code)
}

/// What failed in an enterprise-managed sign-in, naming the party and its OAuth error code
/// (rmcp keeps neither tokens nor the servers' descriptions in these).
fn refused(error: EmaError) -> String {
    let party = |stage| match stage {
        EmaExchangeStage::IdentityProvider => "the enterprise IdP",
        _ => "the authorization server",
    };
    let refusal = |stage| match stage {
        EmaExchangeStage::IdentityProvider => "the enterprise IdP refused the token exchange",
        _ => "the authorization server refused the ID-JAG (JWT-bearer grant)",
    };
    let why = match error {
        EmaError::InvalidGrant(stage) => format!("{}: invalid_grant", refusal(stage)),
        EmaError::InsufficientUserAuthentication(stage) => {
            format!("{}: insufficient_user_authentication", refusal(stage))
        }
        EmaError::OAuthRejected {
            stage,
            status,
            code,
        } => format!("{}: {code} (HTTP {status})", refusal(stage)),
        EmaError::RequestFailed(stage) => format!("{} could not be reached", party(stage)),
        EmaError::InvalidResponse { stage, message } => {
            format!("{}'s answer was refused: {message}", party(stage))
        }
        EmaError::InvalidRequest(message) => {
            format!("enterprise-managed authorization was not attempted: {message}")
        }
        other => other.to_string(),
    };
    format!("sign-in failed: {why}")
}

impl OAuthClient {
    /// Signs the person in through their enterprise identity provider, with no login to
    /// suspend on: enterprise-managed authorization, the MCP extension
    /// `io.modelcontextprotocol/enterprise-managed-authorization`, for an app the person
    /// already signed in to with single sign-on (OpenID Connect) at `idp`.
    ///
    /// When a server first answers `401`, the person's ID token (asked of `id_token`) is
    /// exchanged at the IdP for an ID-JAG naming the server (token exchange, RFC 8693: the
    /// IdP applies the enterprise's policy), which is redeemed at the server's authorization
    /// server (the JWT-bearer grant, RFC 7523) as the pre-registered
    /// [`client_id`](Self::client_id) (with its [`client_secret`](Self::client_secret), as
    /// HTTP Basic unless the metadata lists only the body). The [`scopes`](Self::scopes), if
    /// any, are asked for; the IdP may grant fewer. The token is kept in the
    /// [`TokenStore`](super::TokenStore); once it expires or is refused, the client signs in again the same way
    /// (the call that found it so gets an `isError` result saying so; the server ran
    /// nothing).
    ///
    /// `id_token` is a closure asked for the ID token before each exchange, rather than the
    /// token itself, because ID tokens expire within the hour while the app's session renews
    /// them. A refusal names the party and its OAuth error code (`the enterprise IdP refused
    /// the token exchange: invalid_grant`); no error or log line contains a token. Built on
    /// rmcp's `auth-enterprise-managed`, which also checks the ID-JAG before redeeming it
    /// (its type, issuer, audience, client, resource, expiry and scopes).
    ///
    /// ```no_run
    /// use toolnexus::mcp::{EnterpriseIdp, McpTools, OAuthClient};
    /// # struct Session;
    /// # impl Session { async fn id_token(&self) -> std::io::Result<String> { Ok(String::new()) } }
    ///
    /// # async fn run(session: std::sync::Arc<Session>) -> Result<(), Box<dyn std::error::Error>> {
    /// let idp = EnterpriseIdp::new(
    ///     "https://acme.idp.example",
    ///     "https://acme.idp.example/oauth2/token",
    ///     "my-agent",
    /// )
    /// .client_secret("secret at the IdP");
    /// let oauth = OAuthClient::new("http://127.0.0.1:8976/callback")
    ///     .client_id("my-agent-at-the-mcp-server")
    ///     .client_secret("secret at the MCP server's authorization server")
    ///     // The app's single sign-on session holds the person's current ID token.
    ///     .enterprise_idp(idp, move || {
    ///         let session = session.clone();
    ///         async move { Ok(session.id_token().await?) }
    ///     });
    /// let tools = McpTools::http("https://mcp.example.com/mcp").oauth(oauth).connect().await?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn enterprise_idp<F, Fut>(mut self, idp: EnterpriseIdp, id_token: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<String, Box<dyn std::error::Error + Send + Sync>>>
            + Send
            + 'static,
    {
        self.config.unattended = Some(Unattended::Assertion(Grant::Enterprise {
            idp,
            id_token: Source::new(id_token),
        }));
        self
    }

    /// Signs in as a workload with the JWT its platform issued it, with no person and no
    /// client secret: workload identity federation, the MCP extension
    /// `io.modelcontextprotocol/auth/wif`, for an agent running on Kubernetes (a projected
    /// service account token), SPIFFE (a JWT-SVID) or a cloud's workload identity.
    ///
    /// When a server first answers `401`, the JWT (asked of `assertion`) is sent to the
    /// authorization server's token endpoint as the JWT-bearer grant (RFC 7523 §2.1) with the
    /// `resource` naming the server, the [`scopes`](Self::scopes) if any, and the
    /// [`client_id`](Self::client_id) if one is set (the extension needs none); the
    /// authorization server trusts the JWT's issuer and decides. The JWT goes only to a token
    /// endpoint the server's metadata names whose authorization server lists the JWT-bearer
    /// grant, over `https` (or `http` on loopback), and follows no redirect. The token is
    /// kept in the [`TokenStore`](super::TokenStore) (a refresh token is not: the JWT is the way to renew); once
    /// it expires or is refused, the client signs in again the same way (the call that found
    /// it so gets an `isError` result saying so; the server ran nothing). A refused grant is
    /// not retried: the error names the authorization server's OAuth error code
    /// (`invalid_grant`, `invalid_scope`, `unauthorized_client`); no error or log line
    /// contains the JWT.
    ///
    /// `assertion` is a closure asked for the JWT before each grant, rather than the JWT
    /// itself, because workload tokens are short-lived and the platform rotates them (it
    /// rewrites the file, the agent reads it again); surrounding whitespace is trimmed.
    ///
    /// ```no_run
    /// use toolnexus::mcp::{McpTools, OAuthClient};
    ///
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// // The redirect URI goes unused: there is no login.
    /// let oauth = OAuthClient::new("http://127.0.0.1:8976/callback").workload_identity(|| async {
    ///     Ok(std::fs::read_to_string("/var/run/secrets/tokens/mcp-token")?)
    /// });
    /// let tools = McpTools::http("https://mcp.example.com/mcp").oauth(oauth).connect().await?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn workload_identity<F, Fut>(mut self, assertion: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<String, Box<dyn std::error::Error + Send + Sync>>>
            + Send
            + 'static,
    {
        self.config.unattended = Some(Unattended::Assertion(Grant::Workload {
            assertion: Source::new(assertion),
        }));
        self
    }
}
