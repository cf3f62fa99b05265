use toolnexus::{ContentPart, ToolOutput};

#[derive(ToolOutput)]
enum Outcome {
    #[output(transparent)]
    Two(String, String),
    #[output(transparent)]
    OnlyAPart(#[part] ContentPart),
    #[output(json)]
    Nothing,
}

fn main() {}
