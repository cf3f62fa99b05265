//! Emits the tool struct and `impl Tool` for `#[tool]`, `#[toolbox]` and `tools![]`: the
//! entry points here, one tool's expansion in `tool_impl` (its decoding in `decode`, what it
//! describes in `schema`), the struct's own items in `inherent`, what a failed one still
//! emits in `fallback`.

mod decode;
mod fallback;
mod inherent;
mod lower;
mod schema;
mod tool_impl;

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Ident, ImplItem, ItemFn, ItemImpl, Path, Signature, Token};

use super::ast::ToolFn;
use super::attr::{is_forwarded_attr, is_param_attr};
use super::valid::{self, Place, Plan};
use crate::errors::Errors;
use crate::idents;
use tool_impl::CallTarget;

/// `#[tool]` on a free fn.
pub fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    let item: ItemFn = match syn::parse2(input.clone()) {
        Ok(item) => item,
        Err(error) => {
            let error = error.into_compile_error();
            return quote!(#error #input);
        }
    };
    let mut errors = Errors::default();
    let model = ToolFn::parse(args, &item.sig, &item.attrs, &mut errors);
    let plan = valid::validate(&model, Place::Free, None, &mut errors);
    let struct_ident = idents::struct_ident(&item.sig.ident);
    let vis = &item.vis;
    let docs = struct_docs(&item.sig.ident);
    let emitted_fn = strip_param_attrs(item.clone());
    if model.receiver.is_some() {
        // A method outside `#[toolbox]`: a struct cannot be declared inside its `impl` block.
        let error = errors.finish().err().map(syn::Error::into_compile_error);
        return quote!(#emitted_fn #error);
    }
    let generated = match errors.finish() {
        Ok(()) => {
            let target = CallTarget::Free(&item.sig.ident);
            tool_impl::expand(&model, &plan, &struct_ident, &target)
        }
        // A stand-in `impl Tool` keeps `tools![…]` and other uses from cascading into more
        // errors: the one above is the one to fix.
        Err(error) => {
            let error = error.into_compile_error();
            let stand_in = fallback::expand(&plan, &struct_ident);
            quote!(#error #stand_in)
        }
    };
    quote! {
        #emitted_fn
        #[doc = #docs]
        #[derive(::core::clone::Clone, ::core::marker::Copy, ::core::default::Default, ::core::fmt::Debug)]
        #vis struct #struct_ident;
        #generated
    }
}

/// `#[toolbox]` on an inherent impl: every `#[tool]` method becomes a tool bound to an `Arc<Self>`.
pub fn toolbox(args: TokenStream, input: TokenStream) -> TokenStream {
    let mut item: ItemImpl = match syn::parse2(input.clone()) {
        Ok(item) => item,
        Err(error) => {
            let error = error.into_compile_error();
            return quote!(#error #input);
        }
    };
    let mut errors = Errors::default();
    let krate = super::attr::parse_toolbox_args(args, &mut errors);
    if let Some((path, _)) = &item.trait_ {
        errors.spanned(
            path,
            "`#[toolbox]` goes on an inherent `impl` block, not a trait impl",
        );
    }
    if !item.generics.params.is_empty() {
        errors.spanned(
            &item.generics,
            "`#[toolbox]` cannot be used on a generic `impl` block",
        );
    }
    let original = item.clone();
    let methods: Vec<(&syn::ImplItemFn, TokenStream)> = original
        .items
        .iter()
        .filter_map(|impl_item| match impl_item {
            ImplItem::Fn(method) => tool_attr_args(&method.attrs).map(|args| (method, args)),
            _ => None,
        })
        .collect();
    let models: Vec<ToolFn> = methods
        .iter()
        .map(|(method, args)| ToolFn::parse(args.clone(), &method.sig, &method.attrs, &mut errors))
        .collect();
    let plans: Vec<Plan> = models
        .iter()
        .map(|model| valid::validate(model, Place::Toolbox, krate.as_ref(), &mut errors))
        .collect();
    check_unique_names(&plans, &models, &mut errors);

    // `#[tool]` is consumed here, so refer to its path once: the user's import stays used.
    let mut tool_paths = Vec::new();
    for impl_item in &mut item.items {
        if let ImplItem::Fn(method) = impl_item {
            if tool_attr_args(&method.attrs).is_some() {
                method.attrs.retain(|attr| {
                    let is_tool = is_tool_attr(attr);
                    if is_tool && tool_paths.is_empty() {
                        tool_paths.push(attr.path().clone());
                    }
                    !is_tool
                });
                strip_sig_param_attrs(&mut method.sig);
            }
        }
    }
    let self_ty = &item.self_ty;
    let private = valid::private_path(None, krate.as_ref());
    let tools_fn = |body: TokenStream| {
        quote! {
            #[automatically_derived]
            impl #self_ty {
                /// The `#[tool]` methods of this toolbox as tools sharing this instance,
                /// in method order.
                pub fn tools(self: ::std::sync::Arc<Self>) -> ::std::vec::Vec<::std::sync::Arc<dyn #private::Tool>> {
                    #body
                }
            }
        }
    };
    let generated = match errors.finish() {
        Ok(()) => {
            let mut tool_impls = Vec::new();
            let mut constructors = Vec::new();
            for (index, (model, plan)) in models.iter().zip(&plans).enumerate() {
                let struct_ident = idents::toolbox_tool(index);
                let target = CallTarget::Method(&model.sig.ident, self_ty);
                let tool_impl = tool_impl::expand(model, plan, &struct_ident, &target);
                let private = &plan.private;
                tool_impls.push(quote! {
                    struct #struct_ident(::std::sync::Arc<#self_ty>);
                    #tool_impl
                });
                constructors.push(quote! {
                    ::std::sync::Arc::new(#struct_ident(::std::sync::Arc::clone(&self)))
                        as ::std::sync::Arc<dyn #private::Tool>
                });
            }
            let tools = tools_fn(quote!(::std::vec![#(#constructors),*]));
            quote! {
                const _: () = {
                    #(#tool_impls)*
                    #tools
                };
            }
        }
        // A `tools()` that compiles keeps callers from cascading into more errors.
        Err(error) => {
            let error = error.into_compile_error();
            let tools = tools_fn(quote!(::std::vec::Vec::new()));
            quote!(#error #tools)
        }
    };
    quote! {
        #item
        #generated
        const _: () = {
            #(#[allow(unused_imports)] use #tool_paths as _;)*
        };
    }
}

/// `tools![a, path::b]` ⇒ `Vec<Arc<dyn Tool>>`, with a compile-time check for duplicate names
/// (a const evaluation over the `NAME` consts) and its own error for one fn listed twice.
pub fn tools(input: TokenStream) -> syn::Result<TokenStream> {
    let listed = Punctuated::<Path, Token![,]>::parse_terminated.parse2(input)?;
    let mut errors = Errors::default();
    let mut seen = std::collections::BTreeSet::new();
    let mut paths = Vec::new();
    for path in &listed {
        let text = path_text(path);
        if seen.insert(text.clone()) {
            paths.push(path);
        } else {
            errors.spanned(path, format_args!("`{text}` is listed twice in `tools![]`"));
        }
    }
    let error = errors.finish().err().map(syn::Error::into_compile_error);
    let structs: Vec<Path> = paths
        .iter()
        .map(|&path| {
            let mut path = path.clone();
            if let Some(last) = path.segments.last_mut() {
                last.ident = idents::struct_ident(&last.ident);
            }
            path
        })
        .collect();
    let Some(first) = structs.first() else {
        // Nothing listed, so no tool's path to reach toolnexus through.
        return Ok(quote! {
            {
                #error
                ::std::vec::Vec::<::std::sync::Arc<dyn ::toolnexus::__private::Tool>>::new()
            }
        });
    };
    let duplicate_name_fn = idents::duplicate_name_fn();
    let shared_fn = idents::shared_fn();
    Ok(quote! {
        {
            #error
            // The panic is here, in the user's `tools![]`, so it is all rustc shows.
            const _: () = if let ::core::option::Option::Some(duplicate) =
                #first::#duplicate_name_fn(&[#(#structs::NAME),*])
            {
                ::core::panic!("{}", duplicate.message())
            };
            ::std::vec![#(#structs::#shared_fn()),*]
        }
    })
}

/// `a :: b` ⇒ `a::b`, as the user wrote it.
fn path_text(path: &Path) -> String {
    path.to_token_stream()
        .to_string()
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect()
}

fn struct_docs(fn_ident: &Ident) -> String {
    format!(" The tool generated by `#[tool]` from [`{fn_ident}`].")
}

/// `#[tool]` or a path to it such as `#[toolnexus::tool]`.
fn is_tool_attr(attr: &syn::Attribute) -> bool {
    attr.path()
        .segments
        .last()
        .is_some_and(|segment| segment.ident == "tool")
}

/// The arguments of a method's `#[tool(…)]` (empty for a bare `#[tool]`), if it has one.
fn tool_attr_args(attrs: &[syn::Attribute]) -> Option<TokenStream> {
    let attr = attrs.iter().find(|attr| is_tool_attr(attr))?;
    Some(match &attr.meta {
        syn::Meta::List(list) => list.tokens.clone(),
        _ => TokenStream::new(),
    })
}

fn check_unique_names(plans: &[Plan], models: &[ToolFn], errors: &mut Errors) {
    for (index, plan) in plans.iter().enumerate() {
        if plans[..index]
            .iter()
            .any(|earlier| earlier.name == plan.name)
        {
            let model = &models[index];
            let at: &dyn quote::ToTokens = match &model.args.name {
                Some(literal) => literal,
                None => &model.sig.ident,
            };
            errors.spanned(
                at,
                format_args!(
                    "another `#[tool]` method of this toolbox is already named `{}`",
                    plan.name
                ),
            );
        }
    }
}

/// The fn as written, minus what only the macro reads: `#[param]`, forwarded `#[serde]` /
/// `#[schemars]` and doc comments on parameters (rustc rejects docs there).
fn strip_param_attrs(mut item: ItemFn) -> ItemFn {
    strip_sig_param_attrs(&mut item.sig);
    item
}

fn strip_sig_param_attrs(sig: &mut Signature) {
    for input in &mut sig.inputs {
        if let syn::FnArg::Typed(arg) = input {
            arg.attrs.retain(|attr| {
                !(is_param_attr(attr) || is_forwarded_attr(attr) || attr.path().is_ident("doc"))
            });
        }
    }
}
