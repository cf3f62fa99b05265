use proc_macro2::TokenStream;

pub fn tool(_args: TokenStream, input: TokenStream) -> TokenStream {
    input
}

pub fn toolbox(_args: TokenStream, input: TokenStream) -> TokenStream {
    input
}

pub fn tools(_input: TokenStream) -> syn::Result<TokenStream> {
    Ok(TokenStream::new())
}
