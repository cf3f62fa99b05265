use toolnexus::tool;

/// Repeats a word.
#[tool]
fn repeat<const N: usize>(word: String) -> String {
    word.repeat(N)
}

fn main() {}
