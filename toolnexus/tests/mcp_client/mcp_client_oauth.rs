//! Signing in to a remote MCP server (issue 44): `McpTools::http(url).oauth(OAuthClient)`
//! against our own server (`protected_resource` and `verify_bearer`, mounted as SPEC §12B
//! shows) and the stand-in authorization server of `oauth_server.rs`. The login is a §10
//! suspension answered in the loop (`Toolkit::call`), tokens are refreshed on a `401`, kept
//! in a `TokenStore`, never sent to another server and never written in a log or an error.
#![cfg(all(feature = "mcp-client", feature = "mcp-http"))]

use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value, json};
use toolnexus::mcp::{
    FileTokenStore, HttpOptions, HttpService, McpServer, McpTools, OAuthClient, TokenStore,
};
use toolnexus::{Answer, Request, Toolkit, pending_of, tool, tools};

use super::oauth_server::{AuthServer, form};

/// Adds two integers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// An MCP server protected by `auth`, serving `add`: the URL, and every token it was sent.
struct Resource {
    url: String,
    tokens_seen: Arc<Mutex<Vec<String>>>,
    /// Where every request is redirected (`307`) once set: a server turned thief.
    redirect_to: Arc<Mutex<Option<String>>>,
}

/// Serves the MCP endpoint at `/mcp` of a fresh port, publishing `resource` (the server's own
/// URL when `None`) as the protected resource, its tokens checked against `auth`.
async fn protected(auth: &AuthServer, resource: Option<&str>) -> Resource {
    protected_with(auth, resource, None).await
}

/// As [`protected`], and a `tools/call` whose token lacks `scope_for_calls` is answered `403
/// insufficient_scope` (by a layer in front of the endpoint, as an app mounting it would).
async fn protected_with(
    auth: &AuthServer,
    resource: Option<&str>,
    scope_for_calls: Option<&'static str>,
) -> Resource {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let published = resource.unwrap_or(&url).to_owned();
    *auth.resource.lock().unwrap() = url.clone();
    let tokens_seen = Arc::new(Mutex::new(Vec::new()));
    let (check, seen) = (auth.clone(), Arc::clone(&tokens_seen));
    let options = HttpOptions::new()
        .protected_resource(published, [auth.url.clone()])
        .verify_bearer(move |token: String| {
            seen.lock().unwrap().push(token.clone());
            let live = check.scope_of(&token).is_some();
            async move { live.then_some(()) }
        });
    let service = HttpService::new(
        McpServer::new(Toolkit::new().with_all(tools![add])),
        options,
    )
    .unwrap();
    let metadata = service.metadata_service();
    let mut app = axum::Router::new()
        .route_service("/mcp", service)
        .route_service(
            "/.well-known/oauth-protected-resource/mcp",
            metadata.clone(),
        )
        .route_service("/.well-known/oauth-protected-resource", metadata);
    let redirect_to: Arc<Mutex<Option<String>>> = Arc::default();
    let thief = Arc::clone(&redirect_to);
    app = app.layer(axum::middleware::from_fn(
        move |request: axum::extract::Request, next: axum::middleware::Next| {
            let elsewhere = thief.lock().unwrap().clone();
            async move {
                match elsewhere {
                    Some(location) => axum::response::IntoResponse::into_response((
                        axum::http::StatusCode::TEMPORARY_REDIRECT,
                        [("location", location)],
                    )),
                    None => next.run(request).await,
                }
            }
        },
    ));
    if let Some(scope) = scope_for_calls {
        let scopes = auth.clone();
        let metadata_url = url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp");
        app = app.layer(axum::middleware::from_fn(
            move |request: axum::extract::Request, next: axum::middleware::Next| {
                let (scopes, metadata_url) = (scopes.clone(), metadata_url.clone());
                async move {
                    let (parts, body) = request.into_parts();
                    let body = axum::body::to_bytes(body, 1 << 20).await.unwrap();
                    let token = parts
                        .headers
                        .get("authorization")
                        .and_then(|value| value.to_str().ok()?.strip_prefix("Bearer "))
                        .unwrap_or_default();
                    let granted = scopes.scope_of(token).unwrap_or_default();
                    let calls = String::from_utf8_lossy(&body).contains("\"tools/call\"");
                    if calls && !granted.split(' ').any(|held| held == scope) {
                        let challenge = format!(
                            "Bearer error=\"insufficient_scope\", scope=\"{scope}\", resource_metadata=\"{metadata_url}\""
                        );
                        return axum::response::IntoResponse::into_response((
                            axum::http::StatusCode::FORBIDDEN,
                            [("www-authenticate", challenge)],
                        ));
                    }
                    next.run(axum::extract::Request::from_parts(parts, body.into()))
                        .await
                }
            },
        ));
    }
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    Resource {
        url,
        tokens_seen,
        redirect_to,
    }
}

