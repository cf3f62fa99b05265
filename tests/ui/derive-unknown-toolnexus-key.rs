use toolnexus::{JsonSchema, ToolOutput};

#[derive(ToolOutput)]
#[toolnexus(krate = "tnx")]
#[output("done")]
struct Done;

#[derive(serde::Deserialize, JsonSchema)]
#[toolnexus(crate = "toolnexus", crate = "toolnexus")]
struct Point {
    x: f64,
}

fn main() {}
