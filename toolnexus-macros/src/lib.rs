//! Procedural macros for [toolnexus](https://docs.rs/toolnexus). Use them through the
//! `toolnexus` crate, which re-exports them and the runtime their expansions name.
//!
//! Every macro here only converts tokens; the work happens on `proc_macro2` in the modules,
//! so it can be unit-tested.
#![forbid(unsafe_code)]

use proc_macro::TokenStream;
use syn::parse_macro_input;

mod errors;
mod json_schema;
mod output;
mod tool;

/// Turns a plain function into a tool. See the `toolnexus` crate docs.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    tool::expand::tool(args.into(), input.into()).into()
}

/// Turns every `#[tool]` method of an `impl` block into a tool bound to the instance.
#[proc_macro_attribute]
pub fn toolbox(args: TokenStream, input: TokenStream) -> TokenStream {
    tool::expand::toolbox(args.into(), input.into()).into()
}

/// `tools![a, path::b]`: the tools generated for these fns, as `Vec<Arc<dyn Tool>>`.
#[proc_macro]
pub fn tools(input: TokenStream) -> TokenStream {
    tool::expand::tools(input.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Implements `IntoToolResult` for an enum or struct, variant by variant.
#[proc_macro_derive(ToolOutput, attributes(output, part, metadata))]
pub fn derive_tool_output(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as syn::DeriveInput);
    output::expand::derive(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// schemars' `JsonSchema` derive, usable with toolnexus as the only dependency.
#[proc_macro_derive(JsonSchema, attributes(schemars, serde))]
pub fn derive_json_schema(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as syn::DeriveInput);
    json_schema::derive(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
