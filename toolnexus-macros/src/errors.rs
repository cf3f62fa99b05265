//! Collects errors so one macro call reports every mistake at once (serde_derive's `Ctxt`).

use std::fmt::Display;

use quote::ToTokens;

/// Every mistake found so far. Collected rather than returned early so one build reports all
/// of them, each at its own token.
#[derive(Default)]
pub struct Errors(Option<syn::Error>);

impl Errors {
    pub fn push(&mut self, error: syn::Error) {
        match &mut self.0 {
            Some(first) => first.combine(error),
            slot => *slot = Some(error),
        }
    }

    pub fn spanned(&mut self, tokens: impl ToTokens, message: impl Display) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    pub fn finish(self) -> syn::Result<()> {
        self.0.map_or(Ok(()), Err)
    }
}
