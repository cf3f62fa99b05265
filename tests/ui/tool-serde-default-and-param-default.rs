use toolnexus::tool;

/// Lists items.
#[tool]
fn list(#[param(default = 10)] #[serde(default)] limit: u32) -> u32 {
    limit
}

fn main() {}
