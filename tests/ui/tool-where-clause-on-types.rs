use toolnexus::tool;

/// Echoes its input.
#[tool]
fn echo(text: String) -> String
where
    String: Clone,
{
    text
}

fn main() {}
