use toolnexus::ToolOutput;

#[derive(ToolOutput)]
enum Outcome {
    Done { service: String, env: String },
    Pair(String, u32),
    Nothing,
    Raw(toolnexus::ToolResult),
}

#[derive(ToolOutput)]
struct Deployed {
    service: String,
}

fn main() {}
