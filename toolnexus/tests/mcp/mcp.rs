//! The `mcp` feature: a Toolkit served through rmcp and driven by rmcp's own client over an
//! in-process pipe — initialize, tools/list, and tools/call for success, bad arguments, an
//! image, a file, a suspension, an unknown tool and a panic.
#![cfg(feature = "mcp")]

use crate::common;
use crate::common::mcp_client;

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RoleClient, RunningService};
use serde_json::{Map, Value, json};
use toolnexus::{
    Request, ToolContext, ToolResult, Toolkit, define_tool, parts::from_bytes, pending,
};

use common::add_tool;
use mcp_client::connect;

fn no_params() -> Value {
    json!({"type": "object", "properties": {}})
}

fn toolkit() -> Toolkit {
    let chart = define_tool("chart", "Draw a chart", no_params())
        .unwrap()
        .sync(|_: Value, _: &ToolContext| {
            ToolResult::ok("chart").with_part(from_bytes(b"\x89PNG", "image/png"))
        });
    let report = define_tool("report", "Write a report", no_params())
        .unwrap()
        .sync(|_: Value, _: &ToolContext| {
            let mut pdf = from_bytes(b"%PDF-1.7", "application/pdf");
            if let toolnexus::ContentPart::File(media) = &mut pdf {
                media.name = Some("q3 report.pdf".to_owned());
            }
            ToolResult::ok("report").with_part(pdf)
        });
    let deploy = define_tool("deploy", "Deploy to production", no_params())
        .unwrap()
        .run(|_: Value, _: ToolContext| async {
            pending(
                Request::new("authorization", "Sign in to deploy")
                    .with_id("pnd-test")
                    .with_url("https://auth.example.com/login"),
            )
        });
    let boom = define_tool("boom", "Always panics", no_params())
        .unwrap()
        .run(|_: Value, _: ToolContext| async {
            tokio::task::yield_now().await;
            if true {
                panic!("kaboom");
            }
            ToolResult::ok("unreachable")
        });
    Toolkit::new()
        .with(add_tool())
        .with(chart)
        .with(report)
        .with(deploy)
        .with(boom)
}

fn args(value: Value) -> Map<String, Value> {
    value.as_object().expect("an object").clone()
}

async fn call(
    client: &RunningService<RoleClient, ()>,
    name: &str,
    arguments: Option<Value>,
) -> CallToolResult {
    let mut params = CallToolRequestParams::new(name.to_owned());
    if let Some(arguments) = arguments {
        params = params.with_arguments(args(arguments));
    }
    client
        .call_tool(params)
        .await
        .expect("tools/call is never a protocol error")
}

/// `content` and `isError` as they travelled on the wire.
fn wire(result: &CallToolResult) -> Value {
    let value = serde_json::to_value(result).unwrap();
    json!({"content": value["content"], "isError": value["isError"]})
}

fn text(result: &CallToolResult) -> String {
    result.content[0]
        .as_text()
        .expect("the first block is the output text")
        .text
        .clone()
}

#[tokio::test]
async fn initialize_reports_toolnexus_with_tools() {
    let client = connect(toolkit()).await;
    let info = client.peer_info().expect("handshake done");
    let info = serde_json::to_value(&*info).unwrap();
    assert_eq!(info["serverInfo"]["name"], "toolnexus");
    assert_eq!(info["serverInfo"]["version"], env!("CARGO_PKG_VERSION"));
    assert!(info["capabilities"]["tools"].is_object(), "{info}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn tools_list_is_to_mcp() {
    let toolkit = toolkit();
    let expected = toolkit.to_mcp();
    let client = connect(toolkit).await;
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(serde_json::to_value(&tools).unwrap(), expected);
    let names: Vec<_> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    assert_eq!(names, ["add", "chart", "report", "deploy", "boom"]);
    assert_eq!(tools[0].description.as_deref(), Some("Add two numbers"));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn tools_call_goes_through_execute() {
    let toolkit = toolkit();
    let ctx = ToolContext::default();
    let client = connect(toolkit.clone()).await;

    // Success, and every result is exactly `ToolResult::to_mcp` of what `execute` returns.
    let cases = [
        ("add", json!({"a": 2, "b": 40})),
        ("add", json!({"a": "two"})),
        ("chart", json!({})),
        ("report", json!({})),
        ("deploy", json!({})),
        ("boom", json!({})),
    ];
    for (name, arguments) in cases {
        let mut direct = toolkit.execute(name, arguments.clone(), &ctx).await;
        if let Some(request) = direct.pending() {
            // SPEC §8C: this client cannot be asked, and the text says so.
            let needed = format!(
                "needs {} input, which this client cannot ask for: ",
                request.kind
            );
            direct.output.insert_str(0, &needed);
        }
        let served = call(&client, name, Some(arguments)).await;
        assert_eq!(wire(&served), direct.to_mcp(), "{name}");
    }

    let sum = call(&client, "add", Some(json!({"a": 2, "b": 40}))).await;
    assert_eq!(sum.is_error, Some(false));
    assert_eq!(text(&sum), "42");

    // No `arguments` at all means `{}`.
    let chart = call(&client, "chart", None).await;
    assert_eq!(chart.is_error, Some(false));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn failures_are_is_error_results() {
    let client = connect(toolkit()).await;

    let bad = call(&client, "add", Some(json!({"a": "two"}))).await;
    assert_eq!(bad.is_error, Some(true));
    assert!(
        text(&bad).starts_with("invalid arguments for `add`"),
        "{}",
        text(&bad)
    );

    // SPEC §8: over MCP an unknown name is the protocol's `-32602`, not a result.
    let unknown = client
        .call_tool(CallToolRequestParams::new("send_email").with_arguments(args(json!({}))))
        .await
        .expect_err("an unknown tool is a JSON-RPC error");
    let rmcp::ServiceError::McpError(unknown) = unknown else {
        panic!("{unknown:?}");
    };
    assert_eq!(
        (unknown.code.0, unknown.message.as_ref()),
        (-32602, "Unknown tool: send_email")
    );

    let panicked = call(&client, "boom", None).await;
    assert_eq!(panicked.is_error, Some(true));
    assert_eq!(text(&panicked), "tool `boom` panicked: kaboom");

    // The server keeps serving after all of that.
    let sum = call(&client, "add", Some(json!({"a": 1, "b": 2}))).await;
    assert_eq!(text(&sum), "3");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn images_and_files_are_mcp_content() {
    let client = connect(toolkit()).await;

    let chart = call(&client, "chart", None).await;
    let image = chart.content[1].as_image().expect("an image block");
    assert_eq!(image.data, "iVBORw==");
    assert_eq!(image.mime_type, "image/png");
    assert_eq!(
        wire(&chart)["content"][1],
        json!({"type": "image", "data": "iVBORw==", "mimeType": "image/png"})
    );

    let report = call(&client, "report", None).await;
    assert_eq!(
        wire(&report)["content"][1],
        json!({"type": "resource", "resource": {
            "uri": "attachment:///q3%20report.pdf",
            "mimeType": "application/pdf",
            "blob": "JVBERi0xLjc=",
        }})
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_suspension_the_client_cannot_answer_says_so_with_prompt_and_url() {
    let client = connect(toolkit()).await;
    let deploy = call(&client, "deploy", None).await;
    assert_eq!(deploy.is_error, Some(true));
    assert_eq!(
        text(&deploy),
        "needs authorization input, which this client cannot ask for: Sign in to deploy\n\
         https://auth.example.com/login"
    );
    client.cancel().await.unwrap();
}
