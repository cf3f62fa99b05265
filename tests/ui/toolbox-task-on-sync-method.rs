use toolnexus::{tool, toolbox};

struct Reports;

#[toolbox]
impl Reports {
    /// Builds a report.
    #[tool(task = "required")]
    fn report(&self, quarter: u8) -> String {
        quarter.to_string()
    }
}

fn main() {}
