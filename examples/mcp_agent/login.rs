//! The other side of `--login`, in this process: a calendar MCP server that serves only
//! signed-in callers (our own HTTP server, protected as SPEC §12B describes), a stand-in
//! authorization server, and the person's browser.
//!
//! The authorization server is a stand-in written on tokio alone (the example has no HTTP
//! framework): it approves every login at once, as if the person had said yes, and checks
//! only that a code is one it gave out and is used once. A real one has the person sign in,
//! and checks the client, the PKCE verifier and the `resource`. It gives no refresh tokens,
//! so a token that expired takes a new login. Its tokens start `stand-in-token-`, its codes
//! `stand-in-code-`, so a test can tell that none is printed.

use std::collections::HashSet;
use std::hash::{BuildHasher, RandomState};
use std::io;
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use toolnexus::mcp::{HttpOptions, HttpServer, McpServer};
use toolnexus::serde_json::json;
use toolnexus::{Extension, Toolkit, tool, tools};

/// The client id the agent is registered under with the authorization server.
pub const CLIENT_ID: &str = "mcp-agent-example";

/// The most of a request or an answer read: these are a few short messages.
const MAX_MESSAGE: usize = 64 * 1024;

/// Who a token was issued to: what `verify_bearer` hands the tools.
#[derive(Clone)]
struct Person {
    name: String,
}

/// Lists your meetings on a day.
#[tool]
fn agenda(
    /// The day, e.g. Monday
    day: String,
    person: Extension<Person>,
) -> String {
    format!(
        "{}'s meetings on {day}: 09:30 standup, 14:00 design review",
        person.name
    )
}

/// Books a meeting in your calendar.
#[tool]
fn book(
    /// The day, e.g. Monday
    day: String,
    /// The start, e.g. 11:00
    time: String,
    /// What the meeting is about
    title: String,
    person: Extension<Person>,
) -> String {
    format!("booked {title:?} on {day} at {time} for {}", person.name)
}

/// The stand-in authorization server: its URL, the codes it gave out and the access tokens
/// that have not expired.
#[derive(Clone)]
pub struct AuthServer {
    pub url: String,
    codes: Arc<Mutex<HashSet<String>>>,
    tokens: Arc<Mutex<HashSet<String>>>,
}

impl AuthServer {
    /// Serves on a free loopback port until the process ends.
    pub async fn start() -> io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let server = Self {
            url: format!("http://{}", listener.local_addr()?),
            codes: Arc::default(),
            tokens: Arc::default(),
        };
        let serving = server.clone();
        tokio::spawn(async move {
            loop {
                // A connection that fails concerns that request only.
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                let server = serving.clone();
                tokio::spawn(async move { server.serve(stream).await });
            }
        });
        Ok(server)
    }

    /// Whether `token` is one it issued that has not expired (what an introspection call
    /// would tell).
    fn live(&self, token: &str) -> bool {
        lock(&self.tokens).contains(token)
    }

    /// Every token it issued expires, as they would an hour later.
    pub fn expire_tokens(&self) {
        lock(&self.tokens).clear();
    }

    async fn serve(&self, mut stream: TcpStream) {
        let Ok(request) = read_message(&mut stream).await else {
            return;
        };
        let (status, location, body) = match request.line.as_str() {
            "GET /.well-known/oauth-authorization-server" => (
                "200 OK",
                None,
                json!({
                    "issuer": self.url,
                    "authorization_endpoint": format!("{}/authorize", self.url),
                    "token_endpoint": format!("{}/token", self.url),
                    "response_types_supported": ["code"],
                    "grant_types_supported": ["authorization_code"],
                    "code_challenge_methods_supported": ["S256"],
                    "token_endpoint_auth_methods_supported": ["none"],
                }),
            ),
            line if line.starts_with("GET /authorize?") => {
                let query = line.strip_prefix("GET /authorize?").unwrap_or_default();
                match (param(query, "redirect_uri"), param(query, "state")) {
                    (Some(redirect), Some(state)) => {
                        let code = format!("stand-in-code-{}", unguessable());
                        lock(&self.codes).insert(code.clone());
                        // `state` goes back as it came, still URL-encoded.
                        let back = format!("{}?code={code}&state={state}", decode(redirect));
                        ("302 Found", Some(back), json!({}))
                    }
                    _ => ("400 Bad Request", None, json!({"error": "invalid_request"})),
                }
            }
            "POST /token" => {
                let form = String::from_utf8_lossy(&request.body);
                let code = param(&form, "code").unwrap_or_default();
                if param(&form, "grant_type") == Some("authorization_code")
                    && lock(&self.codes).remove(code)
                {
                    let token = format!("stand-in-token-{}", unguessable());
                    lock(&self.tokens).insert(token.clone());
                    let issued = json!({"access_token": token, "token_type": "Bearer",
                        "expires_in": 3600});
                    ("200 OK", None, issued)
                } else {
                    ("400 Bad Request", None, json!({"error": "invalid_grant"}))
                }
            }
            _ => ("404 Not Found", None, json!({"error": "not_found"})),
        };
        let location = location.map_or_else(String::new, |to| format!("location: {to}\r\n"));
        let body = body.to_string();
        let answer = format!(
            "HTTP/1.1 {status}\r\n{location}content-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        let _ = stream.write_all(answer.as_bytes()).await;
        let _ = stream.shutdown().await;
    }
}

