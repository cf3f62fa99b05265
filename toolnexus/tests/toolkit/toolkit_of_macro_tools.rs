//! A toolkit of `#[tool]` tools: the schemas the macro really emits pass the same provider
//! profile checks as the hand-written ones in `adapters.rs`, and the tools run through it.
//! The macro's own behaviour is tested in the tests package (`tests/macros/tool_macro.rs` and
//! beside it); this file stays here for the profile checkers in `common/`, which that
//! package's tests cannot reach. Runtime tests otherwise build their tools with
//! `define_tool`.

use crate::common;

use serde::Deserialize;
use serde_json::json;
use toolnexus::{JsonSchema, ToolContext, Toolkit, tool, tools};

use common::block_on;
use common::profile_checks::{check_gemini, check_strict, depth};

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Unit {
    Celsius,
    Fahrenheit,
}

#[derive(Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Shape {
    Circle { radius: f64 },
    Square { side: f64 },
}

#[derive(Deserialize, JsonSchema)]
struct Region {
    country: String,
    city: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
struct Node {
    name: String,
    children: Vec<Node>,
}

/// Forecast for a place.
#[tool]
fn forecast(
    region: Region,
    unit: Option<Unit>,
    #[param(default = 3)] days: u8,
    shape: Option<Shape>,
) -> String {
    let unit = match unit {
        Some(Unit::Celsius) | None => "C",
        Some(Unit::Fahrenheit) => "F",
    };
    let area = match shape {
        Some(Shape::Circle { radius }) => radius * radius * 3.0,
        Some(Shape::Square { side }) => side * side,
        None => 0.0,
    };
    format!("{} {:?} {days} {unit} {area}", region.country, region.city)
}

/// Lists a tree's node names, depth first.
#[tool]
fn node_names(tree: Node) -> String {
    fn walk(node: &Node, names: &mut Vec<String>) {
        names.push(node.name.clone());
        node.children.iter().for_each(|child| walk(child, names));
    }
    let mut names = Vec::new();
    walk(&tree, &mut names);
    names.join(",")
}

/// Panics after yielding once.
#[tool]
async fn explode(after: u32) -> String {
    tokio::task::yield_now().await;
    panic!("exploded after {after}")
}

fn toolkit() -> Toolkit {
    Toolkit::new().with_all(tools![forecast, node_names, explode])
}

#[test]
fn macro_schemas_pass_every_profile_check() {
    let tk = toolkit();
    let strict = tk.to_openai_strict();
    let gemini = tk.to_gemini();
    for (at, tool) in tk.tools().iter().enumerate() {
        let portable = serde_json::Value::Object(tool.input_schema().clone());
        check_strict(
            tool.name(),
            &portable,
            &strict[at]["function"]["parameters"],
        );
        let lowered = &gemini[0]["functionDeclarations"][at]["parameters"];
        check_gemini(tool.name(), lowered);
        assert!(!lowered.to_string().contains("$ref"), "{}", tool.name());
    }
    // The argument itself, three unrolled levels, then the cut: a list that must stay empty.
    let tree = &gemini[0]["functionDeclarations"][1]["parameters"]["properties"]["tree"];
    assert_eq!(depth(tree), GEMINI_RECURSION_DEPTH + 2);
    let cut = "/properties/children/items".repeat(GEMINI_RECURSION_DEPTH);
    assert_eq!(
        tree.pointer(&format!("{cut}/properties/children")),
        Some(&json!({"type": "array", "maxItems": 0, "items": {}}))
    );
}

#[test]
fn macro_tools_run_through_the_toolkit() {
    let tk = toolkit();
    let ctx = ToolContext::default();
    block_on(async {
        let result = tk
            .execute_json(
                "forecast",
                r#"{"region":{"country":"FR"},"unit":"fahrenheit"}"#,
                &ctx,
            )
            .await;
        assert_eq!(result.output, "FR None 3 F 0");
        let result = tk.execute_json("forecast", "", &ctx).await;
        assert!(result.is_error);
        assert!(
            result
                .output
                .starts_with("invalid arguments for `forecast`: "),
            "{}",
            result.output
        );
        let result = tk
            .execute(
                "node_names",
                json!({"tree": {"name": "a", "children": [{"name": "b", "children": []}]}}),
                &ctx,
            )
            .await;
        assert_eq!(result.output, "a,b");
        let result = tk.execute("explode", json!({"after": 1}), &ctx).await;
        assert_eq!(result.output, "tool `explode` panicked: exploded after 1");
        assert!(result.is_error);
    });
}

/// Gemini's recursion cut-off, as `Profile::Gemini` documents it: a recursive type is unrolled
/// three levels below the argument.
const GEMINI_RECURSION_DEPTH: usize = 3;
