//! `#[derive(toolnexus::JsonSchema)]`: schemars' own derive, reached through toolnexus.
//!
//! The expansion defines, inside `const _: () = { … };`, a private copy of the user's type with
//! the same generics, fields, variants and schema-relevant attributes (docs, `#[serde]`,
//! `#[schemars]`, `#[validate]`, `#[garde]`, `#[deprecated]`), derives schemars' `JsonSchema`
//! on that copy with `#[schemars(crate = "::toolnexus::__private::schemars")]` (or the path
//! `#[toolnexus(crate = "…")]` gives), and implements
//! `JsonSchema` for the user's type by delegating every method to the copy. The copy carries
//! `#[schemars(rename = "<original name>")]` (unless the user renamed the type), so its schema
//! name and its schema id (`module_path!()::<name>`, plus the type parameters' ids for a
//! generic type) are exactly what schemars' derive gives the original type: the schema is the
//! same, and two different types never share an id unless schemars' own derive would.
//!
//! The user's crate needs no schemars dependency and no schemars path in scope: the generated
//! code names only `::core`, `::std` and `::toolnexus::__private` (or the `crate` given).

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::quote;
use syn::ext::IdentExt;
use syn::{Attribute, Data, DeriveInput, Fields, Ident, Meta};

use crate::crate_path;
use crate::errors::Errors;
use crate::idents;

