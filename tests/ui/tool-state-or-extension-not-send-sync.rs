use std::cell::Cell;
use std::rc::Rc;

use toolnexus::{Extension, State, tool};

struct Counter(Cell<u32>);

struct NotClone(u32);

/// Counts.
#[tool]
fn count(counter: State<Counter>) -> u32 {
    counter.0.0.get()
}

/// Reads a shared value.
#[tool]
fn shared(value: Extension<Rc<u32>>) -> u32 {
    **value
}

/// Reads a value that cannot be cloned.
#[tool]
fn owned(value: Extension<NotClone>) -> u32 {
    value.0.0
}

fn main() {}
