//! Three stateless replicas with one state key behind a real load balancer, round robin:
//! 2,000 calls and 50 suspensions whose retry lands on another replica. Run by
//! `scripts/load-balancer.sh`, which starts nginx in front of the ports it passes here
//! (`TOOLNEXUS_LB_URL`, `TOOLNEXUS_LB_REPLICAS`); ignored otherwise.
#![cfg(feature = "mcp-http")]

use crate::common::mcp_client;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use rmcp::model::{CallToolRequestParams, CallToolResponse, ProtocolVersion};
use serde_json::{Value, json};
use toolnexus::mcp::{HttpOptions, HttpServer, McpServer};
use toolnexus::{Request, ToolContext, ToolResult, Toolkit, define_tool, pending};

use mcp_client::{Modes, TestClient, accept_every, connect_http};

const KEY: &str = "the key every replica is given, 32 bytes or more";
const CALLS: usize = 2_000;
const SUSPENSIONS: usize = 50;

/// Replica `replica`'s tools: `add`, counted, and `delete_note`, which asks first and says
/// on which replica it asked and on which it ran.
fn toolkit(replica: usize, served: Arc<AtomicUsize>) -> Toolkit {
    let schema = |properties: Value| json!({"type": "object", "properties": properties});
    let add = define_tool(
        "add",
        "Adds",
        schema(json!({"a": {"type": "integer"}, "b": {"type": "integer"}})),
    )
    .unwrap()
    .sync(move |args: Value, _: &ToolContext| {
        served.fetch_add(1, Ordering::SeqCst);
        ToolResult::ok((args["a"].as_i64().unwrap() + args["b"].as_i64().unwrap()).to_string())
    });
    let delete = define_tool(
        "delete_note",
        "Deletes a note",
        schema(json!({"id": {"type": "integer"}})),
    )
    .unwrap()
    .sync(move |args: Value, ctx: &ToolContext| match &ctx.answer {
        Some(answer) if answer.ok => {
            ToolResult::ok(format!("deleted note {} on replica {replica}", args["id"]))
        }
        _ => pending(Request::new(
            "approval",
            format!("Delete note {} (asked on replica {replica})?", args["id"]),
        )),
    });
    Toolkit::new().with(add).with(delete)
}

fn call(name: &str, arguments: Value) -> CallToolRequestParams {
    CallToolRequestParams::new(name.to_owned())
        .with_arguments(arguments.as_object().unwrap().clone())
}

fn replica_in(text: &str, after: &str) -> usize {
    let at = text
        .find(after)
        .unwrap_or_else(|| panic!("{after:?} in {text}"))
        + after.len();
    text[at..].chars().next().unwrap().to_digit(10).unwrap() as usize
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a load balancer in front: scripts/load-balancer.sh"]
async fn replicas_behind_a_load_balancer_lose_nothing() {
    let url = std::env::var("TOOLNEXUS_LB_URL").expect("TOOLNEXUS_LB_URL");
    let ports = std::env::var("TOOLNEXUS_LB_REPLICAS").expect("TOOLNEXUS_LB_REPLICAS");
    let mut served = Vec::new();
    for (replica, port) in ports.split(',').enumerate() {
        let count = Arc::new(AtomicUsize::new(0));
        served.push(Arc::clone(&count));
        let server = McpServer::new(toolkit(replica, count))
            .with_state_key(KEY)
            .unwrap();
        let http = HttpServer::bind(
            format!("127.0.0.1:{port}"),
            server,
            HttpOptions::new().stateless(true),
        )
        .await
        .unwrap();
        tokio::spawn(http.run_until(std::future::pending()));
    }
    let revision = ProtocolVersion::V_2026_07_28;
    let (client, _) = connect_http(&url, TestClient::new(revision, Modes::Form)).await;

    let mut lost = 0;
    for n in 0..CALLS as i64 {
        match client.call_tool(call("add", json!({"a": n, "b": 1}))).await {
            Ok(result)
                if result.content[0].as_text().map(|t| t.text.as_str())
                    == Some(&(n + 1).to_string()) => {}
            other => {
                lost += 1;
                eprintln!("call {n}: {other:?}");
            }
        }
    }
    let per_replica: Vec<usize> = served
        .iter()
        .map(|count| count.load(Ordering::SeqCst))
        .collect();
    eprintln!("{CALLS} calls: {lost} lost; served per replica {per_replica:?}");
    assert_eq!(lost, 0);
    assert_eq!(per_replica.iter().sum::<usize>(), CALLS);
    assert!(
        per_replica.iter().all(|&count| count > 0),
        "{per_replica:?}"
    );

    let (mut completed, mut elsewhere) = (0, 0);
    for id in 0..SUSPENSIONS {
        let asked = client
            .call_tool_once(call("delete_note", json!({"id": id})))
            .await
            .unwrap();
        let CallToolResponse::InputRequired(question) = asked else {
            panic!("expected input_required, got {asked:?}");
        };
        let asked_on = replica_in(
            &serde_json::to_string(&question).unwrap(),
            "asked on replica ",
        );
        let responses = accept_every(&question);
        let retry = call("delete_note", json!({"id": id}))
            .with_input_responses(responses)
            .with_request_state(question.request_state.clone().unwrap());
        let CallToolResponse::Complete(done) = client.call_tool_once(retry).await.unwrap() else {
            panic!("the retry of {id} completes");
        };
        let text = done.content[0].as_text().unwrap().text.clone();
        assert!(
            text.starts_with(&format!("deleted note {id} on replica")),
            "{text}"
        );
        completed += 1;
        if replica_in(&text, "on replica ") != asked_on {
            elsewhere += 1;
        }
    }
    eprintln!(
        "{SUSPENSIONS} suspensions: {completed} completed, {elsewhere} retried on another replica"
    );
    assert_eq!(completed, SUSPENSIONS);
    assert_eq!(
        elsewhere, SUSPENSIONS,
        "round robin sends each retry to the next replica"
    );
    client.cancel().await.unwrap();
}
