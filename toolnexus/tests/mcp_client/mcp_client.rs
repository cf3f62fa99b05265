//! `McpTools` in front of our own server (`McpServer` over streamable HTTP on loopback, with
//! sessions and stateless), on 2026-07-28 and on the 2025-* revisions: remote tools are
//! `Tool`s whose every profile equals the local original's, arguments are checked before
//! anything is sent, results map back, and the §10 loop rule runs end to end through the
//! server (approve, decline, form input, login URL), with progress, deadlines and
//! cancellation crossing the boundary.
#![cfg(all(feature = "mcp-client", feature = "mcp-http"))]

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{Map, Value, json};
use toolnexus::mcp::{HttpOptions, HttpServer, McpServer, McpTools};
use toolnexus::{
    Answer, BoxFuture, Json, JsonSchema, Profile, Reason, Request, Tool, ToolContext, ToolResult,
    ToolSource, Toolkit, auth_required_with, parts::from_bytes, pending, tool, tools,
};

/// Adds two numbers.
#[tool]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

/// Deletes a note, once a human approved.
#[tool(approval = "Delete note {id}?", destructive)]
fn delete_note(id: u32) -> String {
    format!("deleted note {id}")
}

/// Deploys, after asking which environment.
#[tool]
fn pick_environment(ctx: &ToolContext) -> ToolResult {
    match ctx
        .answer
        .as_ref()
        .and_then(|answer| answer.data.as_ref()?.get("env")?.as_str())
    {
        Some(env) => ToolResult::ok(format!("deploying to {env}")),
        None => {
            let mut data = Map::new();
            data.insert(
                "schema".to_owned(),
                json!({"type": "object", "properties": {"env": {"type": "string", "enum": ["staging", "production"]}}, "required": ["env"]}),
            );
            pending(Request::new("input", "Which environment?").with_data(data))
        }
    }
}

/// Reads the mailbox, once signed in.
#[tool]
fn read_mail(ctx: &ToolContext) -> ToolResult {
    match &ctx.answer {
        Some(answer) if answer.ok => ToolResult::ok("3 new messages"),
        _ => auth_required_with(
            "https://login.example.com/authorize",
            "Sign in to the mailbox",
        ),
    }
}

/// Counts to `n`, reporting progress.
#[tool]
async fn count_to(n: u8, ctx: ToolContext) -> String {
    for step in 1..=n {
        ctx.report_progress(f64::from(step), Some(f64::from(n)), Some("counting"));
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    format!("counted to {n}")
}

#[derive(Serialize, JsonSchema)]
struct NoteStats {
    notes: u32,
    words: u32,
}

/// Statistics about the notes.
#[tool(read_only, title = "Note statistics")]
fn note_stats() -> Json<NoteStats> {
    Json(NoteStats {
        notes: 3,
        words: 120,
    })
}

/// A chart.
#[tool]
fn chart() -> ToolResult {
    ToolResult::ok("the chart").with_part(from_bytes(b"\x89PNG", "image/png"))
}

/// Set when the server dropped `slow`'s future: its call was cancelled there.
static SLOW_DROPPED: AtomicBool = AtomicBool::new(false);

struct SetOnDrop;

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        SLOW_DROPPED.store(true, Ordering::SeqCst);
    }
}

/// Takes a minute.
#[tool]
async fn slow() -> String {
    let _guard = SetOnDrop;
    tokio::time::sleep(Duration::from_secs(60)).await;
    "finished".to_owned()
}

/// A tool that checks nothing itself and counts the calls that reached it, to prove the
/// client refused what it never sent.
struct Counted(Arc<AtomicUsize>, Map<String, Value>);

impl Tool for Counted {
    fn name(&self) -> &str {
        "counted"
    }
    fn description(&self) -> &str {
        "Counts its calls"
    }
    fn input_schema(&self) -> &Map<String, Value> {
        &self.1
    }
    fn execute<'a>(&'a self, _args: Value, _ctx: &'a ToolContext) -> BoxFuture<'a, ToolResult> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Box::pin(async { ToolResult::ok("ran") })
    }
}

