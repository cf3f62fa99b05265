//! Signing in to remote MCP servers: OAuth 2.1 on rmcp's `auth`, the login a §10 suspension.

mod assertion;
#[cfg(feature = "oauth-jwt")]
mod dpop;
#[cfg(feature = "oauth-jwt")]
mod jwt;
mod listener;
mod token_store;

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::future::Future;
use std::sync::{Arc, Mutex};

use rmcp::transport::AuthClient;
use rmcp::transport::auth::{
    AuthorizationCallback, AuthorizationManager, AuthorizationMetadata, AuthorizationRequest,
    AuthorizationSession, ClientCredentialsConfig, CredentialStore, OAuthTokenResponse,
    StoredCredentials, WWWAuthenticateParams,
};

use super::McpClientError;
use crate::result::suspend::{Answer, Request};

pub use assertion::EnterpriseIdp;
use assertion::{Grant, Source};
pub use listener::CallbackListener;
use token_store::Entry;
pub use token_store::{FileTokenStore, MemoryTokenStore, TokenStore};

/// Logins waiting for their answer; past this the oldest is forgotten (its answer is then
/// refused as answering no sign-in), so logins nobody answers do not pile up.
const MAX_LOGINS: usize = 64;

/// The HTTP client a signed-in connection sends its requests through.
#[cfg(not(feature = "oauth-jwt"))]
pub(crate) type SignedClient = AuthClient<reqwest::Client>;
/// The HTTP client a signed-in connection sends its requests through: reqwest, with DPoP
/// proofs when [`OAuthClient::dpop`] is on.
#[cfg(feature = "oauth-jwt")]
pub(crate) type SignedClient = AuthClient<dpop::DpopHttp>;

/// Signs in to MCP servers that ask for OAuth 2.1, as the MCP authorization spec
/// (2025-11-25 and the 2026-07-28 draft) describes it; give it to
/// [`HttpBuilder::oauth`](super::HttpBuilder::oauth).
///
/// When the server answers `401`, the client reads its Protected Resource Metadata (RFC 9728:
/// the `resource_metadata` of the challenge, then the path-suffixed and root well-known
/// paths), the authorization server's metadata (RFC 8414, then OpenID Connect discovery, at
/// the path-inserted and root forms the spec lists), registers (a pre-registered
/// [`client_id`](Self::client_id) first, then a [client ID metadata
/// document](Self::client_metadata_url) when the server supports them, then dynamic
/// registration, RFC 7591) and builds the authorization URL: PKCE S256 (a server whose
/// metadata lists methods without `S256` is refused), the `resource` parameter (RFC 8707)
/// naming the server, the scopes the challenge or the metadata ask for. That URL is the
/// login, and the login is a suspension (SPEC §10): a call (or
/// [`connect`](super::HttpBuilder::connect)) that needs it returns
/// [`pending`](crate::pending) with kind `"authorization"` and the URL, which the agent's
/// loop shows the person; the [`Answer`] carries the redirect the browser came back with
/// (`data.redirect`, the whole URL, or `data.code` and `data.state`). Its `state` must be the
/// one sent, else the sign-in is refused; the code is exchanged for tokens, which go to the
/// [`TokenStore`] under the server's URL, and the call goes on. Access tokens are refreshed
/// shortly before they expire and once on a `401`; a `403` with `insufficient_scope` is a new
/// login asking for the scopes already granted plus the ones challenged.
///
/// Tokens go only to the server they were issued for: each is kept and sent under that
/// server's URL alone, metadata that names another resource is refused, and no message of
/// this crate contains one.
///
/// Built on rmcp's `auth` feature (the official SDK, which the transport already is) rather
/// than on the `oauth2` crate directly: rmcp's `AuthorizationManager` is `oauth2` plus every
/// MCP-specific rule above (discovery order, registration order, scope selection and union,
/// issuer checks, address filtering of discovered URLs), kept in step with the spec by its
/// maintainers, where our own would duplicate some 5,000 lines of it.
///
/// ```no_run
/// use toolnexus::{Answer, Toolkit, mcp::{McpTools, OAuthClient}};
///
/// # async fn run(redirect_from_browser: String) -> Result<(), Box<dyn std::error::Error>> {
/// let oauth = OAuthClient::new("http://127.0.0.1:8976/callback").client_name("my agent");
/// let server = McpTools::http("http://127.0.0.1:8765/mcp").oauth(oauth.clone());
/// let tools = match server.clone().connect().await {
///     Ok(tools) => tools,
///     Err(error) => {
///         let login = error.pending().ok_or(error.clone())?;
///         println!("{}\n{}", login.prompt, login.url.as_deref().unwrap_or(""));
///         let answer = Answer::approve(login).with_data(
///             serde_json::json!({"redirect": redirect_from_browser}).as_object().unwrap().clone(),
///         );
///         oauth.sign_in(&answer).await?;
///         server.connect().await?
///     }
/// };
/// let toolkit = Toolkit::new().with_all(tools.tools());
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
#[must_use]
pub struct OAuthClient {
    config: Config,
    state: Arc<State>,
}

