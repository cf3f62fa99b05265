use proc_macro2::TokenStream;

pub fn derive(input: &syn::DeriveInput) -> syn::Result<TokenStream> {
    Err(syn::Error::new_spanned(&input.ident, "`JsonSchema` is being written"))
}
