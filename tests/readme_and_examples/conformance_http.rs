//! `examples/conformance_server --http --stateless` spoken to as the official MCP conformance
//! suite speaks to it (2026-07-28 requests by hand, `scripts/mcp-conformance.sh` runs the
//! suite itself): the fixture tools its SEP-2575 and SEP-2322 scenarios call, and what the
//! server answers where the suite asks for what SPEC §8C refuses.
#![cfg(all(feature = "mcp-http", unix))]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use serde_json::{Value, json};

use crate::examples::{example, http1::exchange};

/// A running `conformance_server --http 127.0.0.1:0 --stateless`; killed when dropped.
struct Server {
    child: Child,
    addr: String,
}

impl Server {
    fn start() -> Self {
        let mut child = Command::new(example("conformance_server"))
            .args(["--http", "127.0.0.1:0", "--stateless"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("conformance_server starts");
        let mut line = String::new();
        BufReader::new(child.stderr.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let addr = line
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split('/').next())
            .unwrap_or_else(|| panic!("no address in {line:?}"))
            .to_owned();
        Self { child, addr }
    }

    /// A 2026-07-28 `tools/call` of `name` with `params` beside it, from a client declaring
    /// `capabilities`: the HTTP status and the JSON-RPC answer.
    fn call(&self, name: &str, mut params: Value, capabilities: Value) -> (u16, Value) {
        params["name"] = json!(name);
        params["arguments"] = json!({});
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": capabilities,
        });
        let body = json!({"jsonrpc": "2.0", "id": 401, "method": "tools/call", "params": params})
            .to_string();
        let request = format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
             Mcp-Method: tools/call\r\nMcp-Name: {name}\r\nContent-Length: {}\r\n\
             Connection: close\r\n\r\n{body}",
            self.addr,
            body.len()
        );
        let (head, body) = exchange(&self.addr, &request);
        let message = serde_json::from_str(&body)
            .unwrap_or_else(|error| panic!("not JSON ({error}): {head}\r\n\r\n{body}"));
        (head[9..12].parse().unwrap(), message)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The suite's default client: it can be asked every way (`gt` in its harness).
fn asks_everything() -> Value {
    json!({"sampling": {}, "elicitation": {}, "roots": {"listChanged": true}})
}

fn accept(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

/// A complete result's text and `isError`.
fn text(answer: &Value) -> (&str, bool) {
    let result = &answer["result"];
    assert_eq!(result["resultType"], "complete", "{answer}");
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    (text, result["isError"] == true)
}

/// An `InputRequiredResult`'s input requests (id ⇒ method) and its `requestState`.
fn asked(answer: &Value) -> (Vec<(String, String)>, Value) {
    let result = &answer["result"];
    assert_eq!(result["resultType"], "input_required", "{answer}");
    let requests = result["inputRequests"]
        .as_object()
        .unwrap_or_else(|| panic!("no inputRequests: {answer}"))
        .iter()
        .map(|(id, request)| (id.clone(), request["method"].as_str().unwrap().to_owned()))
        .collect();
    (requests, result["requestState"].clone())
}

/// `server-stateless`'s `test_missing_capability` (SEP-2575): a client that did not declare
/// what the tool needs (the tasks extension: it runs only as a task) is refused `-32021` with
/// HTTP 400 and the missing capability as a `ClientCapabilities` object; one that declared it
/// gets its task.
#[test]
fn test_missing_capability_is_refused_32021_to_a_client_without_what_it_needs() {
    let server = Server::start();
    for undeclared in [json!({}), asks_everything()] {
        let (status, refused) = server.call("test_missing_capability", json!({}), undeclared);
        assert_eq!(status, 400, "{refused}");
        assert_eq!(refused["id"], 401);
        assert_eq!(refused["error"]["code"], -32021, "{refused}");
        assert_eq!(
            refused["error"]["data"]["requiredCapabilities"],
            json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})
        );
    }
    let (status, task) = server.call(
        "test_missing_capability",
        json!({}),
        json!({"extensions": {"io.modelcontextprotocol/tasks": {}}}),
    );
    assert_eq!(status, 200, "{task}");
    assert_eq!(task["result"]["resultType"], "task", "{task}");
}

