use toolnexus::tool;

/// Adds two numbers.
#[tool(name = "add_two_numbers_together_and_return_their_sum_as_a_floating_point_value")]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

fn main() {}
