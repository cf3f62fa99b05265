//! The client credentials grant: an agent signs in as itself, no person asked, with a secret
//! (or, with `oauth-jwt`, a signed assertion: `jwt.rs`), and the tokens of a sign-in without a
//! person kept as a login's are.

use std::sync::Arc;

use rmcp::transport::auth::{
    AuthorizationManager, AuthorizationMetadata, ClientCredentialsConfig, CredentialStore,
    OAuthTokenResponse, StoredCredentials,
};

use super::token_store::Entry;
use super::{OAuthClient, plain};

impl OAuthClient {
    /// The client credentials grant: a token for `resource` with no person involved, kept
    /// in the store as a login's tokens are.
    pub(super) async fn sign_in_as_itself(
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

    /// Keeps `kept`, the tokens of a sign-in without a person, in the store as a login's are,
    /// and the client that sends them.
    pub(super) async fn keep_own_tokens(
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
}

/// `tokens` for `scopes`, issued to `client_id` now, as the store keeps them.
pub(super) fn received(
    client_id: String,
    tokens: OAuthTokenResponse,
    scopes: Vec<String>,
) -> StoredCredentials {
    StoredCredentials::new(client_id, Some(tokens), scopes, Some(now()))
}

/// Seconds since the Unix epoch: when tokens were received, and a JWT's `iat`.
pub(super) fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_secs())
}
