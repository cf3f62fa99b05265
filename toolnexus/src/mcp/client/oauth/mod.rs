//! Signing in to remote MCP servers: OAuth 2.1 on rmcp's `auth`, the login a §10 suspension.

mod assertion;
mod client_credentials;
#[cfg(feature = "oauth-jwt")]
mod dpop;
#[cfg(feature = "oauth-jwt")]
mod dpop_http;
#[cfg(feature = "oauth-jwt")]
mod es256;
#[cfg(feature = "oauth-jwt")]
mod jwt;
mod listener;
mod login;
mod token_store;

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::{Arc, Mutex};

use rmcp::transport::AuthClient;
use rmcp::transport::auth::{AuthorizationManager, AuthorizationSession, CredentialStore};

use super::McpClientError;
use crate::result::suspend::Answer;

pub use assertion::EnterpriseIdp;
use assertion::Grant;
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
pub(crate) type SignedClient = AuthClient<dpop_http::DpopHttp>;

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
    private_key: Option<Result<Arc<es256::Es256Key>, String>>,
    /// DPoP's key and nonces, or why no key could be made (said at sign-in).
    #[cfg(feature = "oauth-jwt")]
    dpop: Option<Result<Arc<dpop::Dpop>, String>>,
    scopes: Vec<String>,
    /// How the client signs in when no person does; `None`: a person's login.
    unattended: Option<Unattended>,
    store: Arc<dyn TokenStore>,
}

/// A sign-in no person attends, so no login to suspend on: one of these at a time, the last
/// builder called winning.
#[derive(Clone)]
enum Unattended {
    /// As the client itself (the client credentials grant).
    ClientCredentials,
    /// With an assertion (the JWT-bearer grant).
    Assertion(Grant),
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
                unattended: None,
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
        self.config.unattended = Some(Unattended::ClientCredentials);
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
        let http = dpop_http::DpopHttp {
            http: reqwest::Client::new(),
            dpop: self.dpop_state()?,
        };
        Ok(AuthClient::new(http, manager))
    }

    #[cfg(not(feature = "oauth-jwt"))]
    fn signed(&self, manager: AuthorizationManager) -> Result<SignedClient, String> {
        Ok(AuthClient::new(reqwest::Client::new(), manager))
    }

    fn lock_clients(&self) -> std::sync::MutexGuard<'_, HashMap<String, SignedClient>> {
        self.state.clients.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// An rmcp OAuth error for a person; rmcp's messages name no token.
fn plain(error: impl fmt::Display) -> String {
    format!("sign-in failed: {error}")
}
