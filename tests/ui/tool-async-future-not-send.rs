use std::rc::Rc;
use toolnexus::tool;

async fn tick() {}

/// Counts.
#[tool]
async fn count(start: u32) -> u32 {
    let shared = Rc::new(start);
    tick().await;
    *shared + 1
}

fn main() {}
