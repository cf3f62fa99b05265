use toolnexus::tool;

/// Adds two numbers.
#[tool]
fn add(#[param(minimum = 0)] a: f64, b: f64) -> f64 {
    a + b
}

fn main() {}
