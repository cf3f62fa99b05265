//! The runtime half of `#[derive(ToolOutput)]`: helpers its generated code calls through
//! `::toolnexus::__private`, so users need neither serde_json nor these names in scope.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::result::ToolResult;
use crate::result::lower::{IntoToolError, IntoToolResult, Json, serialize_failed};
use crate::result::part::ContentPart;
use crate::result::retry::Retry;

/// A type a `#[part]` field may have. Implemented only for the shapes SPEC §6 allows, so a
/// field of any other type is a compile error pointing at that type (the impls are not
/// recommended: the message already names the four shapes).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a `#[part]` field",
    label = "a `#[part]` field must be a `ContentPart`, `Vec<ContentPart>`, `Option<ContentPart>` or `Option<Vec<ContentPart>>`",
    note = "make parts with `toolnexus::parts::attach`, `toolnexus::parts::from_bytes` or `toolnexus::parts::from_path`"
)]
pub trait OutputPart {
    /// Appends the field's parts, in order.
    fn append_to(self, parts: &mut Vec<ContentPart>);
}

#[diagnostic::do_not_recommend]
impl OutputPart for ContentPart {
    fn append_to(self, parts: &mut Vec<ContentPart>) {
        parts.push(self);
    }
}

#[diagnostic::do_not_recommend]
impl OutputPart for Vec<ContentPart> {
    fn append_to(mut self, parts: &mut Vec<ContentPart>) {
        parts.append(&mut self);
    }
}

#[diagnostic::do_not_recommend]
impl OutputPart for Option<ContentPart> {
    fn append_to(self, parts: &mut Vec<ContentPart>) {
        parts.extend(self);
    }
}

#[diagnostic::do_not_recommend]
impl OutputPart for Option<Vec<ContentPart>> {
    fn append_to(self, parts: &mut Vec<ContentPart>) {
        parts.extend(self.into_iter().flatten());
    }
}

/// A result being assembled from a variant's mode, then its `#[metadata]` and `#[part]`
/// fields.
pub struct Lowering {
    result: ToolResult,
    failure: Option<String>,
}

impl Lowering {
    /// Starts from the result the variant's mode produced.
    pub fn new(result: ToolResult) -> Self {
        Self {
            result,
            failure: None,
        }
    }

    /// Stores one `#[metadata]` field. A value that fails to serialize turns the whole
    /// result into an error naming the field: a tool must not panic, and silently dropping
    /// metadata the calling code relies on would hide the bug.
    pub fn metadata(&mut self, key: &str, value: Result<Value, serde_json::Error>) {
        match value {
            Ok(value) => {
                self.result.metadata.insert(key.to_owned(), value);
            }
            Err(error) => {
                self.failure.get_or_insert_with(|| {
                    format!("cannot serialize the `{key}` metadata of the tool's output: {error}")
                });
            }
        }
    }

    /// Where `#[part]` fields append.
    pub fn parts(&mut self) -> &mut Vec<ContentPart> {
        &mut self.result.parts
    }

    /// The result, or the error of the first metadata field that failed to serialize.
    pub fn finish(self) -> ToolResult {
        match self.failure {
            Some(message) => ToolResult::error(message),
            None => self.result,
        }
    }
}

/// A field as JSON. Generated code calls it with the field's type spelled out, so a type
/// that is not `Serialize` is reported at that type.
pub fn serialize<T: Serialize + ?Sized>(value: &T) -> Result<Value, serde_json::Error> {
    serde_json::to_value(value)
}

/// `#[output(json)]` over one field: its compact JSON, as [`Json`] does.
pub fn json_text<T: Serialize + ?Sized>(value: &T) -> ToolResult {
    Json(value).into_tool_result()
}

/// `#[output(json)]` over several named fields: an object keyed by field name, in order.
pub fn json_object<const N: usize>(
    fields: [(&str, Result<Value, serde_json::Error>); N],
) -> ToolResult {
    let mut object = Map::new();
    for (key, value) in fields {
        match value {
            Ok(value) => object.insert(key.to_owned(), value),
            Err(error) => return serialize_failed(&error),
        };
    }
    ToolResult::ok(Value::Object(object).to_string())
}

/// `#[output(json)]` over several tuple fields: an array, as serde writes a tuple.
pub fn json_array<const N: usize>(items: [Result<Value, serde_json::Error>; N]) -> ToolResult {
    match items.into_iter().collect::<Result<Vec<_>, _>>() {
        Ok(items) => ToolResult::ok(Value::Array(items).to_string()),
        Err(error) => serialize_failed(&error),
    }
}

/// `#[output(retry, "…")]`: the formatted text as a [`Retry`]'s result.
pub fn retry(message: String) -> ToolResult {
    lower_retry(Retry::new(message))
}

/// `#[output(retry)]` on a variant holding a [`Retry`]: its result.
pub fn lower_retry(retry: Retry) -> ToolResult {
    retry.into_tool_error()
}

/// The field of an `#[output(retry)]` variant without a message: a [`Retry`], converted both
/// ways through this trait (the result, and `From<Retry>`) so that another type is one error,
/// at the field's type, saying what it must be.
#[diagnostic::on_unimplemented(
    message = "the field of an `#[output(retry)]` variant without a message must be a `toolnexus::Retry`, not `{Self}`",
    label = "expected `toolnexus::Retry`",
    note = "to build the retry from this field, give the variant a message: `#[output(retry, \"…{{0}}\")]`"
)]
pub trait RetryField: Sized {
    /// The field from a [`Retry`].
    fn from_retry(retry: Retry) -> Self;
    /// The [`Retry`] the field holds.
    fn into_retry(self) -> Retry;
}

#[diagnostic::do_not_recommend]
impl RetryField for Retry {
    fn from_retry(retry: Retry) -> Self {
        retry
    }

    fn into_retry(self) -> Retry {
        self
    }
}
