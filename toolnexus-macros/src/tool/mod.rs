//! `#[tool]`, `#[toolbox]` and `tools![]` (SPEC §5, §7).
pub mod expand;
