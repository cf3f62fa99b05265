use toolnexus::ToolOutput;

struct Handle;

#[derive(ToolOutput)]
#[output("opened {path}")]
struct Opened {
    path: String,
    #[metadata]
    handle: Handle,
}

fn main() {}
