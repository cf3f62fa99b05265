use toolnexus::{ToolContext, tool};

/// Waits.
#[tool]
fn wait(first: &ToolContext, seconds: u32, second: &ToolContext) -> u32 {
    let _ = (first, second);
    seconds
}

fn main() {}