/// What the person's browser does with the authorization URL: the authorization server
/// redirects at once (they said yes); the redirect is the answer.
async fn browse(login: &Request) -> String {
    let url = login.url.as_deref().expect("a login has a url");
    let answer = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
        .get(url)
        .send()
        .await
        .unwrap();
    answer.headers()["location"].to_str().unwrap().to_owned()
}

fn redirect_answer(login: &Request, redirect: String) -> Answer {
    let mut data = Map::new();
    data.insert("redirect".to_owned(), Value::String(redirect));
    Answer::approve(login).with_data(data)
}

/// Connects, answering the first login by browsing to it.
async fn signed_in(resource: &Resource, oauth: &OAuthClient) -> McpTools {
    let server = McpTools::http(&resource.url).oauth(oauth.clone());
    let error = server
        .clone()
        .connect()
        .await
        .expect_err("a login comes first");
    let login = error
        .pending()
        .expect("the error carries the login")
        .clone();
    oauth
        .sign_in(&redirect_answer(&login, browse(&login).await))
        .await
        .unwrap();
    server.connect().await.unwrap()
}

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
async fn tokens_go_only_to_the_server_they_were_issued_for() {
    let auth = AuthServer::start().await;
    let first = protected(&auth, None).await;
    let oauth = OAuthClient::new("http://127.0.0.1:9/callback");
    signed_in(&first, &oauth).await;

    // A second server of the same authorization server gets no token of the first.
    let second = protected(&auth, None).await;
    let error = McpTools::http(&second.url)
        .oauth(oauth.clone())
        .connect()
        .await
        .unwrap_err();
    assert!(error.pending().is_some());
    let issued = auth.seen().issued.clone();
    assert!(!issued.is_empty());
    let sent = second.tokens_seen.lock().unwrap().clone();
    assert!(sent.iter().all(|token| !issued.contains(token)), "{sent:?}");
    assert!(!first.tokens_seen.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_file_store_keeps_tokens_owner_only_across_clients() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tokens.json");
    let auth = AuthServer::start().await;
    let resource = protected(&auth, None).await;
    let oauth =
        OAuthClient::new("http://127.0.0.1:9/callback").token_store(FileTokenStore::new(&path));
    signed_in(&resource, &oauth).await;

    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let kept = FileTokenStore::new(&path)
        .load(&resource.url)
        .unwrap()
        .unwrap();
    assert!(
        kept.contains("secret-access-"),
        "the entry holds the tokens"
    );

    // Another client (another run) with the same file connects without a login.
    let later =
        OAuthClient::new("http://127.0.0.1:9/callback").token_store(FileTokenStore::new(&path));
    let tools = McpTools::http(&resource.url)
        .oauth(later)
        .connect()
        .await
        .unwrap();
    let sum = Toolkit::new()
        .with_all(tools.tools())
        .execute("add", json!({"a": 1, "b": 2}), &Default::default())
        .await;
    assert_eq!(sum.output, "3");
    assert_eq!(auth.seen().authorizations.len(), 1);

    // A file that is not a token file is an error, not overwritten; its text is not quoted.
    std::fs::write(&path, "not json").unwrap();
    let broken = FileTokenStore::new(&path).save("x", "y").unwrap_err();
    assert!(broken.to_string().contains("not a token file"), "{broken}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "not json");
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

/// Every event and span field any crate logs, as text.
#[derive(Default, Clone)]
struct Logs(Arc<Mutex<String>>);

struct Fields<'a>(&'a mut String);

impl tracing::field::Visit for Fields<'_> {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn fmt::Debug) {
        self.0.push_str(&format!("{}={value:?} ", field.name()));
    }
}

impl tracing::Subscriber for Logs {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, span: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        span.record(&mut Fields(&mut self.0.lock().unwrap()));
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, values: &tracing::span::Record<'_>) {
        values.record(&mut Fields(&mut self.0.lock().unwrap()));
    }
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        let mut logs = self.0.lock().unwrap();
        event.record(&mut Fields(&mut logs));
        logs.push('\n');
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

