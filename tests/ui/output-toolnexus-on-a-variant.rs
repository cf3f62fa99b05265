use toolnexus::ToolOutput;

#[derive(ToolOutput)]
enum Moved {
    #[toolnexus(crate = "toolnexus")]
    #[output("moved to {0}")]
    To(f64),
    #[output("stuck at {at}")]
    Stuck {
        #[toolnexus(crate = "toolnexus")]
        at: f64,
    },
}

fn main() {}