#[derive(Clone)]
struct Config {
    redirect_uri: String,
    client_name: Option<String>,
    client_metadata_url: Option<String>,
    client_id: Option<String>,
    client_secret: Option<String>,
    /// The key of `private_key_jwt`, or why the PEM given was not one (said at sign-in).
    #[cfg(feature = "oauth-jwt")]
    private_key: Option<Result<Arc<jwt::Es256Key>, String>>,
    /// DPoP's key and nonces, or why no key could be made (said at sign-in).
    #[cfg(feature = "oauth-jwt")]
    dpop: Option<Result<Arc<dpop::Dpop>, String>>,
    scopes: Vec<String>,
    /// Sign in as the client itself (the client credentials grant), not as a person.
    as_itself: bool,
    /// Sign in with an assertion (the JWT-bearer grant), not with a login.
    grant: Option<Grant>,
    store: Arc<dyn TokenStore>,
}

#[derive(Default)]
struct State {
    /// The signed-in client of each server, by its URL.
    clients: Mutex<HashMap<String, SignedClient>>,
    /// Logins waiting for their redirect, by the id of the request that asked for them.
    logins: Mutex<BTreeMap<String, Login>>,
}

struct Login {
    resource: String,
    session: AuthorizationSession,
    /// The `state` the authorization URL carries, which the redirect must bring back.
    state: String,
}

impl fmt::Debug for OAuthClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuthClient")
            .field("redirect_uri", &self.config.redirect_uri)
            .field("client_id", &self.config.client_id)
            .field("scopes", &self.config.scopes)
            .finish_non_exhaustive()
    }
}

impl OAuthClient {
    /// A client whose logins come back to `redirect_uri` (for a local app, a loopback URL
    /// such as [`CallbackListener::redirect_uri`]). Without more it registers dynamically.
    pub fn new(redirect_uri: impl Into<String>) -> Self {
        Self {
            config: Config {
                redirect_uri: redirect_uri.into(),
                client_name: None,
                client_metadata_url: None,
                client_id: None,
                client_secret: None,
                #[cfg(feature = "oauth-jwt")]
                private_key: None,
                #[cfg(feature = "oauth-jwt")]
                dpop: None,
                scopes: Vec::new(),
                as_itself: false,
                grant: None,
                store: Arc::new(MemoryTokenStore::default()),
            },
            state: Arc::default(),
        }
    }

    /// The name dynamic registration gives the authorization server (default `"MCP Client"`).
    pub fn client_name(mut self, name: impl Into<String>) -> Self {
        self.config.client_name = Some(name.into());
        self
    }