/// Starts the calendar MCP server, whose every request needs a token `auth` issued; its URL.
pub async fn calendar(auth: &AuthServer) -> io::Result<String> {
    // `protected_resource` names the server's URL before `bind`, so the port is picked first.
    let port = TcpListener::bind("127.0.0.1:0").await?.local_addr()?.port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let issuer = auth.clone();
    let options = HttpOptions::new()
        .protected_resource(&url, [auth.url.clone()])
        .verify_bearer(move |token: String| {
            // The stand-in approves one person; a real server reads who from the token.
            let person = issuer.live(&token).then(|| Person {
                name: "ana".to_owned(),
            });
            async move { person }
        });
    let toolkit = Toolkit::new().with_all(tools![agenda, book]);
    let server = HttpServer::bind(("127.0.0.1", port), McpServer::new(toolkit), options).await?;
    // Until the process ends: `run` would take Ctrl-C from the example for itself.
    tokio::spawn(server.run_until(std::future::pending()));
    Ok(url)
}

/// What the person's browser does with the authorization URL: opens it, and follows the
/// authorization server's redirect to the app's callback.
pub async fn browse(url: &str) -> Result<(), String> {
    let (status, location) = get(url).await?;
    let callback = location.ok_or(format!("the authorization server answered {status}"))?;
    let (status, _) = get(&callback).await?;
    if !status.starts_with('2') {
        return Err(format!("the callback answered {status}"));
    }
    Ok(())
}

/// A `GET` of an `http://` URL: the answer's status and `location`.
async fn get(url: &str) -> Result<(String, Option<String>), String> {
    let rest = url
        .strip_prefix("http://")
        .ok_or(format!("not an http:// URL: {url}"))?;
    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let path = if path.is_empty() { "/" } else { path };
    let fail = |error: io::Error| format!("GET http://{host}: {error}");
    let mut stream = TcpStream::connect(host).await.map_err(fail)?;
    let request = format!("GET {path} HTTP/1.1\r\nhost: {host}\r\nconnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.map_err(fail)?;
    let answer = read_message(&mut stream).await.map_err(fail)?;
    let status = answer.line.split_once(' ').map_or("", |(_, status)| status);
    Ok((status.to_owned(), answer.location))
}

/// An HTTP/1.1 message as far as these servers need it: the start line (a request's without
/// its version), the `location` header, the body.
struct Message {
    line: String,
    location: Option<String>,
    body: Vec<u8>,
}

async fn read_message(stream: &mut TcpStream) -> io::Result<Message> {
    let mut bytes = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(at) = bytes.windows(4).position(|w| w == b"\r\n\r\n") {
            break at;
        }
        let read = stream.read(&mut chunk).await?;
        if read == 0 || bytes.len() > MAX_MESSAGE {
            return Err(io::ErrorKind::InvalidData.into());
        }
        bytes.extend_from_slice(&chunk[..read]);
    };
    let head = String::from_utf8_lossy(&bytes[..head_end]).into_owned();
    let start = head.lines().next().unwrap_or_default();
    // A request's line without its version (`GET /path`); an answer's as it is.
    let line = match start.rsplit_once(' ') {
        Some((line, _)) if !start.starts_with("HTTP/") => line,
        _ => start,
    }
    .to_owned();
    let header = |name: &str| {
        head.lines().skip(1).find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.eq_ignore_ascii_case(name)
                .then(|| value.trim().to_owned())
        })
    };
    let length: usize = header("content-length")
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    if length > MAX_MESSAGE {
        return Err(io::ErrorKind::InvalidData.into());
    }
    let mut body = bytes.split_off(head_end + 4);
    while body.len() < length {
        let read = stream.read(&mut chunk).await?;
        if read == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..read]);
    }
    Ok(Message {
        location: header("location"),
        line,
        body,
    })
}

/// The value of `key` in a URL-encoded query or form, as sent (still encoded).
fn param<'a>(query: &'a str, key: &str) -> Option<&'a str> {
    query
        .split('&')
        .find_map(|pair| pair.strip_prefix(key)?.strip_prefix('='))
}

/// Percent-decodes `text` (`+` is a space).
fn decode(text: &str) -> String {
    let mut out = Vec::with_capacity(text.len());
    let mut bytes = text.bytes();
    while let Some(byte) = bytes.next() {
        match byte {
            b'+' => out.push(b' '),
            b'%' => {
                let hex: Vec<u8> = bytes.by_ref().take(2).collect();
                let value = std::str::from_utf8(&hex)
                    .ok()
                    .and_then(|hex| u8::from_str_radix(hex, 16).ok());
                out.push(value.unwrap_or(b'?'));
            }
            other => out.push(other),
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Hard to guess: std's randomly keyed SipHash, twice (enough for a stand-in, and no
/// dependency).
fn unguessable() -> String {
    let half = || RandomState::new().hash_one(0u8);
    format!("{:016x}{:016x}", half(), half())
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
