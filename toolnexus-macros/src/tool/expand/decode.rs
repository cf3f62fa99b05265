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
use quote::{format_ident, quote};
use syn::{Ident, Index, LitStr};

use super::super::valid::{Field, Plan};
use super::tool_impl::{alias_ident, local, param_local};

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
    if field.param.attr.default.is_some() {
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
            #private::decode_params(
                Self::NAME,
                #args,
                __toolnexus_schema(),
                __TOOLNEXUS_KEYS,
                #slot_list,
            )
        },
        from_text: quote! {
            #private::decode_params_json(
                Self::NAME,
                #args,
                __toolnexus_schema(),
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
    let null_as_absent = plan
        .fields
        .iter()
        .enumerate()
        .filter_map(|(index, field)| null_as_absent(plan, index, field));
    let bindings = plan.fields.iter().enumerate().map(|(index, field)| {
        let ident = field.ident;
        let binding = param_local(index, field.ident.span());
        quote!(#ident: #binding)
    });
    // serde cannot deny unknown fields beside a flattened enum (it refuses the enum's own);
    // the runtime closes the schema and refuses unknown keys instead (`tool_schema_of`).
    let deny_unknown = (!plan.fields.iter().any(flattens)).then(|| quote!(, deny_unknown_fields));
    Decode {
        items: quote! {
            #(#null_as_absent)*
            #[derive(#private::serde::Deserialize)]
            #[serde(crate = #serde_crate #deny_unknown)]
            struct __ToolnexusArgs {
                #(#fields),*
            }
        },
        setup: TokenStream::new(),
        from_value: quote! {
            #private::decode_args::<__ToolnexusArgs>(Self::NAME, #args, __toolnexus_schema())
        },
        from_text: quote! {
            #private::decode_args_json::<__ToolnexusArgs>(
                Self::NAME,
                #args,
                __toolnexus_schema(),
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
/// `Option` too (see [`decoded_type`]). The user's own deserializer is reached through
/// [`null_as_absent`] where `null` means absent.
fn args_field(index: usize, field: &Field) -> TokenStream {
    let ident = field.ident;
    let ty = decoded_type(index, field);
    let param = field.param;
    let rename = param
        .attr
        .rename
        .as_ref()
        .map(|rename| quote!(#[serde(rename = #rename)]));
    let optional = param.attr.default.is_some() || field.shape.optional;
    let serde_attrs = param
        .forwarded
        .iter()
        .filter(|attr| attr.path().is_ident("serde"));
    let serde_attrs: Vec<TokenStream> = match user_decoder(field) {
        Some(_) if optional => {
            let wrapper = LitStr::new(&null_as_absent_ident(index).to_string(), Span::call_site());
            serde_attrs
                .map(|attr| match serde_metas(attr) {
                    Some(metas) => {
                        let rest = metas.into_iter().filter(|meta| !replaces_decoder(meta));
                        quote!(#[serde(#(#rest),*)])
                    }
                    None => quote!(#attr),
                })
                .chain([quote!(#[serde(deserialize_with = #wrapper)])])
                .collect()
        }
        _ => serde_attrs.map(|attr| quote!(#attr)).collect(),
    };
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
fn null_as_absent(plan: &Plan, index: usize, field: &Field) -> Option<TokenStream> {
    if field.param.attr.default.is_none() && !field.shape.optional {
        return None;
    }
    let decoder = user_decoder(field)?;
    let private = &plan.private;
    let alias = alias_ident(index, field);
    let ty = decoded_type(index, field);
    let wrapper = format_ident!("__ToolnexusUserDecoded{index}");
    let name = null_as_absent_ident(index);
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

fn null_as_absent_ident(index: usize) -> Ident {
    format_ident!("__toolnexus_null_as_absent_{index}")
}

/// The path of the user's own deserializer, from `deserialize_with = "path"` or
/// `with = "module"` (`module::deserialize`), spanned at the user's string.
fn user_decoder(field: &Field) -> Option<TokenStream> {
    let metas = field
        .param
        .forwarded
        .iter()
        .filter(|attr| attr.path().is_ident("serde"))
        .filter_map(serde_metas)
        .flatten();
    let mut decoder = None;
    for meta in metas {
        let syn::Meta::NameValue(pair) = &meta else {
            continue;
        };
        let syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(path),
            ..
        }) = &pair.value
        else {
            continue;
        };
        // serde itself reports a path that does not parse; decoding is left to it then.
        let Ok(path) = path.parse::<syn::Path>() else {
            continue;
        };
        if pair.path.is_ident("deserialize_with") {
            decoder = Some(quote!(#path));
        } else if pair.path.is_ident("with") {
            decoder = Some(quote!(#path::deserialize));
        }
    }
    decoder
}

/// Whether a forwarded `#[serde(flatten)]` spreads the parameter's fields over the arguments.
pub fn flattens(field: &Field) -> bool {
    field
        .param
        .forwarded
        .iter()
        .filter(|attr| attr.path().is_ident("serde"))
        .filter_map(serde_metas)
        .flatten()
        .any(|meta| meta.path().is_ident("flatten"))
}

fn replaces_decoder(meta: &syn::Meta) -> bool {
    meta.path().is_ident("with") || meta.path().is_ident("deserialize_with")
}

/// The metas of one `#[serde(…)]`, whole, so a nested list (`rename(deserialize = "…")`) is
/// read past rather than ending the scan; `None` if it does not parse (serde reports that).
fn serde_metas(
    attr: &syn::Attribute,
) -> Option<syn::punctuated::Punctuated<syn::Meta, syn::Token![,]>> {
    attr.parse_args_with(syn::punctuated::Punctuated::parse_terminated)
        .ok()
}
