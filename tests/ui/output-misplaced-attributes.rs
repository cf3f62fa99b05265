use toolnexus::{ContentPart, ToolOutput};

#[derive(ToolOutput)]
#[output("outcome")]
enum Outcome {
    #[part]
    #[output("done")]
    Done {
        #[output("field")]
        service: String,
    },
    #[output("chart")]
    Chart {
        #[part(inline)]
        png: ContentPart,
        #[part]
        #[metadata]
        thumbnail: ContentPart,
    },
    #[output("rows")]
    #[output("again")]
    Rows(#[metadata] u32),
}

fn main() {}
