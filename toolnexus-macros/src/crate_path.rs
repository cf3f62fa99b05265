//! Where toolnexus is: `crate = "path"` in `#[tool(…)]`, `#[toolbox(…)]` and the derives'
//! `#[toolnexus(…)]`, for a dependency renamed in `Cargo.toml`. Generated code names
//! toolnexus only through [`private`].

use proc_macro2::TokenStream;
use quote::quote;
use syn::meta::ParseNestedMeta;
use syn::{Attribute, LitStr};

use crate::errors::Errors;
use crate::symbol::{CRATE, TOOLNEXUS};

/// `crate = "path"`, parsed.
pub struct CratePath {
    pub path: syn::Path,
}

/// `<path>::__private`, else `::toolnexus::__private`: the only path generated code names
/// besides `::core` and `::std`.
pub fn private(krate: Option<&CratePath>) -> TokenStream {
    match krate {
        Some(krate) => {
            let path = &krate.path;
            quote!(#path::__private)
        }
        None => quote!(::toolnexus::__private),
    }
}

/// `"<private>::module"`, for the `crate = "…"` strings of serde's and schemars' derives.
pub fn private_str(private: &TokenStream, module: &str) -> String {
    let path: String = private
        .to_string()
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    format!("{path}::{module}")
}

/// Reads the value of a `crate` key of `#[attr(…)]` into `slot`.
pub fn set(meta: &ParseNestedMeta, slot: &mut Option<CratePath>, attr: &str) -> syn::Result<()> {
    let lit: LitStr = meta.value()?.parse()?;
    let path = lit.parse_with(syn::Path::parse_mod_style).map_err(|_| {
        syn::Error::new(
            lit.span(),
            format_args!(
                "`#[{attr}(crate = \"…\")]` needs a path to the toolnexus crate, e.g. `crate = \"::my_toolnexus\"`"
            ),
        )
    })?;
    if slot.is_some() {
        return Err(meta.error("duplicate key `crate`"));
    }
    *slot = Some(CratePath { path });
    Ok(())
}

/// The derives' container attribute `#[toolnexus(crate = "path")]`, whose only key is
/// `crate`; several such attributes read as one.
pub fn from_container(attrs: &[Attribute], errors: &mut Errors) -> Option<CratePath> {
    let mut krate = None;
    for attr in attrs.iter().filter(|attr| is_toolnexus_attr(attr)) {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path == CRATE {
                set(&meta, &mut krate, "toolnexus")
            } else {
                Err(meta.error(format_args!(
                    "unknown `#[toolnexus]` key `{}`; expected `crate`",
                    path_text(&meta.path)
                )))
            }
        });
        if let Err(error) = result {
            errors.push(error);
        }
    }
    krate
}

/// `#[toolnexus(…)]`, which only a derived type itself takes.
pub fn is_toolnexus_attr(attr: &Attribute) -> bool {
    attr.path() == TOOLNEXUS
}

/// `a::b`, as written, for messages.
pub fn path_text(path: &syn::Path) -> String {
    let segments: Vec<String> = path
        .segments
        .iter()
        .map(|segment| segment.ident.to_string())
        .collect();
    segments.join("::")
}
