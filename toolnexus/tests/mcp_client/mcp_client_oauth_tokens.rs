//! Where sign-in tokens go (issue 44): kept in a `TokenStore` (a file only its owner can
//! read), sent to the server they were issued for and no other (not to a second server, not
//! along a redirect), and never in a log line or an error message, nor are the assertions
//! and secrets of the sign-ins that need no person.
#![cfg(all(feature = "mcp-client", feature = "mcp-http"))]

use std::fmt;
use std::sync::{Arc, Mutex};

use serde_json::json;
use toolnexus::mcp::{EnterpriseIdp, FileTokenStore, McpTools, OAuthClient, TokenStore};
use toolnexus::{Answer, Toolkit, pending_of};

use super::oauth_fixture::{protected, signed_in, toolkit_signed_in};
use super::oauth_server::{AuthServer, IDP_CLIENT, IDP_SECRET};

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
async fn no_assertion_secret_or_token_of_a_sign_in_without_a_person_appears_in_logs_or_errors() {
    let logs = Logs::default();
    let _capture = tracing::subscriber::set_default(logs.clone());
    let auth = AuthServer::start().await;
    let resource = protected(&auth, None).await;
    // Every ID token and workload JWT handed out, for the check.
    let handed: Arc<Mutex<Vec<String>>> = Arc::default();
    let hand = |token: String, to: &Arc<Mutex<Vec<String>>>| {
        to.lock().unwrap().push(token.clone());
        std::future::ready(Ok(token))
    };
    let idp = |secret: &str| {
        EnterpriseIdp::new(
            auth.idp_issuer(),
            format!("{}/token", auth.idp_issuer()),
            IDP_CLIENT,
        )
        .client_secret(secret)
    };
    let person = |secret: &str, lifetime: i64| {
        let (from, to) = (auth.clone(), Arc::clone(&handed));
        OAuthClient::new("http://127.0.0.1:9/callback")
            .client_id("machine")
            .client_secret(secret)
            .enterprise_idp(idp(IDP_SECRET), move || hand(from.id_token(lifetime), &to))
    };
    let workload = |lifetime: i64| {
        let (from, to) = (auth.clone(), Arc::clone(&handed));
        OAuthClient::new("http://127.0.0.1:9/callback")
            .workload_identity(move || hand(from.workload_jwt(lifetime), &to))
    };
    let mut said = Vec::new();
    for oauth in [person("machine-secret", 3600), workload(300)] {
        let toolkit = toolkit_signed_in(&resource, oauth.clone()).await;
        let ctx = toolnexus::ToolContext::default();
        let call = || toolkit.execute("add", json!({"a": 1, "b": 1}), &ctx);
        said.push(call().await.output);
        auth.revoke_everything();
        said.push(call().await.output);
        said.push(call().await.output);
        said.push(format!("{oauth:?}"));
    }
    let refusals = [
        person("machine-secret", -60),
        person("wrong-secret", 3600),
        workload(-60),
        OAuthClient::new("http://127.0.0.1:9/callback")
            .client_id("machine")
            .enterprise_idp(idp("wrong-secret"), move || {
                std::future::ready(Ok("not-a-jwt-secret-x9".to_owned()))
            }),
    ];
    for oauth in refusals {
        let error = McpTools::http(&resource.url)
            .oauth(oauth)
            .connect()
            .await
            .unwrap_err();
        said.push(format!("{error} {error:?}"));
    }
    assert_eq!(
        said.iter().filter(|text| text.contains("refused")).count(),
        6,
        "{said:?}"
    );
    let debug = format!("{:?}", idp(IDP_SECRET));
    assert!(!debug.contains(IDP_SECRET), "{debug}");

    let logs = logs.0.lock().unwrap().clone();
    assert!(logs.len() > 100, "rmcp's logs were captured: {logs}");
    let mut secrets = auth.seen().issued.clone();
    assert!(secrets.len() >= 6, "access tokens and ID-JAGs: {secrets:?}");
    secrets.extend(handed.lock().unwrap().iter().cloned());
    secrets.extend(["machine-secret", IDP_SECRET, "not-a-jwt-secret-x9"].map(str::to_owned));
    for secret in &secrets {
        assert!(
            !logs.contains(secret.as_str()),
            "a secret in the logs: {secret}"
        );
        for text in &said {
            assert!(!text.contains(secret.as_str()), "a secret in `{text}`");
        }
    }
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

#[test]
fn stores_on_one_file_lose_no_save_to_each_other() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tokens.json");
    std::thread::scope(|threads| {
        for writer in 0..4 {
            let store = FileTokenStore::new(&path);
            threads.spawn(move || {
                for n in 0..25 {
                    store
                        .save(&format!("http://server-{writer}-{n}/mcp"), "{}")
                        .unwrap();
                }
            });
        }
    });
    let store = FileTokenStore::new(&path);
    for writer in 0..4 {
        for n in 0..25 {
            let key = format!("http://server-{writer}-{n}/mcp");
            assert!(store.load(&key).unwrap().is_some(), "{key} was lost");
        }
    }
}

