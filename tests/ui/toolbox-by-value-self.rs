use toolnexus::{tool, toolbox};

struct Counter {
    value: u32,
}

#[toolbox]
impl Counter {
    /// Reads the counter.
    #[tool]
    fn read(self) -> u32 {
        self.value
    }
}

fn main() {}
