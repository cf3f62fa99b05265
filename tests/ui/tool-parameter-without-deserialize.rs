use toolnexus::tool;

#[derive(toolnexus::schemars::JsonSchema)]
#[schemars(crate = "toolnexus::schemars")]
struct Point {
    x: f64,
}

/// Reads a point.
#[tool]
fn norm(point: Point) -> f64 {
    point.x.abs()
}

fn main() {}
