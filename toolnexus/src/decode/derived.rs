//! Decoding into a derived arguments struct: the strategy `#[tool]` takes for a tool whose
//! parameters carry `#[serde]` attributes, and the reference semantics the per-parameter
//! strategy (`params.rs`) matches.

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::check::{
    Check, Judge, ROOT, TextCheck, Verdict, check_args, check_flat, check_keys, check_text,
};
use super::error::at_path;
use super::parse_args_strictly;
use super::{
    Form, MAX_ARGUMENT_BYTES, Nesting, arguments_object, decode_leniently, in_schema_words,
    integers_for_integral_floats,
};
use crate::decode::schema::ToolSchema;
use crate::result::ToolResult;

/// Decodes a model's arguments into the generated arguments struct: the reference semantics
/// both entry points share.
///
/// `null` means `{}`; any other non-object, and every decode failure, becomes an `is_error`
/// result ``invalid arguments for `NAME`: …`` naming the full path of the offending value
/// (``field `order.items[0].quantity`: …``; a problem with the arguments object itself, such
/// as a missing or unknown key, has no `field` prefix), so the fn is never called with bad
/// input. Nested arguments that decoded are also checked against `schema` (`check/`), which
/// refuses the forms serde takes beyond it.
pub fn decode_args<T: DeserializeOwned>(
    tool: &str,
    args: Value,
    schema: &ToolSchema,
) -> Result<T, ToolResult> {
    decode(tool, args, schema, Tried::Nothing)
}

/// What a caller already tried, so that decoding does not try it again.
#[derive(Clone, Copy)]
enum Tried {
    Nothing,
    /// `T` straight from the arguments' text, which failed.
    Text,
}

fn decode<T: DeserializeOwned>(
    tool: &str,
    mut args: Value,
    schema: &ToolSchema,
    tried: Tried,
) -> Result<T, ToolResult> {
    let (_, nesting) = arguments_object(tool, &mut args)?;
    let decoded = match accepted_form(&args, tried) {
        Some(decoded) => decoded,
        // Decoded again, owned, to find where it failed: with whole floats as integers, where
        // there are any, so the path names a value that is wrong, not a `3.0` beside it.
        None => {
            let mut report = args.clone();
            integers_for_integral_floats(&mut report);
            serde_path_to_error::deserialize(report).map_err(|error| {
                let refused = at_path(tool, None, error.path(), error.inner());
                in_schema_words(tool, schema.shape(), &args, refused)
            })?
        }
    };
    let shape = schema.shape();
    check_keys(tool, shape, &args)?;
    match shape.check_for(matches!(nesting, Nesting::Nested), false) {
        Check::Nothing => {}
        Check::Judge => check_flat(tool, shape, &args)?,
        Check::Tree => check_args(tool, shape, &args)?,
    }
    Ok(decoded)
}

/// The arguments decoded in any form either entry point takes, tracking no path (so it
/// costs nothing beyond what `T` needs). A `Value`'s text never holds an integer past 64
/// bits, so the `i128` case that makes `execute_json` skip its text path cannot arise here.
fn accepted_form<T: DeserializeOwned>(args: &Value, tried: Tried) -> Option<T> {
    let mut decoded = None;
    // Text that failed to decode fails again as the `Value`'s text: the two differ only in
    // spacing and the spelling of numbers, which decoding a struct does not read.
    let text = matches!(tried, Tried::Nothing);
    decode_leniently(args, text, |form| {
        decoded = match form {
            Form::Value(value) => T::deserialize(value).ok(),
            Form::Text(text) => serde_json::from_str(text).ok(),
        };
        decoded.is_some()
    });
    decoded
}

/// [`decode_args`] for the raw argument text a model produced, with the same outcome for the
/// same arguments, errors included.
///
/// An object is first decoded straight into `T` (no intermediate `Value`: the fast path),
/// judged against the schema as it is read where the schema needs a check; what the judge
/// cannot vouch for takes the tree check over the text. When that decoding fails, or when
/// `via_value` says `T` holds what a `Value` cannot (`i128`/`u128` beyond 64 bits), the text
/// is parsed into a `Value` and decoded by [`decode_args`], whose result is returned: one
/// semantics, whichever way the arguments arrived. A key given twice in an object is refused on that path, so text cannot
/// hide a second value behind the first.
pub fn decode_args_json<T: DeserializeOwned>(
    tool: &str,
    text: &str,
    schema: &ToolSchema,
) -> Result<T, ToolResult> {
    let mut tried = Tried::Nothing;
    // A flattened parameter's keys (which the schema may close, where a key may be given
    // twice, whose enum's schema checks even flat arguments) are read from a `Value`.
    if !schema.text_via_value
        && !schema.flattened
        && text.len() <= MAX_ARGUMENT_BYTES
        && text.trim_start().starts_with('{')
    {
        // The parser's own recursion limit bounds nesting here.
        // A bracket past the object's own brace may open a nested value (or sit in a string,
        // which only costs the judge).
        let maybe_nested = text.bytes().filter(|b| matches!(b, b'[' | b'{')).nth(1);
        let shape = schema.shape();
        match shape.check_for(maybe_nested.is_some(), true) {
            Check::Nothing => match serde_json::from_str(text) {
                Ok(args) => return Ok(args),
                Err(_) => tried = Tried::Text,
            },
            Check::Judge => {
                let judge = Judge::new(shape);
                match judge.verdict(judge.decode(text, ROOT, true).ok()) {
                    Verdict::Vouched(args) => return Ok(args),
                    Verdict::Unsure(args) => match check_text(tool, shape, text) {
                        TextCheck::Fits => return Ok(args),
                        TextCheck::Refused(refused) => return Err(refused),
                        TextCheck::Reread => {}
                    },
                    Verdict::Refused => {}
                }
            }
            Check::Tree => {}
        }
    }
    decode(tool, parse_args_strictly(tool, text)?, schema, tried)
}
