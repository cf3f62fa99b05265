use toolnexus::tool;

/// Builds a report.
#[tool(task)]
fn report(quarter: u8) -> String {
    quarter.to_string()
}

fn main() {}
