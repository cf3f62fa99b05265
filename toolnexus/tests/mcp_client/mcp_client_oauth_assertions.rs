//! Signing in with an assertion, no person asked (issue 44): enterprise-managed authorization
//! (`OAuthClient::enterprise_idp`: the person's ID token exchanged at the IdP for an ID-JAG,
//! redeemed at the authorization server) and workload identity federation
//! (`OAuthClient::workload_identity`: the workload's own JWT as the JWT-bearer grant), against
//! the stand-in IdP and authorization server of `oauth_server.rs`. Where their secrets never
//! show: `mcp_client_oauth_tokens.rs`.
#![cfg(all(feature = "mcp-client", feature = "mcp-http"))]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use toolnexus::mcp::{EnterpriseIdp, McpTools, OAuthClient};

use super::oauth_fixture::{
    add_three_and_four, assert_signed_in_again, protected, toolkit_signed_in,
};
use super::oauth_server::{AuthServer, IDP_CLIENT, IDP_SECRET};

type Fetched = Result<String, Box<dyn std::error::Error + Send + Sync>>;

/// The stand-in IdP, this app being its confidential client `idp-client`.
fn idp(auth: &AuthServer) -> EnterpriseIdp {
    EnterpriseIdp::new(
        auth.idp_issuer(),
        format!("{}/token", auth.idp_issuer()),
        IDP_CLIENT,
    )
    .client_secret(IDP_SECRET)
}

/// A source that always gives `token`.
fn always(token: String) -> impl Fn() -> std::future::Ready<Fetched> + Send + Sync + 'static {
    move || std::future::ready(Ok(token.clone()))
}

/// Why connecting to `url` with `oauth` failed.
async fn refused(url: &str, oauth: OAuthClient) -> String {
    McpTools::http(url)
        .oauth(oauth)
        .connect()
        .await
        .unwrap_err()
        .to_string()
}

#[tokio::test]
async fn a_person_signs_in_through_the_enterprise_idp_with_no_login() {
    let auth = AuthServer::start().await;
    let resource = protected(&auth, None).await;
    let asked = Arc::new(AtomicUsize::new(0));
    let (from, count) = (auth.clone(), Arc::clone(&asked));
    let oauth = OAuthClient::new("http://127.0.0.1:9/callback")
        .client_id("machine")
        .client_secret("machine-secret")
        .enterprise_idp(idp(&auth), move || {
            count.fetch_add(1, Ordering::SeqCst);
            std::future::ready(Ok(from.id_token(3600)))
        });
    let toolkit = toolkit_signed_in(&resource, oauth).await;
    assert_eq!(add_three_and_four(&toolkit).await.output, "7");
    {
        let seen = auth.seen();
        assert_eq!((seen.token_exchanges, seen.jwt_bearer), (1, 1));
        assert!(seen.authorizations.is_empty(), "no login page");
        assert_eq!(seen.registrations, 0);
    }

    // A token refused later: the next call signs in again, with the session's ID token of then.
    auth.revoke_everything();
    let refused = add_three_and_four(&toolkit).await;
    assert_signed_in_again(&refused);
    assert_eq!(add_three_and_four(&toolkit).await.output, "7");
    assert_eq!(asked.load(Ordering::SeqCst), 2);
    assert_eq!(auth.seen().jwt_bearer, 2);
}

#[tokio::test]
async fn an_enterprise_sign_in_refused_names_who_refused_and_the_code() {
    let auth = AuthServer::start().await;
    let resource = protected(&auth, None).await;
    let machine = || {
        OAuthClient::new("http://127.0.0.1:9/callback")
            .client_id("machine")
            .client_secret("machine-secret")
    };

    // The IdP refuses an expired ID token; nothing reaches the authorization server.
    let expired = auth.id_token(-60);
    let error = refused(
        &resource.url,
        machine().enterprise_idp(idp(&auth), always(expired.clone())),
    )
    .await;
    assert!(
        error.contains("the enterprise IdP refused the token exchange: invalid_grant"),
        "{error}"
    );
    assert!(!error.contains(&expired));
    // The IdP refuses the app when its secret there is wrong.
    let wrong = idp(&auth).client_secret("not-it");
    let error = refused(
        &resource.url,
        machine().enterprise_idp(wrong, always(auth.id_token(3600))),
    )
    .await;
    assert!(
        error.contains("the enterprise IdP refused the token exchange: invalid_client (HTTP 401)"),
        "{error}"
    );
    assert_eq!(auth.seen().jwt_bearer, 0);

    // The authorization server refuses the ID-JAG from a client that is not the one it names.
    let stranger = OAuthClient::new("http://127.0.0.1:9/callback")
        .client_id("machine")
        .client_secret("not-the-secret")
        .enterprise_idp(idp(&auth), always(auth.id_token(3600)));
    let error = refused(&resource.url, stranger).await;
    assert!(
        error.contains(
            "the authorization server refused the ID-JAG (JWT-bearer grant): invalid_client (HTTP 401)"
        ),
        "{error}"
    );
    assert_eq!(auth.seen().token_exchanges, 3);
    assert_eq!(auth.seen().jwt_bearer, 1);

    // Without the client registered at the authorization server, nothing is asked of anyone.
    let anonymous = OAuthClient::new("http://127.0.0.1:9/callback")
        .enterprise_idp(idp(&auth), always(auth.id_token(3600)));
    let error = refused(&resource.url, anonymous).await;
    assert!(error.contains("needs the `client_id`"), "{error}");
    assert_eq!(auth.seen().token_exchanges, 3);
}

