//! `#[tool]`, `#[toolbox]` and `tools![]` (SPEC §5, §7): parse (`ast`, `attr`, `docs`) → validate
//! (`valid`) → expand (`expand`).
mod ast;
mod attr;
mod docs;
pub mod expand;
mod valid;
