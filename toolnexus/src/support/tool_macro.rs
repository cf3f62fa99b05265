//! Runtime support for `#[tool]` expansions that is not argument decoding (see
//! `decode/`): the parameter- and return-type checks and the `tools![]` name check.

use std::marker::PhantomData;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::DeserializeOwned;

use crate::decode::{IntegerSlot, Slot};
use crate::result::lower::Json;

/// A type a `#[tool]` parameter can be decoded into. `#[tool]` requires it at each parameter's
/// type ([`slot`], or [`assert_deserialize`] for a tool with `#[serde]` attributes), so a
/// missing `Deserialize` is reported there, once, with the fix. (rustc shows a trait's
/// `on_unimplemented` text when the type itself lacks the blanket impl's bound; one trait per
/// capability keeps each message about one missing derive.)
#[diagnostic::on_unimplemented(
    message = "`#[tool]` parameter type `{Self}` cannot be decoded from JSON: add `#[derive(serde::Deserialize, toolnexus::JsonSchema)]` to `{Self}`",
    label = "this parameter's type needs `serde::Deserialize`"
)]
pub trait ParamDeserialize: DeserializeOwned {}

#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned> ParamDeserialize for T {}

/// A type a `#[tool]` parameter can be described by in the input schema. `Name` is a type
/// `#[tool]` names after the parameter, so the message says which one; the impl is not
/// recommended, so rustc reports this trait (with the fix) rather than schemars' own.
#[diagnostic::on_unimplemented(
    message = "`#[tool]` parameter `{Name}` has the type `{Self}`, which has no JSON Schema: add `#[derive(serde::Deserialize, toolnexus::JsonSchema)]` to `{Self}`",
    label = "this parameter's type needs `JsonSchema`",
    note = "a `JsonSchema` derived with another major version of schemars than toolnexus' (1.x) does not count: derive `toolnexus::JsonSchema` instead, which needs no schemars of your own",
    note = "for a type from another crate, describe it with `#[schemars(with = \"…\")]` on the parameter"
)]
pub trait ParamJsonSchema<Name>: JsonSchema {}

#[diagnostic::do_not_recommend]
impl<T: JsonSchema, Name> ParamJsonSchema<Name> for T {}

/// How `#[tool]`'s input schema describes a parameter (`#[schemars(schema_with = …)]`): as
/// `T` describes itself. `Name` is as in [`ParamJsonSchema`]; the bound is the tool's one check
/// that the type has a schema, reported at the parameter's type with the fix.
pub fn described<T: ParamJsonSchema<Name>, Name>(generator: &mut SchemaGenerator) -> Schema {
    generator.subschema_for::<T>()
}

/// [`described`] for an optional parameter that may be left out but not sent as `null`:
/// `T`'s schema without the `null` an `Option` adds (what schemars' `required` does).
pub fn described_present<T: ParamJsonSchema<Name>, Name>(
    generator: &mut SchemaGenerator,
) -> Schema {
    T::_schemars_private_non_optional_json_schema(generator)
}

/// Compiles only when `T` is [`ParamDeserialize`].
pub const fn assert_deserialize<T: ParamDeserialize>() {}

/// A parameter's slot in the list `decode_params` fills. Generated code calls it at the
/// parameter's type, so this bound is the one check of a missing `Deserialize` (the coercion
/// to `dyn Slot` would otherwise report it a second time, at `#[tool]`, in terms of `Slot`).
pub fn slot<T: ParamDeserialize>(slot: &mut Option<T>) -> &mut dyn Slot {
    slot
}

/// [`slot`] for a parameter of an integer type, whose text is read as an integer first.
pub fn integer_slot<T: ParamDeserialize>(slot: &mut Option<T>) -> IntegerSlot<'_, T> {
    IntegerSlot(slot)
}

/// [`slot`] for a defaulted parameter, decoded as an `Option` first (`null` means absent), so
/// the message names the parameter's own type.
pub fn defaulted_slot<T: ParamDeserialize>(slot: &mut Option<Option<T>>) -> &mut dyn Slot {
    slot
}

/// A type a `#[param(header = "…")]` parameter can have: what MCP lets a client send as an
/// `Mcp-Param-*` header (SEP-2243: a string, an integer or a boolean), or an `Option` of one.
#[diagnostic::on_unimplemented(
    message = "`#[param(header = …)]` needs a string, integer or boolean parameter, not `{Self}`",
    label = "MCP sends only strings, integers and booleans as headers"
)]
pub trait HeaderParam {}

