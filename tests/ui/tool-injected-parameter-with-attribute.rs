use toolnexus::{Extension, State, tool};

struct Db;

#[derive(Clone)]
struct User;

/// Uses the database.
#[tool]
fn query(#[param(description = "the pool")] db: State<Db>, #[serde(default)] user: Extension<User>) -> u32 {
    let _ = (db, user);
    0
}

fn main() {}