fn counted_schema() -> Map<String, Value> {
    json!({
        "type": "object",
        "properties": {
            "n": {"type": "integer", "maximum": 10},
            "lines": {"type": "array", "items": {"type": "object", "properties": {"qty": {"type": "integer", "minimum": 1}}}},
            "email": {"type": "string", "format": "email"},
            // A Python server's pattern, no ECMA-262 one, and one that backtracks exponentially.
            "tag": {"type": "string", "pattern": "(?i)^abc$"},
            "code": {"type": "string", "pattern": "^(a+)+$"}
        },
        "required": ["n"]
    })
    .as_object()
    .unwrap()
    .clone()
}

fn local_toolkit(calls: &Arc<AtomicUsize>) -> Toolkit {
    Toolkit::new()
        .with_all(tools![
            add,
            delete_note,
            pick_environment,
            read_mail,
            count_to,
            note_stats,
            chart,
            slow
        ])
        .with(Counted(Arc::clone(calls), counted_schema()))
}

struct Served {
    url: String,
    calls: Arc<AtomicUsize>,
    local: Toolkit,
    _stop: tokio::sync::oneshot::Sender<()>,
}

async fn serve(stateless: bool) -> Served {
    serve_with(HttpOptions::default().stateless(stateless)).await
}

async fn serve_with(options: HttpOptions) -> Served {
    let calls = Arc::new(AtomicUsize::new(0));
    let local = local_toolkit(&calls);
    let server = McpServer::new(local_toolkit(&calls));
    let http = HttpServer::bind("127.0.0.1:0", server, options)
        .await
        .unwrap();
    let url = format!("http://{}/mcp", http.local_addr());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(http.run_until(async {
        let _ = stopped.await;
    }));
    Served {
        url,
        calls,
        local,
        _stop: stop,
    }
}

/// Every way our client meets our server: sessions and stateless, each revision that can ask.
fn cases() -> Vec<(bool, Option<&'static str>)> {
    let mut cases = Vec::new();
    for stateless in [false, true] {
        for revision in [None, Some("2025-11-25"), Some("2025-06-18")] {
            // Stateless HTTP has no channel for a server's own requests (elicitation/create).
            if !(stateless && revision.is_some()) {
                cases.push((stateless, revision));
            }
        }
    }
    cases
}

async fn connect(served: &Served, revision: Option<&str>) -> McpTools {
    let mut builder = McpTools::http(&served.url).name("notes");
    if let Some(revision) = revision {
        builder = builder.protocol_version(revision);
    }
    builder.connect().await.expect("connects")
}

/// An elicitation handler that answers from a script and keeps what it was asked.
fn scripted(
    answers: Vec<Answer>,
) -> (
    Arc<Mutex<Vec<Request>>>,
    impl Fn(Request) -> std::future::Ready<Answer> + Send + Sync + 'static,
) {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&asked);
    let answers = Mutex::new(answers.into_iter());
    let handler = move |request: Request| {
        record.lock().unwrap().push(request.clone());
        let mut answer = answers.lock().unwrap().next().expect("a scripted answer");
        answer.id = request.id;
        std::future::ready(answer)
    };
    (asked, handler)
}

fn ok(data: Option<Value>) -> Answer {
    Answer {
        id: String::new(),
        ok: true,
        data: data.and_then(|data| data.as_object().cloned()),
        reason: None,
    }
}

fn declined() -> Answer {
    Answer {
        id: String::new(),
        ok: false,
        data: None,
        reason: Some(Reason::Declined),
    }
}

