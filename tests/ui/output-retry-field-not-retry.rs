use toolnexus::ToolOutput;

#[derive(ToolOutput)]
enum BookingError {
    #[output(retry)]
    Again(String),
}

fn main() {}
