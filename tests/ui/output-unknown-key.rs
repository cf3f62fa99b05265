use toolnexus::ToolOutput;

#[derive(ToolOutput)]
enum Outcome {
    #[output(
        pending,
        kind = "approval",
        prompt = "Deploy {0}?",
        link = "https://ci/{0}"
    )]
    NeedsApproval(String),
}

fn main() {}
