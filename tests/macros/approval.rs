//! The approval gate (SPEC §10A): `#[tool(approval = "…")]`, on `#[toolbox]` methods and on
//! `ToolDef::approval`, driven by `Toolkit::call`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use toolnexus::{
    Answer, Reason, Request, ToolContext, ToolResult, Toolkit, define_tool, tool, toolbox, tools,
};

// Every path `delete` ran for. Tests run in parallel, so each counts only its own paths.
static DELETED: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn times_deleted(path: &str) -> usize {
    DELETED
        .lock()
        .unwrap()
        .iter()
        .filter(|deleted| *deleted == path)
        .count()
}

/// Deletes a file.
#[tool(approval = "Delete {path} from {env}? ({{really}}, {force:?})")]
fn delete(
    path: &str,
    #[param(default = "staging")] env: String,
    force: Option<bool>,
    ctx: &ToolContext,
) -> String {
    let _ = (ctx, force);
    DELETED.lock().unwrap().push(path.to_owned());
    format!("deleted {path} from {env}")
}

fn answer(request: &Request, ok: bool) -> ToolContext {
    ToolContext {
        answer: Some(Answer {
            id: request.id.clone(),
            ok,
            data: None,
            reason: (!ok).then_some(Reason::Declined),
        }),
        ..ToolContext::default()
    }
}

#[tokio::test]
async fn the_gate_asks_first_and_runs_only_when_approved() {
    let toolkit = Toolkit::new().with_all(tools![delete]);
    let args = r#"{"path": "/tmp/x", "force": null}"#;
    let asked = toolkit
        .execute_json("delete", args, &ToolContext::default())
        .await;
    let request = asked.pending().expect("the first call asks");
    assert!(asked.is_error);
    assert_eq!(request.kind, "approval");
    assert_eq!(
        request.prompt,
        "Delete /tmp/x from staging? ({really}, None)"
    );
    assert_eq!(asked.output, request.prompt);
    // The arguments as received, with the defaulted one filled in: what will run.
    assert_eq!(
        request.data,
        Some(
            json!({"path": "/tmp/x", "env": "staging"})
                .as_object()
                .unwrap()
                .clone()
        )
    );
    assert_eq!(times_deleted("/tmp/x"), 0, "ran before approval");

    let declined = toolkit
        .execute_json("delete", args, &answer(&request, false))
        .await;
    assert_eq!(
        declined,
        ToolResult::error("declined/expired: Delete /tmp/x from staging? ({really}, None)")
    );
    assert_eq!(times_deleted("/tmp/x"), 0, "ran when declined");

    let approved = toolkit
        .execute("delete", json!({"path": "/tmp/x"}), &answer(&request, true))
        .await;
    assert_eq!(approved, ToolResult::ok("deleted /tmp/x from staging"));
    assert_eq!(times_deleted("/tmp/x"), 1);
}

#[tokio::test]
async fn bad_arguments_never_reach_a_human() {
    let toolkit = Toolkit::new().with_all(tools![delete]);
    let result = toolkit
        .execute_json("delete", r#"{"path": 7}"#, &ToolContext::default())
        .await;
    assert!(!result.is_pending());
    assert_eq!(
        result.output,
        "invalid arguments for `delete`: field `path`: invalid type: integer `7`, expected a string"
    );
}

#[tokio::test]
async fn toolkit_call_drives_the_gate() {
    let toolkit = Toolkit::new().with_all(tools![delete]);
    let args = json!({"path": "/srv/a", "env": "production", "force": true});
    let approved = toolkit
        .call("delete", args.clone(), |request: Request| async move {
            assert_eq!(
                request.prompt,
                "Delete /srv/a from production? ({really}, Some(true))"
            );
            assert_eq!(request.data.as_ref().map(|data| data.len()), Some(3));
            Answer {
                id: request.id,
                ok: true,
                data: None,
                reason: None,
            }
        })
        .await;
    assert_eq!(approved, ToolResult::ok("deleted /srv/a from production"));
    let declined = toolkit
        .call("delete", args, |request: Request| async move {
            Answer {
                id: request.id,
                ok: false,
                data: None,
                reason: Some(Reason::Expired),
            }
        })
        .await;
    assert_eq!(
        declined,
        ToolResult::error(
            "declined/expired: Delete /srv/a from production? ({really}, Some(true))"
        )
    );
}

struct Shelf {
    removed: AtomicUsize,
}

#[toolbox]
impl Shelf {
    /// Removes a book.
    #[tool(approval = "Remove {title}?")]
    fn remove(&self, title: String) -> String {
        self.removed.fetch_add(1, Ordering::SeqCst);
        format!("removed {title}")
    }
}

#[tokio::test]
async fn a_toolbox_method_can_ask_too() {
    let shelf = Arc::new(Shelf {
        removed: AtomicUsize::new(0),
    });
    let toolkit = Toolkit::new().with_all(Arc::clone(&shelf).tools());
    let result = toolkit
        .call(
            "remove",
            json!({"title": "Dune"}),
            |request: Request| async move {
                assert_eq!(request.prompt, "Remove Dune?");
                Answer {
                    id: request.id,
                    ok: true,
                    data: None,
                    reason: None,
                }
            },
        )
        .await;
    assert_eq!(result.output, "removed Dune");
    assert_eq!(shelf.removed.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_tool_def_can_ask_too() {
    let schema = json!({
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "recursive": {"type": "boolean", "default": false},
            "mode": {"type": "object"},
        },
        "required": ["path"],
    });
    let runs = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&runs);
    let remove = define_tool("remove", "Removes a path", schema)
        .unwrap()
        .approval("Remove {path} (recursive: {recursive}, mode {mode}, {missing}, {{x}})?")
        .sync(move |args: Value, _: &ToolContext| {
            counter.fetch_add(1, Ordering::SeqCst);
            format!("removed {}", args["path"].as_str().unwrap_or_default())
        });
    let toolkit = Toolkit::new().with(remove);
    let asked = toolkit
        .execute(
            "remove",
            json!({"path": "/a", "mode": {"k": 1}}),
            &ToolContext::default(),
        )
        .await;
    let request = asked.pending().expect("asks first");
    assert_eq!(
        request.prompt,
        r#"Remove /a (recursive: false, mode {"k":1}, {missing}, {x})?"#
    );
    assert_eq!(
        Value::Object(request.data.unwrap()),
        json!({"path": "/a", "recursive": false, "mode": {"k": 1}})
    );
    assert_eq!(runs.load(Ordering::SeqCst), 0);
    let result = toolkit
        .call(
            "remove",
            json!({"path": "/a"}),
            |request: Request| async move {
                Answer {
                    id: request.id,
                    ok: true,
                    data: None,
                    reason: None,
                }
            },
        )
        .await;
    assert_eq!(result.output, "removed /a");
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}
