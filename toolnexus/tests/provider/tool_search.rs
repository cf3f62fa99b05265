//! SPEC §15 on the wire: what `Toolkit::definitions` sends each API with deferred tools, how
//! `tool_calls` reads each API's search items and `tool_results` answers them. Everything sent
//! and every response body read is held against `vectors/tool_search.json`, which
//! `scripts/tool-search-checks.py` runs through the `anthropic` and `openai` Python SDKs' own
//! types, so these tests need no Python.
//!
//! After changing a shape: `UPDATE_PROVIDER_VECTORS=1 cargo test -p toolnexus --test provider
//! tool_search`, then `python3 scripts/tool-search-checks.py`.

use crate::common;

use std::sync::{Arc, OnceLock};

use serde_json::{Map, Value, json};
use toolnexus::{
    Api, BoxFuture, RunState, Tool, ToolCall, ToolContext, ToolResult, ToolSearch, Toolkit,
    define_tool, tool_calls, tool_results,
};

use common::block_on;

const VECTORS: &str = "tests/vectors/tool_search.json";

/// A tool of an MCP server named `github`, as `McpTools::deferred()` makes them.
struct GitHub {
    name: &'static str,
    description: &'static str,
}

fn github_schema() -> &'static Map<String, Value> {
    static SCHEMA: OnceLock<Map<String, Value>> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        let schema = json!({
            "type": "object",
            "properties": {"repo": {"type": "string", "description": "owner/name"}},
            "required": ["repo"],
            "additionalProperties": false,
        });
        schema.as_object().cloned().unwrap_or_default()
    })
}

impl Tool for GitHub {
    fn name(&self) -> &str {
        self.name
    }
    fn description(&self) -> &str {
        self.description
    }
    fn input_schema(&self) -> &Map<String, Value> {
        github_schema()
    }
    fn deferred(&self) -> bool {
        true
    }
    fn namespace(&self) -> Option<&str> {
        Some("github")
    }
    fn execute<'a>(&'a self, args: Value, _: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        let output = format!("{} of {}", self.name, args["repo"]);
        Box::pin(std::future::ready(ToolResult::ok(output)))
    }
}

fn toolkit(search: ToolSearch) -> Toolkit {
    let schema = json!({
        "type": "object",
        "properties": {"path": {"type": "string"}},
        "required": ["path"],
        "additionalProperties": false,
    });
    let read_file = define_tool("read_file", "Reads a text file.", schema)
        .unwrap()
        .sync(|args: Value, _: &ToolContext| format!("contents of {}", args["path"]));
    let city = json!({
        "type": "object",
        "properties": {"city": {"type": "string", "description": "City name"}},
        "required": ["city"],
        "additionalProperties": false,
    });
    let weather = define_tool("get_weather", "Current weather for a city.", city)
        .unwrap()
        .deferred(true)
        .sync(|args: Value, _: &ToolContext| format!("{}: sunny", args["city"]));
    Toolkit::new()
        .with(read_file)
        .with(GitHub {
            name: "list_pull_requests",
            description: "Lists the open pull requests of a repository.",
        })
        .with(GitHub {
            name: "create_issue",
            description: "Opens an issue in a repository.",
        })
        .with(weather)
        .tool_search(search)
}

fn loaded_weather() -> RunState {
    let mut run = RunState::default();
    run.load("get_weather");
    run
}

/// What each API is sent, for the vectors.
fn definitions() -> Value {
    let fresh = RunState::default();
    let run = loaded_weather();
    json!({
        "anthropic_bm25": toolkit(ToolSearch::Bm25).definitions(Api::Anthropic, &fresh),
        "anthropic_regex": toolkit(ToolSearch::Regex).definitions(Api::Anthropic, &fresh),
        "anthropic_local": toolkit(ToolSearch::Local).definitions(Api::Anthropic, &fresh),
        "responses_hosted": toolkit(ToolSearch::Bm25).definitions(Api::OpenAiResponses, &fresh),
        "responses_local": toolkit(ToolSearch::Local).definitions(Api::OpenAiResponses, &run),
        "chat": toolkit(ToolSearch::Bm25).definitions(Api::OpenAiChat, &run),
        "gemini": toolkit(ToolSearch::Bm25).definitions(Api::Gemini, &run),
    })
}

