use toolnexus::{tool, toolbox};

struct Counter;

#[toolbox(name = "counter")]
impl Counter {
    /// Counts.
    #[tool]
    fn count(&self) -> u32 {
        1
    }
}

fn main() {
    let _tools = std::sync::Arc::new(Counter).tools();
}
