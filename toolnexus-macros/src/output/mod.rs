//! `#[derive(ToolOutput)]` (SPEC §6): parse the input into a model that borrows its tokens
//! (`ast`, `attr`, `format`), check it (`valid`), then emit the `IntoToolResult` impl
//! (`expand`).
mod ast;
mod attr;
pub mod expand;
mod format;
mod valid;

use std::fmt::Display;

use quote::ToTokens;

/// Every mistake found so far. Collected rather than returned early so one build reports all
/// of them, each at its own token.
#[derive(Default)]
struct Errors(Option<syn::Error>);

impl Errors {
    fn push(&mut self, error: syn::Error) {
        match &mut self.0 {
            Some(first) => first.combine(error),
            slot => *slot = Some(error),
        }
    }

    fn spanned(&mut self, tokens: impl ToTokens, message: impl Display) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    fn into_error(self) -> Option<syn::Error> {
        self.0
    }
}
