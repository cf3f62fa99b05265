use toolnexus::tool;

/// Adds two numbers.
#[tool]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

mod math {
    use toolnexus::tool;

    /// Adds two integers.
    #[tool]
    pub fn add(a: i64, b: i64) -> i64 {
        a + b
    }
}

fn main() {
    let _tools = toolnexus::tools![add, math::add];
}
