//! `McpTools` in front of this repository's `examples/mcp_server` over stdio, on 2026-07-28
//! and on the 2025-* revisions: approve, decline and form input cross the boundary, and
//! `examples/mcp_agent` runs its loop with a remote approval. Runs both examples as `cargo test`
//! built them (`examples.rs` says how to build them for a run of this binary alone).
#![cfg(feature = "mcp-client")]

use std::path::PathBuf;
use std::process::Command;

use serde_json::json;
use toolnexus::mcp::McpTools;
use toolnexus::{Answer, Reason, Request, ToolContext, ToolResult, Toolkit};

/// The built example `name` (`mcp_server`, `mcp_agent`), as `cargo test` built it for
/// `examples.rs` (with every feature: `cargo test --workspace --all-features`).
fn example(name: &str) -> PathBuf {
    crate::examples::example(name)
}

fn answer(ok: bool, data: Option<serde_json::Value>) -> Answer {
    Answer {
        id: String::new(),
        ok,
        data: data.and_then(|data| data.as_object().cloned()),
        reason: (!ok).then_some(Reason::Declined),
    }
}

#[tokio::test]
async fn the_loop_rule_runs_through_our_stdio_server_on_every_revision() {
    let server = example("mcp_server").display().to_string();
    for revision in [None, Some("2025-11-25"), Some("2025-06-18")] {
        let mut builder = McpTools::command(&server, Vec::<String>::new());
        if let Some(revision) = revision {
            builder = builder.protocol_version(revision);
        }
        // A 2025-* server asks during the call, through the handler; a 2026-07-28 one
        // suspends the call, and `Toolkit::call`'s `wait_for` answers.
        let scripted = std::sync::Mutex::new(vec![
            answer(true, Some(json!({"env": "production"}))),
            answer(false, None),
            answer(true, None),
        ]);
        let remote = builder
            .connect()
            .await
            .expect("the example server starts")
            .on_elicitation(move |request: Request| {
                let next = scripted.lock().unwrap().pop().expect("a scripted answer");
                std::future::ready(Answer {
                    id: request.id,
                    ..next
                })
            });
        let expected_revision = revision.unwrap_or("2026-07-28");
        assert_eq!(
            remote.protocol_version().await.as_deref(),
            Some(expected_revision)
        );
        let toolkit = Toolkit::new().with_all(remote.tools());
        let reply = |ok, data| {
            move |request: Request| {
                std::future::ready(Answer {
                    id: request.id,
                    ..answer(ok, data)
                })
            }
        };

        let approved = toolkit
            .call("delete_note", json!({"id": 4}), reply(true, None))
            .await;
        assert_eq!(approved.output, "deleted note 4", "{expected_revision}");
        let declined = toolkit
            .call("delete_note", json!({"id": 5}), reply(false, None))
            .await;
        assert!(declined.is_error, "{expected_revision}");
        assert!(
            declined.output.starts_with("declined/expired: "),
            "{expected_revision}: {}",
            declined.output
        );
        let form = toolkit
            .call(
                "pick_environment",
                json!({}),
                reply(true, Some(json!({"env": "production"}))),
            )
            .await;
        assert_eq!(
            form.output, "deploying to production",
            "{expected_revision}"
        );

        let stats = toolkit
            .execute("note_stats", json!({}), &ToolContext::default())
            .await;
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&stats.output).unwrap(),
            json!({"notes": 3, "words": 120})
        );
        let shot = toolkit
            .execute("screenshot", json!({}), &ToolContext::default())
            .await;
        assert_eq!(shot.parts.len(), 1, "{expected_revision}");
    }
}

