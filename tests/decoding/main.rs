//! Arguments decoded as a tool's parameters: the decoding rules, hostile and generated input,
//! limits, the JSON forms of the core types, and types beyond what the schema says.

#[path = "../common/mod.rs"]
mod common;

mod beyond_the_schema;
mod decoding;
mod hostile_input;
mod json_forms;
mod limits;
