use toolnexus::{ToolContext, tool};

/// Waits.
#[tool]
fn wait(seconds: u32, ctx: &mut ToolContext) -> u32 {
    let _ = ctx;
    seconds
}

fn main() {}
