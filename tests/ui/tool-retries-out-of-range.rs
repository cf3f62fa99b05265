use toolnexus::tool;

/// Books a room.
#[tool(retries = 5000000000)]
fn book(room: u32) -> String {
    room.to_string()
}

fn main() {}