/// Response bodies as each API sends them, search items included.
fn responses() -> Value {
    json!({
        "anthropic_hosted_search": {
            "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
            "stop_reason": "tool_use", "stop_sequence": null,
            "usage": {"input_tokens": 10, "output_tokens": 20},
            "content": [
                {"type": "server_tool_use", "id": "srvtoolu_1", "name": "tool_search_tool_bm25",
                 "input": {"query": "pull requests"}},
                {"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_1", "content": {
                    "type": "tool_search_tool_search_result",
                    "tool_references": [{"type": "tool_reference", "tool_name": "list_pull_requests"}],
                }},
                {"type": "tool_use", "id": "toolu_1", "name": "list_pull_requests",
                 "input": {"repo": "octo/hello"}},
            ],
        },
        "anthropic_local_search": {
            "id": "msg_2", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
            "stop_reason": "tool_use", "stop_sequence": null,
            "usage": {"input_tokens": 10, "output_tokens": 20},
            "content": [
                {"type": "tool_use", "id": "toolu_2", "name": "search_tools",
                 "input": {"query": "open pull requests", "limit": 2}},
            ],
        },
        "responses_client_search": {
            "id": "resp_1", "object": "response", "created_at": 1.0, "model": "gpt-5",
            "parallel_tool_calls": true, "tool_choice": "auto", "tools": [],
            "output": [
                {"type": "tool_search_call", "id": "ts_1", "call_id": "call_s1",
                 "execution": "client", "status": "completed",
                 "arguments": {"query": "weather in a city"}},
            ],
        },
        "responses_hosted_search": {
            "id": "resp_2", "object": "response", "created_at": 1.0, "model": "gpt-5",
            "parallel_tool_calls": true, "tool_choice": "auto", "tools": [],
            "output": [
                {"type": "tool_search_call", "id": "ts_2", "call_id": null,
                 "execution": "server", "status": "completed",
                 "arguments": {"query": "issues"}},
                {"type": "tool_search_output", "id": "tso_2", "call_id": null,
                 "execution": "server", "status": "completed", "tools": []},
                {"type": "function_call", "id": "fc_2", "call_id": "call_2",
                 "name": "create_issue", "arguments": "{\"repo\":\"octo/hello\"}",
                 "status": "completed"},
            ],
        },
    })
}

/// Runs the calls of `body` within `run` and answers them.
fn turn(
    toolkit: &Toolkit,
    api: Api,
    body: &Value,
    run: &mut RunState,
) -> (Vec<ToolCall>, Vec<Value>) {
    let calls = tool_calls(api, body).unwrap();
    let results = block_on(toolkit.run_calls_in(run, &calls, &ToolContext::default()));
    let answers = tool_results(api, &calls, &results);
    (calls, answers)
}

fn results() -> Value {
    let bodies = responses();
    let mut run = RunState::default();
    let (_, anthropic_local) = turn(
        &toolkit(ToolSearch::Local),
        Api::Anthropic,
        &bodies["anthropic_local_search"],
        &mut run,
    );
    let (_, anthropic_hosted) = turn(
        &toolkit(ToolSearch::Bm25),
        Api::Anthropic,
        &bodies["anthropic_hosted_search"],
        &mut RunState::default(),
    );
    let (_, responses_local) = turn(
        &toolkit(ToolSearch::Local),
        Api::OpenAiResponses,
        &bodies["responses_client_search"],
        &mut RunState::default(),
    );
    let (_, responses_hosted) = turn(
        &toolkit(ToolSearch::Bm25),
        Api::OpenAiResponses,
        &bodies["responses_hosted_search"],
        &mut RunState::default(),
    );
    json!({
        "anthropic_local": anthropic_local,
        "anthropic_hosted": anthropic_hosted,
        "responses_local": responses_local,
        "responses_hosted": responses_hosted,
    })
}

#[test]
fn what_is_sent_and_read_matches_the_vectors_the_sdks_checked() {
    let all = json!({
        "definitions": definitions(),
        "responses": responses(),
        "results": results(),
    });
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(VECTORS);
    if std::env::var_os("UPDATE_PROVIDER_VECTORS").is_some() {
        let text = serde_json::to_string_pretty(&all).unwrap() + "\n";
        std::fs::write(&path, text).unwrap();
    }
    let vectors: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(
        all, vectors,
        "regenerate the vectors and rerun the SDK script"
    );
}