#[tokio::test]
async fn remote_tools_are_tools_whose_every_profile_is_the_originals() {
    let served = serve(false).await;
    let remote = connect(&served, None).await;
    assert_eq!(
        remote.protocol_version().await.as_deref(),
        Some("2026-07-28")
    );
    let toolkit = Toolkit::new().with_all(remote.tools());
    let names: Vec<&str> = toolkit.tools().iter().map(|tool| tool.name()).collect();
    let local_names: Vec<&str> = served
        .local
        .tools()
        .iter()
        .map(|tool| tool.name())
        .collect();
    assert_eq!(names, local_names);
    for (remote, local) in toolkit.tools().iter().zip(served.local.tools()) {
        assert_eq!(remote.source(), ToolSource::Mcp);
        assert_eq!(remote.description(), local.description());
        assert_eq!(
            remote.input_schema(),
            local.input_schema(),
            "{}",
            local.name()
        );
        assert_eq!(
            remote.output_schema(),
            local.output_schema(),
            "{}",
            local.name()
        );
        assert_eq!(remote.title(), local.title(), "{}", local.name());
        assert_eq!(
            remote.annotations(),
            local.annotations(),
            "{}",
            local.name()
        );
    }
    assert_eq!(
        toolkit.get("note_stats").unwrap().title(),
        Some("Note statistics")
    );
    assert_eq!(
        toolkit
            .get("delete_note")
            .unwrap()
            .annotations()
            .destructive,
        Some(true)
    );
    assert_eq!(toolkit.to_openai(), served.local.to_openai());
    assert_eq!(toolkit.to_openai_strict(), served.local.to_openai_strict());
    assert_eq!(
        toolkit.to_openai_responses(),
        served.local.to_openai_responses()
    );
    assert_eq!(toolkit.to_anthropic(), served.local.to_anthropic());
    assert_eq!(
        toolkit.to_anthropic_strict(),
        served.local.to_anthropic_strict()
    );
    assert_eq!(toolkit.to_gemini(), served.local.to_gemini());
    assert_eq!(
        toolkit.to_gemini_json_schema(),
        served.local.to_gemini_json_schema()
    );
    assert_eq!(toolkit.to_mcp(), served.local.to_mcp());
    for profile in [
        Profile::Plain,
        Profile::OpenAiStrict,
        Profile::Gemini,
        Profile::GeminiJsonSchema,
        Profile::AnthropicStrict,
    ] {
        // The one difference: a pattern that does not compile here is the local tool's issue
        // alone, since the server matches its remote tool's patterns itself.
        let (unenforceable, local): (Vec<_>, Vec<_>) = served
            .local
            .check(profile)
            .into_iter()
            .partition(|issue| issue.kind == toolnexus::IssueKind::Unenforceable);
        assert_eq!(toolkit.check(profile), local, "{profile:?}");
        assert_eq!(unenforceable.len(), 1, "{unenforceable:?}");
        assert_eq!(
            (
                unenforceable[0].tool.as_str(),
                unenforceable[0].path.as_str()
            ),
            ("counted", "tag")
        );
    }

    let prefixed = remote.tools_prefixed("notes.");
    assert_eq!(prefixed[0].name(), "notes_add");
    let sum = Toolkit::new()
        .with_all(prefixed)
        .execute(
            "notes_add",
            json!({"a": 2, "b": 40}),
            &ToolContext::default(),
        )
        .await;
    assert_eq!(sum.output, "42");
}

