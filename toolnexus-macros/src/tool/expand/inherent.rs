//! The tool struct's own items, emitted for a tool that compiled and for its stand-in alike.

use proc_macro2::TokenStream;
use quote::quote;
use syn::Ident;

use super::super::valid::Plan;
use crate::idents;

/// `NAME`, `DESCRIPTION`, and for a free fn's unit struct (`listable`) the two hidden fns
/// `tools![]` calls, so the list reaches toolnexus through the path the tool was given
/// (`#[tool(crate = "…")]`) rather than naming `::toolnexus` itself.
pub fn items(plan: &Plan, struct_ident: &Ident, listable: bool) -> TokenStream {
    let private = &plan.private;
    let name = &plan.name;
    let description = &plan.description;
    let shared_fn = idents::shared_fn();
    let duplicate_name_fn = idents::duplicate_name_fn();
    let for_tools = listable.then(|| {
        quote! {
            #[doc(hidden)]
            pub fn #shared_fn() -> ::std::sync::Arc<dyn #private::Tool> {
                ::std::sync::Arc::new(Self)
            }

            #[doc(hidden)]
            pub const fn #duplicate_name_fn(
                names: &[&str],
            ) -> ::core::option::Option<#private::DuplicateToolName> {
                #private::duplicate_tool_name(names)
            }
        }
    });
    quote! {
        #[automatically_derived]
        impl #struct_ident {
            /// The tool's name, as the model calls it.
            pub const NAME: &'static str = #name;
            /// The tool's description, as the model reads it.
            pub const DESCRIPTION: &'static str = #description;

            #for_tools
        }
    }
}
