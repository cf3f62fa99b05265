use toolnexus::{tool, toolbox};

struct Counter {
    value: u32,
}

#[toolbox]
impl Counter {
    /// Increments the counter.
    #[tool]
    fn increment(&mut self) -> u32 {
        self.value += 1;
        self.value
    }
}

fn main() {}