/// `input-required-result-capability-check`: a client that declared sampling alone is never
/// sent the elicitation it did not declare; it hears that it cannot be asked. One that
/// declared elicitation is asked.
#[test]
fn test_input_required_result_capabilities_asks_only_a_client_that_declared_elicitation() {
    let server = Server::start();
    let name = "test_input_required_result_capabilities";
    let (status, sampling_only) = server.call(name, json!({}), json!({"sampling": {}}));
    assert_eq!(status, 200);
    assert_eq!(
        text(&sampling_only),
        (
            "needs input input, which this client cannot ask for: Please confirm",
            true
        )
    );
    assert!(sampling_only["result"].get("inputRequests").is_none());
    let (_, asking) = server.call(name, json!({}), json!({"elicitation": {}}));
    let (requests, _) = asked(&asking);
    assert_eq!(
        requests,
        [("confirm".to_owned(), "elicitation/create".to_owned())]
    );
}

/// `input-required-result-multiple-input-requests`: one suspension asks one question (SPEC
/// §8C) and sampling and roots are not offered, so the tool asks the name alone, of a client
/// that could be asked all three; its answer completes the call.
#[test]
fn test_input_required_result_multiple_inputs_asks_one_question_and_completes() {
    let server = Server::start();
    let name = "test_input_required_result_multiple_inputs";
    let (_, first) = server.call(name, json!({}), asks_everything());
    let (requests, state) = asked(&first);
    assert_eq!(
        requests,
        [("user_name".to_owned(), "elicitation/create".to_owned())]
    );
    let retry = json!({
        "inputResponses": {"user_name": accept(json!({"name": "Alice"}))},
        "requestState": state,
    });
    let (_, done) = server.call(name, retry, asks_everything());
    assert_eq!(
        text(&done),
        (
            "Hello, Alice! (one question: sampling and roots are not offered)",
            false
        )
    );
}

/// `input-required-result-multi-round`: round one asks `step1` under a sealed state; its
/// answer runs the tool once more, which asks `step2`, and the §10 loop rule ends that second
/// question as `unresolved` (SPEC §8C) instead of a second `InputRequiredResult`.
#[test]
fn test_input_required_result_multi_round_ends_its_second_question_unresolved() {
    let server = Server::start();
    let name = "test_input_required_result_multi_round";
    let (_, first) = server.call(name, json!({}), asks_everything());
    let (requests, state) = asked(&first);
    assert_eq!(
        requests,
        [("step1".to_owned(), "elicitation/create".to_owned())]
    );
    assert!(state.is_string(), "{first}");
    let retry = json!({
        "inputResponses": {"step1": accept(json!({"name": "Alice"}))},
        "requestState": state,
    });
    let (_, second) = server.call(name, retry, asks_everything());
    assert_eq!(
        text(&second),
        ("unresolved: Step 1: What is your name?", true)
    );
}

/// `input-required-result-ignore-extra-params` sends the answer and two keys nobody asked
/// for, with no `requestState`: a first call, asked again (an answer is taken only through
/// the sealed state it answers, SPEC §10B). With the state, the extra keys are ignored as
/// SEP-2322 says and the call completes; the answer itself is still checked.
#[test]
fn answers_beside_extra_keys_complete_with_their_state_and_are_still_checked() {
    let server = Server::start();
    let name = "test_input_required_result_elicitation";
    let answers = |user_name: Value| {
        json!({
            "user_name": user_name,
            "unknown_extra_key": accept(json!({"foo": "bar"})),
            "another_unexpected": accept(json!({"baz": 123})),
        })
    };
    let alice = answers(accept(json!({"name": "Alice"})));
    let (status, stateless) = server.call(
        name,
        json!({"inputResponses": alice.clone()}),
        asks_everything(),
    );
    assert_eq!(status, 200);
    let (requests, _) = asked(&stateless);
    assert_eq!(
        requests,
        [("user_name".to_owned(), "elicitation/create".to_owned())]
    );

    let state = |server: &Server| asked(&server.call(name, json!({}), asks_everything()).1).1;
    let retry = json!({"inputResponses": alice, "requestState": state(&server)});
    let (_, done) = server.call(name, retry, asks_everything());
    assert_eq!(text(&done), ("Hello, Alice!", false));

    for wrong in [accept(json!({"name": 5})), accept(json!({}))] {
        let retry =
            json!({"inputResponses": answers(wrong.clone()), "requestState": state(&server)});
        let (_, refused) = server.call(name, retry, asks_everything());
        let (why, is_error) = text(&refused);
        assert!(is_error, "{wrong}: {refused}");
        assert!(
            why.starts_with("answer to `test_input_required_result_elicitation`: "),
            "{wrong}: {why}"
        );
    }
}
