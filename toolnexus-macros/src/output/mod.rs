//! `#[derive(ToolOutput)]` (SPEC §6): parse the input into a model that borrows its tokens
//! (`ast`, `attr`, format strings in the crate's `format`), check it (`valid`), then emit
//! the `IntoToolResult` impl (`expand`).
mod ast;
mod attr;
pub mod expand;
mod valid;

use crate::errors::Errors;
