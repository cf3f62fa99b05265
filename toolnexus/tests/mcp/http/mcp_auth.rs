//! MCP authorization over HTTP (SPEC §12B): tokens signed and checked with a real JWT library
//! through `HttpOptions::verify_bearer`, the `401` that points a client to the Protected
//! Resource Metadata document (RFC 9728), and the document at both well-known paths.
#![cfg(feature = "mcp-http")]

use crate::common::mcp_raw;

use std::time::{SystemTime, UNIX_EPOCH};

use jsonwebtoken::{DecodingKey, EncodingKey, Header, Validation};
use reqwest::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use toolnexus::mcp::HttpOptions;
use toolnexus::{Extension, Toolkit, tool, tools};

use super::MOUNT;
use mcp_raw::{Client, INITIALIZE};

const RESOURCE: &str = "https://mcp.example.com/mcp";
const ISSUER: &str = "https://auth.example.com";
const METADATA_URL: &str = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp";
const KEY: &[u8] = b"the resource server's shared secret";

/// Adds two integers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Says who is calling: the subject `verify` took from the token.
#[tool]
fn whoami(subject: Extension<Subject>) -> String {
    subject.0.0.clone()
}

/// The identity `verify` returns: the token's subject.
#[derive(Clone)]
struct Subject(String);

#[derive(Serialize, Deserialize)]
struct Claims {
    sub: String,
    aud: String,
    iss: String,
    exp: u64,
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

fn token(sub: &str, key: &[u8], exp: u64) -> String {
    let claims = Claims {
        sub: sub.to_owned(),
        aud: RESOURCE.to_owned(),
        iss: ISSUER.to_owned(),
        exp,
    };
    jsonwebtoken::encode(&Header::default(), &claims, &EncodingKey::from_secret(key)).unwrap()
}

/// What a resource server checks: signature, issuer, audience (this resource) and expiry; the
/// identity is the token's subject.
async fn verify(token: String) -> Option<Subject> {
    let mut validation = Validation::new(jsonwebtoken::Algorithm::HS256);
    validation.set_audience(&[RESOURCE]);
    validation.set_issuer(&[ISSUER]);
    let data =
        jsonwebtoken::decode::<Claims>(&token, &DecodingKey::from_secret(KEY), &validation).ok()?;
    Some(Subject(data.claims.sub))
}

fn options() -> HttpOptions {
    HttpOptions::new()
        .stateless(true)
        .protected_resource(RESOURCE, [ISSUER])
        .verify_bearer(verify)
}

async fn initialize(client: &Client, token: Option<&str>) -> reqwest::Response {
    let mut request = client
        .http
        .post(&client.url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(INITIALIZE);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    request.send().await.unwrap()
}

#[tokio::test]
async fn a_verified_jwt_is_let_in_and_anything_else_gets_401_naming_the_metadata() {
    let running = MOUNT
        .start(Toolkit::new().with_all(tools![add, whoami]), options())
        .await;
    let client = Client::new(&running);

    let valid = token("alice", KEY, now() + 600);
    let answer = initialize(&client, Some(&valid)).await;
    assert_eq!(answer.status(), StatusCode::OK);
    let call = client
        .http
        .post(&client.url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .bearer_auth(&valid)
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}}"#)
        .send()
        .await
        .unwrap();
    let message: Value = mcp_raw::message_in(&call.text().await.unwrap());
    assert_eq!(message["result"]["content"][0]["text"], "5", "{message}");
    // What the validator returned reaches the tool as `Extension<Subject>`.
    let bob = token("bob", KEY, now() + 600);
    let call = client
        .http
        .post(&client.url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .bearer_auth(&bob)
        .body(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"whoami","arguments":{}}}"#)
        .send()
        .await
        .unwrap();
    let message: Value = mcp_raw::message_in(&call.text().await.unwrap());
    assert_eq!(message["result"]["content"][0]["text"], "bob", "{message}");

    let refused = [
        ("none", None),
        (
            "another key",
            Some(token("alice", b"not the key", now() + 600)),
        ),
        ("expired", Some(token("alice", KEY, now() - 600))),
        ("not a JWT", Some("alice".to_owned())),
    ];
    for (why, token) in refused {
        let answer = initialize(&client, token.as_deref()).await;
        assert_eq!(answer.status(), StatusCode::UNAUTHORIZED, "{why}");
        // No token: the bare challenge that starts discovery (RFC 6750 §3.1: no error code);
        // a refused one: `invalid_token` after the metadata.
        let expected = match token {
            None => format!("Bearer resource_metadata=\"{METADATA_URL}\""),
            Some(_) => format!(
                "Bearer resource_metadata=\"{METADATA_URL}\", error=\"invalid_token\", \
                 error_description=\"the bearer token was not accepted\""
            ),
        };
        assert_eq!(
            answer.headers()["www-authenticate"],
            expected.as_str(),
            "{why}"
        );
    }
    running.shut_down().await;
}

#[tokio::test]
async fn the_metadata_document_is_at_both_well_known_paths() {
    let running = MOUNT.start(Toolkit::new(), options()).await;
    for path in [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
    ] {
        let answer = reqwest::get(format!("http://{}{path}", running.addr))
            .await
            .unwrap();
        assert_eq!(answer.status(), StatusCode::OK, "{path}");
        assert_eq!(answer.headers()["content-type"], "application/json");
        let document: Value = answer.json().await.unwrap();
        assert_eq!(document["resource"], RESOURCE);
        assert_eq!(document["authorization_servers"][0], ISSUER);
        assert_eq!(document["bearer_methods_supported"][0], "header");
    }
    running.shut_down().await;
}

#[tokio::test]
async fn the_later_of_bearer_token_and_verify_bearer_wins() {
    let static_then_verified = HttpOptions::new()
        .stateless(true)
        .bearer_token("s3cret")
        .verify_bearer(verify);
    let verified_then_static = HttpOptions::new()
        .stateless(true)
        .verify_bearer(verify)
        .bearer_token("s3cret");
    let jwt = token("alice", KEY, now() + 600);
    for (options, allowed, refused) in [
        (static_then_verified, jwt.as_str(), "s3cret"),
        (verified_then_static, "s3cret", jwt.as_str()),
    ] {
        let running = MOUNT.start(Toolkit::new(), options).await;
        let client = Client::new(&running);
        assert_eq!(
            initialize(&client, Some(allowed)).await.status(),
            StatusCode::OK
        );
        let answer = initialize(&client, Some(refused)).await;
        assert_eq!(answer.status(), StatusCode::UNAUTHORIZED);
        // Without a protected resource the challenge names none, and says the token is wrong.
        assert_eq!(
            answer.headers()["www-authenticate"],
            "Bearer error=\"invalid_token\", error_description=\"the bearer token was not accepted\""
        );
        running.shut_down().await;
    }
}
