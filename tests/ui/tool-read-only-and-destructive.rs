use toolnexus::tool;

/// Deletes a file.
#[tool(read_only, destructive)]
fn delete(path: String) -> String {
    path
}

fn main() {}
