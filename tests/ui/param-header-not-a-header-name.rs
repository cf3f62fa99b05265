use toolnexus::tool;

/// Reads the weather of a region.
#[tool]
fn weather(#[param(header = "the region")] region: String) -> String {
    region
}

fn main() {}
