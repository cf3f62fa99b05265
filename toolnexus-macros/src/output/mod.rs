//! `#[derive(ToolOutput)]` (SPEC §6).
pub mod expand;
