use toolnexus::tool;

/// Adds two numbers.
#[tool(readonly)]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

fn main() {}
