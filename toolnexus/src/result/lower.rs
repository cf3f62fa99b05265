//! Lowering (SPEC §4): whatever a tool returns becomes a [`ToolResult`].

use std::borrow::Cow;
use std::fmt::Display;

use serde::Serialize;
use serde_json::Value;

use crate::result::ToolResult;
use crate::result::part::{ContentPart, describe_part};
use crate::result::suspend::{Request, pending};

/// A value a tool may return: it knows how to become a [`ToolResult`].
///
/// Implemented for text, numbers, `bool`, `()`, [`Json<T>`], `serde_json::Value`,
/// [`ToolResult`], [`ContentPart`], `Vec<ContentPart>`, [`Request`] (a suspension), and for
/// `Option` and `Result` of these; `#[derive(ToolOutput)]` implements it for your own types.
///
/// ```
/// use toolnexus::IntoToolResult;
///
/// let result = Err::<u32, _>(std::io::Error::other("disk full")).into_tool_result();
/// assert!(result.is_error);
/// assert_eq!(result.output, "disk full");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a tool",
    label = "this type does not implement `IntoToolResult`",
    note = "return `String`, a number, `bool`, `()`, `toolnexus::Json<T>` (for any `Serialize` value), `serde_json::Value`, `ContentPart`, `Vec<ContentPart>`, `ToolResult`, a `Request` (to suspend), or an `Option`/`Result` of these",
    note = "for your own enum or struct, add `#[derive(toolnexus::ToolOutput)]`"
)]
pub trait IntoToolResult {
    /// Lowers `self` into a result.
    fn into_tool_result(self) -> ToolResult;
}

/// The error half of a returned `Result<T, E>`: how `Err(e)` lowers.
///
/// A [`ToolResult`] passes through unchanged, a [`Request`] suspends (either may be boxed,
/// which keeps clippy's `result_large_err` quiet), and any other
/// `E: Display` (io errors, `anyhow::Error`, `Box<dyn Error>`, `String`, thiserror enums)
/// becomes `is_error` with output `format!("{e:#}")`, so anyhow shows its whole chain.
///
/// A `#[tool]` or `#[toolbox]` fn returning `Result<T, E>` where `E` is a `std::error::Error`
/// (or a boxed `dyn Error`) also shows each `source()` after an error that does not print its
/// own chain (thiserror, io), as `: <cause>`, never a cause twice (SPEC §4). The macro sees the
/// concrete type and chooses; this trait, called from generic code (a [`ToolDef`] closure, your
/// own `into_tool_result()`), cannot tell an `Error` apart from any `Display` without
/// specialization, which Rust does not have, so it gives `{e:#}` alone.
///
/// [`ToolDef`]: crate::ToolDef
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the error type of a tool's `Result`",
    label = "this error type implements neither `Display` nor `IntoToolError`",
    note = "use an error type that implements `std::fmt::Display` (a thiserror enum, `anyhow::Error`, `String`, …), a `ToolResult` or a `Request`"
)]
pub trait IntoToolError {
    /// Lowers the error into a result.
    fn into_tool_error(self) -> ToolResult;
}

// Not recommended, so a type that is no error is reported as `IntoToolError`'s message (what
// a tool's error type may be) rather than as a bare missing `Display`.
#[diagnostic::do_not_recommend]
impl<E: Display> IntoToolError for E {
    fn into_tool_error(self) -> ToolResult {
        ToolResult::error(format!("{self:#}"))
    }
}

impl IntoToolError for ToolResult {
    fn into_tool_error(self) -> ToolResult {
        self
    }
}

impl IntoToolError for Request {
    fn into_tool_error(self) -> ToolResult {
        pending(self)
    }
}

/// `Result<T, Box<ToolResult>>` keeps the `Result` small (clippy's `result_large_err`).
impl IntoToolError for Box<ToolResult> {
    fn into_tool_error(self) -> ToolResult {
        *self
    }
}

/// `Result<T, Box<Request>>` keeps the `Result` small (clippy's `result_large_err`).
impl IntoToolError for Box<Request> {
    fn into_tool_error(self) -> ToolResult {
        pending(*self)
    }
}

/// Returns `T` as compact JSON text (`serde_json::to_string`).
///
/// ```
/// use toolnexus::{IntoToolResult, Json};
///
/// let result = Json(vec![1, 2, 3]).into_tool_result();
/// assert_eq!(result.output, "[1,2,3]");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Json<T>(pub T);

impl<T: Serialize> IntoToolResult for Json<T> {
    fn into_tool_result(self) -> ToolResult {
        match serde_json::to_string(&self.0) {
            Ok(json) => ToolResult::ok(json),
            Err(error) => serialize_failed(&error),
        }
    }
}

/// The error result for output that cannot be serialized, shared with `#[derive(ToolOutput)]`.
pub(crate) fn serialize_failed(error: &serde_json::Error) -> ToolResult {
    ToolResult::error(format!("cannot serialize the tool's output: {error}"))
}

impl IntoToolResult for Value {
    fn into_tool_result(self) -> ToolResult {
        match self {
            Value::String(text) => ToolResult::ok(text),
            other => ToolResult::ok(other.to_string()),
        }
    }
}

impl IntoToolResult for ToolResult {
    fn into_tool_result(self) -> ToolResult {
        self
    }
}

impl IntoToolResult for ContentPart {
    fn into_tool_result(self) -> ToolResult {
        ToolResult::ok(describe_part(&self)).with_part(self)
    }
}

impl IntoToolResult for Vec<ContentPart> {
    fn into_tool_result(self) -> ToolResult {
        let output = self
            .iter()
            .map(describe_part)
            .collect::<Vec<_>>()
            .join("\n");
        ToolResult::ok(output).with_parts(self)
    }
}

impl IntoToolResult for Request {
    fn into_tool_result(self) -> ToolResult {
        pending(self)
    }
}

impl<T: IntoToolResult> IntoToolResult for Option<T> {
    fn into_tool_result(self) -> ToolResult {
        self.map_or_else(|| ToolResult::ok(""), T::into_tool_result)
    }
}

impl<T: IntoToolResult, E: IntoToolError> IntoToolResult for Result<T, E> {
    fn into_tool_result(self) -> ToolResult {
        match self {
            Ok(value) => value.into_tool_result(),
            Err(error) => error.into_tool_error(),
        }
    }
}

impl IntoToolResult for () {
    fn into_tool_result(self) -> ToolResult {
        ToolResult::ok("")
    }
}

impl IntoToolResult for String {
    fn into_tool_result(self) -> ToolResult {
        ToolResult::ok(self)
    }
}

impl IntoToolResult for &str {
    fn into_tool_result(self) -> ToolResult {
        ToolResult::ok(self)
    }
}

impl IntoToolResult for Cow<'_, str> {
    fn into_tool_result(self) -> ToolResult {
        ToolResult::ok(self)
    }
}

macro_rules! lower_with_to_string {
    ($($ty:ty),*) => {$(
        impl IntoToolResult for $ty {
            // Inlined into each tool's `execute`, as the `to_string` it wraps is into a
            // hand-written call (SPEC §9 measures against that).
            #[inline]
            fn into_tool_result(self) -> ToolResult {
                ToolResult::ok(self.to_string())
            }
        }
    )*};
}

lower_with_to_string!(
    char, bool, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64
);
