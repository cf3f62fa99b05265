//! The two servers of the sign-in tests: a protected MCP server of our own (mounted as SPEC
//! §12B shows, with `protected_resource` and `verify_bearer`) and, in `oauth_server.rs`, the
//! authorization server; and the person's browser.
#![allow(
    dead_code,
    reason = "each test binary's modules use the part of the fixture they need"
)]

use std::sync::{Arc, Mutex};

use serde_json::{Map, Value};
use toolnexus::mcp::{HttpOptions, HttpService, McpServer, McpTools, OAuthClient};
use toolnexus::{Answer, Request, Toolkit, tool, tools};

use super::oauth_server::{AuthServer, Refusal, check_proof};

/// Adds two integers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// An MCP server protected by `auth`, serving `add`: the URL, and every token it was sent.
pub struct Resource {
    pub url: String,
    pub tokens_seen: Arc<Mutex<Vec<String>>>,
    /// Where every request is redirected (`307`) once set: a server turned thief.
    pub redirect_to: Arc<Mutex<Option<String>>>,
}

/// Serves the MCP endpoint at `/mcp` of a fresh port, publishing `resource` (the server's own
/// URL when `None`) as the protected resource, its tokens checked against `auth`.
pub async fn protected(auth: &AuthServer, resource: Option<&str>) -> Resource {
    protected_with(auth, resource, None).await
}

/// As [`protected`], and a `tools/call` whose token lacks `scope_for_calls` is answered `403
/// insufficient_scope` (by a layer in front of the endpoint, as an app mounting it would).
pub async fn protected_with(
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
    // DPoP in front of the endpoint when the authorization server's rule says so (RFC 9449
    // §7): `Authorization: DPoP` with a proof of the key the token is bound to, made for this
    // request, becomes the bearer token the endpoint checks; a bound token sent as bearer, or
    // a proof without the nonce asked for, is refused.
    let (dpop, endpoint) = (auth.clone(), url.clone());
    app = app.layer(axum::middleware::from_fn(
        move |mut request: axum::extract::Request, next: axum::middleware::Next| {
            let verdict = dpop_verdict(&dpop, &endpoint, &mut request);
            async move {
                match verdict {
                    None => next.run(request).await,
                    Some(refused) => refused,
                }
            }
        },
    ));
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    Resource {
        url,
        tokens_seen,
        redirect_to,
    }
}

/// The DPoP check in front of the endpoint: the refusal, if the request is refused.
fn dpop_verdict(
    auth: &AuthServer,
    endpoint: &str,
    request: &mut axum::extract::Request,
) -> Option<axum::response::Response> {
    use axum::http::{HeaderValue, StatusCode};
    use axum::response::IntoResponse;
    let rule = auth.dpop.lock().unwrap().clone();
    if !rule.required {
        return None;
    }
    let headers = request.headers();
    let authorization = headers
        .get("authorization")
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let refuse = |challenge: String| {
        (StatusCode::UNAUTHORIZED, [("www-authenticate", challenge)]).into_response()
    };
    let mut seen = auth.seen();
    if let Some(token) = authorization.strip_prefix("Bearer ") {
        return seen
            .bound
            .contains_key(token)
            .then(|| refuse(r#"DPoP error="invalid_token""#.to_owned()));
    }
    let token = authorization.strip_prefix("DPoP ")?;
    let proof = headers
        .get("dpop")
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let nonce = rule.resource_nonce.as_deref();
    let method = request.method().as_str().to_owned();
    match check_proof(&mut seen, &proof, &method, endpoint, Some(token), nonce) {
        Ok(thumbprint) if seen.bound.get(token) == Some(&thumbprint) => {
            seen.resource_proofs += 1;
            let bearer = HeaderValue::try_from(format!("Bearer {token}")).unwrap();
            request.headers_mut().insert("authorization", bearer);
            None
        }
        Ok(_) => Some(refuse(r#"DPoP error="invalid_token""#.to_owned())),
        Err(Refusal::Nonce) => {
            seen.resource_nonce_challenges += 1;
            let mut answer = refuse(r#"DPoP error="use_dpop_nonce""#.to_owned());
            let nonce = HeaderValue::try_from(nonce.unwrap_or_default()).unwrap();
            answer.headers_mut().insert("dpop-nonce", nonce);
            if rule.rotate_resource_nonce {
                let next = format!("rs-nonce-{}", seen.resource_nonce_challenges);
                auth.dpop.lock().unwrap().resource_nonce = Some(next);
            }
            Some(answer)
        }
        Err(Refusal::Proof(why)) => Some(refuse(format!(
            r#"DPoP error="invalid_dpop_proof", error_description="{why}""#
        ))),
    }
}

/// What the person's browser does with the authorization URL: the authorization server
/// redirects at once (they said yes); the redirect is the answer.
pub async fn browse(login: &Request) -> String {
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

pub fn redirect_answer(login: &Request, redirect: String) -> Answer {
    let mut data = Map::new();
    data.insert("redirect".to_owned(), Value::String(redirect));
    Answer::approve(login).with_data(data)
}

/// A toolkit of the tools `resource` serves, connected with `oauth`, which signs in without
/// a person (client credentials, an assertion, a token it already holds).
pub async fn toolkit_signed_in(resource: &Resource, oauth: OAuthClient) -> Toolkit {
    let tools = McpTools::http(&resource.url)
        .oauth(oauth)
        .connect()
        .await
        .unwrap();
    Toolkit::new().with_all(tools.tools())
}

/// `add` of 3 and 4 through `toolkit`: `7` when the call got through.
pub async fn add_three_and_four(toolkit: &Toolkit) -> toolnexus::ToolResult {
    let arguments = serde_json::json!({"a": 3, "b": 4});
    toolkit.execute("add", arguments, &Default::default()).await
}

/// Connects, answering the first login by browsing to it.
pub async fn signed_in(resource: &Resource, oauth: &OAuthClient) -> McpTools {
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

/// The answer to a call whose token the server refused after a sign-in without a person
/// (client credentials, an assertion): an `isError` result saying the client signed in again
/// on its own and the call should be made again.
pub fn assert_signed_in_again(refused: &toolnexus::ToolResult) {
    assert!(refused.is_error, "{refused:?}");
    assert!(
        refused
            .output
            .contains("signed in again without asking anyone: call again"),
        "{}",
        refused.output
    );
}
