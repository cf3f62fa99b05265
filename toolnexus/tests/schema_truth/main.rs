//! Schema truth (SPEC §10B, §11, §13), verified by generation: arguments generated from the
//! schemas `#[tool]` emits (`schema_truth.rs` and its `schema_truth/` generators), answers to a
//! request checked on every path they take (`answers.rs`, with the same generators), and the
//! argument checker held against an independent reading of JSON Schema (`schema_oracle.rs`).

#[path = "../common/mod.rs"]
mod common;

mod answers;
mod schema_oracle;
mod schema_truth;
