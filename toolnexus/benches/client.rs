//! SPEC §16 "Performance": the two-turn, two-parallel-call run (first reply: `get_weather` for
//! Paris and `add` 2 + 2; second: the final text) against a stand-in Chat Completions model on
//! loopback — `Client::run` beside a hand-written tokio + reqwest loop making the same two
//! requests (the README's loop: `tool_calls`, `run_calls`, `tool_results`), measured in the
//! same run, interleaved; budget 1.10×. Peak heap and allocations per run printed beside.
//!
//! `cargo bench -p toolnexus --features client --bench client`

#[path = "common/mod.rs"]
mod common;
#[path = "counting/mod.rs"]
mod counting;

use std::hint::black_box;
use std::net::SocketAddr;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use toolnexus::client::Client;
use toolnexus::{Api, ToolContext, Toolkit, tool, tool_calls, tool_results, tools};

const PROMPT: &str = "Weather in Paris, and 2 + 2?";
const ANSWER: &str = "Paris is sunny, and 2 + 2 = 4.";

/// The weather in a city.
#[tool]
fn get_weather(city: String) -> String {
    format!("Sunny, 21 °C in {city}")
}

/// Adds two numbers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// The stand-in's two replies: the calls, then (once the request carries tool results) the text.
fn replies() -> (Vec<u8>, Vec<u8>) {
    let whole = |message: Value, finish: &str| {
        json!({"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
               "choices": [{"index": 0, "message": message, "finish_reason": finish}],
               "usage": {"prompt_tokens": 50, "completion_tokens": 20, "total_tokens": 70}})
        .to_string()
    };
    let calls = json!([
        {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}},
        {"id": "call_2", "type": "function", "function": {"name": "add", "arguments": "{\"a\":2,\"b\":2}"}},
    ]);
    let answer = |body: String| {
        format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        )
        .into_bytes()
    };
    (
        answer(whole(
            json!({"role": "assistant", "content": null, "tool_calls": calls}),
            "tool_calls",
        )),
        answer(whole(
            json!({"role": "assistant", "content": ANSWER}),
            "stop",
        )),
    )
}

/// A keep-alive HTTP/1.1 responder on its own thread and runtime, so its work is not the
/// measured loop's.
fn start_stand_in() -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    listener.set_nonblocking(true).unwrap();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let listener = TcpListener::from_std(listener).unwrap();
            let replies = std::sync::Arc::new(replies());
            while let Ok((socket, _)) = listener.accept().await {
                socket.set_nodelay(true).unwrap();
                tokio::spawn(serve(socket, replies.clone()));
            }
        });
    });
    address
}

/// Answers each request on one connection.
async fn serve(mut socket: TcpStream, replies: std::sync::Arc<(Vec<u8>, Vec<u8>)>) {
    let mut buffer = Vec::with_capacity(16 * 1024);
    let mut chunk = vec![0u8; 16 * 1024];
    loop {
        let (head_end, length) = loop {
            if let Some(end) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&buffer[..end]).to_ascii_lowercase();
                let length = head
                    .lines()
                    .find_map(|line| line.strip_prefix("content-length:"))
                    .and_then(|n| n.trim().parse::<usize>().ok())
                    .unwrap_or(0);
                if buffer.len() >= end + 4 + length {
                    break (end, length);
                }
            }
            match socket.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(read) => buffer.extend_from_slice(&chunk[..read]),
            }
        };
        let body = &buffer[head_end + 4..head_end + 4 + length];
        let second = body.windows(13).any(|w| w == br#""role":"tool""#);
        let reply = if second { &replies.1 } else { &replies.0 };
        if socket.write_all(reply).await.is_err() {
            return;
        }
        buffer.drain(..head_end + 4 + length);
    }
}

/// The floor: the loop a user writes with reqwest and the crate's wire functions.
async fn hand_written(
    http: &reqwest::Client,
    url: &str,
    toolkit: &Toolkit,
    tools: &Value,
) -> String {
    let ctx = ToolContext::default();
    let mut messages = vec![json!({"role": "user", "content": PROMPT})];
    loop {
        let body = json!({"model": "m", "messages": messages, "tools": tools});
        let response = http
            .post(url)
            .header("content-type", "application/json")
            .header("authorization", "Bearer k")
            .body(serde_json::to_vec(&body).unwrap())
            .send()
            .await
            .unwrap();
        assert!(response.status().is_success());
        let reply: Value = serde_json::from_slice(&response.bytes().await.unwrap()).unwrap();
        let calls = tool_calls(Api::OpenAiChat, &reply).unwrap();
        let message = reply["choices"][0]["message"].clone();
        if calls.is_empty() {
            return message["content"].as_str().unwrap().to_owned();
        }
        let results = toolkit.run_calls(&calls, &ctx).await;
        messages.push(message);
        messages.extend(tool_results(Api::OpenAiChat, &calls, &results));
    }
}

fn main() {
    let address = start_stand_in();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let toolkit = Toolkit::new().with_all(tools![get_weather, add]);
    let tools = toolkit.to_openai();
    let url = format!("http://{address}/v1/chat/completions");
    let client = Client::new(Api::OpenAiChat, "m")
        .base_url(format!("http://{address}/v1"))
        .api_key("k");
    let http = reqwest::Client::new();

    let floor = || runtime.block_on(hand_written(&http, &url, &toolkit, &tools));
    let subject = || runtime.block_on(client.run(PROMPT, &toolkit)).unwrap().text;
    assert_eq!(floor(), ANSWER);
    assert_eq!(subject(), ANSWER);

    let mut c = common::criterion();
    let mut group = c.benchmark_group("two_turn_run");
    group.bench_function("hand_written_reqwest", |b| b.iter(|| black_box(floor())));
    group.bench_function("client_run", |b| b.iter(|| black_box(subject())));
    group.finish();

    let mut summary = common::Summary::new();
    summary.compare_interleaved(
        "two_turn_run",
        "hand_written_reqwest",
        "client_run",
        Some(1.10),
        || (),
        |()| floor(),
        |()| subject(),
    );
    summary.print();

    // Warm both (connection pools, lazily built state), then one run each.
    let (_, floor_peak) = counting::peak_bytes(floor);
    let (_, subject_peak) = counting::peak_bytes(subject);
    let (_, floor_allocations) = counting::allocations(floor);
    let (_, subject_allocations) = counting::allocations(subject);
    println!(
        "peak heap per run: hand-written {:.1} KiB, Client {:.1} KiB; allocations per run: {floor_allocations}, {subject_allocations}",
        floor_peak as f64 / 1024.0,
        subject_peak as f64 / 1024.0,
    );
}