#[tokio::test]
async fn arguments_are_checked_before_anything_is_sent() {
    for (stateless, revision) in cases() {
        let served = serve(stateless).await;
        let toolkit = Toolkit::new().with_all(connect(&served, revision).await.tools());
        let ctx = ToolContext::default();
        let refused = [
            (
                json!({"n": 11}),
                "invalid arguments for `counted`: field `n`: 11 is greater than the maximum of 10",
            ),
            (
                json!({"n": "3"}),
                "invalid arguments for `counted`: field `n`: invalid type: string \"3\", expected integer",
            ),
            (
                json!({"n": 1, "lines": [{"qty": 0}]}),
                "invalid arguments for `counted`: field `lines[0].qty`: 0 is less than the minimum of 1",
            ),
            (
                json!([1]),
                "invalid arguments for `counted`: expected an object of arguments, got an array",
            ),
        ];
        for (args, expected) in refused {
            let result = toolkit.execute("counted", args.clone(), &ctx).await;
            assert!(result.is_error, "{args}");
            assert_eq!(result.output, expected, "{args}");
        }
        assert_eq!(
            served.calls.load(Ordering::SeqCst),
            0,
            "nothing reached the server"
        );
        // `format` is not read by the checker: left to the server.
        let sent = toolkit
            .execute("counted", json!({"n": 10, "email": "not an email"}), &ctx)
            .await;
        assert_eq!((sent.output.as_str(), sent.is_error), ("ran", false));
        assert_eq!(served.calls.load(Ordering::SeqCst), 1);
        // Nor are patterns, which the server's own engine reads: one that does not compile
        // here refuses nothing, and one that backtracks is never matched in the agent (20
        // characters keep this test quick if it ever is).
        for args in [
            json!({"n": 1, "tag": "ABC"}),
            json!({"n": 1, "code": format!("{}!", "a".repeat(20))}),
        ] {
            let sent = toolkit.execute("counted", args.clone(), &ctx).await;
            assert_eq!(
                (sent.output.as_str(), sent.is_error),
                ("ran", false),
                "{args}"
            );
        }
        assert_eq!(served.calls.load(Ordering::SeqCst), 3);
    }
}

#[tokio::test]
async fn results_map_back() {
    let served = serve(false).await;
    let toolkit = Toolkit::new().with_all(connect(&served, None).await.tools());
    let ctx = ToolContext::default();
    let stats = toolkit.execute("note_stats", json!({}), &ctx).await;
    assert_eq!(
        serde_json::from_str::<Value>(&stats.output).unwrap(),
        json!({"notes": 3, "words": 120})
    );
    let chart = toolkit.execute("chart", json!({}), &ctx).await;
    let local = served.local.execute("chart", json!({}), &ctx).await;
    assert_eq!(
        (chart.output.as_str(), &chart.parts),
        (local.output.as_str(), &local.parts)
    );
    assert_eq!(chart.metadata["server"], "notes");
    let unknown = toolkit.execute("add", json!({"a": 1}), &ctx).await;
    assert!(unknown.is_error);
}

#[tokio::test]
async fn the_loop_rule_runs_through_the_server() {
    for (stateless, revision) in cases() {
        let served = serve(stateless).await;
        let case = format!("stateless {stateless}, {revision:?}");
        // A 2025-* server asks during the call: the handler answers; a 2026-07-28 one
        // suspends the call, and the caller answers.
        let (asked, handler) = scripted(vec![
            ok(None),
            declined(),
            ok(Some(json!({"env": "staging"}))),
            ok(None),
        ]);
        let remote = connect(&served, revision).await.on_elicitation(handler);
        let toolkit = Toolkit::new().with_all(remote.tools());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let ask = |answer: Answer| {
            let seen = Arc::clone(&seen);
            move |request: Request| {
                seen.lock().unwrap().push(request.clone());
                std::future::ready(Answer {
                    id: request.id,
                    ..answer
                })
            }
        };

        let approved = toolkit
            .call("delete_note", json!({"id": 7}), ask(ok(None)))
            .await;
        assert_eq!(approved.output, "deleted note 7", "{case}");
        let refused = toolkit
            .call("delete_note", json!({"id": 8}), ask(declined()))
            .await;
        assert!(refused.is_error, "{case}");
        let form = toolkit
            .call(
                "pick_environment",
                json!({}),
                ask(ok(Some(json!({"env": "staging"})))),
            )
            .await;
        assert_eq!(form.output, "deploying to staging", "{case}");
        let login = toolkit.call("read_mail", json!({}), ask(ok(None))).await;

        let requests = if revision.is_some() {
            asked.lock().unwrap().clone()
        } else {
            seen.lock().unwrap().clone()
        };
        let asked_for_login = revision != Some("2025-06-18");
        assert_eq!(requests.len(), 3 + usize::from(asked_for_login), "{case}");
        assert_eq!(
            (requests[0].kind.as_str(), requests[0].prompt.as_str()),
            ("input", "Delete note 7?"),
            "{case}"
        );
        assert_eq!(requests[1].prompt, "Delete note 8?", "{case}");
        assert_eq!(
            requests[2].data.as_ref().unwrap()["schema"]["properties"]["env"]["enum"],
            json!(["staging", "production"]),
            "{case}"
        );
        if revision == Some("2025-06-18") {
            // No URL mode before 2025-11-25: the login is not asked, and says so.
            assert_eq!(
                login.output,
                "needs authorization input, which this client cannot ask for: \
                 Sign in to the mailbox\nhttps://login.example.com/authorize",
                "{case}"
            );
        } else {
            assert_eq!(login.output, "3 new messages", "{case}");
            assert_eq!(
                (requests[3].kind.as_str(), requests[3].url.as_deref()),
                ("authorization", Some("https://login.example.com/authorize")),
                "{case}"
            );
        }
        if revision.is_none() {
            assert_eq!(refused.output, "declined/expired: Delete note 8?", "{case}");
            // Answering by hand (`ctx.answer`) retries with the server's requestState too.
            let first = toolkit
                .execute("delete_note", json!({"id": 9}), &ToolContext::default())
                .await;
            let request = first.pending().expect("a suspension");
            let ctx = ToolContext {
                answer: Some(Answer {
                    id: request.id,
                    ok: false,
                    data: None,
                    reason: Some(Reason::Declined),
                }),
                ..ToolContext::default()
            };
            let declined = toolkit.execute("delete_note", json!({"id": 9}), &ctx).await;
            assert!(
                declined.is_error && !declined.is_pending(),
                "{case}: {}",
                declined.output
            );
        }
    }
}

