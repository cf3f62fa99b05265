use toolnexus::tool;

/// Shouts a text.
#[tool]
fn shout(text: &mut String) -> String {
    text.make_ascii_uppercase();
    text.clone()
}

fn main() {}
