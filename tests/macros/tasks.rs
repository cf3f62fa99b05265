//! `#[tool(task)]` and `#[tool(task = "required")]` (SPEC §14), on fns, on `#[toolbox]`
//! methods and on `ToolDef::task`.

use std::sync::Arc;

use serde_json::{Value, json};
use toolnexus::task::TaskSupport;
use toolnexus::{Tool, ToolContext, define_tool, tool, toolbox};

/// Builds the quarterly report.
#[tool(task)]
async fn quarterly_report(quarter: u8) -> String {
    format!("Q{quarter}")
}

/// Publishes a report.
#[tool(task = "required", approval = "Publish {name}?")]
async fn publish_report(name: String) -> String {
    format!("published {name}")
}

/// Says it may run as a task, in so many words.
#[tool(task = "optional")]
async fn spelled_out() -> String {
    String::new()
}

/// Answers at once.
#[tool]
async fn inline() -> String {
    String::new()
}

struct Reports;

#[toolbox]
impl Reports {
    /// Crawls the archive.
    #[tool(task = "required")]
    async fn crawl(&self, depth: u8) -> String {
        format!("crawled to {depth}")
    }

    /// Counts the archive.
    #[tool]
    async fn count(&self) -> u32 {
        0
    }
}

#[test]
fn the_attribute_sets_what_the_tool_says_and_nothing_else() {
    assert_eq!(QuarterlyReportTool.task_support(), TaskSupport::Optional);
    assert_eq!(SpelledOutTool.task_support(), TaskSupport::Optional);
    assert_eq!(PublishReportTool.task_support(), TaskSupport::Required);
    assert_eq!(InlineTool.task_support(), TaskSupport::Forbidden);
    // The schema and the approval gate are as without it.
    assert_eq!(
        Value::Object(QuarterlyReportTool.input_schema().clone())["required"],
        json!(["quarter"])
    );
}

#[tokio::test]
async fn a_task_tool_still_runs_inline_and_keeps_its_approval_gate() {
    let ctx = ToolContext::default();
    let done = QuarterlyReportTool
        .execute(json!({"quarter": 3}), &ctx)
        .await;
    assert_eq!(done.output, "Q3");
    let asked = PublishReportTool.execute(json!({"name": "q3"}), &ctx).await;
    assert_eq!(asked.pending().unwrap().prompt, "Publish q3?");
}

#[test]
fn toolbox_methods_take_it_too() {
    let tools = Arc::new(Reports).tools();
    let support: Vec<(&str, TaskSupport)> = tools
        .iter()
        .map(|tool| (tool.name(), tool.task_support()))
        .collect();
    assert_eq!(
        support,
        [
            ("crawl", TaskSupport::Required),
            ("count", TaskSupport::Forbidden)
        ]
    );
}

#[test]
fn tools_defined_at_run_time_say_it_with_tool_def_task() {
    let make = || define_tool("crawl", "Crawls", json!({"type": "object"})).unwrap();
    let plain = make().run(|_: Value, _: ToolContext| async { "ok" });
    assert_eq!(plain.task_support(), TaskSupport::Forbidden);
    for support in [TaskSupport::Optional, TaskSupport::Required] {
        let tool = make()
            .task(support)
            .run(|_: Value, _: ToolContext| async { "ok" });
        assert_eq!(tool.task_support(), support);
        assert_eq!(support.to_string(), support.as_str());
    }
}
