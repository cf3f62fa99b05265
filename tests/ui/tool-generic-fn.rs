use toolnexus::tool;

/// Echoes its input.
#[tool]
fn echo<T: std::fmt::Display>(value: T) -> String {
    value.to_string()
}

fn main() {}
