use toolnexus::tool;

/// Adds two numbers.
#[tool]
fn add(a: f64, #[param(rename = "a")] b: f64) -> f64 {
    a + b
}

fn main() {}