pub fn derive(input: &DeriveInput) -> syn::Result<TokenStream> {
    if let Data::Union(data) = &input.data {
        return Err(syn::Error::new_spanned(
            data.union_token,
            "`JsonSchema` cannot be derived for a union; use a struct or an enum",
        ));
    }

    let mut errors = Errors::default();
    let krate = crate_path::from_container(&input.attrs, &mut errors);
    errors.finish()?;
    let private = crate_path::private(krate.as_ref());

    let ident = &input.ident;
    let copy = idents::schema_copy(&unraw(ident));
    let trait_path = quote!(#private::schemars::JsonSchema);
    // Local names the user's consts must not capture.
    let original = Ident::new("original", Span::mixed_site());
    let generator = Ident::new("generator", Span::mixed_site());

    let container_attrs = forwarded(&input.attrs);
    let user_crate = has_top_level_key(&input.attrs, &["schemars"], "crate");
    let crate_attr = (!user_crate).then(|| {
        let schemars = crate_path::private_str(&private, "schemars");
        quote!(#[schemars(crate = #schemars)])
    });
    // schemars names the schema after the copy unless told otherwise; a user `rename` (serde or
    // schemars) or a serde `remote` already decides the name, exactly as on the original.
    let user_named = has_top_level_key(&input.attrs, &["serde", "schemars"], "rename")
        || has_top_level_key(&input.attrs, &["serde"], "remote");
    let rename_attr = (!user_named).then(|| {
        let name = unraw(ident);
        quote!(#[schemars(rename = #name)])
    });

    let generics = &input.generics;
    let where_clause = &generics.where_clause;
    let body = match &input.data {
        Data::Struct(data) => {
            let fields = copy_fields(&data.fields);
            match &data.fields {
                Fields::Named(_) => quote!(struct #copy #generics #where_clause #fields),
                Fields::Unnamed(_) => quote!(struct #copy #generics #fields #where_clause;),
                Fields::Unit => quote!(struct #copy #generics #where_clause;),
            }
        }
        Data::Enum(data) => {
            let variants = data.variants.iter().map(|variant| {
                let attrs = forwarded(&variant.attrs);
                let name = &variant.ident;
                let fields = copy_fields(&variant.fields);
                let discriminant = variant
                    .discriminant
                    .as_ref()
                    .map(|(eq, expr)| quote!(#eq #expr));
                quote!(#(#attrs)* #name #fields #discriminant)
            });
            quote!(enum #copy #generics #where_clause { #(#variants,)* })
        }
        Data::Union(_) => unreachable!("unions are refused above"),
    };

    let (impl_generics, ty_generics, _) = generics.split_for_impl();
    let mut predicates: Vec<TokenStream> = where_clause
        .iter()
        .flat_map(|clause| clause.predicates.iter())
        .map(|predicate| quote!(#predicate))
        .collect();
    predicates.push(quote!(#copy #ty_generics: #trait_path));

    // schemars evaluates a container-level `#[serde(default)]` as `Self::default()`, where
    // `Self` is the copy: give the copy the original's default, field by field.
    let default_impl = match &input.data {
        Data::Struct(data) if has_bare_default(&input.attrs) => {
            let members: Vec<syn::Member> = data.fields.members().collect();
            let mut default_predicates: Vec<TokenStream> = where_clause
                .iter()
                .flat_map(|clause| clause.predicates.iter())
                .map(|predicate| quote!(#predicate))
                .collect();
            default_predicates.push(quote!(#ident #ty_generics: ::core::default::Default));
            Some(quote! {
                impl #impl_generics ::core::default::Default for #copy #ty_generics
                where #(#default_predicates,)*
                {
                    fn default() -> Self {
                        let #original = <#ident #ty_generics as ::core::default::Default>::default();
                        Self { #(#members: #original.#members,)* }
                    }
                }
            })
        }
        _ => None,
    };

    let generator_ty = quote!(#private::schemars::SchemaGenerator);
    let schema = quote!(#private::schemars::Schema);
    let delegate = quote!(<#copy #ty_generics as #trait_path>);
    // schemars' derive overrides its two hidden `_schemars_private_*` methods only for a
    // transparent type (one that is its single field, or `with` another type), so a
    // `#[serde(transparent)] struct Maybe(Option<T>)` field is optional like an `Option`. Only
    // then must ours forward them too; every other type keeps the trait's defaults, so the
    // hidden API is touched only where schemars itself touches it. The schemars version is
    // bounded in `toolnexus/Cargo.toml` for this reason.
    let transparent = has_top_level_key(&input.attrs, &["serde", "schemars"], "transparent")
        || has_top_level_key(&input.attrs, &["schemars"], "with");
    let transparent_forwarding = transparent.then(|| {
        quote! {
            fn _schemars_private_non_optional_json_schema(#generator: &mut #generator_ty) -> #schema {
                #delegate::_schemars_private_non_optional_json_schema(#generator)
            }

            fn _schemars_private_is_option() -> bool {
                #delegate::_schemars_private_is_option()
            }
        }
    });
    let cow = quote!(::std::borrow::Cow<'static, str>);

    Ok(quote! {
        #[allow(deprecated, non_camel_case_types, non_snake_case, unused_qualifications)]
        const _: () = {
            #[derive(#trait_path)]
            #crate_attr
            #rename_attr
            #(#container_attrs)*
            #[allow(dead_code, clippy::all, clippy::pedantic)]
            #body

            #default_impl

            #[automatically_derived]
            #[allow(private_bounds, private_interfaces)]
            impl #impl_generics #trait_path for #ident #ty_generics
            where #(#predicates,)*
            {
                fn inline_schema() -> bool {
                    #delegate::inline_schema()
                }

                fn schema_name() -> #cow {
                    #delegate::schema_name()
                }

                fn schema_id() -> #cow {
                    #delegate::schema_id()
                }

                fn json_schema(#generator: &mut #generator_ty) -> #schema {
                    #delegate::json_schema(#generator)
                }

                #transparent_forwarding
            }
        };
    })
}

/// The fields of the copy: same names, types and schema attributes; private, since only their
/// types matter.
fn copy_fields(fields: &Fields) -> TokenStream {
    let copied = fields.iter().map(|field| {
        let attrs = forwarded(&field.attrs);
        let ty = &field.ty;
        match &field.ident {
            Some(name) => quote!(#(#attrs)* #name: #ty),
            None => quote!(#(#attrs)* #ty),
        }
    });
    match fields {
        Fields::Named(_) => quote!({ #(#copied,)* }),
        Fields::Unnamed(_) => quote!(( #(#copied,)* )),
        Fields::Unit => TokenStream::new(),
    }
}

/// The attributes schemars' derive reads: docs, serde, schemars, validation and deprecation.
fn forwarded(attrs: &[Attribute]) -> Vec<&Attribute> {
    const READ_BY_SCHEMARS: [&str; 6] = [
        "doc",
        "serde",
        "schemars",
        "validate",
        "garde",
        "deprecated",
    ];
    attrs
        .iter()
        .filter(|attr| {
            READ_BY_SCHEMARS
                .iter()
                .any(|name| attr.path().is_ident(name))
        })
        .collect()
}

/// Whether a `#[kind(…)]` attribute (kind in `kinds`) names `key` at its top level, as in
/// `#[serde(rename = "x")]` or `#[serde(rename(deserialize = "x"))]`.
fn has_top_level_key(attrs: &[Attribute], kinds: &[&str], key: &str) -> bool {
    top_level_keys(attrs, kinds).any(|(ident, _)| ident == key)
}

/// Whether a container-level serde or schemars attribute says `default` with no path, i.e.
/// fields default from the container's `Default`.
fn has_bare_default(attrs: &[Attribute]) -> bool {
    top_level_keys(attrs, &["serde", "schemars"]).any(|(ident, next)| {
        ident == "default" && !matches!(next, Some(TokenTree::Punct(p)) if p.as_char() == '=')
    })
}

/// The top-level identifiers of the matching list attributes, each with the token after it.
fn top_level_keys<'a>(
    attrs: &'a [Attribute],
    kinds: &'a [&'a str],
) -> impl Iterator<Item = (Ident, Option<TokenTree>)> + 'a {
    attrs
        .iter()
        .filter(|attr| kinds.iter().any(|kind| attr.path().is_ident(kind)))
        .filter_map(|attr| match &attr.meta {
            Meta::List(list) => Some(list.tokens.clone()),
            _ => None,
        })
        .flat_map(|tokens| {
            let tokens: Vec<TokenTree> = tokens.into_iter().collect();
            let mut keys = Vec::new();
            // A key starts the list or follows a top-level comma; values are literals, paths or
            // parenthesised groups, so an identifier in key position is always a key.
            let mut key_position = true;
            for (i, token) in tokens.iter().enumerate() {
                match token {
                    TokenTree::Ident(ident) if key_position => {
                        keys.push((ident.clone(), tokens.get(i + 1).cloned()));
                        key_position = false;
                    }
                    TokenTree::Punct(p) if p.as_char() == ',' => key_position = true,
                    TokenTree::Punct(p) if p.as_char() == '!' && key_position => {}
                    _ => key_position = false,
                }
            }
            keys
        })
}

/// An identifier's name without a raw prefix (`r#type` ⇒ `type`), as serde names it.
fn unraw(ident: &Ident) -> String {
    ident.unraw().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    #[test]
    fn keys_are_found_only_at_top_level() {
        let attrs: Vec<Attribute> = vec![
            parse_quote!(#[serde(rename_all = "camelCase", default)]),
            parse_quote!(#[schemars(description = "rename")]),
        ];
        assert!(!has_top_level_key(&attrs, &["serde", "schemars"], "rename"));
        assert!(has_bare_default(&attrs));
        let attrs: Vec<Attribute> = vec![parse_quote!(#[serde(rename(deserialize = "X"))])];
        assert!(has_top_level_key(&attrs, &["serde"], "rename"));
        let attrs: Vec<Attribute> = vec![parse_quote!(#[serde(default = "make")])];
        assert!(!has_bare_default(&attrs));
    }

    #[test]
    fn unions_are_refused_on_the_union_token() {
        let input: DeriveInput = parse_quote!(
            union U {
                a: u32,
            }
        );
        let error = derive(&input).unwrap_err();
        assert_eq!(
            error.to_string(),
            "`JsonSchema` cannot be derived for a union; use a struct or an enum"
        );
    }
}
