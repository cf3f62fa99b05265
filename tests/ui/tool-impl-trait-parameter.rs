use toolnexus::tool;

/// Echoes its input.
#[tool]
fn echo(text: impl Into<String>) -> String {
    text.into()
}

fn main() {}
