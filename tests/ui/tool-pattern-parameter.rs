use toolnexus::tool;

/// Adds a pair.
#[tool]
fn add((a, b): (f64, f64)) -> f64 {
    a + b
}

fn main() {}
