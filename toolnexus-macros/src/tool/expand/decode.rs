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
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Index, LitStr};

use super::super::attr::SerdeAttr;
use super::super::valid::{Field, Plan};
use crate::idents;

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
    if decodes_by_parameter(plan) {
        by_parameter(plan)
    } else {
        derived(plan)
    }
}

/// Whether the tool's parameters are decoded one at a time (no `#[serde]` attribute on any).
pub fn decodes_by_parameter(plan: &Plan) -> bool {
    plan.fields
        .iter()
        .all(|field| field.param.forwarded.serde.is_empty())
}

/// The type a parameter is decoded into: a defaulted one is an `Option` first, so `null`
/// means absent too, and gets its default in `__toolnexus_run`.
pub fn decoded_type(field: &Field) -> TokenStream {
    let alias = field.param_type();
    if field.has_default() {
        quote!(::core::option::Option<#alias>)
    } else {
        quote!(#alias)
    }
}

fn by_parameter(plan: &Plan) -> Decode {
    let private = &plan.private;
    let args = idents::args();
    let slots = idents::slots();
    let schema_fn = idents::schema_fn();
    let keys_const = idents::keys();
    let slots_struct = idents::slots_struct();
    let keys = plan
        .fields
        .iter()
        .map(|field| LitStr::new(&field.key(), Span::call_site()));
    let types = plan.fields.iter().map(decoded_type);
    let indices: Vec<Index> = (0..plan.fields.len()).map(Index::from).collect();
    let nones = indices.iter().map(|_| quote!(::core::option::Option::None));
    // Each slot through `slot`, at the parameter's type: its bound is the tool's one check
    // that the type decodes, reported there with the fix.
    // An integer parameter's slot reads an integer first (`IntegerSlot`), which no other type
    // pays for.
    let slot_list = plan.fields.iter().zip(&indices).map(|(field, index)| {
        let alias = field.param_type();
        let slot = if field.has_default() {
            quote!(defaulted_slot)
        } else if is_integer(field.param.ty) {
            return quote_spanned!(field.param.ty.span()=>
                &mut #private::integer_slot::<#alias>(&mut #slots.#index));
        } else {
            quote!(slot)
        };
        quote_spanned!(field.param.ty.span()=> #private::#slot::<#alias>(&mut #slots.#index))
    });
    let slot_list = quote!(&mut [#(#slot_list),*]);
    Decode {
        items: quote! {
            /// The keys of the arguments object, in parameter order.
            const #keys_const: &[&str] = &[#(#keys),*];
            /// Each parameter's value, once decoded.
            struct #slots_struct(#(::core::option::Option<#types>),*);
        },
        setup: quote!(let mut #slots = #slots_struct(#(#nones),*);),
        from_value: quote! {
            #private::decode_params(
                Self::NAME,
                #args,
                #schema_fn(),
                #keys_const,
                #slot_list,
            )
        },
        from_text: quote! {
            #private::decode_params_json(
                Self::NAME,
                #args,
                #schema_fn(),
                #keys_const,
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

/// Whether `ty` names a primitive integer of at most 64 bits (wider ones are read through a
/// `Value`). A type alias is not seen through: its parameter is read as any other.
fn is_integer(ty: &syn::Type) -> bool {
    const INTEGERS: [&str; 10] = [
        "i8", "i16", "i32", "i64", "isize", "u8", "u16", "u32", "u64", "usize",
    ];
    match ty {
        syn::Type::Path(path) if path.qself.is_none() => path
            .path
            .get_ident()
            .is_some_and(|ident| INTEGERS.iter().any(|name| ident == name)),
        _ => false,
    }
}

fn derived(plan: &Plan) -> Decode {
    let private = &plan.private;
    let serde_crate = plan.private_str("serde");
    let args = idents::args();
    let decoded = idents::decoded();
    let schema_fn = idents::schema_fn();
    let args_struct = idents::args_struct();
    let fields = plan.fields.iter().map(args_field);
    let null_as_absent = plan
        .fields
        .iter()
        .filter_map(|field| null_as_absent(plan, field));
    let bindings = plan.fields.iter().map(|field| {
        let ident = field.ident;
        let binding = field.binding();
        quote!(#ident: #binding)
    });
    // serde cannot deny unknown fields beside a flattened enum (it refuses the enum's own);
    // the runtime closes the schema and refuses unknown keys instead (`tool_schema_of`).
    let deny_unknown = (!plan.flattened()).then(|| quote!(, deny_unknown_fields));
    Decode {
        items: quote! {
            #(#null_as_absent)*
            #[derive(#private::serde::Deserialize)]
            #[serde(crate = #serde_crate #deny_unknown)]
            struct #args_struct {
                #(#fields),*
            }
        },
        setup: TokenStream::new(),
        from_value: quote! {
            #private::decode_args::<#args_struct>(Self::NAME, #args, #schema_fn())
        },
        from_text: quote! {
            #private::decode_args_json::<#args_struct>(
                Self::NAME,
                #args,
                #schema_fn(),
            )
        },
        ok: quote!(#decoded),
        unpack: quote!(let #args_struct { #(#bindings),* } = #decoded;),
        values: plan
            .fields
            .iter()
            .map(|field| field.binding().into_token_stream())
            .collect(),
    }
}

/// Whether `null` must reach the user's own deserializer only through [`null_as_absent`]:
/// an optional or defaulted parameter with `with`/`deserialize_with`.
fn wraps_decoder<'a>(field: &Field<'a>) -> Option<&'a TokenStream> {
    let optional = field.has_default() || field.shape.optional;
    field.param.forwarded.decoder.as_ref().filter(|_| optional)
}

/// The field serde decodes: `Option` fields default to `None`; a defaulted parameter is an
/// `Option` too (see [`decoded_type`]). The user's own deserializer is reached through
/// [`null_as_absent`] where `null` means absent.
fn args_field(field: &Field) -> TokenStream {
    let ident = field.ident;
    let ty = decoded_type(field);
    let param = field.param;
    let rename = param
        .attr
        .rename
        .as_ref()
        .map(|rename| quote!(#[serde(rename = #rename)]));
    let serde = &param.forwarded.serde;
    let serde_attrs: Vec<TokenStream> = match wraps_decoder(field) {
        Some(_) => {
            let wrapper = idents::null_as_absent_fn(field.index).to_string();
            let wrapper = LitStr::new(&wrapper, Span::call_site());
            serde
                .iter()
                .map(SerdeAttr::without_decoder)
                .chain([quote!(#[serde(deserialize_with = #wrapper)])])
                .collect()
        }
        None => serde
            .iter()
            .map(|serde| serde.attr.to_token_stream())
            .collect(),
    };
    let optional = field.has_default() || field.shape.optional;
    let default = optional.then(|| quote!(#[serde(default)]));
    quote! {
        #rename
        #(#serde_attrs)*
        #default
        #ident: #ty
    }
}

/// For an optional or defaulted parameter the user decodes (`with`, `deserialize_with`):
/// `null` means absent, as for every other parameter and as the schemas say, so the user's
/// deserializer sees only the values that are there.
fn null_as_absent(plan: &Plan, field: &Field) -> Option<TokenStream> {
    let decoder = wraps_decoder(field)?;
    let private = &plan.private;
    let alias = field.param_type();
    let ty = decoded_type(field);
    let wrapper = idents::user_decoded(field.index);
    let name = idents::null_as_absent_fn(field.index);
    // An `Option` parameter's own decoder yields the `Option`; a defaulted one's, the value.
    let unwrap = if field.shape.optional {
        quote!(::core::option::Option::and_then)
    } else {
        quote!(::core::option::Option::map)
    };
    Some(quote! {
        struct #wrapper(#alias);
        #[automatically_derived]
        impl<'de> #private::serde::Deserialize<'de> for #wrapper {
            fn deserialize<__D: #private::serde::Deserializer<'de>>(
                __deserializer: __D,
            ) -> ::core::result::Result<Self, __D::Error> {
                ::core::result::Result::map(#decoder(__deserializer), #wrapper)
            }
        }
        fn #name<'de, __D: #private::serde::Deserializer<'de>>(
            __deserializer: __D,
        ) -> ::core::result::Result<#ty, __D::Error> {
            let __decoded: ::core::option::Option<#wrapper> =
                #private::serde::Deserialize::deserialize(__deserializer)?;
            ::core::result::Result::Ok(#unwrap(__decoded, |__user| __user.0))
        }
    })
}