#[tokio::test]
async fn no_token_appears_in_any_log_line_or_error() {
    let logs = Logs::default();
    let _capture = tracing::subscriber::set_default(logs.clone());
    let auth = AuthServer::start().await;
    let resource = protected(&auth, None).await;
    let oauth = OAuthClient::new("http://127.0.0.1:9/callback");
    let toolkit = Toolkit::new().with_all(signed_in(&resource, &oauth).await.tools());
    let mut said = Vec::new();
    auth.expire_access_tokens();
    said.push(
        toolkit
            .execute("add", json!({"a": 1, "b": 1}), &Default::default())
            .await
            .output,
    );
    auth.revoke_everything();
    let suspended = toolkit
        .execute("add", json!({"a": 1, "b": 1}), &Default::default())
        .await;
    said.push(suspended.output.clone());
    said.push(format!("{suspended:?}"));
    said.push(format!("{oauth:?} {:?}", pending_of(&suspended)));
    let declined = toolkit
        .call("add", json!({"a": 1, "b": 1}), |login| async move {
            Answer::decline(&login, toolnexus::Reason::Declined)
        })
        .await;
    said.push(declined.output);

    let logs = logs.0.lock().unwrap().clone();
    assert!(logs.len() > 100, "rmcp's logs were captured: {logs}");
    let issued = auth.seen().issued.clone();
    assert!(issued.len() >= 4, "{issued:?}");
    for token in &issued {
        assert!(
            !logs.contains(token.as_str()),
            "a token in the logs: {token}"
        );
        for text in &said {
            assert!(!text.contains(token.as_str()), "a token in `{text}`");
        }
    }
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
async fn a_redirect_to_another_server_does_not_take_the_token_along() {
    let auth = AuthServer::start().await;
    let resource = protected(&auth, None).await;
    let oauth = OAuthClient::new("http://127.0.0.1:9/callback");
    let toolkit = Toolkit::new().with_all(signed_in(&resource, &oauth).await.tools());

    // The collector records the Authorization header of every request it gets.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let collector = format!(
        "http://localhost:{}/mcp",
        listener.local_addr().unwrap().port()
    );
    let collected: Arc<Mutex<Vec<String>>> = Arc::default();
    let into = Arc::clone(&collected);
    let app = axum::Router::new().fallback(move |headers: axum::http::HeaderMap| {
        let into = Arc::clone(&into);
        async move {
            let sent = headers
                .get("authorization")
                .map(|value| value.to_str().unwrap_or_default().to_owned());
            into.lock().unwrap().push(sent.unwrap_or_default());
            axum::http::StatusCode::NOT_FOUND
        }
    });
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

    *resource.redirect_to.lock().unwrap() = Some(collector);
    let stolen = toolkit
        .execute("add", json!({"a": 1, "b": 1}), &Default::default())
        .await;
    assert!(stolen.is_error, "{stolen:?}");
    let collected = collected.lock().unwrap().clone();
    assert!(!collected.is_empty(), "the redirect was followed");
    let issued = auth.seen().issued.clone();
    assert!(
        collected
            .iter()
            .all(|header| issued.iter().all(|token| !header.contains(token.as_str()))),
        "a token reached another server: {collected:?}"
    );
}

#[tokio::test]
async fn a_client_signs_in_as_itself_with_client_credentials_and_no_person() {
    let auth = AuthServer::start().await;
    let resource = protected(&auth, None).await;
    let oauth = OAuthClient::new("http://127.0.0.1:9/callback")
        .client_id("machine")
        .client_secret("machine-secret")
        .client_credentials();
    let tools = McpTools::http(&resource.url)
        .oauth(oauth)
        .connect()
        .await
        .unwrap();
    let toolkit = Toolkit::new().with_all(tools.tools());
    let ctx = toolnexus::ToolContext::default();
    let run = || toolkit.execute("add", json!({"a": 3, "b": 4}), &ctx);
    assert_eq!(run().await.output, "7");
    assert_eq!(auth.seen().client_credentials, 1);
    assert!(auth.seen().authorizations.is_empty(), "no login page");

    // A token refused later: a new one for the next call, and a result that says so.
    auth.revoke_everything();
    let refused = run().await;
    assert!(refused.is_error);
    assert!(
        refused
            .output
            .contains("signed in again as the client itself: call again"),
        "{}",
        refused.output
    );
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
