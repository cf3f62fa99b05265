//! `#[derive(ToolOutput)]` (SPEC §6): parse the input into a model that borrows its tokens
//! (`ast`, `attr`, `format`), check it (`valid`), then emit the `IntoToolResult` impl
//! (`expand`).
mod ast;
mod attr;
pub mod expand;
pub(crate) mod format;
mod valid;

use crate::errors::Errors;