fn names(list: &Value, at: &str) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|entry| {
            entry
                .pointer(at)
                .and_then(Value::as_str)
                .unwrap_or("?")
                .to_owned()
        })
        .collect()
}

#[test]
fn chat_and_gemini_get_what_is_not_deferred_what_was_loaded_and_search_tools() {
    let toolkit = toolkit(ToolSearch::Bm25);
    let fresh = RunState::default();
    let chat = toolkit.definitions(Api::OpenAiChat, &fresh);
    assert_eq!(
        names(&chat, "/function/name"),
        ["read_file", "search_tools"]
    );
    let run = loaded_weather();
    let chat = toolkit.definitions(Api::OpenAiChat, &run);
    assert_eq!(
        names(&chat, "/function/name"),
        ["read_file", "get_weather", "search_tools"]
    );
    let gemini = toolkit.definitions(Api::Gemini, &run);
    assert_eq!(
        names(&gemini[0]["functionDeclarations"], "/name"),
        ["read_file", "get_weather", "search_tools"]
    );
    let search = &gemini[0]["functionDeclarations"][2]["parameters"];
    assert!(
        search.get("additionalProperties").is_none(),
        "Gemini's subset has none"
    );
}

#[test]
fn anthropic_gets_every_tool_the_deferred_ones_marked_and_the_chosen_search() {
    let sent = toolkit(ToolSearch::Bm25).definitions(Api::Anthropic, &RunState::default());
    let deferred: Vec<bool> = sent.as_array().unwrap()[..4]
        .iter()
        .map(|entry| entry.get("defer_loading") == Some(&json!(true)))
        .collect();
    assert_eq!(deferred, [false, true, true, true]);
    assert_eq!(
        sent[4],
        json!({"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"})
    );
    let regex = toolkit(ToolSearch::Regex).definitions(Api::Anthropic, &RunState::default());
    assert_eq!(regex[4]["type"], "tool_search_tool_regex_20251119");
    let local = toolkit(ToolSearch::Local).definitions(Api::Anthropic, &RunState::default());
    assert_eq!(local[4]["name"], "search_tools");
}

#[test]
fn responses_groups_a_servers_tools_in_its_namespace() {
    let sent = toolkit(ToolSearch::Bm25).definitions(Api::OpenAiResponses, &RunState::default());
    assert_eq!(sent[0]["name"], "read_file");
    assert_eq!(
        (sent[1]["type"].as_str(), sent[1]["name"].as_str()),
        (Some("namespace"), Some("github"))
    );
    assert_eq!(
        names(&sent[1]["tools"], "/name"),
        ["list_pull_requests", "create_issue"]
    );
    assert_eq!(sent[1]["tools"][0]["defer_loading"], true);
    assert_eq!(
        (sent[2]["name"].as_str(), sent[2]["defer_loading"].as_bool()),
        (Some("get_weather"), Some(true))
    );
    assert_eq!(sent[3], json!({"type": "tool_search"}));
    let local = toolkit(ToolSearch::Local).definitions(Api::OpenAiResponses, &RunState::default());
    assert_eq!(names(&local, "/type"), ["function", "tool_search"]);
    assert_eq!(local[1]["execution"], "client");
}

#[test]
fn hosted_search_blocks_are_skipped_and_client_searches_are_calls() {
    let bodies = responses();
    let anthropic = tool_calls(Api::Anthropic, &bodies["anthropic_hosted_search"]).unwrap();
    assert_eq!(anthropic.len(), 1);
    assert_eq!(anthropic[0].name, "list_pull_requests");
    let hosted = tool_calls(Api::OpenAiResponses, &bodies["responses_hosted_search"]).unwrap();
    assert_eq!(hosted.len(), 1);
    assert_eq!(hosted[0].name, "create_issue");
    let client = tool_calls(Api::OpenAiResponses, &bodies["responses_client_search"]).unwrap();
    assert_eq!(
        client,
        [ToolCall {
            id: "call_s1".into(),
            name: "tool_search".into(),
            arguments: r#"{"query":"weather in a city"}"#.into()
        }]
    );
}

