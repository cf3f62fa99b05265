//! Runtime support for `#[tool]` expansions that is not argument decoding (see
//! `decode/`): the parameter-type checks and the `tools![]` name check.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

/// A type a `#[tool]` parameter can be decoded into. `#[tool]` asserts it at each parameter's
/// type, so a missing `Deserialize` is reported there, first, with the fix. (rustc shows a
/// trait's `on_unimplemented` text when the type itself lacks the blanket impl's bound; one
/// trait per capability keeps each message about one missing derive.)
#[diagnostic::on_unimplemented(
    message = "`#[tool]` parameter type `{Self}` cannot be decoded from JSON: add `#[derive(serde::Deserialize, toolnexus::JsonSchema)]` to `{Self}`",
    label = "this parameter's type needs `serde::Deserialize`"
)]
pub trait ParamDeserialize {}

impl<T: DeserializeOwned> ParamDeserialize for T {}

/// A type a `#[tool]` parameter can be described by in the input schema; see
/// [`ParamDeserialize`].
#[diagnostic::on_unimplemented(
    message = "`#[tool]` parameter type `{Self}` has no JSON Schema: add `#[derive(serde::Deserialize, toolnexus::JsonSchema)]` to `{Self}`",
    label = "this parameter's type needs `JsonSchema`",
    note = "for a type from another crate, describe it with `#[schemars(with = \"…\")]` on the parameter"
)]
pub trait ParamJsonSchema {}

impl<T: JsonSchema> ParamJsonSchema for T {}

/// Compiles only when `T` is [`ParamDeserialize`].
pub const fn assert_deserialize<T: ParamDeserialize>() {}

/// Compiles only when `T` is [`ParamJsonSchema`].
pub const fn assert_json_schema<T: ParamJsonSchema>() {}

/// Fails compilation (it runs in a `const`) when two tools of one `tools![]` share a name.
pub const fn assert_unique_tool_names(names: &[&str]) {
    let mut i = 0;
    while i < names.len() {
        let mut j = 0;
        while j < i {
            if str_eq(names[i], names[j]) {
                duplicate_name(names[i]);
            }
            j += 1;
        }
        i += 1;
    }
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

/// Panics (at compile time) with a message that names the tool; const code cannot `format!`,
/// so the message is assembled in a fixed buffer.
const fn duplicate_name(name: &str) -> ! {
    const PREFIX: &[u8] = b"two tools in `tools![]` are named `";
    const SUFFIX: &[u8] = b"`: give one of them `#[tool(name = \"...\")]`";
    let mut buf = [0u8; 256];
    let mut len = 0;
    len = push(&mut buf, len, PREFIX);
    len = push(&mut buf, len, name.as_bytes());
    len = push(&mut buf, len, SUFFIX);
    match core::str::from_utf8(buf.split_at(len).0) {
        Ok(message) => panic!("{}", message),
        Err(_) => panic!("two tools in `tools![]` share a name"),
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
