use toolnexus::ToolOutput;

#[derive(ToolOutput)]
enum BookingError {
    #[output(retry)]
    Taken { room: u32 },
}

fn main() {}
