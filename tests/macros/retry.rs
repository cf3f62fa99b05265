//! SPEC §15, §15B through the macros: `#[tool(retries = N, defer)]` and `#[output(retry)]`.

use crate::common::block_on;

use toolnexus::{
    IntoToolResult, Retry, RunState, Tool, ToolCall, ToolContext, ToolOutput, Toolkit, tool, tools,
};

#[derive(ToolOutput)]
enum BookingError {
    #[output(retry)]
    Again(Retry),
    #[output(retry, "room {0} is taken; pick another")]
    Taken(u32),
    #[output(error, "the calendar is down")]
    Down,
}

fn check_room(room: u32) -> Result<u32, Retry> {
    if room == 0 {
        return Err(Retry::new("rooms start at 1"));
    }
    Ok(room)
}

/// Books a meeting room.
#[tool(retries = 1, defer)]
fn book(room: u32) -> Result<String, BookingError> {
    let room = check_room(room)?; // `From<Retry>` from `#[output(retry)]`
    match room {
        7 => Err(BookingError::Taken(7)),
        13 => Err(BookingError::Down),
        _ => Ok(format!("booked room {room}")),
    }
}

/// Reads the calendar.
#[tool]
fn calendar() -> &'static str {
    "empty"
}

#[test]
fn tool_attributes_set_the_budget_and_deferral() {
    assert_eq!(BookTool.retries(), Some(1));
    assert!(BookTool.deferred());
    assert_eq!(CalendarTool.retries(), None);
    assert!(!CalendarTool.deferred());
}

#[test]
fn output_retry_lowers_as_a_retry_and_converts_with_question_mark() {
    let again = BookingError::from(Retry::new("rooms start at 1")).into_tool_result();
    assert_eq!(again.output, "rooms start at 1");
    assert!(again.is_error && Retry::is_retry(&again));
    let taken = BookingError::Taken(7).into_tool_result();
    assert_eq!(taken.output, "room 7 is taken; pick another");
    assert!(Retry::is_retry(&taken));
    let down = BookingError::Down.into_tool_result();
    assert!(down.is_error && !Retry::is_retry(&down));
}

#[test]
fn a_macro_tools_budget_is_counted_in_a_run() {
    let toolkit = Toolkit::new().with_all(tools![book, calendar]);
    let mut run = RunState::default();
    let zero = ToolCall {
        id: "c".into(),
        name: "book".into(),
        arguments: r#"{"room": 0}"#.into(),
    };
    let ctx = ToolContext::default();
    let first = block_on(toolkit.run_calls_in(&mut run, std::slice::from_ref(&zero), &ctx));
    assert_eq!(first[0].output, "rooms start at 1");
    let down = ToolCall {
        arguments: r#"{"room": 13}"#.into(),
        ..zero.clone()
    };
    let plain = block_on(toolkit.run_calls_in(&mut run, &[down], &ctx));
    assert_eq!(plain[0].output, "the calendar is down");
    let second = block_on(toolkit.run_calls_in(&mut run, &[zero], &ctx));
    assert_eq!(
        second[0].output,
        "tool `book` failed 2 times in a row: rooms start at 1"
    );
    assert_eq!(run.exhausted(), Some("book"));
}
