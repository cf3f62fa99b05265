//! `#[tool(crate = "…")]`, `#[toolbox(crate = "…")]` and the derives'
//! `#[toolnexus(crate = "…")]` for a dependency renamed in `Cargo.toml`: every path the
//! expansions name goes through the given one.
//!
//! `extern crate self as toolnexus` (in `main.rs`) makes `::toolnexus` name this test crate,
//! which has no `__private`: any generated path that ignored `crate = "…"` would fail to
//! compile here.

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

/// A point on a line.
#[derive(serde::Deserialize, serde::Serialize, tnx::JsonSchema)]
#[toolnexus(crate = "tnx")]
struct Point {
    /// Where it is
    x: f64,
}

#[derive(tnx::ToolOutput)]
#[toolnexus(crate = "::tnx")]
enum Moved {
    #[output("moved to {0}")]
    To(f64),
    #[output(json)]
    Stayed {
        at: Point,
        #[metadata]
        tries: u32,
    },
}

/// Moves a point.
#[tool(crate = "tnx")]
fn shift(point: Point, by: f64) -> Moved {
    if by == 0.0 {
        Moved::Stayed {
            at: point,
            tries: 1,
        }
    } else {
        Moved::To(point.x + by)
    }
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

#[tokio::test]
async fn both_derives_take_the_renamed_path() {
    let schema = tnx::schemars::schema_for!(Point);
    assert_eq!(schema.get("description").unwrap(), "A point on a line.");
    let ctx = ToolContext::default();
    let moved = ShiftTool
        .execute_json(r#"{"point": {"x": 1.0}, "by": 2.0}"#, &ctx)
        .await;
    assert_eq!(moved.output, "moved to 3");
    let stayed = ShiftTool
        .execute_json(r#"{"point": {"x": 1.0}, "by": 0.0}"#, &ctx)
        .await;
    assert_eq!(stayed.output, r#"{"x":1.0}"#);
    assert_eq!(stayed.metadata["tries"], 1);
    let properties = &ShiftTool.input_schema()["properties"];
    assert_eq!(
        properties["point"]["properties"]["x"]["description"],
        "Where it is"
    );
}
