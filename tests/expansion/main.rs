//! What the macros expand to in a user's crate: the compile errors of `tests/ui/` (trybuild),
//! and every generated path through a renamed dependency (`renamed_crate`, and the derives'
//! `#[toolnexus(crate = "…")]` in `derive_crate_path`). One binary for both, since the renamed
//! paths need this crate's root to say what `::toolnexus` names, which the other binaries'
//! `#[tool]`s cannot share.

extern crate self as toolnexus;
extern crate toolnexus as tnx;

pub mod derive_crate_path;
mod renamed_crate;
mod ui;
