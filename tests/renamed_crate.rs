//! `#[tool(crate = "…")]` and `#[toolbox(crate = "…")]` for a dependency renamed in
//! `Cargo.toml`: every path the expansion names goes through the given one.
//!
//! `extern crate self as toolnexus` makes `::toolnexus` name this test crate, which has no
//! `__private`: any generated path that ignored `crate = "…"` would fail to compile here.

extern crate self as toolnexus;
extern crate toolnexus as tnx;

use std::sync::Arc;

use tnx::{Tool, ToolContext, Toolkit, tool, toolbox, tools};

/// Adds two numbers.
#[tnx::tool(crate = "tnx", title = "Add", read_only)]
fn add(a: f64, #[param(default = 2.0)] b: f64, note: Option<&str>) -> tnx::Json<f64> {
    let _ = note;
    tnx::Json(a + b)
}

/// Deletes a file, after asking.
#[tnx::tool(crate = "::tnx", approval = "Delete {path}?")]
async fn delete(path: &str, ctx: &ToolContext) -> String {
    let _ = ctx;
    format!("deleted {path}")
}

struct Counter;

#[toolbox(crate = "tnx")]
impl Counter {
    /// Counts.
    #[tool]
    fn count(&self, by: u32) -> u32 {
        by
    }

    /// Counts again, with its own path.
    #[tool(crate = "::tnx")]
    fn recount(&self) -> u32 {
        0
    }
}

#[tokio::test]
async fn a_renamed_dependency_works_everywhere() {
    let toolkit = Toolkit::new()
        .with_all(tools![add, delete])
        .with_all(Arc::new(Counter).tools());
    let ctx = ToolContext::default();
    assert_eq!(
        toolkit
            .execute_json("add", r#"{"a": 1}"#, &ctx)
            .await
            .output,
        "3.0"
    );
    assert_eq!(AddTool.title(), Some("Add"));
    assert!(AddTool.output_schema().is_some());
    let asked = toolkit
        .execute_json("delete", r#"{"path": "/a"}"#, &ctx)
        .await;
    assert_eq!(asked.pending().unwrap().prompt, "Delete /a?");
    assert_eq!(
        toolkit
            .execute_json("count", r#"{"by": 4}"#, &ctx)
            .await
            .output,
        "4"
    );
    assert_eq!(toolkit.len(), 4);
}
