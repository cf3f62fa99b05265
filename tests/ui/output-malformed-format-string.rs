use toolnexus::ToolOutput;

#[derive(ToolOutput)]
enum Outcome {
    #[output("unterminated {0")]
    Open(String),
    #[output("stray } brace")]
    Close,
    #[output("implicit {}")]
    Implicit(String),
    #[output("star {0:.*}")]
    Star(f64),
}

fn main() {}