/// The feature `oauth-jwt`'s secrets: the client's private key, the assertions signed with
/// it and the DPoP proofs, like the tokens, are in no log line, error or `Debug` output.
#[cfg(feature = "oauth-jwt")]
#[tokio::test]
async fn no_private_key_assertion_or_dpop_proof_appears_in_any_log_line_or_error() {
    use super::mcp_client_oauth_jwt::CLIENT_KEY_PEM;
    use super::oauth_server::DpopRule;

    let logs = Logs::default();
    let _capture = tracing::subscriber::set_default(logs.clone());
    let auth = AuthServer::start().await;
    *auth.dpop.lock().unwrap() = DpopRule {
        required: true,
        token_nonce: Some("as-nonce".to_owned()),
        resource_nonce: Some("rs-nonce".to_owned()),
        ..DpopRule::default()
    };
    let resource = protected(&auth, None).await;
    let mut said = Vec::new();
    let machine = |pem: &str| {
        OAuthClient::new("http://127.0.0.1:9/callback")
            .client_id("signed-machine")
            .client_private_key(pem)
            .client_credentials()
            .dpop()
    };

    // The client credentials grant with a signed assertion and DPoP, a token refused and
    // signed for anew, and a login whose tokens are DPoP-bound.
    let oauth = machine(CLIENT_KEY_PEM);
    let connect = |oauth: OAuthClient| McpTools::http(&resource.url).oauth(oauth).connect();
    let toolkit = Toolkit::new().with_all(connect(oauth.clone()).await.unwrap().tools());
    let ctx = toolnexus::ToolContext::default();
    let add = || toolkit.execute("add", json!({"a": 1, "b": 1}), &ctx);
    said.push(add().await.output);
    auth.revoke_everything();
    said.push(add().await.output);
    said.push(add().await.output);
    said.push(format!("{oauth:?}"));
    let person = OAuthClient::new("http://127.0.0.1:9/callback").dpop();
    let signed = Toolkit::new().with_all(signed_in(&resource, &person).await.tools());
    said.push(
        signed
            .execute("add", json!({"a": 1, "b": 1}), &Default::default())
            .await
            .output,
    );
    said.push(format!("{person:?}"));

    // Refusals: a key the server does not know, and a key that does not read.
    let other = CLIENT_KEY_PEM.replace("sLmkZctOsB9aLesI", "sLmkZctOsB9aLesJ");
    for pem in [
        other.as_str(),
        "-----BEGIN PRIVATE KEY-----\nMIGH\n-----END PRIVATE KEY-----",
    ] {
        said.push(connect(machine(pem)).await.unwrap_err().to_string());
    }

    let logs = logs.0.lock().unwrap().clone();
    assert!(logs.len() > 100, "rmcp's logs were captured: {logs}");
    let seen = auth.seen();
    assert!(seen.assertions.len() >= 2 && seen.resource_proofs >= 4);
    let key_lines = CLIENT_KEY_PEM
        .lines()
        .filter(|line| !line.starts_with("-----"));
    let secrets: Vec<&str> = key_lines
        .chain(seen.signed.iter().map(String::as_str))
        .chain(seen.issued.iter().map(String::as_str))
        .collect();
    for secret in secrets {
        assert!(!logs.contains(secret), "a secret in the logs: {secret}");
        for text in &said {
            assert!(!text.contains(secret), "a secret in `{text}`");
        }
    }
}
