//! A stand-in model server on 127.0.0.1: a hand-written HTTP/1.1 responder that records each
//! request and answers from a script, one answer per request — a JSON body, server-sent
//! events, or a fault (a dropped connection, a body cut short, a stream that stops sending).

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// What the stand-in answers one request with.
#[derive(Clone, Debug)]
pub enum Answer {
    /// A status, extra headers and a JSON body (kept-alive connection).
    Json(u16, Vec<(&'static str, String)>, String),
    /// `200` and `text/event-stream` with these chunks, each written and flushed apart, then
    /// the connection closed.
    Sse(Vec<String>),
    /// The connection closed without an answer.
    Drop,
    /// A `200` whose `Content-Length` promises more than the bytes sent, then closed.
    Truncated(String),
    /// `200` and `text/event-stream` with these chunks, then nothing more, the connection
    /// kept open.
    Stall(Vec<String>),
}

impl Answer {
    /// `200` with `body`.
    pub fn ok(body: &Value) -> Self {
        Answer::Json(200, Vec::new(), body.to_string())
    }
}

/// One request as received.
#[derive(Clone, Debug)]
pub struct Received {
    pub method: String,
    /// Path and query.
    pub target: String,
    /// Names lower-cased.
    pub headers: BTreeMap<String, String>,
    pub body: Value,
}

/// A running stand-in.
pub struct StandIn {
    pub base: String,
    script: Arc<Mutex<VecDeque<Answer>>>,
    received: Arc<Mutex<Vec<Received>>>,
}

impl StandIn {
    /// Listens on a free loopback port and answers with `script`, in order.
    pub async fn start(script: Vec<Answer>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let script = Arc::new(Mutex::new(VecDeque::from(script)));
        let received = Arc::new(Mutex::new(Vec::new()));
        let (queue, log) = (script.clone(), received.clone());
        tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                tokio::spawn(serve(socket, queue.clone(), log.clone()));
            }
        });
        StandIn {
            base,
            script,
            received,
        }
    }

    /// The requests received so far.
    pub fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }

    /// Whether every scripted answer was given.
    pub fn script_used(&self) -> bool {
        self.script.lock().unwrap().is_empty()
    }
}

/// Serves one connection's requests until it closes or an answer closes it.
async fn serve(
    mut socket: TcpStream,
    script: Arc<Mutex<VecDeque<Answer>>>,
    received: Arc<Mutex<Vec<Received>>>,
) {
    let mut buffer = Vec::new();
    loop {
        let Some(request) = read_request(&mut socket, &mut buffer).await else {
            return;
        };
        received.lock().unwrap().push(request);
        let answer = script.lock().unwrap().pop_front();
        let answer = answer.unwrap_or(Answer::Json(
            599,
            Vec::new(),
            r#"{"error":{"message":"the stand-in's script ran out"}}"#.into(),
        ));
        let keep_alive = write_answer(&mut socket, answer).await;
        if !keep_alive {
            return;
        }
    }
}

/// Reads one request (head and `Content-Length` body); `None` at the end of the connection.
async fn read_request(socket: &mut TcpStream, buffer: &mut Vec<u8>) -> Option<Received> {
    let head_end = loop {
        if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break at;
        }
        let mut chunk = [0u8; 8192];
        let read = socket.read(&mut chunk).await.ok()?;
        if read == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..read]);
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut start = lines.next()?.split(' ');
    let (method, target) = (start.next()?.to_owned(), start.next()?.to_owned());
    let headers: BTreeMap<String, String> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    let length: usize = headers
        .get("content-length")
        .and_then(|value| value.parse().ok())
        .unwrap_or(0);
    let body_start = head_end + 4;
    while buffer.len() < body_start + length {
        let mut chunk = [0u8; 8192];
        let read = socket.read(&mut chunk).await.ok()?;
        if read == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..read]);
    }
    let body =
        serde_json::from_slice(&buffer[body_start..body_start + length]).unwrap_or(Value::Null);
    buffer.drain(..body_start + length);
    Some(Received {
        method,
        target,
        headers,
        body,
    })
}

/// Writes `answer`; whether the connection stays open for another request.
async fn write_answer(socket: &mut TcpStream, answer: Answer) -> bool {
    match answer {
        Answer::Json(status, headers, body) => {
            let mut head = format!(
                "HTTP/1.1 {status} Stand-in\r\ncontent-type: application/json\r\ncontent-length: {}\r\n",
                body.len()
            );
            for (name, value) in headers {
                head.push_str(&format!("{name}: {value}\r\n"));
            }
            head.push_str("\r\n");
            socket.write_all(head.as_bytes()).await.is_ok()
                && socket.write_all(body.as_bytes()).await.is_ok()
        }
        Answer::Sse(chunks) => {
            write_events(socket, &chunks).await;
            false
        }
        Answer::Drop => false,
        Answer::Truncated(body) => {
            let head = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
                body.len() * 2
            );
            let _ = socket.write_all(head.as_bytes()).await;
            let _ = socket.write_all(body.as_bytes()).await;
            false
        }
        Answer::Stall(chunks) => {
            write_events(socket, &chunks).await;
            tokio::time::sleep(Duration::from_secs(3600)).await;
            false
        }
    }
}

/// An event stream's head and `chunks`, each flushed apart (the connection's end ends it).
async fn write_events(socket: &mut TcpStream, chunks: &[String]) {
    let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";
    if socket.write_all(head.as_bytes()).await.is_err() {
        return;
    }
    for chunk in chunks {
        if socket.write_all(chunk.as_bytes()).await.is_err() || socket.flush().await.is_err() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}
