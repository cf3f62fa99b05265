use toolnexus::tool;

/// Shouts a text.
#[tool]
fn shout(text: &&str) -> String {
    text.to_uppercase()
}

fn main() {}
