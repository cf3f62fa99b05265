use toolnexus::tool;

struct Report {
    total: u32,
}

/// Builds a report.
#[tool]
fn report() -> Report {
    Report { total: 1 }
}

fn main() {}
