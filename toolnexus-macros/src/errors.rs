//! Collects errors so one macro call reports every mistake at once (serde_derive's `Ctxt`).

use std::fmt::Display;

use quote::ToTokens;

/// Every mistake found so far. Collected rather than returned early so one build reports all
/// of them, each at its own token. Dropping it without [`Errors::finish`] panics, as
/// serde_derive's `Ctxt` does: a forgotten `finish` would swallow every error it holds.
#[derive(Default)]
pub struct Errors {
    found: Option<syn::Error>,
    finished: bool,
}

impl Errors {
    pub fn push(&mut self, error: syn::Error) {
        match &mut self.found {
            Some(first) => first.combine(error),
            slot => *slot = Some(error),
        }
    }

    pub fn spanned(&mut self, tokens: impl ToTokens, message: impl Display) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    /// Every error found, combined; `Ok` when there was none.
    #[must_use = "the errors are reported only through what `finish` returns"]
    pub fn finish(mut self) -> syn::Result<()> {
        self.finished = true;
        self.found.take().map_or(Ok(()), Err)
    }
}

impl Drop for Errors {
    fn drop(&mut self) {
        // Not while unwinding: a second panic would abort and hide the first.
        if !self.finished && !std::thread::panicking() {
            panic!("toolnexus-macros: `Errors` dropped without `finish`, losing its errors");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finish_returns_every_error_combined() {
        let mut errors = Errors::default();
        errors.spanned(quote::quote!(a), "first");
        errors.spanned(quote::quote!(b), "second");
        let messages: Vec<String> = errors
            .finish()
            .unwrap_err()
            .into_iter()
            .map(|error| error.to_string())
            .collect();
        assert_eq!(messages, ["first", "second"]);
        assert!(Errors::default().finish().is_ok());
    }

    #[test]
    #[should_panic(expected = "dropped without `finish`")]
    fn a_forgotten_finish_panics() {
        let _ = Errors::default();
    }
}
