//! The examples the README names, run as a user runs them, with their output checked:
//! `quickstart`, `deploy`, `agent_loop` and `long_conversation` to completion; `mcp_server` as
//! the README deploys it (stateless replicas sharing `MCP_STATE_KEY`, stopped by Ctrl-C or
//! SIGTERM).
//!
//! `cargo test --workspace` builds the examples (the root package's) before it runs any test; a
//! run of this package alone (`-p toolnexus-tests`) does not, so build them first
//! (`cargo build --examples --all-features` at the repository's root).

use std::path::PathBuf;
use std::process::Command;

/// The built example `name`, beside this test's binary (`target/<profile>/examples/`).
pub fn example(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let profile = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("tests run from target/<profile>/deps");
    let path = profile
        .join("examples")
        .join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(
        path.exists(),
        "{} is not built: `cargo test --workspace` builds the examples, `-p toolnexus-tests` \
         alone does not (run `cargo build --examples --all-features` first)",
        path.display()
    );
    path
}

/// Runs example `name` to completion; what it printed on stdout.
fn run(name: &str) -> String {
    let output = Command::new(example(name))
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .output()
        .unwrap_or_else(|error| panic!("{name} starts: {error}"));
    let stdout = String::from_utf8(output.stdout).expect("UTF-8 output");
    assert!(
        output.status.success(),
        "{name} failed ({}):\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// Whether `text` holds `wanted`; the whole text in the failure message.
#[track_caller]
fn has(text: &str, wanted: &str) {
    assert!(text.contains(wanted), "missing {wanted:?} in:\n{text}");
}

#[test]
fn quickstart_prints_its_tools_and_runs_the_loop_over_the_scripted_calls() {
    let out = run("quickstart");
    for tool in ["add", "get_weather", "screenshot"] {
        has(&out, &format!("\"name\": \"{tool}\""));
    }
    has(&out, "OpenAI strict mode: no issues");
    for (call, result) in [
        (
            r#"add({"a": 2, "b": 40})"#,
            r#"{"output":"42","isError":false}"#,
        ),
        (
            r#"get_weather({"city": "Paris", "unit": "fahrenheit"})"#,
            r#"{"output":"Paris: 64°F, dry, for the next 1 day(s)","isError":false}"#,
        ),
        (
            r#"get_weather({"city": "Atlantis"})"#,
            r#"{"output":"no weather station in Atlantis; try a capital city","isError":true}"#,
        ),
        (
            r#"get_weather({"city": "Oslo", "days": "three"})"#,
            r#"{"output":"invalid arguments for `get_weather`: field `days`: invalid type: string \"three\", expected u8","isError":true}"#,
        ),
        (
            r#"send_email({"to": "ana@example.com"})"#,
            r#"{"output":"Unknown tool: send_email","isError":true}"#,
        ),
    ] {
        has(&out, &format!("{call}\n  => {result}\n"));
    }
    has(
        &out,
        r#"screenshot()
  => {"output":"image (image/png, 82 bytes)","isError":false,"parts":[{"type":"image","mimeType":"image/png""#,
    );
    has(
        &out,
        "Done after 2 turns and 6 tool calls: I read 6 results; 2 + 40 = 42.",
    );
}

#[test]
fn deploy_prints_each_outcome_and_completes_the_approved_production_deploy() {
    let out = run("deploy");
    has(
        &out,
        r#"{"output":"deployed api 1.4.2 to staging","isError":false,"metadata":{"deployment_id":1}}"#,
    );
    has(
        &out,
        r#"{"output":"no such service: billing; known services are api and web","isError":true}"#,
    );
    has(
        &out,
        r#"{"output":"error rate of web over the last 6 hours","isError":false,"parts":[{"type":"image""#,
    );
    has(&out, r#""metadata":{"points":24}}"#);
    has(
        &out,
        r#"{"output":"Approve deploying web 2.0.0 to production?","isError":true,"metadata":{"pending":{"id":"pnd-"#,
    );
    has(&out, r#""kind":"approval""#);
    has(
        &out,
        "deploy_production again, with the answer\n  => {\"output\":\"deployed web 2.0.0 to production\",\"isError\":false,\"metadata\":{\"deployment_id\":2}}",
    );
}

#[test]
fn agent_loop_runs_the_client_s_loop_to_the_end_against_all_four_apis() {
    let out = run("agent_loop");
    let sections: Vec<&str> = out.split("\n# ").collect();
    assert_eq!(sections.len(), 4, "{out}");
    for (section, api) in sections.iter().zip([
        "OpenAI Chat Completions",
        "OpenAI Responses",
        "Anthropic Messages",
        "Gemini",
    ]) {
        has(section, api);
        has(section, "turn done: its calls ran at once");
        // Parked on the login, stored, resumed by a fresh client: nothing ran twice.
        has(section, "Done after 3 turns and 4 tool calls");
        has(
            section,
            "> get_weather {\"city\":\"Paris\"} => Paris: 18°C, dry",
        );
        has(
            section,
            "> get_weather {\"city\":\"Atlantis\"} => no weather station in Atlantis; try a capital city",
        );
        has(section, "> screenshot {} => image (image/png, 82 bytes)");
        has(
            section,
            "~ suspended (authorization): Authorization required to continue -> https://login.example.com/device?code=WXYZ-1234",
        );
        has(
            section,
            "> deploy {\"service\":\"api\"} => deployed api as ana@example.com",
        );
        // The transcript ends with the model's last answer.
        has(
            section.trim_end().lines().last().unwrap_or_default(),
            "Paris is 18°C, Atlantis has no station, the dashboard is fine, api is deployed.",
        );
    }
}

/// A number in `text` right before `unit` (`"largest 406 tokens"`, `"161 messages"`).
#[track_caller]
fn number_before(text: &str, unit: &str) -> usize {
    let before = text
        .split_once(unit)
        .unwrap_or_else(|| panic!("no {unit:?} in {text:?}"))
        .0;
    let word = before.trim_end().rsplit(' ').next().unwrap_or_default();
    word.parse()
        .unwrap_or_else(|_| panic!("no number before {unit:?} in {text:?}"))
}

#[test]
fn long_conversation_keeps_every_request_within_the_budget_as_the_transcript_grows() {
    let out = run("long_conversation");
    has(
        &out,
        "# 40 turns, every request within 700 estimated tokens",
    );
    let turns: Vec<&str> = out
        .lines()
        .filter(|line| line.starts_with("turn "))
        .collect();
    assert_eq!(turns.len(), 40, "{out}");
    let mut grown = 0;
    let mut summarized = 0;
    for (at, line) in turns.iter().enumerate() {
        assert!(line.starts_with(&format!("turn {:>2}:", at + 1)), "{line}");
        // A call and its results, then the answer: two requests each turn.
        assert_eq!(number_before(line, "requests,"), 2, "{line}");
        let request = number_before(line, "tokens (budget 700)");
        assert!(request > 0 && request <= 700, "over the budget: {line}");
        // The stored transcript grows whole, turn after turn (four messages a turn).
        let (_, transcript) = line.split_once("transcript ").expect("the transcript");
        assert_eq!(
            number_before(transcript, "messages"),
            1 + 4 * (at + 1),
            "{line}"
        );
        let tokens = number_before(transcript, "tokens");
        assert!(tokens > grown, "the transcript did not grow: {line}");
        grown = tokens;
        if line.ends_with("; summarized") {
            summarized += 1;
            // Compacted: what was sent is well under what is kept.
            assert!(request < tokens, "{line}");
        } else {
            // Sent whole: the transcript is that request and the answer to it.
            assert!(tokens - request < 100, "{line}");
        }
    }
    // The transcript ends many times over the budget; from the first turn over it, every
    // request was compacted.
    assert!(grown > 5 * 700, "{grown} tokens");
    let first = turns
        .iter()
        .position(|line| line.ends_with("; summarized"))
        .expect("some turn compacted");
    assert_eq!(summarized, 40 - first, "{out}");
    // Thirteen photos of 96 KiB each are in it, and cost their descriptions.
    has(
        &out,
        &format!("The stored transcript: 161 messages (13 photos, 1248 KiB), {grown} tokens;"),
    );
    has(
        &out,
        "Last answer: Here is what I found: order 40: paid, shipped on day 13",
    );
}

#[cfg(all(feature = "mcp-http", unix))]
pub(crate) mod http1 {
    //! HTTP/1.1 by hand, for the examples that serve it (here and in `conformance_http.rs`).

    use std::io::{Read, Write};
    use std::net::TcpStream;
    use std::time::Duration;

    /// An HTTP/1.1 request as written, on a fresh connection: the response's head and body.
    pub fn exchange(addr: &str, request: &str) -> (String, String) {
        let mut stream = TcpStream::connect(addr).expect("the server listens");
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        stream.write_all(request.as_bytes()).unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        let (head, body) = response.split_once("\r\n\r\n").expect("an HTTP response");
        let chunked = head
            .to_ascii_lowercase()
            .contains("transfer-encoding: chunked");
        let body = if chunked {
            unchunk(body)
        } else {
            body.to_owned()
        };
        (head.to_owned(), body)
    }

    /// A chunked body's content.
    fn unchunk(mut body: &str) -> String {
        let mut content = String::new();
        while let Some((size, rest)) = body.split_once("\r\n") {
            let size = usize::from_str_radix(size.trim(), 16).expect("a chunk size");
            if size == 0 {
                break;
            }
            content.push_str(&rest[..size]);
            body = &rest[size + 2..];
        }
        content
    }
}

#[cfg(all(feature = "mcp-http", unix))]
mod mcp_server {
    //! `examples/mcp_server --http` in child processes, spoken to over loopback HTTP by hand.

    use std::io::{BufRead, BufReader, Read};
    use std::net::TcpStream;
    use std::process::{Child, ChildStderr, Command, Stdio};
    use std::time::{Duration, Instant};

    use serde_json::{Value, json};

    use super::http1::exchange;

    /// A running `mcp_server --http 127.0.0.1:0 [--stateless]`; killed if the test ends early.
    struct Server {
        child: Child,
        addr: String,
        stderr: BufReader<ChildStderr>,
    }

    impl Server {
        fn start(state_key: Option<&str>, stateless: bool) -> Self {
            let env: Vec<_> = state_key
                .map(|key| ("MCP_STATE_KEY", key))
                .into_iter()
                .collect();
            Self::start_with(&env, stateless)
        }

        /// With `env` set in the server's environment (and nothing else of this crate's).
        fn start_with(env: &[(&str, &str)], stateless: bool) -> Self {
            let mut command = Command::new(super::example("mcp_server"));
            command
                .args(["--http", "127.0.0.1:0"])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .env_remove("MCP_STATE_KEY")
                .env_remove("MCP_BEARER_TOKEN")
                .env_remove("MCP_RESOURCE")
                .env_remove("MCP_AUTHORIZATION_SERVER")
                .env_remove("MCP_TASK_AFTER_MS")
                .env_remove("MCP_TASK_TTL_MS")
                .env_remove("MCP_REDIS_URL")
                .envs(env.iter().copied());
            if stateless {
                command.arg("--stateless");
            }
            let mut child = command.spawn().expect("mcp_server starts");
            let mut stderr = BufReader::new(child.stderr.take().unwrap());
            let mut line = String::new();
            stderr.read_line(&mut line).unwrap();
            let addr = line
                .split("http://")
                .nth(1)
                .and_then(|rest| rest.split('/').next())
                .unwrap_or_else(|| panic!("no address in {line:?}"))
                .to_owned();
            Self {
                child,
                addr,
                stderr,
            }
        }

        /// POSTs a 2026-07-28 request (no session) and reads the answer: status, JSON body.
        fn post(&self, method: &str, params: Value) -> (u16, Value) {
            post(&self.addr, method, params)
        }

        /// Sends `signal` (`TERM`, `INT`) and waits (boundedly) for the process to exit; its
        /// exit status and the rest of what it wrote on stderr.
        fn stop_with(mut self, signal: &str) -> (std::process::ExitStatus, String) {
            let pid = self.child.id().to_string();
            let sent = Command::new("kill")
                .args([&format!("-{signal}"), &pid])
                .status()
                .unwrap();
            assert!(sent.success());
            let deadline = Instant::now() + Duration::from_secs(30);
            let status = loop {
                if let Some(status) = self.child.try_wait().unwrap() {
                    break status;
                }
                assert!(Instant::now() < deadline, "SIG{signal} did not stop it");
                std::thread::sleep(Duration::from_millis(20));
            };
            let mut rest = String::new();
            self.stderr.read_to_string(&mut rest).unwrap();
            (status, rest)
        }
    }

    impl Drop for Server {
        fn drop(&mut self) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }

    /// A 2026-07-28 request as an HTTP/1.1 POST on a fresh connection; the status and the
    /// JSON-RPC answer.
    fn post(addr: &str, method: &str, params: Value) -> (u16, Value) {
        post_declaring(addr, method, params, json!({"elicitation": {"form": {}}}))
    }

    /// [`post`] from a client declaring `capabilities`; `Mcp-Name` is the tool's name or,
    /// for `tasks/*`, the task's id.
    fn post_declaring(
        addr: &str,
        method: &str,
        params: Value,
        capabilities: Value,
    ) -> (u16, Value) {
        let (head, body) = exchange_declaring(addr, method, params, capabilities);
        let status = head[9..12].parse().unwrap();
        let message = serde_json::from_str(&body)
            .unwrap_or_else(|error| panic!("not JSON ({error}): {head}\r\n\r\n{body}"));
        (status, message)
    }

    /// The request of [`post_declaring`], sent: the answer's head and body as they came.
    fn exchange_declaring(
        addr: &str,
        method: &str,
        mut params: Value,
        capabilities: Value,
    ) -> (String, String) {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": capabilities,
        });
        let body =
            json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string();
        let name = params["name"]
            .as_str()
            .or(params["taskId"].as_str())
            .unwrap_or_default();
        let request = format!(
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
             Mcp-Method: {method}\r\nMcp-Name: {name}\r\nContent-Length: {}\r\n\
             Connection: close\r\n\r\n{body}",
            body.len()
        );
        exchange(addr, &request)
    }

    /// [`post_declaring`] through a load balancer, with tasks: `None` when the balancer
    /// answered for a replica it could not reach (502 and the like, not JSON).
    #[cfg(feature = "redis")]
    fn post_through(addr: &str, method: &str, params: Value) -> Option<Value> {
        let (head, body) = exchange_declaring(addr, method, params, with_tasks());
        head.starts_with("HTTP/1.1 200")
            .then(|| serde_json::from_str(&body).ok())
            .flatten()
    }

    /// A client that follows tasks (and answers forms).
    fn with_tasks() -> Value {
        json!({"elicitation": {"form": {}}, "extensions": {"io.modelcontextprotocol/tasks": {}}})
    }

    /// `tasks/get` of `id` until its status is `status` (a bounded number of polls).
    fn until(server: &Server, id: &str, status: &str) -> Value {
        for _ in 0..500 {
            let (code, answer) = post_declaring(
                &server.addr,
                "tasks/get",
                json!({"taskId": id}),
                with_tasks(),
            );
            assert_eq!(code, 200, "{answer}");
            if answer["result"]["status"] == status {
                return answer["result"].clone();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("task {id} never became {status}");
    }

    /// README "Long-running tools": `long_count` outlasts `MCP_TASK_AFTER_MS` and becomes a
    /// task polled to its result, progress as its `statusMessage`; its schema refuses a count
    /// over 1,000; `publish_report` runs only as a task, asks first, and is refused `-32021`
    /// to a client that cannot follow a task.
    #[test]
    fn long_count_and_publish_report_run_as_tasks() {
        let server = Server::start_with(
            &[("MCP_TASK_AFTER_MS", "50"), ("MCP_TASK_TTL_MS", "60000")],
            true,
        );
        let call = |name: &str, arguments: Value, capabilities: Value| {
            post_declaring(
                &server.addr,
                "tools/call",
                json!({"name": name, "arguments": arguments}),
                capabilities,
            )
        };
        let (_, quick) = call("long_count", json!({"n": 1, "delay_ms": 0}), with_tasks());
        assert_eq!(
            quick["result"]["content"][0]["text"], "counted to 1",
            "inline: {quick}"
        );
        let (_, created) = call("long_count", json!({"n": 5, "delay_ms": 100}), with_tasks());
        let task = &created["result"];
        assert_eq!(task["resultType"], "task", "{created}");
        assert_eq!(task["ttlMs"], 60000);
        let id = task["taskId"].as_str().unwrap();
        let done = until(&server, id, "completed");
        assert_eq!(done["result"]["content"][0]["text"], "counted to 5");
        assert_eq!(done["statusMessage"], "5 of 5");

        let (_, refused) = call(
            "long_count",
            json!({"n": 1001, "delay_ms": 0}),
            with_tasks(),
        );
        assert_eq!(refused["result"]["isError"], true, "{refused}");
        let text = refused["result"]["content"][0]["text"].as_str().unwrap();
        assert!(
            text.starts_with("invalid arguments for `long_count`: field `n`"),
            "{text}"
        );

        let (_, missing) = call("publish_report", json!({"name": "q3"}), json!({}));
        assert_eq!(missing["error"]["code"], -32021, "{missing}");
        let (_, created) = call("publish_report", json!({"name": "q3"}), with_tasks());
        let id = created["result"]["taskId"].as_str().unwrap().to_owned();
        let asking = until(&server, &id, "input_required");
        let (key, question) = asking["inputRequests"]
            .as_object()
            .unwrap()
            .iter()
            .next()
            .unwrap();
        assert_eq!(question["params"]["message"], "Publish report q3?");
        let responses = json!({key.clone(): {"action": "accept", "content": {}}});
        let (code, ack) = post_declaring(
            &server.addr,
            "tasks/update",
            json!({"taskId": id, "inputResponses": responses}),
            with_tasks(),
        );
        assert_eq!(
            (code, &ack["result"]["resultType"]),
            (200, &json!("complete")),
            "{ack}"
        );
        let done = until(&server, &id, "completed");
        assert_eq!(done["result"]["content"][0]["text"], "published q3");
    }

    /// The first round of `delete_note` on `server`: the answer's request id and its
    /// sealed `requestState`.
    fn suspend(server: &Server) -> (String, String) {
        let (status, answer) = server.post(
            "tools/call",
            json!({"name": "delete_note", "arguments": {"id": 3}}),
        );
        assert_eq!(status, 200, "{answer}");
        let result = &answer["result"];
        assert_eq!(result["resultType"], "input_required", "{answer}");
        let requests = result["inputRequests"].as_object().unwrap();
        let (id, question) = requests.iter().next().unwrap();
        assert_eq!(question["params"]["message"], "Delete note 3?");
        (
            id.clone(),
            result["requestState"].as_str().unwrap().to_owned(),
        )
    }

    /// The retry of that call on `server` with the user's approval: the result's text, or
    /// the message of the `-32602` error that refused it (README: a state that does not
    /// verify, or was used, is refused so).
    fn approve(server: &Server, id: &str, state: &str) -> Result<String, String> {
        let (status, answer) = server.post(
            "tools/call",
            json!({
                "name": "delete_note",
                "arguments": {"id": 3},
                "inputResponses": {id: {"action": "accept", "content": {}}},
                "requestState": state,
            }),
        );
        assert_eq!(status, 200, "{answer}");
        refused_or_result(&answer)
    }

    /// A `tools/call` answer's text (a result that is not an error), or the message of the
    /// `-32602` error it is.
    fn refused_or_result(answer: &Value) -> Result<String, String> {
        if let Some(error) = answer.get("error") {
            assert_eq!(error["code"], -32602, "{answer}");
            return Err(error["message"].as_str().unwrap().to_owned());
        }
        let result = &answer["result"];
        assert_eq!(result["isError"], false, "{answer}");
        Ok(result["content"][0]["text"].as_str().unwrap().to_owned())
    }

    const KEY: &str = "a secret every replica is given, 32+ bytes";

    /// README "Replicas behind a load balancer": with the same `MCP_STATE_KEY`, an approval
    /// suspended on one stateless replica completes on another; with another key, or none
    /// (each process then seals with its own random key), it is refused and nothing runs.
    #[test]
    fn stateless_replicas_with_the_same_state_key_complete_each_others_approvals() {
        let one = Server::start(Some(KEY), true);
        let two = Server::start(Some(KEY), true);
        let (id, state) = suspend(&one);
        assert_eq!(approve(&two, &id, &state), Ok("deleted note 3".to_owned()));

        let tampered = Err(
            "tool `delete_note` did not run: its requestState does not verify under this \
             server's key: it was tampered with, or issued by another server instance (or by \
             this one before a restart); replicas must share the key \
             (`McpServer::with_state_key`)"
                .to_owned(),
        );
        let other_key = Server::start(Some("another secret, also 32 bytes or more"), true);
        assert_eq!(approve(&other_key, &id, &state), tampered);

        let unkeyed = Server::start(None, true);
        let also_unkeyed = Server::start(None, true);
        let (id, state) = suspend(&unkeyed);
        assert_eq!(approve(&also_unkeyed, &id, &state), tampered);
        assert_eq!(
            approve(&unkeyed, &id, &state),
            Ok("deleted note 3".to_owned())
        );
    }

    /// The Redis `.ci/run` starts (`TOOLNEXUS_TEST_REDIS_URL`): `None` with a word on how to
    /// get one outside CI; in CI its absence fails the test rather than skip it.
    #[cfg(feature = "redis")]
    fn redis_url() -> Option<String> {
        match std::env::var("TOOLNEXUS_TEST_REDIS_URL") {
            Ok(url) => Some(url),
            Err(_) if std::env::var_os("CI").is_some() => {
                panic!("TOOLNEXUS_TEST_REDIS_URL is not set, and CI is: .ci/run starts a Redis")
            }
            Err(_) => {
                eprintln!(
                    "skipped: set TOOLNEXUS_TEST_REDIS_URL to a Redis (`redis-server --port \
                     6390 --save ''`, then redis://127.0.0.1:6390/), or run .ci/run"
                );
                None
            }
        }
    }

    /// README "Replicas behind a load balancer": on one Redis (`MCP_REDIS_URL`), a replayed
    /// approval runs once across the replicas, and a task started on one is answered by the
    /// other; without it, the same replay runs again on the other replica.
    #[cfg(feature = "redis")]
    #[test]
    fn replicas_on_one_redis_run_a_replay_once_and_answer_for_each_others_tasks() {
        let Some(url) = redis_url() else { return };
        let env = [("MCP_STATE_KEY", KEY), ("MCP_REDIS_URL", url.as_str())];
        let (one, two) = (
            Server::start_with(&env, true),
            Server::start_with(&env, true),
        );
        let (id, state) = suspend(&one);
        assert_eq!(approve(&two, &id, &state), Ok("deleted note 3".to_owned()));
        let used =
            Err("tool `delete_note` did not run: its requestState was already used".to_owned());
        assert_eq!(approve(&one, &id, &state), used);
        assert_eq!(approve(&two, &id, &state), used);

        let (_, created) = post_declaring(
            &one.addr,
            "tools/call",
            json!({"name": "publish_report", "arguments": {"name": "q4"}}),
            with_tasks(),
        );
        let task = created["result"]["taskId"].as_str().unwrap().to_owned();
        let asking = until(&two, &task, "input_required");
        let key = asking["inputRequests"]
            .as_object()
            .unwrap()
            .keys()
            .next()
            .unwrap();
        let responses = json!({key.clone(): {"action": "accept", "content": {}}});
        let (code, ack) = post_declaring(
            &two.addr,
            "tasks/update",
            json!({"taskId": task, "inputResponses": responses}),
            with_tasks(),
        );
        assert_eq!(code, 200, "{ack}");
        let done = until(&one, &task, "completed");
        assert_eq!(done["result"]["content"][0]["text"], "published q4");

        // Each replica with only its own memory: the replay runs on each one it reaches.
        let (three, four) = (
            Server::start(Some(KEY), true),
            Server::start(Some(KEY), true),
        );
        let (id, state) = suspend(&three);
        assert_eq!(approve(&four, &id, &state), Ok("deleted note 3".to_owned()));
        assert_eq!(
            approve(&three, &id, &state),
            Ok("deleted note 3".to_owned())
        );
    }

    /// `scripts/load-balancer.sh`: three `mcp_server` replicas on one Redis behind nginx
    /// (`TOOLNEXUS_LB_REDIS_ADDR`); `TOOLNEXUS_LB_REDIS_VICTIM` is the pid of the one killed
    /// with SIGKILL mid-run. Counts printed: a replayed approval runs once, 50 tasks started
    /// and polled through the balancer complete, and every task of the killed replica ends
    /// (completed, or `failed` saying its server went away) — none stays `working`.
    #[cfg(feature = "redis")]
    #[test]
    #[ignore = "needs replicas on Redis behind nginx: scripts/load-balancer.sh"]
    fn replicas_on_one_redis_behind_nginx_lose_nothing() {
        let addr = std::env::var("TOOLNEXUS_LB_REDIS_ADDR").expect("TOOLNEXUS_LB_REDIS_ADDR");
        let victim = std::env::var("TOOLNEXUS_LB_REDIS_VICTIM").expect("the victim's pid");
        let call = |name: &str, arguments: Value| {
            post_through(
                &addr,
                "tools/call",
                json!({"name": name, "arguments": arguments}),
            )
            .expect("a replica answers")
        };

        // One approval, its retry replayed through the balancer: round robin, every replica.
        let asked = call("delete_note", json!({"id": 3}));
        let (id, _) = asked["result"]["inputRequests"]
            .as_object()
            .unwrap()
            .iter()
            .next()
            .unwrap();
        let retry = json!({
            "name": "delete_note",
            "arguments": {"id": 3},
            "inputResponses": {id.clone(): {"action": "accept", "content": {}}},
            "requestState": asked["result"]["requestState"],
        });
        let (mut ran, mut used) = (0, 0);
        for _ in 0..6 {
            let answer = post_through(&addr, "tools/call", retry.clone()).unwrap();
            match refused_or_result(&answer) {
                Ok(text) if text == "deleted note 3" => ran += 1,
                Err(refused)
                    if refused
                        == "tool `delete_note` did not run: its requestState was already used" =>
                {
                    used += 1;
                }
                other => panic!("{other:?}"),
            }
        }
        eprintln!("a replayed approval sent 6 times: ran {ran}, refused as already used {used}");
        assert_eq!((ran, used), (1, 5));

        // Plain calls/s through nginx, with Redis and without (`TOOLNEXUS_LB_PLAIN_ADDR`), in
        // alternating rounds: printed, not asserted (a measurement, not a test of timing).
        let plain = std::env::var("TOOLNEXUS_LB_PLAIN_ADDR").expect("TOOLNEXUS_LB_PLAIN_ADDR");
        let add = |at: &str| {
            let answer = post_through(
                at,
                "tools/call",
                json!({"name": "add", "arguments": {"a": 2, "b": 40}}),
            )
            .expect("a replica answers");
            assert_eq!(answer["result"]["content"][0]["text"], "42", "{answer}");
        };
        let (mut with_redis, mut without) = (Duration::ZERO, Duration::ZERO);
        for _ in 0..10 {
            let started = Instant::now();
            (0..100).for_each(|_| add(&plain));
            without += started.elapsed();
            let started = Instant::now();
            (0..100).for_each(|_| add(&addr));
            with_redis += started.elapsed();
        }
        let rate = |took: Duration| 1000.0 / took.as_secs_f64();
        eprintln!(
            "1,000 plain calls through nginx: {:.0}/s without Redis, {:.0}/s with: {:.3} \
             (budget >= 0.90)",
            rate(without),
            rate(with_redis),
            rate(with_redis) / rate(without)
        );

        let start = |count: usize, n: u32, delay_ms: u32| -> Vec<String> {
            (0..count)
                .map(|_| {
                    let created = call("long_count", json!({"n": n, "delay_ms": delay_ms}));
                    assert_eq!(created["result"]["resultType"], "task", "{created}");
                    created["result"]["taskId"].as_str().unwrap().to_owned()
                })
                .collect()
        };
        // Polls `id` through the balancer until it ends (bounded); its last state.
        let ended = |id: &str| -> Value {
            for _ in 0..1500 {
                if let Some(answer) = post_through(&addr, "tasks/get", json!({"taskId": id})) {
                    let status = answer["result"]["status"].as_str().unwrap_or_default();
                    if ["completed", "failed", "cancelled"].contains(&status) {
                        return answer["result"].clone();
                    }
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            panic!("task {id} never ended");
        };
        let tasks = start(50, 3, 20);
        let completed = tasks
            .iter()
            .filter(|id| ended(id)["result"]["content"][0]["text"] == "counted to 3")
            .count();
        eprintln!("50 tasks started and polled through the balancer: {completed} completed");
        assert_eq!(completed, 50);

        let tasks = start(12, 40, 50);
        let killed = Command::new("kill")
            .args(["-KILL", &victim])
            .status()
            .unwrap();
        assert!(killed.success());
        let (mut done, mut lost, mut other) = (0, 0, Vec::new());
        for id in &tasks {
            let task = ended(id);
            if task["status"] == "completed" {
                done += 1;
            } else if task["error"]["message"]
                == "tool `long_count` stopped: the server running it went away"
            {
                lost += 1;
            } else {
                other.push(task);
            }
        }
        eprintln!(
            "12 tasks, a replica killed with SIGKILL mid-run: {done} completed, {lost} failed \
             saying their server went away, {} otherwise",
            other.len()
        );
        assert!(other.is_empty(), "{other:?}");
        assert_eq!(done + lost, 12);
        assert!(lost > 0, "the killed replica ran some of them");
    }

    /// An unreachable `MCP_REDIS_URL` stops the example before it serves anything, naming it.
    #[cfg(feature = "redis")]
    #[test]
    fn an_unreachable_redis_is_refused_at_start() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let url = format!("redis://127.0.0.1:{port}/");
        let stderr = refusal_at_start(&[("MCP_REDIS_URL", url.as_str())]);
        assert!(
            stderr.contains(&format!(
                "MCP_REDIS_URL: Redis at redis://127.0.0.1:{port}/0 could not be reached"
            )),
            "{stderr}"
        );
    }

    /// README: with `MCP_RESOURCE` and `MCP_AUTHORIZATION_SERVER` a client refused for want of
    /// a token is pointed to the Protected Resource Metadata, which names both.
    #[test]
    fn a_refused_client_is_pointed_to_the_metadata_naming_resource_and_issuer() {
        let server = Server::start_with(
            &[
                ("MCP_BEARER_TOKEN", "s3cret"),
                ("MCP_RESOURCE", "https://mcp.example.com/mcp"),
                ("MCP_AUTHORIZATION_SERVER", "https://auth.example.com"),
            ],
            true,
        );
        let addr = &server.addr;
        let (head, _) = exchange(
            addr,
            &format!(
                "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
                 Accept: application/json, text/event-stream\r\nContent-Length: 2\r\n\
                 Connection: close\r\n\r\n{{}}"
            ),
        );
        assert!(head.starts_with("HTTP/1.1 401"), "{head}");
        assert!(
            head.contains(
                r#"resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp""#
            ),
            "{head}"
        );
        let (head, body) = exchange(
            addr,
            &format!(
                "GET /.well-known/oauth-protected-resource/mcp HTTP/1.1\r\nHost: {addr}\r\n\
                 Connection: close\r\n\r\n"
            ),
        );
        assert!(head.starts_with("HTTP/1.1 200"), "{head}");
        let metadata: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(metadata["resource"], "https://mcp.example.com/mcp");
        assert_eq!(
            metadata["authorization_servers"],
            json!(["https://auth.example.com"])
        );
    }

    /// What `mcp_server --http` wrote on stderr when it refused to start with `env`
    /// (and none of this crate's other variables).
    fn refusal_at_start(env: &[(&str, &str)]) -> String {
        let output = Command::new(super::example("mcp_server"))
            .args(["--http", "127.0.0.1:0", "--stateless"])
            .env_remove("MCP_STATE_KEY")
            .env_remove("MCP_RESOURCE")
            .env_remove("MCP_AUTHORIZATION_SERVER")
            .env_remove("MCP_REDIS_URL")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(!output.status.success());
        String::from_utf8_lossy(&output.stderr).into_owned()
    }

    /// Without its issuer, `MCP_RESOURCE` stops the example before it serves anything.
    #[test]
    fn a_resource_without_its_issuer_is_refused_at_start() {
        let stderr = refusal_at_start(&[("MCP_RESOURCE", "https://mcp.example.com/mcp")]);
        assert!(
            stderr.contains("MCP_RESOURCE needs MCP_AUTHORIZATION_SERVER"),
            "{stderr}"
        );
    }

    /// A key too short to be a secret stops the example before it serves anything.
    #[test]
    fn a_short_state_key_is_refused_at_start() {
        let stderr = refusal_at_start(&[("MCP_STATE_KEY", "short")]);
        assert!(
            stderr.contains(
                "MCP_STATE_KEY: the requestState key must be at least 32 bytes of secret, got 5"
            ),
            "{stderr}"
        );
    }

    /// README: `run()` serves "until Ctrl-C or SIGTERM, then a graceful shutdown": a call in
    /// flight when the signal comes still gets its answer, the process then exits cleanly,
    /// and nothing more is accepted.
    #[test]
    fn ctrl_c_and_sigterm_let_the_call_in_flight_finish_then_stop() {
        for signal in ["TERM", "INT"] {
            let server = Server::start(None, true);
            let addr = server.addr.clone();
            let in_flight = {
                let addr = addr.clone();
                std::thread::spawn(move || {
                    post(
                        &addr,
                        "tools/call",
                        json!({"name": "count_to", "arguments": {"n": 15}}),
                    )
                })
            };
            // count_to takes ~1.6 s; the signal comes while it runs.
            std::thread::sleep(Duration::from_millis(500));
            let (status, stderr) = server.stop_with(signal);
            assert!(status.success(), "SIG{signal}: {status}, {stderr}");
            assert!(
                stderr.contains("toolnexus MCP server: stopped"),
                "SIG{signal}: {stderr}"
            );
            let (code, answer) = in_flight.join().unwrap();
            assert_eq!(code, 200, "SIG{signal}: {answer}");
            assert_eq!(
                answer["result"]["content"][0]["text"], "counted to 15",
                "SIG{signal}: {answer}"
            );
            assert!(TcpStream::connect(&addr).is_err(), "still listening");
        }
    }
}

/// How many tools `mcp_agent` read from the notes server (`examples/mcp_server`), whatever
/// that is: its output's `notes: N tools` line.
#[cfg(feature = "mcp-client")]
pub fn notes_tools(out: &str) -> usize {
    out.lines()
        .find_map(|line| line.strip_prefix("notes: ")?.strip_suffix(" tools"))
        .and_then(|count| count.parse().ok())
        .unwrap_or_else(|| panic!("no `notes: N tools` line in\n{out}"))
}

/// `examples/mcp_agent`: a local tool and `mcp_server`'s from an `mcp.json` in one run of
/// `Client`, the remote approval answered in it by `wait_for` (the call completes in the same
/// turn: the run never parks), four turns to the model's answer, which ends the transcript.
#[cfg(feature = "mcp-client")]
#[test]
fn mcp_agent_answers_a_remote_approval_in_its_loop() {
    let out = run("mcp_agent");
    let lines: Vec<&str> = out.lines().collect();
    let find = |line: &str| {
        lines
            .iter()
            .position(|seen| *seen == line)
            .unwrap_or_else(|| panic!("missing {line:?} in\n{out}"))
    };
    let turn = |n: usize| {
        lines
            .iter()
            .position(|seen| seen.starts_with(&format!("turn {n}: sends ")))
            .unwrap_or_else(|| panic!("no turn {n} in\n{out}"))
    };
    let order = [
        turn(2),
        find("  ~ asked (input): Delete note 3?"),
        find("  > notes_delete_note {\"id\":3} => deleted note 3"),
        turn(3),
        find("done after 4 turns and 5 tool calls; the transcript:"),
    ];
    assert!(order.is_sorted(), "{out}");
    assert!(
        !out.contains("turn 4:"),
        "the model answered on turn 3:\n{out}"
    );
    has(
        lines.last().unwrap_or(&""),
        r#"{"role":"assistant","text":"Paris is 18°C, your note has 4 words, and note 3 is deleted."}"#,
    );
}

/// `examples/mcp_agent -- --login`: the protected calendar asks for a sign-in when the agent
/// connects, and again when the model calls it after the token expired; each login is shown
/// with its authorization URL and answered through the loopback callback, and the call
/// completes with the new token. The re-login and, a turn later, the notes server's approval
/// are two suspensions of one run, both answered in it. Neither a token nor a code shows
/// anywhere.
#[cfg(feature = "mcp-client")]
#[test]
fn mcp_agent_signs_in_to_a_protected_server_with_login() {
    let output = Command::new(example("mcp_agent"))
        .arg("--login")
        .output()
        .expect("the example runs");
    let out = String::from_utf8_lossy(&output.stdout);
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{out}\n{err}");
    let lines: Vec<&str> = out.lines().collect();
    let find = |line: &str| lines.iter().position(|seen| *seen == line);
    let auth = lines
        .iter()
        .find_map(|line| {
            line.strip_prefix("authorization server (a stand-in that approves every login): ")
        })
        .unwrap_or_else(|| panic!("no authorization server named in\n{out}"));
    let logins: Vec<usize> = (0..lines.len())
        .filter(|&at| lines[at] == "  ~ asked (authorization): Sign in to MCP server `calendar`")
        .collect();
    assert_eq!(logins.len(), 2, "{out}");
    for &at in &logins {
        let url = lines[at + 1]
            .strip_prefix("    open ")
            .unwrap_or_else(|| panic!("no authorization URL after line {at} in\n{out}"));
        assert!(url.starts_with(&format!("{auth}/authorize?")), "{url}");
        for part in [
            "response_type=code",
            "client_id=mcp-agent-example",
            "code_challenge_method=S256",
            "redirect_uri=http%3A%2F%2F127.0.0.1%3A",
            "resource=http%3A%2F%2F127.0.0.1%3A",
        ] {
            assert!(url.contains(part), "{part} missing in {url}");
        }
        let answered = lines[at + 2];
        assert!(
            answered.starts_with("    answered: the browser came back to http://127.0.0.1:")
                && answered.ends_with("/callback"),
            "{out}"
        );
    }
    // The calendar's 2 tools, the notes server's, the local tool and the search.
    let all = notes_tools(&out) + 4;
    let order = [
        find("  ~ signed in to `calendar`"),
        find("(an hour later: the token has expired, and there is no refresh token)"),
        find("calendar: 2 tools"),
        find(&format!(
            "turn 1: sends 3 of {all} tools: word_count, calendar_agenda, search_tools"
        )),
        find(
            "  > calendar_agenda {\"day\":\"Monday\"} => ana's meetings on Monday: 09:30 standup, 14:00 design review",
        ),
        find(&format!(
            "turn 2: sends 4 of {all} tools: word_count, calendar_agenda, notes_delete_note, search_tools"
        )),
        find("  ~ asked (input): Delete note 3?"),
        find("  > notes_delete_note {\"id\":3} => deleted note 3"),
        find("done after 4 turns and 5 tool calls; the transcript:"),
    ]
    .map(|at| at.unwrap_or_else(|| panic!("a line is missing in\n{out}")));
    // The first login before connecting; the second the model's call, which then completes,
    // then the approval: one run that never parks.
    assert!(logins[0] < order[0], "{out}");
    assert!(order.is_sorted(), "{out}");
    assert!(order[3] < logins[1] && logins[1] < order[4], "{out}");
    for text in [&out, &err] {
        for secret in [
            "stand-in-token-",
            "stand-in-code-",
            "Bearer",
            "access_token",
        ] {
            assert!(!text.contains(secret), "{secret:?} shows in\n{text}");
        }
    }
}

/// `examples/mcp_probe.rs` against `mcp_server`: the tools, and what each profile cannot say.
#[cfg(feature = "mcp-client")]
#[test]
fn mcp_probe_reports_a_servers_tools_and_checks() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("mcp.json");
    let server = example("mcp_server").display().to_string();
    let mcp_json = serde_json::json!({"mcpServers": {"notes": {"command": server}}});
    std::fs::write(&config, mcp_json.to_string()).unwrap();
    let output = Command::new(example("mcp_probe"))
        .arg(&config)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(stdout.lines().any(|line| line.starts_with("notes: ") && line.contains(" tools, revision 2026-07-28")), "{stdout}");
    assert!(stdout.contains("  check(OpenAiStrict): "), "{stdout}");
}

#[cfg(all(feature = "axum-app", unix))]
mod axum_app {
    //! `examples/axum_app` in a child process: `/health` open, `/mcp` behind its auth
    //! middleware, the tool reading the `User` that middleware put in the request.

    use std::io::{BufRead, BufReader};
    use std::process::{Child, Command, Stdio};

    use serde_json::{Value, json};

    use super::http1::exchange;

    /// The app on a free loopback port; killed when the test ends.
    struct App(Child);

    impl Drop for App {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }

    /// An HTTP/1.1 request on a fresh connection: the status, the head and the body.
    fn request(addr: &str, head: &str, body: &str) -> (u16, String, String) {
        let request = format!(
            "{head}\r\nHost: {addr}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        let (head, body) = exchange(addr, &request);
        (head[9..12].parse().unwrap(), head, body)
    }

    /// A JSON-RPC message POSTed to `/mcp`, signed in with `token` if any, with `more` headers.
    fn post(addr: &str, token: Option<&str>, more: &str, message: &Value) -> (u16, String, String) {
        let authorization = token.map_or(String::new(), |token| {
            format!("\r\nAuthorization: Bearer {token}")
        });
        let head = format!(
            "POST /mcp HTTP/1.1\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream{more}{authorization}"
        );
        request(addr, &head, &message.to_string())
    }

    /// The JSON-RPC answer in a body: its one JSON line, in an event or a chunk of a chunked body.
    fn answer(body: &str) -> Value {
        let line = body
            .lines()
            .map(|line| line.strip_prefix("data: ").unwrap_or(line))
            .find(|line| line.starts_with('{'))
            .unwrap_or(body);
        serde_json::from_str(line).unwrap_or_else(|error| panic!("not JSON ({error}): {body}"))
    }

    /// `whoami` called with 2026-07-28 (no session), signed in with `token` if any.
    fn whoami(addr: &str, token: Option<&str>) -> (u16, String) {
        let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "whoami", "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "0"},
            "io.modelcontextprotocol/clientCapabilities": {},
        }}});
        let more =
            "\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: whoami";
        let (status, _, body) = post(addr, token, more, &call);
        (status, body)
    }

    /// `whoami` in a 2025-11-25 session: initialize, initialized, the call.
    fn whoami_in_a_session(addr: &str, token: &str) -> Value {
        let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"}}});
        let (status, head, body) = post(addr, Some(token), "", &initialize);
        assert_eq!(status, 200, "{body}");
        let session = head
            .lines()
            .find_map(|line| {
                let (name, value) = line.split_once(':')?;
                name.eq_ignore_ascii_case("mcp-session-id")
                    .then(|| value.trim().to_owned())
            })
            .unwrap_or_else(|| panic!("no session in {head}"));
        let more = format!("\r\nMcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25");
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let (status, _, _) = post(addr, Some(token), &more, &initialized);
        assert!((200..300).contains(&status));
        let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "whoami", "arguments": {}}});
        let (status, _, body) = post(addr, Some(token), &more, &call);
        assert_eq!(status, 200, "{body}");
        answer(&body)
    }

    #[test]
    fn axum_app_serves_mcp_beside_its_routes_behind_its_own_auth() {
        let mut child = Command::new(super::example("axum_app"))
            .env("TOOLNEXUS_ADDR", "127.0.0.1:0")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("axum_app starts");
        let mut line = String::new();
        BufReader::new(child.stderr.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let app = App(child);
        let addr = line
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split('/').next())
            .unwrap_or_else(|| panic!("no address in {line:?}"));

        let (status, _, body) = request(addr, "GET /health HTTP/1.1", "");
        assert_eq!((status, body.as_str()), (200, "ok"));
        let (status, _, body) = request(
            addr,
            "GET /me HTTP/1.1\r\nAuthorization: Bearer bob-token",
            "",
        );
        assert_eq!((status, body.as_str()), (200, "bob"));
        assert_eq!(request(addr, "GET /me HTTP/1.1", "").0, 401);
        assert_eq!(whoami(addr, None).0, 401);
        assert_eq!(whoami(addr, Some("mallory-token")).0, 401);
        for (token, said) in [
            ("alice-token", "you are alice"),
            ("bob-token", "you are bob"),
        ] {
            let (status, body) = whoami(addr, Some(token));
            assert_eq!(status, 200, "{body}");
            assert_eq!(
                answer(&body)["result"]["content"][0]["text"],
                said,
                "{body}"
            );
            let in_session = whoami_in_a_session(addr, token);
            assert_eq!(
                in_session["result"]["content"][0]["text"], said,
                "{in_session}"
            );
        }
        drop(app);
    }
}

/// `conformance_server` (run by `scripts/mcp-conformance.sh`, and through `McpTools` in
/// `mcp_client_stdio.rs`) says how it is used when given anything else.
#[test]
fn conformance_server_answers_a_wrong_argument_with_its_usage() {
    let output = Command::new(example("conformance_server"))
        .arg("--bogus")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("usage: conformance_server [--http ADDR [--stateless]]"),
        "{stderr}"
    );
}

/// Runs `examples/chat` (feature `client`; its tests are in `chat.rs`) with none of the
/// variables that name a provider but `set`.
#[cfg(feature = "client")]
pub fn chat(set: &[(&str, &str)]) -> std::process::Output {
    let mut command = Command::new(example("chat"));
    for name in [
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "GEMINI_API_KEY",
        "TOOLNEXUS_BASE_URL",
        "TOOLNEXUS_MODEL",
    ] {
        command.env_remove(name);
    }
    command
        .envs(set.iter().copied())
        .output()
        .expect("chat starts")
}
