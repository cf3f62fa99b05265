use toolnexus::tool;

/// Shows a value.
#[tool]
fn show(value: &dyn std::fmt::Display) -> String {
    value.to_string()
}

fn main() {}
