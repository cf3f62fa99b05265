use toolnexus::tool;

/// Adds two numbers.
#[tool]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

fn main() {
    let _tools = toolnexus::tools![add, add];
}
