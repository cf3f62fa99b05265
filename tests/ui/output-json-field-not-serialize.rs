use toolnexus::ToolOutput;

struct Summary {
    deployed: u32,
}

#[derive(ToolOutput)]
enum Outcome {
    #[output(json)]
    Report(Summary),
    #[output(json)]
    Both { count: u32, summary: Summary },
}

fn main() {}
