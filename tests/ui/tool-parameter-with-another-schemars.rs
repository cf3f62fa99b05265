use toolnexus::tool;

// The user's own schemars, another major than toolnexus' (a `cargo add schemars` may pick one).
#[derive(serde::Deserialize, schemars08::JsonSchema)]
#[schemars(crate = "schemars08")]
struct Point {
    x: f64,
}

/// Reads a point.
#[tool]
fn norm(point: Point) -> f64 {
    point.x.abs()
}

fn main() {}
