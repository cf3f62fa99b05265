use toolnexus::{tool, toolbox};

struct Counter;

#[toolbox]
impl Counter {
    /// Reads the counter.
    #[tool]
    fn read(&self) -> u32 {
        0
    }

    /// Reads the counter again.
    #[tool(name = "read")]
    fn read_again(&self) -> u32 {
        0
    }
}

fn main() {
    // The failed toolbox still has `tools()`, so this line adds no second error.
    let _tools = std::sync::Arc::new(Counter).tools();
}
