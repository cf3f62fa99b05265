//! A flood of `initialize`s against the default [`HttpOptions`]: the session cap holds, the
//! rest get `503` with `Retry-After`, and the process grows by under 80 KiB a session (README:
//! ~28 MiB for the 500 of the default cap, measured here). In a test binary of its own
//! (`tests/mcp_flood/`), whose tests take turns, so the resident size it reads from
//! `/proc/self/status` is one test's alone.
#![cfg(all(feature = "mcp-http", target_os = "linux"))]

use crate::common::mcp_raw;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::task::JoinSet;
use toolnexus::Toolkit;
use toolnexus::mcp::HttpOptions;

use super::MOUNT;
use mcp_raw::Client;

/// The resident set size, in bytes.
fn resident() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status
        .lines()
        .find(|line| line.starts_with("VmRSS:"))
        .unwrap();
    let kib: u64 = line
        .split_whitespace()
        .nth(1)
        .and_then(|kib| kib.parse().ok())
        .unwrap();
    kib * 1024
}

/// One keep-alive connection that POSTs `initialize` over and over: a bare HTTP/1.1 client,
/// so the flood costs the server's time rather than a client library's.
struct Flooder {
    stream: TcpStream,
    request: Vec<u8>,
    buffer: Vec<u8>,
}

impl Flooder {
    async fn connect(addr: SocketAddr) -> Self {
        let request = format!(
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n{}",
            mcp_raw::INITIALIZE.len(),
            mcp_raw::INITIALIZE
        );
        Self {
            stream: TcpStream::connect(addr).await.unwrap(),
            request: request.into_bytes(),
            buffer: Vec::new(),
        }
    }

    /// Sends one `initialize`; the answer's status line and headers.
    async fn initialize(&mut self) -> String {
        self.stream.write_all(&self.request).await.unwrap();
        let head_end = self.read_until(|buffer| find(buffer, b"\r\n\r\n")).await + 4;
        let head = String::from_utf8_lossy(&self.buffer[..head_end]).to_ascii_lowercase();
        let body_end = match head
            .lines()
            .find_map(|line| line.strip_prefix("content-length: "))
        {
            Some(length) => {
                let end = head_end + length.trim().parse::<usize>().unwrap();
                self.read_until(|buffer| (buffer.len() >= end).then_some(end))
                    .await
            }
            // An event stream, chunked: it ends with the empty chunk.
            None => {
                self.read_until(|buffer| find(&buffer[head_end..], b"\r\n0\r\n\r\n"))
                    .await
                    + head_end
                    + 7
            }
        };
        self.buffer.drain(..body_end);
        head
    }

    async fn read_until(&mut self, done: impl Fn(&[u8]) -> Option<usize>) -> usize {
        loop {
            if let Some(at) = done(&self.buffer) {
                return at;
            }
            let mut chunk = [0; 4096];
            let read = tokio::time::timeout(Duration::from_secs(30), self.stream.read(&mut chunk))
                .await
                .expect("the server answers")
                .unwrap();
            assert!(read > 0, "the server closed the connection");
            self.buffer.extend_from_slice(&chunk[..read]);
        }
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_initializes_stops_at_the_session_cap_under_80_kib_a_session() {
    let _turn = crate::TURN.lock().await;
    const FLOOD: usize = 20_000;
    const CONNECTIONS: usize = 8;
    let running = MOUNT.start(Toolkit::new(), HttpOptions::new()).await;
    // Warm up: the allocator, the runtime.
    Flooder::connect(running.addr).await.initialize().await;
    let before = resident();
    let started = Instant::now();
    let mut flooders = JoinSet::new();
    for _ in 0..CONNECTIONS {
        let addr = running.addr;
        flooders.spawn(async move {
            let mut flooder = Flooder::connect(addr).await;
            let (mut opened, mut refused) = (0, 0);
            for _ in 0..FLOOD / CONNECTIONS {
                let head = flooder.initialize().await;
                if head.starts_with("http/1.1 200") {
                    opened += 1;
                } else if head.starts_with("http/1.1 503") {
                    assert!(head.contains("retry-after: 300\r\n"), "{head}");
                    refused += 1;
                } else {
                    panic!("{head}");
                }
            }
            (opened, refused)
        });
    }
    let (mut opened, mut refused) = (0, 0);
    while let Some(counts) = flooders.join_next().await {
        let (o, r) = counts.unwrap();
        opened += o;
        refused += r;
    }
    let grown = resident().saturating_sub(before);
    // One session was opened before the flood.
    assert_eq!(opened, 499);
    assert_eq!(refused, FLOOD - 499);
    eprintln!(
        "{FLOOD} initializes in {:?}: {opened} sessions, resident size grew {} KiB",
        started.elapsed(),
        grown / 1024
    );
    // ~58 KiB measured: the bound leaves room for the allocator's moods, not for a session
    // that keeps twice what it does.
    assert!(
        grown / u64::try_from(opened).unwrap() < 80 << 10,
        "grew {grown} bytes for {opened} sessions"
    );
    running.shut_down().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_slot_frees_when_a_session_is_deleted_or_expires() {
    let _turn = crate::TURN.lock().await;
    let idle = Duration::from_secs(1);
    let options = HttpOptions::new()
        .max_sessions(3)
        .session_idle_timeout(idle);
    let running = MOUNT.start(Toolkit::new(), options).await;
    let mut clients = Vec::new();
    for _ in 0..3 {
        let mut client = Client::new(&running);
        assert_eq!(client.initialize().await.status, StatusCode::OK);
        clients.push(client);
    }
    let mut late = Client::new(&running);
    let refused = late.initialize().await;
    assert_eq!(refused.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(refused.headers["retry-after"], "1");

    // A client that ends its session frees its slot at once.
    let first = &clients[0];
    let deleted = first
        .http
        .delete(&first.url)
        .header("mcp-session-id", first.session.as_deref().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), StatusCode::NO_CONTENT);
    assert_eq!(late.initialize().await.status, StatusCode::OK);
    assert_eq!(
        Client::new(&running).initialize().await.status,
        StatusCode::SERVICE_UNAVAILABLE
    );

    // Idle sessions expire and free theirs; their ids are then unknown.
    let mut reopened = false;
    for _ in 0..300 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        if Client::new(&running).initialize().await.status == StatusCode::OK {
            reopened = true;
            break;
        }
    }
    assert!(reopened, "no session expired");
    let expired = clients[1]
        .post(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#)
        .await;
    assert_eq!(expired.status, StatusCode::NOT_FOUND, "{}", expired.text);
    running.shut_down().await;
}