#[tokio::test]
async fn a_workload_signs_in_with_its_platform_jwt_read_afresh_for_each_grant() {
    let auth = AuthServer::start().await;
    let resource = protected(&auth, None).await;
    let asked = Arc::new(AtomicUsize::new(0));
    let (from, count) = (auth.clone(), Arc::clone(&asked));
    let oauth = OAuthClient::new("http://127.0.0.1:9/callback").workload_identity(move || {
        count.fetch_add(1, Ordering::SeqCst);
        // As the platform writes its token file: with a newline at the end.
        std::future::ready(Ok(format!("{}\n", from.workload_jwt(300))))
    });
    let toolkit = toolkit_signed_in(&resource, oauth).await;
    assert_eq!(add_three_and_four(&toolkit).await.output, "7");
    {
        let seen = auth.seen();
        assert_eq!(seen.jwt_bearer, 1);
        assert!(seen.authorizations.is_empty(), "no login page");
        assert_eq!(seen.registrations, 0, "no client registration");
        assert!(seen.refresh.is_empty(), "no refresh token");
    }

    auth.revoke_everything();
    let refused = add_three_and_four(&toolkit).await;
    assert_signed_in_again(&refused);
    assert_eq!(add_three_and_four(&toolkit).await.output, "7");
    assert_eq!(
        asked.load(Ordering::SeqCst),
        2,
        "a fresh JWT for each grant"
    );
    assert_eq!(auth.seen().jwt_bearer, 2);
}

#[tokio::test]
async fn a_workload_grant_refused_names_the_code_and_is_not_retried() {
    let auth = AuthServer::start().await;
    let resource = protected(&auth, None).await;
    let workload = || OAuthClient::new("http://127.0.0.1:9/callback");

    let expired = auth.workload_jwt(-60);
    let error = refused(
        &resource.url,
        workload().workload_identity(always(expired.clone())),
    )
    .await;
    assert!(
        error.contains(
            "the authorization server refused the workload's JWT-bearer grant: invalid_grant (HTTP 400)"
        ),
        "{error}"
    );
    assert!(!error.contains(&expired));
    assert_eq!(auth.seen().jwt_bearer, 1, "asked once, not again");

    let greedy = workload()
        .scopes(["mcp:admin"])
        .workload_identity(always(auth.workload_jwt(300)));
    let error = refused(&resource.url, greedy).await;
    assert!(error.contains("grant: invalid_scope (HTTP 400)"), "{error}");
    assert_eq!(auth.seen().jwt_bearer, 2);

    // No JWT to be had: said as the source said it, and nothing is sent.
    let missing = workload().workload_identity(|| {
        std::future::ready(Fetched::Err("no token at /var/run/secrets/tokens".into()))
    });
    let error = refused(&resource.url, missing).await;
    assert!(
        error.contains("could not get the workload JWT: no token at /var/run/secrets/tokens"),
        "{error}"
    );
    let blank = refused(
        &resource.url,
        workload().workload_identity(always("\n".to_owned())),
    )
    .await;
    assert!(blank.contains("the workload JWT is empty"), "{blank}");
    assert_eq!(auth.seen().jwt_bearer, 2);
}

#[tokio::test]
async fn an_expired_token_is_renewed_with_a_new_assertion_not_a_refresh() {
    let auth = AuthServer::start().await;
    let resource = protected(&auth, None).await;
    // Two seconds: rmcp counts a token expired in its last second.
    *auth.expires_in.lock().unwrap() = 2;
    let from = auth.clone();
    let oauth = OAuthClient::new("http://127.0.0.1:9/callback")
        .workload_identity(move || std::future::ready(Ok(from.workload_jwt(300))));
    let toolkit = toolkit_signed_in(&resource, oauth).await;
    assert_eq!(add_three_and_four(&toolkit).await.output, "7");

    tokio::time::sleep(std::time::Duration::from_millis(2100)).await;
    let expired = add_three_and_four(&toolkit).await;
    assert!(expired.is_error);
    assert!(expired.output.contains("call again"), "{}", expired.output);
    assert_eq!(add_three_and_four(&toolkit).await.output, "7");
    assert_eq!(auth.seen().jwt_bearer, 2);
    assert_eq!(auth.seen().refreshes, 0);
}
