//! The transport's TLS is its own: no process-wide rustls provider is set, so any other
//! `reqwest::Client` of the process (rmcp's streamable HTTP client, `OAuthClient`, the user's
//! own) builds before and after a run; and an `https` base URL really speaks TLS, its faults
//! errors with their causes, never a panic or a hang.

use std::time::{Duration, Instant};

use rustls::crypto::CryptoProvider;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use toolnexus::client::RunError;

use crate::stand_in::{Answer, StandIn};
use crate::wire::{self, ANSWER};
use crate::{client, run};

#[tokio::test]
async fn a_reqwest_client_built_before_a_run_works_and_the_run_sets_no_global_tls_provider() {
    // Built first, as rmcp's HTTP client or a user's own would be.
    let before = std::panic::catch_unwind(reqwest::Client::new)
        .expect("a plain reqwest::Client builds before any HttpModel turn");
    let chat = &wire::all()[0];
    let server = StandIn::start(vec![Answer::ok(&chat.first), Answer::ok(&chat.second)]).await;
    let result = run(&client(chat.api, chat.model, &server), false)
        .await
        .unwrap();
    assert_eq!(result.text, ANSWER);
    assert!(
        CryptoProvider::get_default().is_none(),
        "a run installs no process-wide rustls provider"
    );

    let other = StandIn::start(vec![Answer::ok(&serde_json::json!({}))]).await;
    let response = before
        .post(format!("{}/elsewhere", other.base))
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    std::panic::catch_unwind(reqwest::Client::new).expect("and builds after one");
}

/// A loopback listener that answers whatever it reads with `reply` (nothing at all when
/// `None`, holding the connection open); its `https://` base URL.
async fn listener(reply: Option<&'static [u8]>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("https://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut hello = [0u8; 1024];
                let _ = socket.read(&mut hello).await;
                match reply {
                    Some(reply) => {
                        let _ = socket.write_all(reply).await;
                    }
                    None => tokio::time::sleep(Duration::from_secs(3600)).await,
                }
            });
        }
    });
    base
}

/// A run of the Chat Completions client against `base`, one try.
async fn fail_at(base: String, read_timeout: Duration) -> RunError {
    let chat = &wire::all()[0];
    let client = toolnexus::client::Client::new(chat.api, chat.model)
        .base_url(base)
        .read_timeout(read_timeout)
        .retries(0);
    run(&client, false).await.unwrap_err()
}

#[tokio::test]
async fn an_https_base_url_does_a_tls_handshake_and_a_server_without_tls_is_an_error_naming_it() {
    let base = listener(Some(
        b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n",
    ))
    .await;
    let error = fail_at(base, Duration::from_secs(10)).await;
    assert_eq!(error.status, None, "{}", error.message);
    // rustls read an HTTP answer where a TLS record belongs.
    assert!(
        error.message.contains("corrupt message") || error.message.contains("InvalidContentType"),
        "{}",
        error.message
    );
    assert!(CryptoProvider::get_default().is_none());
}

#[tokio::test]
async fn a_tls_handshake_that_never_answers_times_out_instead_of_hanging() {
    let base = listener(None).await;
    let started = Instant::now();
    let error = tokio::time::timeout(
        Duration::from_secs(10),
        fail_at(base, Duration::from_millis(300)),
    )
    .await
    .expect("the run ends on its own");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert!(error.message.contains("timed out"), "{}", error.message);
    assert_eq!(error.status, None);
}