// Not recommended: the message already says which types, and rustc would list each impl.
#[diagnostic::do_not_recommend]
impl HeaderParam for String {}
#[diagnostic::do_not_recommend]
impl HeaderParam for bool {}
#[diagnostic::do_not_recommend]
impl<T: HeaderParam> HeaderParam for Option<T> {}
macro_rules! integer_headers {
    ($($t:ty),*) => { $(#[diagnostic::do_not_recommend] impl HeaderParam for $t {})* };
}
integer_headers!(
    i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize
);

/// Compiles only when `T` is [`HeaderParam`].
pub const fn assert_header<T: HeaderParam>() {}

/// A return type that is `Json<T>`, or an `Option`/`Result` of one, whatever `T`: the types
/// [`StructuredOutput`](crate::__private::StructuredOutput) would be, were `T: JsonSchema`.
pub trait ReturnsJson {
    /// The `T` of the `Json<T>`.
    type Payload;
}

impl<T> ReturnsJson for Json<T> {
    type Payload = T;
}

impl<S: ReturnsJson> ReturnsJson for Option<S> {
    type Payload = S::Payload;
}

impl<S: ReturnsJson, E> ReturnsJson for Result<S, E> {
    type Payload = S::Payload;
}

/// What the `T` of a `#[tool]` fn's `Json<T>` must be: `Json<T>` says the tool returns
/// structured JSON, so it gets an output schema, which a `T` without a JSON Schema cannot
/// give. A compile error rather than a tool silently without one (or a `check` issue found
/// only at run time); a `Json<T>` elsewhere (`IntoToolResult`, `#[output(json)]`) asks only
/// `Serialize`.
#[diagnostic::on_unimplemented(
    message = "this `#[tool]` returns `Json<{Self}>`, which gives it an output schema, and `{Self}` has no JSON Schema: add `#[derive(toolnexus::JsonSchema)]` to `{Self}`",
    label = "`{Self}` needs `JsonSchema` for the tool's output schema",
    note = "to return JSON without an output schema, return a `toolnexus::serde_json::Value` (`serde_json::to_value(…)`) instead of `Json<{Self}>`"
)]
pub trait OutputJsonSchema: JsonSchema {}

#[diagnostic::do_not_recommend]
impl<T: JsonSchema> OutputJsonSchema for T {}

/// Asks, at compile time, whether a return type is [`ReturnsJson`], and if so requires its
/// payload to be [`OutputJsonSchema`]: `#[tool]` calls
/// `(&OutputCheck::<R>::new()).check_output()` with both traits below in scope. Method lookup
/// tries [`CheckJsonOutput`] first (it applies only when `R: ReturnsJson`, and its method's
/// bound is the check), then auto-refs to [`CheckOtherOutput`], which always applies.
pub struct OutputCheck<R>(PhantomData<fn() -> R>);

impl<R> OutputCheck<R> {
    /// A check of `R`.
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        Self(PhantomData)
    }
}

/// The check for a return type that is [`ReturnsJson`].
pub trait CheckJsonOutput<R: ReturnsJson> {
    /// Compiles only when the payload has a JSON Schema.
    fn check_output(&self)
    where
        R::Payload: OutputJsonSchema,
    {
    }
}

impl<R: ReturnsJson> CheckJsonOutput<R> for OutputCheck<R> {}

/// The check for any other return type: nothing to check.
pub trait CheckOtherOutput {
    /// Always compiles.
    fn check_output(&self) {}
}

impl<R> CheckOtherOutput for &OutputCheck<R> {}

/// The first name two tools of one `tools![]` share, as the message `tools![]` then fails
/// compilation with (in a `const`, so the panic lands on the user's `tools![]`).
pub const fn duplicate_tool_name(names: &[&str]) -> Option<DuplicateToolName> {
    let mut i = 0;
    while i < names.len() {
        let mut j = 0;
        while j < i {
            if str_eq(names[i], names[j]) {
                return Some(DuplicateToolName::new(names[i]));
            }
            j += 1;
        }
        i += 1;
    }
    None
}

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The message of [`duplicate_tool_name`]; const code cannot `format!`, so it is assembled in
/// a fixed buffer.
pub struct DuplicateToolName {
    buf: [u8; 256],
    len: usize,
}

impl DuplicateToolName {
    const fn new(name: &str) -> Self {
        const PREFIX: &[u8] = b"two tools in `tools![]` are named `";
        const SUFFIX: &[u8] = b"`: give one of them `#[tool(name = \"...\")]`";
        let mut buf = [0u8; 256];
        let mut len = 0;
        len = push(&mut buf, len, PREFIX);
        len = push(&mut buf, len, name.as_bytes());
        len = push(&mut buf, len, SUFFIX);
        Self { buf, len }
    }

    /// The message, naming the tool.
    pub const fn message(&self) -> &str {
        match core::str::from_utf8(self.buf.split_at(self.len).0) {
            Ok(message) => message,
            // A name cut inside a character by the buffer's end.
            Err(_) => "two tools in `tools![]` share a name",
        }
    }
}

const fn push(buf: &mut [u8; 256], mut len: usize, bytes: &[u8]) -> usize {
    let mut i = 0;
    while i < bytes.len() && len < buf.len() {
        buf[len] = bytes[i];
        len += 1;
        i += 1;
    }
    len
}
