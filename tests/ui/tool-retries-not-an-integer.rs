use toolnexus::tool;

/// Books a room.
#[tool(retries = "three")]
fn book(room: u32) -> String {
    room.to_string()
}

fn main() {}
