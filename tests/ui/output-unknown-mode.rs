use toolnexus::ToolOutput;

#[derive(ToolOutput)]
enum Outcome {
    #[output(fail, "no such service: {0}")]
    Unknown(String),
    #[output(ok, "done")]
    Done,
}

fn main() {}