#[test]
fn the_mcp_agent_example_loads_deferred_tools_by_search_and_answers_a_remote_approval() {
    let output = Command::new(example("mcp_agent"))
        .output()
        .expect("the example runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // However many tools the example server has, the agent read them all; the toolkit holds
    // them, the local tool and the search.
    let all = crate::examples::notes_tools(&stdout) + 2;
    for line in [
        // SPEC §15: the server's tools are deferred until a search loads them.
        format!("turn 0: sends 2 of {all} tools: word_count, search_tools"),
        "  > search_tools {\"query\":\"weather in a city\",\"limit\":1} => notes_get_weather: Current weather for a city.".to_owned(),
        format!("turn 1: sends 3 of {all} tools: word_count, notes_get_weather, search_tools"),
        format!("turn 2: sends 4 of {all} tools: word_count, notes_get_weather, notes_delete_note, search_tools"),
        "  > notes_get_weather {\"city\":\"Paris\"} => Paris: 18°C, dry".to_owned(),
        "  > word_count {\"text\":\"buy milk and eggs\"} => 4".to_owned(),
        "  ~ asked (input): Delete note 3?".to_owned(),
        "  > notes_delete_note {\"id\":3} => deleted note 3".to_owned(),
    ] {
        assert!(
            stdout.lines().any(|seen| seen == line),
            "missing {line:?} in\n{stdout}"
        );
    }
}

/// `mcp_agent`'s options are `--filesystem DIR` (`scripts/mcp-agent-filesystem.sh` runs it
/// with the real server) and `--login`; anything else is refused with the usage, before a
/// server starts.
#[test]
fn the_mcp_agent_example_refuses_an_unknown_argument_with_its_usage() {
    for args in [
        &["--bogus"][..],
        &["--filesystem"],
        &["--filesystem", "a", "b"],
        &["--login", "now"],
        &["--login", "--filesystem", "a"],
        &["--filesystem", "a", "--login"],
    ] {
        let output = Command::new(example("mcp_agent"))
            .args(args)
            .output()
            .expect("the example runs");
        assert!(!output.status.success(), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("usage: mcp_agent [--filesystem DIR | --login]"),
            "{args:?}: {stderr}"
        );
        assert!(output.stdout.is_empty(), "{args:?}: no server was read");
    }
}

/// `examples/conformance_server` (the MCP conformance suite's fixture tools) through
/// `McpTools`, on every revision: every tool answers what its scenario checks, progress
/// arrives whole before the call returns, and a form is answered through `Toolkit::call`.
#[tokio::test]
async fn every_conformance_fixture_answers_through_mcp_tools() {
    let server = example("conformance_server").display().to_string();
    for revision in [None, Some("2025-11-25"), Some("2025-06-18")] {
        let mut builder = McpTools::command(&server, Vec::<String>::new());
        if let Some(revision) = revision {
            builder = builder.protocol_version(revision);
        }
        let remote = builder.connect().await.expect("the example server starts");
        let toolkit = Toolkit::new().with_all(remote.tools());
        assert_eq!(toolkit.len(), 28, "{revision:?}");
        let run = |name: &'static str, ctx: ToolContext| {
            let toolkit = &toolkit;
            async move { toolkit.execute(name, json!({}), &ctx).await }
        };
        let text = run("test_simple_text", ToolContext::default()).await;
        assert_eq!(text.output, "This is a simple text response for testing.");
        for (tool, mime) in [
            ("test_image_content", "image/png"),
            ("test_audio_content", "audio/wav"),
            ("test_embedded_resource", "text/plain"),
        ] {
            let result = run(tool, ToolContext::default()).await;
            let media = result.parts[0].media().expect("a media part");
            assert_eq!(media.mime_type, mime, "{tool} {revision:?}");
        }
        let mixed = run("test_multiple_content_types", ToolContext::default()).await;
        assert_eq!(
            (mixed.output.as_str(), mixed.parts.len()),
            ("Multiple content types test:", 2)
        );
        let failed = run("test_error_handling", ToolContext::default()).await;
        assert!(failed.is_error);
        assert_eq!(
            failed.output,
            "This tool intentionally returns an error for testing"
        );

        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let record = std::sync::Arc::clone(&seen);
        let ctx = ToolContext::default().on_progress(move |done, total, _| {
            record.lock().unwrap().push((done, total));
        });
        let progress = run("test_tool_with_progress", ctx).await;
        assert_eq!(progress.output, "progress reported");
        assert_eq!(
            *seen.lock().unwrap(),
            [
                (0.0, Some(100.0)),
                (50.0, Some(100.0)),
                (100.0, Some(100.0))
            ]
        );

        let header = toolkit.get("test_header_param").unwrap().input_schema();
        assert_eq!(header["properties"]["region"]["x-mcp-header"], "Region");

        // A 2025-* server asks during the call, through the handler; a 2026-07-28 one
        // suspends the call, and `Toolkit::call`'s `wait_for` answers.
        let name = json!({"name": "Alice"});
        let remote_answer = name.clone();
        let remote = remote.on_elicitation(move |request: Request| {
            std::future::ready(Answer {
                id: request.id,
                ..answer(true, Some(remote_answer.clone()))
            })
        });
        let toolkit = Toolkit::new().with_all(remote.tools());
        let hello = toolkit
            .call(
                "test_input_required_result_elicitation",
                json!({}),
                |request: Request| {
                    std::future::ready(Answer {
                        id: request.id,
                        ..answer(true, Some(name.clone()))
                    })
                },
            )
            .await;
        assert_eq!(hello.output, "Hello, Alice!", "{revision:?}");

        // The tasks fixtures: on 2026-07-28 `McpTools` follows each task to its end; older
        // revisions have no extension, so they run inline and a required task is refused.
        let ok = |output: &str| (output.to_owned(), false);
        let text = |result: &ToolResult| (result.output.clone(), result.is_error);
        let slow = toolkit
            .execute(
                "slow_compute",
                json!({"seconds": 1}),
                &ToolContext::default(),
            )
            .await;
        assert_eq!(
            text(&slow),
            ok("computed in 1 s (no label)"),
            "{revision:?}"
        );
        let failing = run("failing_job", ToolContext::default()).await;
        assert!(failing.is_error, "{revision:?}: {failing:?}");
        let reply = |data: serde_json::Value| {
            move |request: Request| {
                std::future::ready(Answer {
                    id: request.id,
                    ..answer(true, Some(data))
                })
            }
        };
        let deleted = toolkit
            .call(
                "confirm_delete",
                json!({"filename": "a.txt"}),
                reply(json!({})),
            )
            .await;
        let greeted = toolkit
            .call(
                "test_tool_with_task",
                json!({}),
                reply(json!({"name": "Bo"})),
            )
            .await;
        if revision.is_none() {
            assert_eq!(failing.output, "failing_job failed, as it always does");
            assert_eq!(text(&deleted), ok("deleted a.txt"));
            // Asked inline, then a task that `McpTools` polls to its result.
            let bo = "Hello, Bo! (answered before the task began)";
            assert_eq!(text(&greeted), ok(bo));
        } else {
            let why = if revision == Some("2025-11-25") {
                "call it with `task` (2025-11-25's tasks)"
            } else {
                "the client must declare the 2026-07-28 extension `io.modelcontextprotocol/tasks`"
            };
            let refused = format!(
                "MCP server `conformance_server` refused the call: tool `failing_job` runs only as a task: {why} (calling `failing_job`)"
            );
            assert_eq!(text(&failing), (refused, true));
            assert!(deleted.is_error, "{revision:?}: {deleted:?}");
            // A 2025-* server asks through the handler, which answers "Alice".
            let alice = "Hello, Alice! (answered before the task began)";
            assert_eq!(text(&greeted), ok(alice));
        }
    }
}
