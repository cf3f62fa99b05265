//! What the feature `oauth-jwt` signs (issue 44's extensions): the client credentials grant
//! with a `private_key_jwt` assertion (SEP-1046, RFC 7523) and DPoP-bound tokens (SEP-1932,
//! RFC 9449), against the stand-in authorization server, which verifies each signature, and
//! our protected server with a DPoP check in front (`oauth_fixture.rs`).
#![cfg(all(feature = "oauth-jwt", feature = "mcp-http"))]

use toolnexus::Toolkit;
use toolnexus::mcp::{McpTools, OAuthClient};

use super::oauth_fixture::{
    add_three_and_four, assert_signed_in_again, protected, signed_in, toolkit_signed_in,
};
use super::oauth_server::{AuthServer, DpopRule};

/// The key of the client `signed-machine`; the authorization server holds its public half.
pub const CLIENT_KEY_PEM: &str = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgsLmkZctOsB9aLesI
qkoJRYR36dJ9WfDGQG7oav7SBSehRANCAAQod/5aO7mJ0vq4MZHkCePuv4N4ZlpU
xLi3hiHKOhlvUeVtjGC5D6sxHDTF4FxhSe5zt81kkhCUWjadibd8dize
-----END PRIVATE KEY-----
";

/// Another P-256 key, which the authorization server does not know.
const OTHER_KEY_PEM: &str = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg/nvcIFofsY5aZXdz
G9pD44OY+iEYKM+/9PwfJqqCeg+hRANCAARYdnq3sYGsrt/fllzRpFnSkMOuv9zi
/nNsiRXpwNqlqJMXvgHLXJOiVJ7I/N9egBPm+I0bAH0G/vuIWQGd6FsR
-----END PRIVATE KEY-----
";

fn signed_machine(pem: &str) -> OAuthClient {
    OAuthClient::new("http://127.0.0.1:9/callback")
        .client_id("signed-machine")
        .client_private_key(pem)
        .client_credentials()
}

#[tokio::test]
async fn a_client_signs_in_as_itself_with_a_private_key_jwt_and_no_secret() {
    let auth = AuthServer::start().await;
    let resource = protected(&auth, None).await;
    let toolkit = toolkit_signed_in(&resource, signed_machine(CLIENT_KEY_PEM)).await;
    assert_eq!(add_three_and_four(&toolkit).await.output, "7");

    // The server verified the ES256 signature, `iss` = `sub` = the client, `aud` = its issuer.
    let claims = auth.seen().assertions.clone();
    assert_eq!(claims.len(), 1, "{claims:?}");
    assert_eq!(claims[0]["iss"], "signed-machine");
    assert_eq!(claims[0]["aud"], auth.url.as_str());
    let lifetime = claims[0]["exp"].as_u64().unwrap() - claims[0]["iat"].as_u64().unwrap();
    assert!(lifetime <= 300, "{lifetime}");
    assert!(auth.seen().authorizations.is_empty(), "no login page");

    // A token refused later: a new assertion (a new `jti`; a replay would be refused).
    auth.revoke_everything();
    let refused = add_three_and_four(&toolkit).await;
    assert_signed_in_again(&refused);
    assert_eq!(add_three_and_four(&toolkit).await.output, "7");
    assert_eq!(auth.seen().assertions.len(), 2);
}

#[tokio::test]
async fn an_assertion_signed_with_another_key_is_refused_and_the_error_names_why() {
    let auth = AuthServer::start().await;
    let resource = protected(&auth, None).await;
    let error = McpTools::http(&resource.url)
        .oauth(signed_machine(OTHER_KEY_PEM))
        .connect()
        .await
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("refused the client's signed assertion") && error.contains("invalid_client"),
        "{error}"
    );
    assert_eq!(auth.seen().client_credentials, 0);
    assert_eq!(auth.seen().signed.len(), 1, "the assertion was sent");
    assert!(!error.contains(&auth.seen().signed[0]), "{error}");
}

#[tokio::test]
async fn a_key_that_is_not_p256_pkcs8_or_a_server_without_private_key_jwt_is_refused() {
    let auth = AuthServer::start().await;
    let resource = protected(&auth, None).await;
    let connect = |oauth: OAuthClient| McpTools::http(&resource.url).oauth(oauth).connect();

    // Not a key: refused at sign-in, naming the format wanted, not quoting what was given.
    let garbled = CLIENT_KEY_PEM.replace("MIGHAgEA", "MIGHAgEB");
    let error = connect(signed_machine(&garbled))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("not a P-256 (ES256) key in PKCS#8 PEM"),
        "{error}"
    );
    assert!(!error.contains("MIGHAgEB"), "{error}");
    let error = connect(signed_machine("")).await.unwrap_err().to_string();
    assert!(error.contains("PKCS#8 PEM"), "{error}");

    // An authorization server that does not list `private_key_jwt`: nothing is sent.
    *auth.auth_methods.lock().unwrap() = vec!["client_secret_basic"];
    let error = connect(signed_machine(CLIENT_KEY_PEM))
        .await
        .unwrap_err()
        .to_string();
    assert!(error.contains("does not take `private_key_jwt`"), "{error}");
    assert!(auth.seen().signed.is_empty());
}

