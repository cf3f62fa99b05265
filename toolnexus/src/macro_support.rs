//! Runtime support for `#[tool]` expansions that is not argument decoding (see
//! `decode.rs`): per-field error context and the `tools![]` name check.

use serde::de::{Deserialize, Deserializer, Error as _};

/// Deserializes one argument, prefixing failures with the argument's name: serde's own
/// messages for a wrong type (`invalid type: string "x", expected u8`) do not say which field.
pub fn field<'de, T, D>(name: &str, deserializer: D) -> Result<T, D::Error>
where
    T: Deserialize<'de>,
    D: Deserializer<'de>,
{
    T::deserialize(deserializer)
        .map_err(|error| D::Error::custom(format_args!("field `{name}`: {error}")))
}

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
