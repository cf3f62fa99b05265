//! The loopback callback: a tiny HTTP listener that takes the browser's redirect.

use std::io;
use std::net::SocketAddr;

use serde_json::{Map, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use super::OAuthClient;
use crate::result::suspend::{Answer, Reason, Request};

/// The most of a request the listener reads: a redirect is one short GET.
const MAX_REQUEST: usize = 16 * 1024;

/// Takes the browser's redirect after a login on a loopback address, for apps that run on
/// the person's machine: [`OAuthClient::callback_listener`], then give
/// [`redirect_uri`](Self::redirect_uri) to [`OAuthClient::new`] and
/// [`answer`](Self::answer) to the loop as its way of answering a login.
///
/// It answers every request to its path with a short page saying the window may be closed
/// (a request elsewhere, such as a browser's `/favicon.ico`, gets a `404` and is not an
/// answer) and reads nothing but the request line.
///
/// ```no_run
/// use toolnexus::{Toolkit, mcp::OAuthClient};
/// use toolnexus::serde_json::json;
///
/// # async fn run(toolkit: Toolkit) -> Result<(), Box<dyn std::error::Error>> {
/// let callback = OAuthClient::callback_listener("127.0.0.1:0").await?;
/// let oauth = OAuthClient::new(callback.redirect_uri());
/// // … McpTools::http(url).oauth(oauth).connect(), the tools added to `toolkit` …
/// let result = toolkit
///     .call("search", json!({"q": "rust"}), |login| {
///         println!("Open {}", login.url.as_deref().unwrap_or(""));
///         callback.answer(login)
///     })
///     .await;
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct CallbackListener {
    listener: TcpListener,
    redirect_uri: String,
}

impl OAuthClient {
    /// Listens on `addr` (e.g. `127.0.0.1:0`, any free port) for the redirect at
    /// `/callback`.
    pub async fn callback_listener(
        addr: impl tokio::net::ToSocketAddrs,
    ) -> io::Result<CallbackListener> {
        let listener = TcpListener::bind(addr).await?;
        let bound: SocketAddr = listener.local_addr()?;
        Ok(CallbackListener {
            listener,
            redirect_uri: format!("http://{bound}/callback"),
        })
    }
}

impl CallbackListener {
    /// `http://<the bound address>/callback`.
    pub fn redirect_uri(&self) -> &str {
        &self.redirect_uri
    }

    /// Waits for the browser's redirect and makes it the answer to `login`: granted with
    /// `data.redirect` (the URL), or declined when the authorization server sent an `error`.
    /// A connection that breaks or sends something else is skipped.
    pub async fn answer(&self, login: Request) -> Answer {
        loop {
            let Ok((stream, _)) = self.listener.accept().await else {
                continue;
            };
            if let Some(target) = self.serve(stream).await {
                let redirect = format!("{}{}", self.origin(), target);
                let refused = target.contains("?error=") || target.contains("&error=");
                if refused {
                    return Answer::decline(&login, Reason::Declined);
                }
                let mut data = Map::new();
                data.insert("redirect".to_owned(), Value::String(redirect));
                return Answer::approve(&login).with_data(data);
            }
        }
    }

    fn origin(&self) -> &str {
        self.redirect_uri
            .strip_suffix("/callback")
            .unwrap_or(&self.redirect_uri)
    }

    /// Reads one request; the path and query when it is a GET to `/callback`.
    async fn serve(&self, mut stream: TcpStream) -> Option<String> {
        let mut head = Vec::new();
        let mut chunk = [0u8; 1024];
        while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < MAX_REQUEST {
            let read = stream.read(&mut chunk).await.ok()?;
            if read == 0 {
                break;
            }
            head.extend_from_slice(&chunk[..read]);
        }
        let text = String::from_utf8_lossy(&head);
        let mut words = text.lines().next()?.split(' ');
        let target = match (words.next(), words.next()) {
            (Some("GET"), Some(target))
                if target == "/callback" || target.starts_with("/callback?") =>
            {
                Some(target.to_owned())
            }
            _ => None,
        };
        let (status, body) = match target {
            Some(_) => ("200 OK", "Signed in. You may close this window."),
            None => ("404 Not Found", "Not found."),
        };
        let reply = format!(
            "HTTP/1.1 {status}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        let _ = stream.write_all(reply.as_bytes()).await;
        let _ = stream.shutdown().await;
        target
    }
}
