//! What a `#[tool]` with a compile error still emits: its `NAME`, `DESCRIPTION` and a stand-in
//! `impl Tool`, so `tools![…]` and other uses of the struct add no second error (as
//! thiserror's `fallback`). It names no parameter or return type, which may be the error.

use proc_macro2::TokenStream;
use quote::quote;
use syn::Ident;

use super::super::valid::Plan;

pub fn expand(plan: &Plan, struct_ident: &Ident) -> TokenStream {
    let private = &plan.private;
    let map = quote!(#private::serde_json::Map<::std::string::String, #private::serde_json::Value>);
    let message = format!("tool `{}` did not compile", plan.name);
    // Only a free fn's `#[tool]` falls back to this stand-in; a `#[toolbox]` keeps `tools()`.
    let inherent = super::inherent::items(plan, struct_ident, true);
    quote! {
        #inherent

        #[automatically_derived]
        impl #private::Tool for #struct_ident {
            fn name(&self) -> &str {
                Self::NAME
            }

            fn description(&self) -> &str {
                Self::DESCRIPTION
            }

            fn input_schema(&self) -> &#map {
                static SCHEMA: ::std::sync::OnceLock<#map> = ::std::sync::OnceLock::new();
                SCHEMA.get_or_init(#private::serde_json::Map::new)
            }

            fn execute<'a>(
                &'a self,
                _: #private::serde_json::Value,
                _: &'a #private::ToolContext,
            ) -> #private::BoxFuture<'a, #private::ToolResult> {
                ::std::boxed::Box::pin(::core::future::ready(#private::ToolResult::error(#message)))
            }
        }
    }
}
