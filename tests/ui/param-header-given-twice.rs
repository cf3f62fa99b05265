use toolnexus::tool;

/// Copies between two regions.
#[tool]
fn copy(
    #[param(header = "Region")] from: String,
    #[param(header = "region")] to: String,
) -> String {
    format!("{from} -> {to}")
}

fn main() {}
