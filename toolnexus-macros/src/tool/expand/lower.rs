//! What the fn returned, lowered into a `ToolResult` (SPEC §4), with each mistake reported at
//! the user's own token.
//!
//! A return type written `Result<T, E>` is lowered arm by arm: `Ok` by `T`'s `IntoToolResult`
//! (a `T` that cannot be lowered is reported at `T`), `Err` by `E` (an error type that is no
//! error is reported at `E`), and an `E` that is a `std::error::Error` (or a boxed `dyn
//! Error`) shows its source chain. Any other return type (an alias such as `io::Result<T>`
//! included) is lowered whole, at the return type, with the chain where it is a `Result`.

use proc_macro2::{Group, Span, TokenStream, TokenTree};
use quote::quote;
use syn::spanned::Spanned;
use syn::{GenericArgument, Ident, PathArguments, ReturnType, Signature, Type};

use crate::idents;

/// The expression that lowers the fn's returned value (bound to `idents::value`).
pub fn lowered(private: &TokenStream, sig: &Signature) -> TokenStream {
    let at_return = match &sig.output {
        ReturnType::Type(_, ty) => ty.span(),
        ReturnType::Default => sig.ident.span(),
    };
    let at = |span: Span| Span::mixed_site().located_at(span);
    let value = idents::value(at(at_return));
    // Every token of a lowering at the type it lowers, so what cannot be lowered is reported
    // there and nowhere inside the macro.
    let Some((ok, err)) = result_arguments(&sig.output) else {
        return respan(
            quote! {
                #private::IntoToolResult::into_tool_result({
                    use #private::{AsItIs as _, BoxedResultWithSources as _, ResultWithSources as _};
                    (&&&#private::Held::new(#value)).lower()
                })
            },
            at(at_return),
        );
    };
    let ok_value = Ident::new("__ok", at(ok.span()));
    let err_value = Ident::new("__err", at(err.span()));
    let lower_ok = respan(
        quote!(#private::IntoToolResult::into_tool_result(#ok_value)),
        at(ok.span()),
    );
    let lower_err = respan(
        quote! {
            #private::IntoToolError::into_tool_error({
                use #private::{AsItIs as _, BoxedErrorWithSources as _, ErrorWithSources as _};
                (&&&#private::Held::new(#err_value)).lower()
            })
        },
        at(err.span()),
    );
    quote! {
        match #value {
            ::core::result::Result::Ok(#ok_value) => #lower_ok,
            ::core::result::Result::Err(#err_value) => #lower_err,
        }
    }
}

/// `T` and `E` of a return type written `Result<T, E>` (any path ending in `Result` with two
/// type arguments: the prelude's, `std::result::Result`, or an alias with two parameters).
fn result_arguments(output: &ReturnType) -> Option<(&Type, &Type)> {
    let ReturnType::Type(_, ty) = output else {
        return None;
    };
    let Type::Path(path) = &**ty else {
        return None;
    };
    let last = path.path.segments.last()?;
    if last.ident != "Result" {
        return None;
    }
    let PathArguments::AngleBracketed(arguments) = &last.arguments else {
        return None;
    };
    let mut types = arguments.args.iter().map(|argument| match argument {
        GenericArgument::Type(ty) => Some(ty),
        _ => None,
    });
    match (types.next(), types.next(), types.next()) {
        (Some(Some(ok)), Some(Some(err)), None) => Some((ok, err)),
        _ => None,
    }
}

/// `tokens`, every one of them at `span`.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tree| {
            if let TokenTree::Group(group) = &tree {
                let mut inner = Group::new(group.delimiter(), respan(group.stream(), span));
                inner.set_span(span);
                tree = TokenTree::Group(inner);
            }
            tree.set_span(span);
            tree
        })
        .collect()
}
