use toolnexus::tool;

/// Adds two numbers.
///
/// # Arguments
///
/// * `a` - The first number
/// * `c` - The second number
#[tool]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

fn main() {}
