//! How one tool decodes its arguments: the items that needs, and the pieces of `execute` and
//! `execute_json` that decode and hand the values to `__toolnexus_run`.
//!
//! Parameters without `#[serde]` attributes (nearly every tool) are decoded one at a time by
//! the runtime's `decode_params`, each into its own slot: no serde derive, and serde's code is
//! instantiated once per parameter *type* in a crate instead of once per tool and
//! deserializer, which was most of what `#[tool]` cost a build. A `#[serde]` attribute can
//! change anything about a field (its key, its decoder, `flatten`, …), so a tool with one
//! keeps a derived arguments struct and lets serde read the attributes.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{Index, LitStr};

use super::super::valid::{Field, Plan};
use super::tool_impl::{alias_ident, default_ident, local, param_local};

/// The decoding part of one tool's expansion.
pub struct Decode {
    /// Items beside `__toolnexus_run`.
    pub items: TokenStream,
    /// Statements before decoding, in both `execute`s.
    pub setup: TokenStream,
    /// `Result<_, ToolResult>` from the `Value` in `__args`.
    pub from_value: TokenStream,
    /// The same from the text in `__args`.
    pub from_text: TokenStream,
    /// The pattern of the `Ok`, and statements that bind the parameters from it.
    pub ok: TokenStream,
    pub unpack: TokenStream,
    /// Each parameter's value, in order, as `__toolnexus_run` takes it.
    pub values: Vec<TokenStream>,
}

pub fn expand(plan: &Plan) -> Decode {
    let lean = plan.fields.iter().all(|field| {
        !field
            .param
            .forwarded
            .iter()
            .any(|attr| attr.path().is_ident("serde"))
    });
    if lean {
        by_parameter(plan)
    } else {
        derived(plan)
    }
}

/// The type a parameter is decoded into: a defaulted one is an `Option` first, so `null`
/// means absent too, and gets its default in `__toolnexus_run`.
pub fn decoded_type(index: usize, field: &Field) -> TokenStream {
    let alias = alias_ident(index, field);
    if field.param.attr.default.is_some() && !user_deserializes(field) {
        quote!(::core::option::Option<#alias>)
    } else {
        quote!(#alias)
    }
}

fn by_parameter(plan: &Plan) -> Decode {
    let private = &plan.private;
    let args = local("__args");
    let slots = local("__slots");
    let keys: Vec<LitStr> = plan
        .fields
        .iter()
        .map(|field| {
            let key = match &field.param.attr.rename {
                Some(rename) => rename.value(),
                None => syn::ext::IdentExt::unraw(field.ident).to_string(),
            };
            LitStr::new(&key, Span::call_site())
        })
        .collect();
    let types = plan
        .fields
        .iter()
        .enumerate()
        .map(|(index, field)| decoded_type(index, field));
    let indices: Vec<Index> = (0..plan.fields.len()).map(Index::from).collect();
    let nones = indices.iter().map(|_| quote!(::core::option::Option::None));
    let slot_list = quote!(&mut [#(&mut #slots.#indices),*]);
    Decode {
        items: quote! {
            /// The keys of the arguments object, in parameter order.
            const __TOOLNEXUS_KEYS: &[&str] = &[#(#keys),*];
            /// Each parameter's value, once decoded.
            struct __ToolnexusSlots(#(::core::option::Option<#types>),*);
        },
        setup: quote!(let mut #slots = __ToolnexusSlots(#(#nones),*);),
        from_value: quote! {
            #private::decode_params(Self::NAME, #args, __TOOLNEXUS_KEYS, #slot_list)
        },
        from_text: quote! {
            #private::decode_params_json(
                Self::NAME,
                #args,
                __toolnexus_schema().text_via_value,
                __TOOLNEXUS_KEYS,
                #slot_list,
            )
        },
        ok: quote!(()),
        unpack: TokenStream::new(),
        values: indices
            .iter()
            .map(|index| quote!(#private::take(#slots.#index)))
            .collect(),
    }
}

fn derived(plan: &Plan) -> Decode {
    let private = &plan.private;
    let serde_crate = plan.private_str("serde");
    let args = local("__args");
    let decoded = local("__decoded");
    let fields = plan
        .fields
        .iter()
        .enumerate()
        .map(|(index, field)| args_field(index, field));
    let bindings = plan.fields.iter().enumerate().map(|(index, field)| {
        let ident = field.ident;
        let binding = param_local(index, field.ident.span());
        quote!(#ident: #binding)
    });
    Decode {
        items: quote! {
            #[derive(#private::serde::Deserialize)]
            #[serde(crate = #serde_crate, deny_unknown_fields)]
            struct __ToolnexusArgs {
                #(#fields),*
            }
        },
        setup: TokenStream::new(),
        from_value: quote! {
            #private::decode_args::<__ToolnexusArgs>(Self::NAME, #args)
        },
        from_text: quote! {
            #private::decode_args_json::<__ToolnexusArgs>(
                Self::NAME,
                #args,
                __toolnexus_schema().text_via_value,
            )
        },
        ok: quote!(#decoded),
        unpack: quote!(let __ToolnexusArgs { #(#bindings),* } = #decoded;),
        values: plan
            .fields
            .iter()
            .enumerate()
            .map(|(index, field)| {
                let binding = param_local(index, field.ident.span());
                quote!(#binding)
            })
            .collect(),
    }
}

/// The field serde decodes: `Option` fields default to `None`; a defaulted parameter is an
/// `Option` too (see [`decoded_type`]), unless the user's own deserializer reads it.
fn args_field(index: usize, field: &Field) -> TokenStream {
    let ident = field.ident;
    let ty = decoded_type(index, field);
    let param = field.param;
    let rename = param
        .attr
        .rename
        .as_ref()
        .map(|rename| quote!(#[serde(rename = #rename)]));
    let serde_attrs: Vec<_> = param
        .forwarded
        .iter()
        .filter(|attr| attr.path().is_ident("serde"))
        .collect();
    let default = match &param.attr.default {
        // The user's own deserializer decodes the value itself, `null` included.
        Some(_) if user_deserializes(field) => {
            let path = LitStr::new(&default_ident(index).to_string(), Span::call_site());
            quote!(#[serde(default = #path)])
        }
        Some(_) => quote!(#[serde(default)]),
        None if field.shape.optional => quote!(#[serde(default)]),
        None => TokenStream::new(),
    };
    quote! {
        #rename
        #(#serde_attrs)*
        #default
        #ident: #ty
    }
}

/// Whether a forwarded `#[serde(…)]` replaces deserialization (`with`, `deserialize_with`).
pub fn user_deserializes(field: &Field) -> bool {
    let metas = syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated;
    field
        .param
        .forwarded
        .iter()
        .filter(|attr| attr.path().is_ident("serde"))
        // Whole metas, so a nested list (`rename(deserialize = "…")`) before the key is read
        // past rather than ending the scan.
        .filter_map(|attr| attr.parse_args_with(metas).ok())
        .flatten()
        .any(|meta| meta.path().is_ident("with") || meta.path().is_ident("deserialize_with"))
}
