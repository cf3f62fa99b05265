//! Signing in to a remote MCP server (issue 44): `McpTools::http(url).oauth(OAuthClient)`
//! against our own protected server and a stand-in authorization server
//! (`oauth_fixture.rs`). The login is a §10 suspension answered in the loop
//! (`Toolkit::call`), tokens are refreshed before they expire and on a `401`, a `403
//! insufficient_scope` steps the scopes up, and what the authorization server offers is
//! checked. Where tokens go and where they never show: `mcp_client_oauth_tokens.rs`.
#![cfg(all(feature = "mcp-client", feature = "mcp-http"))]

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::json;
use toolnexus::mcp::{McpTools, OAuthClient};
use toolnexus::{Answer, Toolkit, pending_of};

use super::oauth_fixture::{
    assert_signed_in_again, browse, protected, protected_with, redirect_answer, signed_in,
    toolkit_signed_in,
};
use super::oauth_server::{AuthServer, form};

#[tokio::test]
async fn the_login_is_a_suspension_and_its_answer_completes_the_sign_in_and_the_call() {
    let auth = AuthServer::start().await;
    let resource = protected(&auth, None).await;
    let oauth = OAuthClient::new("http://127.0.0.1:9/callback").client_name("tests");

    // Connecting needs a login: discovery from the 401, registration, PKCE, resource.
    let server = McpTools::http(&resource.url).oauth(oauth.clone());
    let error = server.clone().connect().await.unwrap_err();
    let login = error.pending().expect("a login").clone();
    assert_eq!(login.kind, "authorization");
    let url = login.url.clone().unwrap();
    assert!(
        url.starts_with(&format!("{}/authorize?", auth.url)),
        "{url}"
    );
    assert!(error.to_string().contains("needs a sign-in"), "{error}");
    let query = form(url.split_once('?').unwrap().1);
    assert_eq!(query["code_challenge_method"], "S256");
    assert_eq!(query["resource"], resource.url);
    assert_eq!(query["client_id"], "registered-client");
    assert_eq!(auth.seen().registrations, 1);

    oauth
        .sign_in(&redirect_answer(&login, browse(&login).await))
        .await
        .unwrap();
    let tools = server.connect().await.unwrap();
    let toolkit = Toolkit::new().with_all(tools.tools());
    let asked = AtomicUsize::new(0);
    let sum = toolkit
        .call("add", json!({"a": 2, "b": 3}), |_| async {
            asked.fetch_add(1, Ordering::SeqCst);
            unreachable!("signed in: nothing to ask")
        })
        .await;
    assert_eq!((sum.output.as_str(), sum.is_error), ("5", false));

    // Every token revoked: the next call suspends with a new login, which the loop answers.
    auth.revoke_everything();
    let suspended = toolkit
        .execute("add", json!({"a": 1, "b": 1}), &Default::default())
        .await;
    let again = pending_of(&suspended).expect("a call that needs a login suspends");
    assert_eq!(again.kind, "authorization");
    assert!(
        suspended.output.starts_with("Sign in to MCP server"),
        "{}",
        suspended.output
    );
    let sum = toolkit
        .call("add", json!({"a": 4, "b": 5}), |login| async move {
            let redirect = browse(&login).await;
            redirect_answer(&login, redirect)
        })
        .await;
    assert_eq!((sum.output.as_str(), sum.is_error), ("9", false), "{sum:?}");
    assert_eq!(asked.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn an_expired_token_is_refreshed_on_401_without_asking_anyone() {
    let auth = AuthServer::start().await;
    let resource = protected(&auth, None).await;
    let oauth = OAuthClient::new("http://127.0.0.1:9/callback");
    let toolkit = Toolkit::new().with_all(signed_in(&resource, &oauth).await.tools());

    auth.expire_access_tokens();
    let sum = toolkit
        .execute("add", json!({"a": 20, "b": 22}), &Default::default())
        .await;
    assert_eq!(
        (sum.output.as_str(), sum.is_error),
        ("42", false),
        "{sum:?}"
    );
    assert_eq!(auth.seen().refreshes, 1);
    assert_eq!(auth.seen().authorizations.len(), 1, "no second login");
}

#[tokio::test]
async fn a_redirect_with_another_state_is_refused_and_its_code_never_exchanged() {
    let auth = AuthServer::start().await;
    let resource = protected(&auth, None).await;
    let oauth = OAuthClient::new("http://127.0.0.1:9/callback");
    let error = McpTools::http(&resource.url)
        .oauth(oauth.clone())
        .connect()
        .await
        .unwrap_err();
    let login = error.pending().unwrap().clone();
    let redirect = browse(&login).await;
    let (base, _) = redirect.split_once("&state=").unwrap();
    let forged = format!("{base}&state=forged");

    let refused = oauth
        .sign_in(&redirect_answer(&login, forged))
        .await
        .unwrap_err();
    assert!(
        refused.to_string().contains("`state` is not the one sent"),
        "{refused}"
    );
    assert_eq!(auth.seen().code_exchanges, 0);
    // The login is spent: the genuine redirect cannot be replayed after a forged one.
    let replay = oauth
        .sign_in(&redirect_answer(&login, redirect))
        .await
        .unwrap_err();
    assert!(replay.to_string().contains("no sign-in waits"), "{replay}");

    // An answer without the redirect says what it needs.
    let error = McpTools::http(&resource.url)
        .oauth(oauth.clone())
        .connect()
        .await
        .unwrap_err();
    let login = error.pending().unwrap().clone();
    let empty = oauth.sign_in(&Answer::approve(&login)).await.unwrap_err();
    assert_eq!(
        empty.to_string(),
        "sign-in needs the redirect: `data.redirect` (the URL), or `data.code` and `data.state`"
    );
}

#[tokio::test]
async fn metadata_naming_another_resource_is_refused_before_any_login() {
    let auth = AuthServer::start().await;
    let resource = protected(&auth, Some("http://collector.example/mcp")).await;
    let error = McpTools::http(&resource.url)
        .oauth(OAuthClient::new("http://127.0.0.1:9/callback"))
        .connect()
        .await
        .unwrap_err();
    assert!(error.pending().is_none());
    assert!(error.to_string().contains("sign-in failed"), "{error}");
    let seen = auth.seen();
    assert_eq!((seen.registrations, seen.authorizations.len()), (0, 0));
}

#[tokio::test]
async fn the_callback_listener_takes_the_browsers_redirect_as_the_answer() {
    let auth = AuthServer::start().await;
    let resource = protected(&auth, None).await;
    let callback = OAuthClient::callback_listener("127.0.0.1:0").await.unwrap();
    let oauth = OAuthClient::new(callback.redirect_uri());
    let server = McpTools::http(&resource.url).oauth(oauth.clone());
    let login = server
        .clone()
        .connect()
        .await
        .unwrap_err()
        .pending()
        .unwrap()
        .clone();

    // The browser follows the redirect to the listener (after asking for a favicon).
    let browser = async {
        let http = reqwest::Client::new();
        let favicon = callback.redirect_uri().replace("/callback", "/favicon.ico");
        assert_eq!(http.get(favicon).send().await.unwrap().status(), 404);
        let page = http.get(login.url.clone().unwrap()).send().await.unwrap();
        assert_eq!(page.status(), 200);
    };
    let (answer, ()) = tokio::join!(callback.answer(login.clone()), browser);
    assert!(answer.ok);
    oauth.sign_in(&answer).await.unwrap();
    server.connect().await.unwrap();
}

#[tokio::test]
async fn a_403_insufficient_scope_is_a_login_for_the_scopes_granted_and_the_one_challenged() {
    let auth = AuthServer::start().await;
    let resource = protected_with(&auth, None, Some("mcp:write")).await;
    let oauth = OAuthClient::new("http://127.0.0.1:9/callback").scopes(["mcp:read"]);
    let toolkit = Toolkit::new().with_all(signed_in(&resource, &oauth).await.tools());
    assert_eq!(auth.seen().authorizations[0]["scope"], "mcp:read");

    let logins = Mutex::new(Vec::new());
    let sum = toolkit
        .call("add", json!({"a": 2, "b": 2}), |login| {
            logins.lock().unwrap().push(login.clone());
            async move {
                let redirect = browse(&login).await;
                redirect_answer(&login, redirect)
            }
        })
        .await;
    assert_eq!((sum.output.as_str(), sum.is_error), ("4", false), "{sum:?}");
    assert_eq!(logins.lock().unwrap().len(), 1);
    let step_up = auth.seen().authorizations[1]["scope"].clone();
    assert_eq!(step_up, "mcp:read mcp:write");
}

#[tokio::test]
async fn a_client_signs_in_as_itself_with_client_credentials_and_no_person() {
    let auth = AuthServer::start().await;
    let resource = protected(&auth, None).await;
    let oauth = OAuthClient::new("http://127.0.0.1:9/callback")
        .client_id("machine")
        .client_secret("machine-secret")
        .client_credentials();
    let toolkit = toolkit_signed_in(&resource, oauth).await;
    let ctx = toolnexus::ToolContext::default();
    let run = || toolkit.execute("add", json!({"a": 3, "b": 4}), &ctx);
    assert_eq!(run().await.output, "7");
    assert_eq!(auth.seen().client_credentials, 1);
    assert!(auth.seen().authorizations.is_empty(), "no login page");

    // A token refused later: a new one for the next call, and a result that says so.
    auth.revoke_everything();
    let refused = run().await;
    assert_signed_in_again(&refused);
    assert_eq!(run().await.output, "7");
    assert_eq!(auth.seen().client_credentials, 2);

    // Without its secret there is nothing to sign in with, and the error says so.
    let error = McpTools::http(&resource.url)
        .oauth(
            OAuthClient::new("http://127.0.0.1:9/callback")
                .client_id("machine")
                .client_credentials(),
        )
        .connect()
        .await
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("needs its `client_id` and `client_secret`"),
        "{error}"
    );
}

#[tokio::test]
async fn a_token_about_to_expire_is_refreshed_before_it_is_sent() {
    let auth = AuthServer::start().await;
    let resource = protected(&auth, None).await;
    // The login's token expires at once; the ones after it last an hour.
    *auth.expires_in.lock().unwrap() = 0;
    let oauth = OAuthClient::new("http://127.0.0.1:9/callback");
    let server = McpTools::http(&resource.url).oauth(oauth.clone());
    let login = server
        .clone()
        .connect()
        .await
        .unwrap_err()
        .pending()
        .unwrap()
        .clone();
    oauth
        .sign_in(&redirect_answer(&login, browse(&login).await))
        .await
        .unwrap();
    *auth.expires_in.lock().unwrap() = 3600;
    let expiring = auth.seen().issued[0].clone();
    let tools = server.connect().await.unwrap();
    let sum = Toolkit::new()
        .with_all(tools.tools())
        .execute("add", json!({"a": 1, "b": 1}), &Default::default())
        .await;
    assert_eq!(sum.output, "2");
    assert_eq!(auth.seen().refreshes, 1);
    assert!(
        !resource.tokens_seen.lock().unwrap().contains(&expiring),
        "the expiring token was never sent"
    );
}

#[tokio::test]
async fn an_authorization_server_without_pkce_s256_is_refused() {
    let auth = AuthServer::start().await;
    *auth.pkce_methods.lock().unwrap() = vec!["plain"];
    let resource = protected(&auth, None).await;
    let error = McpTools::http(&resource.url)
        .oauth(OAuthClient::new("http://127.0.0.1:9/callback"))
        .connect()
        .await
        .unwrap_err();
    assert!(error.pending().is_none());
    assert!(error.to_string().contains("S256"), "{error}");
    assert!(auth.seen().authorizations.is_empty());
}

#[tokio::test]
async fn logins_nobody_answers_do_not_pile_up() {
    let auth = AuthServer::start().await;
    let resource = protected(&auth, None).await;
    let oauth = OAuthClient::new("http://127.0.0.1:9/callback");
    let server = McpTools::http(&resource.url).oauth(oauth.clone());
    let mut logins = Vec::new();
    for _ in 0..65 {
        let error = server.clone().connect().await.unwrap_err();
        logins.push(error.pending().unwrap().clone());
    }
    // The oldest of 65 was forgotten; the newest still completes.
    let oldest = &logins[0];
    let forgotten = oauth
        .sign_in(&redirect_answer(oldest, browse(oldest).await))
        .await
        .unwrap_err();
    assert!(
        forgotten.to_string().contains("no sign-in waits"),
        "{forgotten}"
    );
    let newest = &logins[64];
    oauth
        .sign_in(&redirect_answer(newest, browse(newest).await))
        .await
        .unwrap();
    server.connect().await.unwrap();
}

#[tokio::test]
async fn an_answer_may_carry_code_and_state_and_a_refusal_or_decline_says_so() {
    let auth = AuthServer::start().await;
    let resource = protected(&auth, None).await;
    let oauth = OAuthClient::new("http://127.0.0.1:9/callback");
    let server = McpTools::http(&resource.url).oauth(oauth.clone());
    let login = || async {
        server
            .clone()
            .connect()
            .await
            .unwrap_err()
            .pending()
            .unwrap()
            .clone()
    };
    let with = |login: &toolnexus::Request, pairs: &[(&str, &str)]| {
        let data = pairs
            .iter()
            .map(|(key, value)| ((*key).to_owned(), serde_json::Value::from(*value)))
            .collect();
        Answer::approve(login).with_data(data)
    };

    // The authorization server said no: its error, not a code.
    let refused = login().await;
    let error = oauth
        .sign_in(&with(
            &refused,
            &[(
                "redirect",
                "http://127.0.0.1:9/callback?error=access_denied&state=x",
            )],
        ))
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "the authorization server refused the sign-in: access_denied"
    );

    // The person declined.
    let declined = login().await;
    let error = oauth
        .sign_in(&Answer::decline(&declined, toolnexus::Reason::Declined))
        .await
        .unwrap_err();
    assert_eq!(error.to_string(), "sign-in was not completed (declined)");
    assert_eq!(auth.seen().code_exchanges, 0);

    // `code` and `state` on their own, as an app that parsed the redirect sends them.
    let accepted = login().await;
    let redirect = browse(&accepted).await;
    let query = form(redirect.split_once('?').unwrap().1);
    oauth
        .sign_in(&with(
            &accepted,
            &[("code", &query["code"]), ("state", &query["state"])],
        ))
        .await
        .unwrap();
    server.connect().await.unwrap();
}

#[tokio::test]
async fn the_callback_listener_declines_when_the_redirect_carries_an_error() {
    let callback = OAuthClient::callback_listener("127.0.0.1:0").await.unwrap();
    let login = toolnexus::Request::new("authorization", "Sign in").with_url("http://127.0.0.1:9/");
    let refused = format!("{}?error=access_denied&state=s", callback.redirect_uri());
    let browser = async { reqwest::get(refused).await.unwrap().status() };
    let (answer, status) = tokio::join!(callback.answer(login.clone()), browser);
    assert_eq!(status, 200);
    assert_eq!((answer.id.as_str(), answer.ok), (login.id.as_str(), false));
    assert_eq!(answer.reason, Some(toolnexus::Reason::Declined));
}