#[tokio::test]
async fn dpop_binds_the_token_to_the_clients_key_and_proves_it_on_every_request() {
    let auth = AuthServer::start().await;
    auth.dpop.lock().unwrap().required = true;
    let resource = protected(&auth, None).await;
    let oauth = OAuthClient::new("http://127.0.0.1:9/callback").dpop();
    let toolkit = Toolkit::new().with_all(signed_in(&resource, &oauth).await.tools());
    assert_eq!(add_three_and_four(&toolkit).await.output, "7");
    assert_eq!(add_three_and_four(&toolkit).await.output, "7");

    let seen = auth.seen();
    // The code exchange carried a proof; the token is bound to its key and issued as DPoP.
    assert_eq!((seen.code_exchanges, seen.token_proofs), (1, 1));
    assert_eq!(seen.bound.len(), 1);
    // Every request to the MCP server carried a fresh proof of the same key (`ath`, `htu`,
    // `htm`, a `jti` never seen before), else the check in front would have refused it.
    assert!(seen.resource_proofs >= 4, "{}", seen.resource_proofs);
    drop(seen);
    let sent = resource.tokens_seen.lock().unwrap().clone();
    assert!(
        sent.iter()
            .all(|token| auth.seen().bound.contains_key(token))
    );
}

#[tokio::test]
async fn dpop_nonces_asked_for_by_both_servers_are_sent_on_the_retry_and_after() {
    let auth = AuthServer::start().await;
    *auth.dpop.lock().unwrap() = DpopRule {
        required: true,
        token_nonce: Some("as-nonce-1".to_owned()),
        resource_nonce: Some("rs-nonce-1".to_owned()),
        ..DpopRule::default()
    };
    let resource = protected(&auth, None).await;
    let oauth = OAuthClient::new("http://127.0.0.1:9/callback").dpop();
    let toolkit = Toolkit::new().with_all(signed_in(&resource, &oauth).await.tools());
    assert_eq!(add_three_and_four(&toolkit).await.output, "7");
    let seen = auth.seen();
    assert_eq!(
        seen.token_nonce_challenges, 1,
        "asked once, then the nonce was sent"
    );
    assert_eq!(seen.token_proofs, 1);
    // The MCP server asked once (and once more for the bodiless request that reads its
    // nonce); every later proof carried it.
    assert_eq!(seen.resource_nonce_challenges, 2);
    assert!(seen.resource_proofs >= 3, "{}", seen.resource_proofs);
}

#[tokio::test]
async fn a_token_the_authorization_server_did_not_bind_is_sent_as_a_bearer_token() {
    let auth = AuthServer::start().await;
    *auth.dpop.lock().unwrap() = DpopRule {
        required: true,
        unbound_tokens: true,
        ..DpopRule::default()
    };
    let resource = protected(&auth, None).await;
    let oauth = OAuthClient::new("http://127.0.0.1:9/callback").dpop();
    let toolkit = Toolkit::new().with_all(signed_in(&resource, &oauth).await.tools());
    assert_eq!(add_three_and_four(&toolkit).await.output, "7");
    let seen = auth.seen();
    assert_eq!((seen.token_proofs, seen.bound.len()), (1, 0));
    // No proof reached the MCP server: the `Bearer` token went as one (a `DPoP` one would
    // have been refused, bound to no key).
    assert_eq!(seen.resource_proofs, 0);
}

#[tokio::test]
async fn a_client_without_dpop_is_refused_by_a_server_that_requires_it_and_a_nonce_is_retried_once()
{
    let auth = AuthServer::start().await;
    auth.dpop.lock().unwrap().required = true;
    let resource = protected(&auth, None).await;

    // No DPoP key: the token endpoint refuses the code exchange, and the error says why.
    let plain = OAuthClient::new("http://127.0.0.1:9/callback");
    let server = McpTools::http(&resource.url).oauth(plain.clone());
    let login = server
        .connect()
        .await
        .unwrap_err()
        .pending()
        .unwrap()
        .clone();
    let redirect = super::oauth_fixture::browse(&login).await;
    let error = plain
        .sign_in(&super::oauth_fixture::redirect_answer(&login, redirect))
        .await
        .unwrap_err()
        .to_string();
    assert!(error.contains("a DPoP proof is required"), "{error}");

    // The client credentials grant gets a bound token too, and a nonce that changes with
    // every challenge is retried once, not in a loop.
    let machine = signed_machine(CLIENT_KEY_PEM).dpop();
    let toolkit = toolkit_signed_in(&resource, machine).await;
    assert_eq!(auth.seen().token_proofs, 1);
    assert_eq!(auth.seen().bound.len(), 1);
    *auth.dpop.lock().unwrap() = DpopRule {
        required: true,
        resource_nonce: Some("rs-nonce-0".to_owned()),
        rotate_resource_nonce: true,
        ..DpopRule::default()
    };
    let challenges = auth.seen().resource_nonce_challenges;
    let refused = add_three_and_four(&toolkit).await;
    assert!(refused.is_error, "{refused:?}");
    // The request, the bodiless request that reads the nonce, and the one retry.
    assert_eq!(auth.seen().resource_nonce_challenges - challenges, 3);
}
