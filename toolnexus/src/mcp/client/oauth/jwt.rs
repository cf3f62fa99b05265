//! The client credentials grant with `private_key_jwt` (RFC 7523, SEP-1046; feature
//! `oauth-jwt`): the assertion the client signs with its key, and the token request it goes
//! with.

use std::sync::Arc;

use rmcp::transport::auth::{AuthorizationMetadata, OAuthTokenResponse};
use serde_json::{Map, Value, json};

use super::client_credentials::now;
use super::dpop::{Dpop, token_request};
use super::es256::{Es256Key, random_id};
use super::{OAuthClient, plain};

/// How long a client assertion is good for: long enough for clock skew, short enough that
/// a copy is of little use.
const ASSERTION_LIFETIME_SECS: u64 = 300;

impl Es256Key {
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
