use toolnexus::ToolOutput;

struct Service;

#[derive(ToolOutput)]
enum Outcome {
    #[output("deployed {0}")]
    Done(Service),
    #[output("deployed {service} with {width}")]
    Named { service: Service, width: u8 },
    #[output("{name:>width$}")]
    Width { name: String, width: u8 },
}

fn main() {}