    /// The HTTPS URL of this client's metadata document, used as its client id where the
    /// authorization server supports client ID metadata documents.
    pub fn client_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.config.client_metadata_url = Some(url.into());
        self
    }

    /// A client id registered with the authorization server beforehand; no registration
    /// is then made.
    pub fn client_id(mut self, id: impl Into<String>) -> Self {
        self.config.client_id = Some(id.into());
        self
    }

    /// The secret of the pre-registered [`client_id`](Self::client_id) (a confidential
    /// client); sent the way the authorization server's metadata asks.
    pub fn client_secret(mut self, secret: impl Into<String>) -> Self {
        self.config.client_secret = Some(secret.into());
        self
    }

    /// Scopes to ask for at the first login, instead of those the server's challenge or
    /// metadata name.
    pub fn scopes(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.config.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Signs in as the client itself, with no person and so no login to suspend on: the
    /// OAuth client credentials grant of the MCP extension
    /// `io.modelcontextprotocol/oauth-client-credentials`, for an agent that acts on its own
    /// behalf. Needs the pre-registered [`client_id`](Self::client_id) and either its
    /// [`client_secret`](Self::client_secret) (sent as HTTP Basic when that is the only
    /// method the authorization server lists, else in the body) or, with the feature
    /// `oauth-jwt`, its `client_private_key` (a signed assertion instead of a secret;
    /// it wins when both are given). A connection gets its token
    /// when the server first answers `401`; a call refused later gets a new token for the
    /// next call and an `isError` result saying so (the server ran nothing).
    pub fn client_credentials(mut self) -> Self {
        self.config.as_itself = true;
        self.config.grant = None;
        self
    }

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
    /// [`TokenStore`]; once it expires or is refused, the client signs in again the same way
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
        self.config.as_itself = false;
        self.config.grant = Some(Grant::Enterprise {
            idp,
            id_token: Source::new(id_token),
        });
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
    /// kept in the [`TokenStore`] (a refresh token is not: the JWT is the way to renew); once
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
        self.config.as_itself = false;
        self.config.grant = Some(Grant::Workload {
            assertion: Source::new(assertion),
        });
        self
    }

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
    #[cfg(feature = "oauth-jwt")]
    pub fn client_private_key(mut self, pem: impl AsRef<str>) -> Self {
        self.config.private_key = Some(jwt::Es256Key::from_pem(pem.as_ref()).map(Arc::new));
        self
    }

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
    /// [`FileTokenStore`] outlive the key: after a restart the server refuses them and the
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
    #[cfg(feature = "oauth-jwt")]
    pub fn dpop(mut self) -> Self {
        self.config.dpop =
            Some(jwt::Es256Key::generate().map(|key| Arc::new(dpop::Dpop::new(key))));
        self
    }

    /// Keeps tokens in `store` instead of in memory.
    pub fn token_store(mut self, store: impl TokenStore) -> Self {
        self.config.store = Arc::new(store);
        self
    }

    /// Completes the login `answer` answers (a [`pending`](McpClientError::pending) from
    /// [`connect`](super::HttpBuilder::connect); a call's own logins complete when the call is
    /// answered): checks its `state`, exchanges the code and keeps the tokens. Connect again
    /// afterwards.
    pub async fn sign_in(&self, answer: &Answer) -> Result<(), McpClientError> {
        match self.finish(answer).await {
            Some(Ok(())) => Ok(()),
            Some(Err(why)) => Err(McpClientError::new(why)),
            None => Err(McpClientError::new(format!(
                "no sign-in waits for the answer `{}`",
                answer.id
            ))),
        }
    }

    /// The client to connect to `resource` through: the signed-in one, else one with the
    /// stored tokens (if any), which sends no token until a login.
    pub(crate) async fn client(&self, resource: &str) -> Result<SignedClient, String> {
        if let Some(client) = self.lock_clients().get(resource) {
            return Ok(client.clone());
        }
        let mut manager = self.manager(resource).await?;
        let stored = Entry {
            store: Arc::clone(&self.config.store),
            resource: resource.to_owned(),
        };
        if stored.load().await.map_err(plain)?.is_some() {
            // Tokens from an earlier run: discovery, then the client id they were issued to.
            manager.initialize_from_store().await.map_err(plain)?;
        }
        let client = self.signed(manager)?;
        Ok(self
            .lock_clients()
            .entry(resource.to_owned())
            .or_insert(client)
            .clone())
    }

    async fn manager(&self, resource: &str) -> Result<AuthorizationManager, String> {
        let mut manager = self.new_manager(resource).await?;
        manager.set_credential_store(Entry {
            store: Arc::clone(&self.config.store),
            resource: resource.to_owned(),
        });
        Ok(manager)
    }

    /// DPoP's state when [`dpop`](Self::dpop) is on, or why it could not be.
    #[cfg(feature = "oauth-jwt")]
    fn dpop_state(&self) -> Result<Option<Arc<dpop::Dpop>>, String> {
        self.config.dpop.clone().transpose().map_err(plain)
    }

    /// A manager whose OAuth requests carry DPoP proofs when [`dpop`](Self::dpop) is on.
    #[cfg(feature = "oauth-jwt")]
    async fn new_manager(&self, resource: &str) -> Result<AuthorizationManager, String> {
        let Some(dpop) = self.dpop_state()? else {
            return AuthorizationManager::new(resource).await.map_err(plain);
        };
        let inner = rmcp::transport::auth::default_oauth_http_client().map_err(plain)?;
        let http = dpop::DpopOAuthHttp {
            inner: Box::new(inner),
            dpop,
        };
        AuthorizationManager::new_with_oauth_http_client(resource, Arc::new(http))
            .await
            .map_err(plain)
    }

    #[cfg(not(feature = "oauth-jwt"))]
    async fn new_manager(&self, resource: &str) -> Result<AuthorizationManager, String> {
        AuthorizationManager::new(resource).await.map_err(plain)
    }

    /// The client that sends a connection's requests with `manager`'s tokens.
    #[cfg(feature = "oauth-jwt")]
    fn signed(&self, manager: AuthorizationManager) -> Result<SignedClient, String> {
        let http = dpop::DpopHttp {
            http: reqwest::Client::new(),
            dpop: self.dpop_state()?,
        };
        Ok(AuthClient::new(http, manager))
    }

    #[cfg(not(feature = "oauth-jwt"))]
    fn signed(&self, manager: AuthorizationManager) -> Result<SignedClient, String> {
        Ok(AuthClient::new(reqwest::Client::new(), manager))
    }

    /// Starts a login for `resource` from its `WWW-Authenticate` challenge: the request to
    /// suspend on, kind `"authorization"`, whose url is the authorization URL; `None` when the
    /// client signed in as itself at once ([`client_credentials`](Self::client_credentials))
    /// or with an assertion ([`enterprise_idp`](Self::enterprise_idp),
    /// [`workload_identity`](Self::workload_identity)).
    pub(crate) async fn begin(
        &self,
        server: &str,
        resource: &str,
        challenge: &str,
    ) -> Result<Option<Request>, String> {
        let mut manager = self.manager(resource).await?;
        let metadata = manager
            .resolve_metadata_from_challenge(Some(challenge))
            .await
            .map_err(plain)?;
        manager.set_metadata(metadata.metadata.clone());
        if let Some(grant) = &self.config.grant {
            self.sign_in_with_assertion(grant, manager, metadata, resource)
                .await?;
            return Ok(None);
        }
        if self.config.as_itself {
            self.sign_in_as_itself(manager, metadata.metadata, resource)
                .await?;
            return Ok(None);
        }
        let mut request = AuthorizationRequest::new(&self.config.redirect_uri)
            .with_challenge(challenge)
            .with_initial_scope_selection();
        let params =
            WWWAuthenticateParams::parse(challenge, &reqwest::Url::parse(resource).map_err(plain)?);
        if params.is_insufficient_scope() {
            // Step-up: what was granted, and what the challenge asks for besides.
            request = request.with_scopes(self.step_up_scopes(resource, params.scope.as_deref()));
        } else if !self.config.scopes.is_empty() {
            request = request.with_scopes(self.config.scopes.clone());
        }
        if let Some(name) = &self.config.client_name {
            request = request.with_client_name(name);
        }
        if let Some(url) = &self.config.client_metadata_url {
            request = request.with_client_metadata_url(url);
        }
        if let Some(id) = &self.config.client_id {
            request = request.with_preregistered_client(id);
            if let Some(secret) = &self.config.client_secret {
                request = request.with_client_secret(secret);
            }
        }
        let session = AuthorizationSession::new(manager, request)
            .await
            .map_err(|(_, error)| plain(error))?;
        let url = session.get_authorization_url().to_owned();
        let state = reqwest::Url::parse(&url)
            .ok()
            .and_then(|url| {
                url.query_pairs()
                    .find(|(key, _)| key == "state")
                    .map(|(_, value)| value.into_owned())
            })
            .ok_or("built an authorization URL without a `state`")?;
        let login = Request::new("authorization", format!("Sign in to MCP server `{server}`"))
            .with_url(url);
        let mut logins = self.state.logins.lock().unwrap_or_else(|p| p.into_inner());
        if logins.len() >= MAX_LOGINS {
            // Ids sort by creation time (`pnd-<base36 millis>-…`): the first is the oldest.
            logins.pop_first();
        }
        logins.insert(
            login.id.clone(),
            Login {
                resource: resource.to_owned(),
                session,
                state,
            },
        );
        Ok(Some(login))
    }

    /// The client credentials grant: a token for `resource` with no person involved, kept
    /// in the store as a login's tokens are.
    async fn sign_in_as_itself(
        &self,
        mut manager: AuthorizationManager,
        metadata: AuthorizationMetadata,
        resource: &str,
    ) -> Result<(), String> {
        let needs = "signing in as the client itself needs its `client_id` and `client_secret` \
                     (or, with the feature `oauth-jwt`, its `client_private_key`)";
        let Some(client_id) = &self.config.client_id else {
            return Err(needs.to_owned());
        };
        #[cfg(feature = "oauth-jwt")]
        if let Some(key) = &self.config.private_key {
            let key = key.as_ref().map_err(plain)?;
            let tokens = self
                .assert_itself(client_id, key, &metadata, resource)
                .await?;
            manager.set_metadata(metadata);
            // rmcp renews an expiring token through an OAuth client of the same id; with no
            // refresh token kept its renewal asks for a sign-in, which signs a new assertion.
            // The empty secret is never sent: rmcp sends one only with a refresh token.
            let renewal = ClientCredentialsConfig::ClientSecret {
                client_id: client_id.clone(),
                client_secret: String::new(),
                scopes: self.config.scopes.clone(),
                resource: Some(resource.to_owned()),
            };
            manager
                .configure_client_credentials(&renewal)
                .map_err(plain)?;
            let kept = received(client_id.clone(), tokens, self.config.scopes.clone());
            return self.keep_own_tokens(manager, kept, resource).await;
        }
        let Some(client_secret) = &self.config.client_secret else {
            return Err(needs.to_owned());
        };
        manager.set_metadata(metadata);
        let grant = ClientCredentialsConfig::ClientSecret {
            client_id: client_id.clone(),
            client_secret: client_secret.clone(),
            scopes: self.config.scopes.clone(),
            resource: Some(resource.to_owned()),
        };
        manager
            .configure_client_credentials(&grant)
            .map_err(plain)?;
        let tokens = manager
            .exchange_client_credentials(&grant)
            .await
            .map_err(plain)?;
        let kept = received(client_id.clone(), tokens, self.config.scopes.clone());
        self.keep_own_tokens(manager, kept, resource).await
    }

    /// The client credentials grant with `private_key_jwt`: the tokens the authorization
    /// server of `metadata` issues for a signed assertion, without a refresh token (the
    /// client can sign another assertion whenever it needs).
    #[cfg(feature = "oauth-jwt")]
    async fn assert_itself(
        &self,
        client_id: &str,
        key: &jwt::Es256Key,
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
        let grant = jwt::AssertionGrant {
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

    /// Keeps `kept`, the tokens of a sign-in without a person, in the store as a login's are,
    /// and the client that sends them.
    async fn keep_own_tokens(
        &self,
        manager: AuthorizationManager,
        kept: StoredCredentials,
        resource: &str,
    ) -> Result<(), String> {
        Entry {
            store: Arc::clone(&self.config.store),
            resource: resource.to_owned(),
        }
        .save(kept)
        .await
        .map_err(plain)?;
        let client = self.signed(manager)?;
        self.lock_clients().insert(resource.to_owned(), client);
        Ok(())
    }

    fn step_up_scopes(&self, resource: &str, challenged: Option<&str>) -> Vec<String> {
        let granted = self
            .config
            .store
            .load(resource)
            .ok()
            .flatten()
            .and_then(|text| serde_json::from_str::<StoredCredentials>(&text).ok())
            .map(|stored| stored.granted_scopes)
            .unwrap_or_default();
        let mut scopes = if granted.is_empty() {
            self.config.scopes.clone()
        } else {
            granted
        };
        for scope in challenged.unwrap_or_default().split_whitespace() {
            if !scopes.iter().any(|kept| kept == scope) {
                scopes.push(scope.to_owned());
            }
        }
        scopes
    }

    /// Completes the login `answer` answers: `None` when it answers none of this client's;
    /// else whether it signed in, or why not.
    pub(crate) async fn finish(&self, answer: &Answer) -> Option<Result<(), String>> {
        let login = self
            .state
            .logins
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&answer.id)?;
        Some(self.exchange(login, answer).await)
    }

    async fn exchange(&self, login: Login, answer: &Answer) -> Result<(), String> {
        if !answer.ok {
            return Err("sign-in was not completed (declined)".to_owned());
        }
        let callback = redirect_of(answer)?;
        if callback.csrf_token != login.state {
            return Err(
                "sign-in refused: the redirect's `state` is not the one sent (a forged or stale redirect)"
                    .to_owned(),
            );
        }
        login
            .session
            .handle_callback_with_issuer(
                &callback.code,
                &callback.csrf_token,
                callback.issuer.as_deref(),
            )
            .await
            .map_err(plain)?;
        let client = self.signed(login.session.auth_manager)?;
        self.lock_clients().insert(login.resource, client);
        Ok(())
    }

    fn lock_clients(&self) -> std::sync::MutexGuard<'_, HashMap<String, SignedClient>> {
        self.state.clients.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The code and state an answer carries: `data.redirect` (the URL the browser came back to)
/// or `data.code` and `data.state`.
fn redirect_of(answer: &Answer) -> Result<AuthorizationCallback, String> {
    let data = answer.data.as_ref();
    let text = |key: &str| data?.get(key)?.as_str();
    let url = match (text("redirect"), text("code"), text("state")) {
        (Some(redirect), _, _) => redirect.to_owned(),
        (None, Some(code), Some(state)) => {
            let mut url = reqwest::Url::parse("http://localhost/").map_err(plain)?;
            url.query_pairs_mut()
                .append_pair("code", code)
                .append_pair("state", state);
            url.to_string()
        }
        _ => {
            return Err(
                "sign-in needs the redirect: `data.redirect` (the URL), or `data.code` and `data.state`"
                    .to_owned(),
            );
        }
    };
    let redirect = reqwest::Url::parse(&url).map_err(|_| "the redirect is not a URL".to_owned())?;
    if let Some((_, error)) = redirect.query_pairs().find(|(key, _)| key == "error") {
        return Err(format!(
            "the authorization server refused the sign-in: {error}"
        ));
    }
    AuthorizationCallback::from_redirect_url(&url)
        .map_err(|_| "the redirect carries no `code` and `state`".to_owned())
}

/// Whether a token endpoint may be sent a client's credentials: HTTPS, or plain HTTP when it
/// and the MCP server are both on loopback (a local test), rmcp's rule for its own grant.
#[cfg(feature = "oauth-jwt")]
fn secure_enough(endpoint: &str, resource: &str) -> bool {
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

/// `tokens` for `scopes`, issued to `client_id` now, as the store keeps them.
fn received(
    client_id: String,
    tokens: OAuthTokenResponse,
    scopes: Vec<String>,
) -> StoredCredentials {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
    StoredCredentials::new(
        client_id,
        Some(tokens),
        scopes,
        Some(now.map_or(0, |since| since.as_secs())),
    )
}

/// An rmcp OAuth error for a person; rmcp's messages name no token.
fn plain(error: impl fmt::Display) -> String {
    format!("sign-in failed: {error}")
}
