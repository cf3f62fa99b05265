use toolnexus::ToolOutput;

#[derive(ToolOutput)]
enum Outcome {
    #[output(pending, kind = "approval", prompt = "Deploy?")]
    NeedsApproval {
        #[metadata]
        pending: bool,
    },
}

fn main() {}
