use toolnexus::{Json, tool};

#[derive(serde::Serialize)]
struct Report {
    lines: u32,
}

/// Counts the lines of a text.
#[tool]
fn count(text: String) -> Result<Json<Report>, String> {
    let lines = u32::try_from(text.lines().count()).map_err(|error| error.to_string())?;
    Ok(Json(Report { lines }))
}

fn main() {}
