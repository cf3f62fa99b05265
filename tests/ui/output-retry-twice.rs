use toolnexus::{Retry, ToolOutput};

#[derive(ToolOutput)]
enum BookingError {
    #[output(retry)]
    Again(Retry),
    #[output(retry)]
    OnceMore(Retry),
}

fn main() {}
