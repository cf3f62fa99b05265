//! `#[tool]`'s lowering of what the fn returned (SPEC §4): an `Err(e)` whose `e` is a
//! `std::error::Error` shows its `source()` chain, as anyhow's `{:#}` does.
//!
//! `IntoToolResult for Result<T, E>` is generic over `E: Display` and cannot tell an
//! `Error` apart without specialization, so the macro, which sees the concrete type, picks by
//! method lookup (autoderef specialization): a return type written `Result<T, E>` lowers its
//! error with `(&&&Held::new(e)).lower()`, trying [`ErrorWithSources`] (an `Error`), then
//! [`BoxedErrorWithSources`] (a boxed `dyn Error`, which is no `Error` itself), then [`AsItIs`],
//! which hands `e` back for its own `IntoToolError` (where an error type that is none is
//! reported, at the user's `E`). Any other return type (an alias such as `io::Result<T>`)
//! lowers whole the same way: [`ResultWithSources`], [`BoxedResultWithSources`], then
//! [`AsItIs`] for its own `IntoToolResult`.

use std::cell::Cell;
use std::error::Error;
use std::fmt::Write as _;

use crate::result::ToolResult;
use crate::result::lower::IntoToolResult;

/// A value waiting to be lowered, taken out by the one `lower()` the macro calls (method
/// lookup gives `&self`).
pub struct Held<V>(Cell<Option<V>>);

impl<V> Held<V> {
    /// Holds `value`.
    pub const fn new(value: V) -> Self {
        Self(Cell::new(Some(value)))
    }

    fn take(&self) -> V {
        match self.0.take() {
            Some(value) => value,
            // Generated code lowers each value once, right after it is made.
            None => unreachable!("a returned value is lowered once"),
        }
    }
}

/// An error that is a `std::error::Error`: its text with its source chain.
pub trait ErrorWithSources {
    /// The error result.
    fn lower(&self) -> ToolResult;
}

impl<E: Error> ErrorWithSources for &&Held<E> {
    fn lower(&self) -> ToolResult {
        ToolResult::error(with_sources(&self.take()))
    }
}

/// A boxed `dyn Error`: its text with its source chain.
pub trait BoxedErrorWithSources {
    /// The error result.
    fn lower(&self) -> ToolResult;
}

impl BoxedErrorWithSources for &Held<Box<dyn Error + Send + Sync>> {
    fn lower(&self) -> ToolResult {
        ToolResult::error(with_sources(&*self.take()))
    }
}

impl BoxedErrorWithSources for &Held<Box<dyn Error>> {
    fn lower(&self) -> ToolResult {
        ToolResult::error(with_sources(&*self.take()))
    }
}

/// Anything else: the value itself, for its own `IntoToolError` (an error) or
/// `IntoToolResult` (a whole returned value).
pub trait AsItIs<V> {
    /// The value.
    fn lower(&self) -> V;
}

impl<V> AsItIs<V> for Held<V> {
    fn lower(&self) -> V {
        self.take()
    }
}

/// A `Result` whose error is a `std::error::Error`: `Err(e)` with its source chain.
pub trait ResultWithSources {
    /// The result.
    fn lower(&self) -> ToolResult;
}

impl<T: IntoToolResult, E: Error> ResultWithSources for &&Held<Result<T, E>> {
    fn lower(&self) -> ToolResult {
        lower_with(self.take(), |error| with_sources(&error))
    }
}

/// A `Result` whose error is a boxed `dyn Error`: `Err(e)` with its source chain.
pub trait BoxedResultWithSources {
    /// The result.
    fn lower(&self) -> ToolResult;
}

impl<T: IntoToolResult> BoxedResultWithSources for &Held<Result<T, Box<dyn Error + Send + Sync>>> {
    fn lower(&self) -> ToolResult {
        lower_with(self.take(), |error| with_sources(&*error))
    }
}

impl<T: IntoToolResult> BoxedResultWithSources for &Held<Result<T, Box<dyn Error>>> {
    fn lower(&self) -> ToolResult {
        lower_with(self.take(), |error| with_sources(&*error))
    }
}

fn lower_with<T: IntoToolResult, E>(
    returned: Result<T, E>,
    text: impl FnOnce(E) -> String,
) -> ToolResult {
    match returned {
        Ok(value) => value.into_tool_result(),
        Err(error) => ToolResult::error(text(error)),
    }
}

/// `error` as `{error:#}`, then, where that is its plain `Display` (an error that does not
/// print its own chain, as thiserror's and io's do not), each `source()` as `: <source>`,
/// skipping a source whose text is already in what came before (a `#[error("…: {0}")]`
/// that prints its cause), so no cause is shown twice.
pub(crate) fn with_sources(error: &dyn Error) -> String {
    let plain = error.to_string();
    let alternate = format!("{error:#}");
    if alternate != plain {
        return alternate;
    }
    let mut text = plain;
    let mut source = error.source();
    while let Some(cause) = source {
        let said = cause.to_string();
        if !said.is_empty() && !text.contains(&said) {
            let _ = write!(text, ": {said}");
        }
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use std::fmt;

    use super::*;

    #[derive(Debug)]
    struct Layer(&'static str, Option<Box<Layer>>);

    impl fmt::Display for Layer {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(self.0)
        }
    }

    impl Error for Layer {
        fn source(&self) -> Option<&(dyn Error + 'static)> {
            self.1
                .as_deref()
                .map(|layer| layer as &(dyn Error + 'static))
        }
    }

    fn chain(texts: &[&'static str]) -> Layer {
        texts
            .iter()
            .rev()
            .fold(None, |inner, text| Some(Layer(text, inner.map(Box::new))))
            .unwrap()
    }

    #[test]
    fn each_cause_follows_once() {
        let cases: [(&[&str], &str); 5] = [
            (&["upstream failed"], "upstream failed"),
            (
                &["upstream failed", "timed out"],
                "upstream failed: timed out",
            ),
            (&["a", "b", "c"], "a: b: c"),
            // A cause the message already prints is not printed again.
            (
                &["upstream failed: timed out", "timed out"],
                "upstream failed: timed out",
            ),
            // An empty cause adds nothing.
            (&["upstream failed", "", "reset"], "upstream failed: reset"),
        ];
        for (texts, expected) in cases {
            assert_eq!(with_sources(&chain(texts)), expected, "{texts:?}");
        }
    }
}
