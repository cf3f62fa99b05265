//! What a user writes and gets back: `#[tool]`, `#[toolbox]` and the derives (the forms that
//! must compile without a warning in `accepted/`, signatures,
//! return types, outputs, context, approval, `toolnexus::JsonSchema` against schemars' own
//! derive, the schema snapshots in `snapshots/`), and the core types — content parts, results
//! and the lowering table.

#[path = "../common/mod.rs"]
mod common;

pub mod accepted;
mod approval;
mod content_parts;
mod context;
mod json_schema_derive;
mod lowering;
mod retry;
mod schema_paths;
mod schema_snapshots;
mod tasks;
mod tool_macro;
mod tool_output;
mod tool_result;
mod tool_return_types;
mod tool_signatures;
