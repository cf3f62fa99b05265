use toolnexus::{ContentPart, ToolOutput};

#[derive(ToolOutput)]
enum Outcome {
    #[output("chart for {city}")]
    Chart {
        city: String,
        #[part]
        png: ContentPart,
        #[part]
        path: String,
        #[part]
        thumbnails: Option<Vec<String>>,
    },
}

fn main() {}
