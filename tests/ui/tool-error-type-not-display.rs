use toolnexus::tool;

#[derive(Debug)]
struct Unreachable;

/// Pings a host.
#[tool]
fn ping(host: String) -> Result<String, Unreachable> {
    Err(Unreachable).or(Ok(host))
}

fn main() {}
