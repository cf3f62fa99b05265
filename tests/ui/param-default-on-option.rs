use toolnexus::tool;

/// Greets someone.
#[tool]
fn greet(#[param(default = Some("world".into()))] name: Option<String>) -> String {
    format!("hello {}", name.unwrap_or_default())
}

fn main() {}
