//! A person's login: the authorization URL a call suspends on (§10), the redirect that
//! answers it, the code exchanged for tokens, and the scopes a `403 insufficient_scope` steps
//! up to.

use rmcp::transport::auth::{
    AuthorizationCallback, AuthorizationRequest, AuthorizationSession, StoredCredentials,
    WWWAuthenticateParams,
};

use super::{Login, MAX_LOGINS, OAuthClient, Unattended, plain};
use crate::result::suspend::{Answer, Request};

impl OAuthClient {
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
        match &self.config.unattended {
            Some(Unattended::Assertion(grant)) => {
                self.sign_in_with_assertion(grant, manager, metadata, resource)
                    .await?;
                return Ok(None);
            }
            Some(Unattended::ClientCredentials) => {
                self.sign_in_as_itself(manager, metadata.metadata, resource)
                    .await?;
                return Ok(None);
            }
            None => {}
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

    pub(super) fn step_up_scopes(&self, resource: &str, challenged: Option<&str>) -> Vec<String> {
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

    pub(super) async fn exchange(&self, login: Login, answer: &Answer) -> Result<(), String> {
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
