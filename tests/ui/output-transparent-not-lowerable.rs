use toolnexus::ToolOutput;

struct Report;

#[derive(ToolOutput)]
enum Outcome {
    #[output(transparent)]
    Wrapped(Report),
    Raw(std::path::PathBuf),
}

fn main() {}
