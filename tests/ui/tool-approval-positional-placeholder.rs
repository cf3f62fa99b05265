use toolnexus::tool;

/// Deletes a file.
#[tool(approval = "Delete {0}?")]
fn delete(path: String) -> String {
    path
}

fn main() {}
