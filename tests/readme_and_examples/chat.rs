//! `examples/chat` (feature `client`): with no provider set it says what to set and exits 2;
//! pointed at an OpenAI-compatible server (`TOOLNEXUS_BASE_URL`, here a stand-in on
//! loopback speaking Chat Completions' server-sent events) it runs the loop and streams the
//! answer to stdout.
#![cfg(feature = "client")]

use std::io::{Read, Write};
use std::net::TcpListener;

use crate::examples::chat;

#[test]
fn chat_without_a_provider_says_what_to_set() {
    let output = chat(&[]);
    assert_eq!(output.status.code(), Some(2));
    let said = String::from_utf8_lossy(&output.stderr);
    for name in [
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "GEMINI_API_KEY",
        "TOOLNEXUS_BASE_URL",
    ] {
        assert!(said.contains(name), "{name} missing in:\n{said}");
    }
    assert!(output.stdout.is_empty());
}

/// One Chat Completions stream chunk.
fn chunk(delta: &str, finish: &str) -> String {
    format!(
        "data: {{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\
         \"choices\":[{{\"index\":0,\"delta\":{delta},\"finish_reason\":{finish}}}]}}\n\n"
    )
}

/// Answers two requests on `listener`: a `get_weather` call, then the text in two pieces.
fn serve(listener: TcpListener) -> Vec<String> {
    let call = r#"{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]}"#;
    let turns = [
        chunk(call, "null") + &chunk("{}", "\"tool_calls\""),
        chunk(r#"{"role":"assistant","content":"Paris is "}"#, "null")
            + &chunk(r#"{"content":"dry today."}"#, "null")
            + &chunk("{}", "\"stop\""),
    ];
    let mut requests = Vec::new();
    for events in turns {
        let (mut socket, _) = listener.accept().unwrap();
        let mut request = Vec::new();
        let mut buffer = [0u8; 4096];
        // The head, then as many body bytes as it announces.
        loop {
            let read = socket.read(&mut buffer).unwrap();
            request.extend_from_slice(&buffer[..read]);
            let text = String::from_utf8_lossy(&request);
            if let Some(end) = text.find("\r\n\r\n") {
                let length = text[..end]
                    .lines()
                    .find_map(|line| {
                        line.to_ascii_lowercase()
                            .strip_prefix("content-length:")
                            .map(|n| n.trim().parse::<usize>().unwrap())
                    })
                    .unwrap_or(0);
                if request.len() >= end + 4 + length || read == 0 {
                    break;
                }
            }
        }
        requests.push(String::from_utf8_lossy(&request).into_owned());
        let head =
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";
        socket.write_all(head.as_bytes()).unwrap();
        socket.write_all(events.as_bytes()).unwrap();
        socket.write_all(b"data: [DONE]\n\n").unwrap();
    }
    requests
}

#[test]
fn chat_streams_the_answer_of_an_openai_compatible_server() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    let server = std::thread::spawn(move || serve(listener));
    let output = chat(&[
        ("TOOLNEXUS_BASE_URL", &base),
        ("TOOLNEXUS_MODEL", "qwen3:8b"),
    ]);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert_eq!(stdout, "Paris is dry today.\n");
    assert!(
        stderr.contains("qwen3:8b on OpenAI Chat Completions"),
        "{stderr}"
    );
    assert!(
        stderr.contains(r#"[get_weather {"city":"Paris"}]"#),
        "{stderr}"
    );
    assert!(stderr.contains("Paris: 18°C, dry"), "{stderr}");
    let requests = server.join().unwrap();
    assert!(
        requests[0].starts_with("POST /v1/chat/completions HTTP/1.1"),
        "{}",
        requests[0]
    );
    // No key set: none sent.
    assert!(
        !requests[0].to_ascii_lowercase().contains("authorization:"),
        "{}",
        requests[0]
    );
    assert!(
        requests[1].contains(r#""tool_call_id":"call_1""#),
        "{}",
        requests[1]
    );
}
