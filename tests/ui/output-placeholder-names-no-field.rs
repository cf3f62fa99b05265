use toolnexus::ToolOutput;

#[derive(ToolOutput)]
enum Outcome {
    #[output("deployed {service} to {environment}")]
    Done { service: String, env: String },
    #[output(error, "no such service: {1}")]
    Unknown(String),
    #[output(
        pending,
        kind = "approval",
        prompt = "Deploy {0}?",
        url = "https://ci/{job}"
    )]
    NeedsApproval { service: String },
    #[output("nothing here: {0}")]
    Empty,
}

fn main() {}