#[tokio::test]
async fn progress_deadlines_and_cancellation_cross_the_boundary() {
    for (stateless, revision) in cases() {
        let served = serve(stateless).await;
        let case = format!("stateless {stateless}, {revision:?}");
        let toolkit = Toolkit::new().with_all(connect(&served, revision).await.tools());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let record = Arc::clone(&seen);
        let ctx = ToolContext::default()
            .on_progress(move |done, total, _| record.lock().unwrap().push((done, total)));
        let counted = toolkit.execute("count_to", json!({"n": 3}), &ctx).await;
        assert_eq!(counted.output, "counted to 3", "{case}");
        assert_eq!(
            *seen.lock().unwrap(),
            [(1.0, Some(3.0)), (2.0, Some(3.0)), (3.0, Some(3.0))],
            "{case}"
        );

        SLOW_DROPPED.store(false, Ordering::SeqCst);
        let ctx = ToolContext {
            timeout: Some(Duration::from_millis(300)),
            ..ToolContext::default()
        };
        let began = Instant::now();
        let timed_out = toolkit.execute("slow", json!({}), &ctx).await;
        assert!(began.elapsed() < Duration::from_secs(5), "{case}");
        assert_eq!(
            timed_out.output, "tool `slow` timed out after 300ms",
            "{case}"
        );
        wait_until_dropped(&case).await;

        SLOW_DROPPED.store(false, Ordering::SeqCst);
        let ctx = ToolContext::default();
        let cancel = ctx.cancel.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            cancel.cancel();
        });
        let cancelled = toolkit.execute("slow", json!({}), &ctx).await;
        assert_eq!(cancelled.output, "tool `slow` was cancelled", "{case}");
        wait_until_dropped(&case).await;
    }
}

