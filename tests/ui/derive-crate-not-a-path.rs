use toolnexus::{JsonSchema, ToolOutput};

#[derive(ToolOutput)]
#[toolnexus(crate = "my toolnexus")]
#[output("done")]
struct Done;

#[derive(serde::Deserialize, JsonSchema)]
#[toolnexus(crate = 1)]
struct Point {
    x: f64,
}

fn main() {}
