use toolnexus::tool;

/// Deletes a file.
#[tool(approval = "Delete {file}?")]
fn delete(path: String) -> String {
    path
}

fn main() {}
