use toolnexus::ToolOutput;

#[derive(ToolOutput)]
enum Outcome {
    #[output(pending, prompt = "Deploy {0}?")]
    NoKind(String),
    #[output(pending, kind = "approval")]
    NoPrompt(String),
    #[output(pending)]
    Neither(String),
}

fn main() {}
