//! # toolnexus
//!
//! Turn a plain Rust function into an LLM tool. `#[tool]` generates the tool's name,
//! description and JSON Schema, and an `execute` that lowers whatever the function returns —
//! `Result`, your own enum, an image, a suspension waiting on a human — into a [`ToolResult`]
//! that every provider and every other toolnexus port understands byte for byte.
//!
//! The wire contract is `SPEC.md` in the repository; this crate is its Rust port.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod attach;
mod lower;
mod output_support;
mod macro_support;
mod part;
mod result;
mod schema;
mod suspend;
mod tool;
mod toolkit;
mod profile;
mod wire;

pub use attach::{AttachOptions, attach, attach_with, from_bytes, from_path};
pub use lower::{IntoToolError, IntoToolResult, Json};
pub use part::{
    ContentPart, ContentPartError, Media, Source, base64_bytes, describe_part, part_bytes,
};
pub use result::ToolResult;
pub use suspend::{
    Answer, Reason, Request, auth_required, auth_required_with, pending, pending_of,
};
pub use tool::{
    BoxFuture, CancelSignal, DefineToolError, FnTool, Tool, ToolContext, ToolDef, ToolSource,
    define_tool, sanitize,
};
pub use macro_support::MAX_ARGUMENT_BYTES;
pub use toolkit::Toolkit;
pub use profile::{GEMINI_RECURSION_DEPTH, gemini_schema, openai_strict_schema};
pub use wire::{
    Style, anthropic_tool_results, encode_part, openai_tool_messages, unsupported_placeholder,
};
pub use toolnexus_macros::*;

/// `toolnexus::JsonSchema` is both schemars' trait and toolnexus' derive, like
/// `schemars::JsonSchema`: the glob brings the trait, the explicit import replaces schemars'
/// derive with ours (which needs no schemars in the user's `Cargo.toml`).
#[doc(hidden)]
pub mod __json_schema {
    pub use schemars::*;
    pub use toolnexus_macros::JsonSchema;
}
pub use __json_schema::JsonSchema;

/// `serde_json`, re-exported so users never need it in their own `Cargo.toml`.
pub use serde_json;

/// `schemars`, re-exported so users never need it in their own `Cargo.toml`.
pub use schemars;

/// Support for macro-generated code. Not public API: it may change in any release.
#[doc(hidden)]
pub mod __private {
    pub use schemars;
    pub use serde;
    pub use serde_json;

    pub use crate::macro_support::{assert_unique_tool_names, decode_args, field, invalid_args};
    pub use crate::output_support::{
        Lowering, OutputPart, json_array, json_object, json_text, serialize,
    };
    pub use crate::schema::input_schema_for;
}

/// The README's examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;
