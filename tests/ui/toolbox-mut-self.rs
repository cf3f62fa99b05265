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

fn main() {
    // The failed toolbox still has `tools()`, so this line adds no second error.
    let _tools = std::sync::Arc::new(Counter { value: 0 }).tools();
}
