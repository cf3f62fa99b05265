//! What the macros expand to in a user's crate: the compile errors and accepted forms of
//! `tests/ui/` (trybuild), and every generated path through a renamed dependency. One binary
//! for both, since `renamed_crate` needs this crate's root to say what `::toolnexus` names,
//! which the other binaries' `#[tool]`s cannot share.

extern crate self as toolnexus;
extern crate toolnexus as tnx;

mod renamed_crate;
mod ui;