#[test]
fn a_local_search_loads_what_it_found_and_answers_in_each_apis_shape() {
    let bodies = responses();
    let toolkit = toolkit(ToolSearch::Local);
    let mut run = RunState::default();
    let (_, answers) = turn(
        &toolkit,
        Api::Anthropic,
        &bodies["anthropic_local_search"],
        &mut run,
    );
    assert!(run.is_loaded("list_pull_requests"));
    assert_eq!(
        answers[0]["content"][0]["content"][0],
        json!({"type": "tool_reference", "tool_name": "list_pull_requests"})
    );
    let mut run = RunState::default();
    let (_, answers) = turn(
        &toolkit,
        Api::OpenAiResponses,
        &bodies["responses_client_search"],
        &mut run,
    );
    assert_eq!(run.loaded().collect::<Vec<_>>(), ["get_weather"]);
    assert_eq!(answers[0]["type"], "tool_search_output");
    assert_eq!(answers[0]["call_id"], "call_s1");
    assert_eq!(answers[0]["tools"][0]["name"], "get_weather");
    assert_eq!(answers[0]["tools"][0]["type"], "function");
    let now = toolkit.definitions(Api::OpenAiResponses, &run);
    assert_eq!(names(&now, "/name")[..2], ["read_file", "get_weather"]);
}

#[test]
fn chat_search_answers_names_and_one_line_descriptions() {
    let toolkit = toolkit(ToolSearch::Bm25);
    let mut run = RunState::default();
    let search = ToolCall {
        id: "c1".into(),
        name: "search_tools".into(),
        arguments: r#"{"query": "issue in a repository"}"#.into(),
    };
    let results = block_on(toolkit.run_calls_in(&mut run, &[search], &ToolContext::default()));
    assert_eq!(
        results[0].output,
        "create_issue: Opens an issue in a repository.\nlist_pull_requests: Lists the open pull requests of a repository."
    );
    assert_eq!(
        results[0].metadata["tools"],
        json!(["create_issue", "list_pull_requests"])
    );
    assert!(run.is_loaded("create_issue"));
}

#[test]
fn bad_search_arguments_are_refused_naming_the_field_and_count_as_retries() {
    let toolkit = toolkit(ToolSearch::Bm25).retries(0);
    let cases = [
        (
            r#"{"query": "x", "limit": 50}"#,
            "invalid arguments for `search_tools`: field `limit`: 50 is outside 1 to 20",
        ),
        (
            r#"{"query": "x", "limit": 0}"#,
            "invalid arguments for `search_tools`: field `limit`: 0 is outside 1 to 20",
        ),
        (
            r#"{}"#,
            "invalid arguments for `search_tools`: missing field `query`",
        ),
        (
            r#"{"query": "x", "page": 2}"#,
            "invalid arguments for `search_tools`: unknown field `page`, expected `query` or `limit`",
        ),
    ];
    for (arguments, expected) in cases {
        let mut run = RunState::default();
        let call = ToolCall {
            id: "c".into(),
            name: "search_tools".into(),
            arguments: arguments.into(),
        };
        let results = block_on(toolkit.run_calls_in(&mut run, &[call], &ToolContext::default()));
        assert_eq!(
            results[0].output,
            format!("tool `search_tools` failed 1 times in a row: {expected}")
        );
        assert_eq!(run.loaded().count(), 0);
    }
}

#[test]
fn without_deferred_tools_definitions_are_the_plain_adapters() {
    let plain = Toolkit::new().with(GitHub {
        name: "x",
        description: "X.",
    });
    let kept = Toolkit::new()
        .with_all([Arc::new(GitHub {
            name: "x",
            description: "X.",
        }) as Arc<dyn Tool>])
        .defer_all_but(["x"]);
    let run = RunState::default();
    assert_eq!(kept.definitions(Api::OpenAiChat, &run), kept.to_openai());
    assert_eq!(kept.definitions(Api::Anthropic, &run), kept.to_anthropic());
    assert_eq!(kept.definitions(Api::Gemini, &run), kept.to_gemini());
    assert_eq!(
        kept.definitions(Api::OpenAiResponses, &run),
        kept.to_openai_responses()
    );
    assert!(plain.is_deferred("x"));
}
