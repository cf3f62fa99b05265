//! `#[tool]`, `#[toolbox]` and `tools![]` (SPEC §5, §7): parse (`ast`, `attr`) → validate
//! (`valid`) → expand (`expand`).
mod ast;
mod attr;
pub mod expand;
mod valid;
