use toolnexus::tool;

/// Scales by a factor.
#[tool]
fn scale(#[param(header = "Factor")] factor: f64) -> f64 {
    factor * 2.0
}

fn main() {}
