use toolnexus::tool;

/// Deletes files.
#[tool(approval = "Delete {paths}?")]
fn delete(paths: Vec<String>) -> usize {
    paths.len()
}

fn main() {}