/// The server dropped `slow`'s future: `notifications/cancelled` reached it.
async fn wait_until_dropped(case: &str) {
    let began = Instant::now();
    while !SLOW_DROPPED.load(Ordering::SeqCst) {
        assert!(
            began.elapsed() < Duration::from_secs(10),
            "{case}: the server cancelled the call"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn an_mcp_json_connects_every_server_it_names() {
    // A variable every test environment has stands in for a token kept in the environment
    // (setting one here would race the other tests' threads).
    let token = std::env::var("PATH").expect("PATH is set");
    let served = serve_with(HttpOptions::default().bearer_token(token)).await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mcp.json");
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/fake_mcp_server.py"
    );
    let config = json!({"mcpServers": {
        "notes": {"type": "http", "url": served.url, "headers": {"Authorization": "Bearer ${PATH}"}},
        "fake": {"command": "python3", "args": [script], "env": {"FAKE_STARTS": dir.path().join("starts").display().to_string()}},
    }});
    std::fs::write(&path, config.to_string()).unwrap();
    let servers = McpTools::from_config(&path).await.expect("both connect");
    let names: Vec<&str> = servers.iter().map(McpTools::name).collect();
    assert_eq!(names, ["notes", "fake"]);
    assert_eq!(servers[0].tools().len(), served.local.len());
    assert_eq!(servers[1].tools().len(), 9);
    // `env` reached the stdio server.
    assert_eq!(
        std::fs::read_to_string(dir.path().join("starts"))
            .unwrap()
            .lines()
            .count(),
        1
    );

    // Without the token the HTTP server refuses, and the error names the server.
    let config = json!({"mcpServers": {"notes": {"url": served.url}}});
    std::fs::write(&path, config.to_string()).unwrap();
    let refused = McpTools::from_config(&path).await.unwrap_err().to_string();
    assert!(
        refused.starts_with("MCP server `notes` could not be initialized: "),
        "{refused}"
    );
    // A server that cannot be started is named too.
    let config = json!({"mcpServers": {"gone": {"command": "/nonexistent/toolnexus-27"}}});
    std::fs::write(&path, config.to_string()).unwrap();
    let missing = McpTools::from_config(&path).await.unwrap_err().to_string();
    assert!(
        missing
            .starts_with("MCP server `gone` could not be started (`/nonexistent/toolnexus-27`): "),
        "{missing}"
    );
    let unreadable = McpTools::from_config(dir.path().join("none.json"))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        unreadable.contains("none.json: cannot be read: "),
        "{unreadable}"
    );
}

#[tokio::test]
async fn an_http_server_that_goes_away_answers_the_call_and_is_reached_again_when_back() {
    let options = || HttpOptions::default().shutdown_grace(Duration::from_millis(100));
    let served = serve_with(options()).await;
    let remote = connect(&served, None)
        .await
        .with_call_timeout(Duration::from_secs(20));
    let toolkit = Arc::new(Toolkit::new().with_all(remote.tools()));
    let ctx = ToolContext::default();
    assert_eq!(
        toolkit
            .execute("add", json!({"a": 1, "b": 2}), &ctx)
            .await
            .output,
        "3"
    );

    let call = tokio::spawn({
        let toolkit = Arc::clone(&toolkit);
        async move {
            toolkit
                .execute("slow", json!({}), &ToolContext::default())
                .await
        }
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    let addr = served
        .url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_owned();
    drop(served); // stops the server
    let began = Instant::now();
    let gone = call.await.unwrap();
    assert!(
        began.elapsed() < Duration::from_secs(10),
        "answered without waiting for the deadline"
    );
    assert!(gone.is_error);
    assert!(
        gone.output
            .starts_with("MCP server `notes` could not be reached: "),
        "{}",
        gone.output
    );
    assert!(
        gone.output.ends_with(" (calling `slow`)"),
        "{}",
        gone.output
    );

    let down = toolkit.execute("add", json!({"a": 1, "b": 2}), &ctx).await;
    assert!(down.is_error);
    assert!(
        down.output
            .starts_with("MCP server `notes` could not be reached: "),
        "{}",
        down.output
    );

    // The server comes back on the same address: the next call reaches it.
    let calls = Arc::new(AtomicUsize::new(0));
    let http = HttpServer::bind(
        addr.as_str(),
        McpServer::new(local_toolkit(&calls)),
        options(),
    )
    .await
    .unwrap();
    let (_stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(http.run_until(async {
        let _ = stopped.await;
    }));
    let began = Instant::now();
    loop {
        let back = toolkit.execute("add", json!({"a": 1, "b": 2}), &ctx).await;
        if back.output == "3" {
            break;
        }
        assert!(
            began.elapsed() < Duration::from_secs(15),
            "reached again: {}",
            back.output
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
