use toolnexus::tool;

/// Joins words.
#[tool]
fn join(words: Vec<&str>) -> String {
    words.join(" ")
}

fn main() {}
