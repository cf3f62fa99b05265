use toolnexus::{tool, toolbox};

struct Counter;

#[toolbox]
impl Counter {
    /// Says hello.
    #[tool]
    fn hello() -> &'static str {
        "hello"
    }
}

fn main() {}
