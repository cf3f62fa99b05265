//! Emits the tool struct, its arguments struct and `impl Tool` for `#[tool]`, `#[toolbox]`
//! and `tools![]`.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Ident, ImplItem, ItemFn, ItemImpl, Path, ReturnType, Signature, Token};

use super::ast::{ParamKind, ToolFn};
use super::attr::{ParamDefault, is_forwarded_attr, is_param_attr};
use super::valid::{self, Place, Plan};
use crate::errors::Errors;

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
    let plan = valid::validate(&model, Place::Free, &mut errors);
    let struct_ident = valid::struct_ident(&item.sig.ident);
    let vis = &item.vis;
    let docs = struct_docs(&item.sig.ident);
    let emitted_fn = strip_param_attrs(item.clone());
    let generated = match errors.finish() {
        Ok(()) => {
            let target = CallTarget::Free(&item.sig.ident);
            let tool_impl = expand_tool(&model, &plan, &struct_ident, &target);
            quote!(const _: () = { #tool_impl };)
        }
        // Keep the struct so `tools![…]` and other uses do not cascade into more errors.
        Err(error) => error.into_compile_error(),
    };
    if model.receiver.is_some() {
        // A method: a struct cannot be declared inside its `impl` block.
        return quote!(#emitted_fn #generated);
    }
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
    if !args.is_empty() {
        errors.spanned(&args, "`#[toolbox]` takes no arguments");
    }
    if let Some((_, path, _)) = &item.trait_ {
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
        .map(|model| valid::validate(model, Place::Toolbox, &mut errors))
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
    let tools_fn = |body: TokenStream| {
        quote! {
            #[automatically_derived]
            impl #self_ty {
                /// The `#[tool]` methods of this toolbox as tools sharing this instance,
                /// in method order.
                pub fn tools(self: ::std::sync::Arc<Self>) -> ::std::vec::Vec<::std::sync::Arc<dyn ::toolnexus::__private::Tool>> {
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
                let struct_ident = format_ident!("__ToolnexusTool{index}");
                let target = CallTarget::Method(&model.sig.ident);
                let tool_impl = expand_tool(model, plan, &struct_ident, &target);
                tool_impls.push(quote! {
                    struct #struct_ident(::std::sync::Arc<#self_ty>);
                    #tool_impl
                });
                constructors.push(quote! {
                    ::std::sync::Arc::new(#struct_ident(::std::sync::Arc::clone(&self)))
                        as ::std::sync::Arc<dyn ::toolnexus::__private::Tool>
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

/// `tools![a, path::b]` ⇒ `Vec<Arc<dyn Tool>>`, with a compile-time check for duplicate names.
pub fn tools(input: TokenStream) -> syn::Result<TokenStream> {
    let paths = Punctuated::<Path, Token![,]>::parse_terminated.parse2(input)?;
    let structs: Vec<Path> = paths
        .iter()
        .map(|path| {
            let mut path = path.clone();
            if let Some(last) = path.segments.last_mut() {
                last.ident = valid::struct_ident(&last.ident);
            }
            path
        })
        .collect();
    Ok(quote! {
        {
            const _: () = ::toolnexus::__private::assert_unique_tool_names(&[#(#structs::NAME),*]);
            let tools: ::std::vec::Vec<::std::sync::Arc<dyn ::toolnexus::__private::Tool>> =
                ::std::vec![#(::std::sync::Arc::new(#structs) as ::std::sync::Arc<dyn ::toolnexus::__private::Tool>),*];
            tools
        }
    })
}

enum CallTarget<'a> {
    Free(&'a Ident),
    Method(&'a Ident),
}

/// The arguments struct, the `NAME`/`DESCRIPTION` consts and `impl Tool` for one tool.
fn expand_tool(
    model: &ToolFn,
    plan: &Plan,
    struct_ident: &Ident,
    target: &CallTarget,
) -> TokenStream {
    let private = quote!(::toolnexus::__private);
    let args_ident = format_ident!("__ToolnexusArgs", span = Span::call_site());
    let args_ident = match target {
        CallTarget::Free(_) => args_ident,
        CallTarget::Method(_) => format_ident!("{}Args", struct_ident),
    };
    let name = &plan.name;
    let description = &plan.description;

    let mut fields = Vec::new();
    let mut helpers = Vec::new();
    for (index, field) in plan.fields.iter().enumerate() {
        let param = field.param;
        let ident = field.ident;
        let ty = param.ty;
        let wire = &field.wire;
        let de = format_ident!("de_{index}");
        let de_path = format!("{args_ident}::{de}");
        let describe = field
            .description
            .as_ref()
            .map(|text| quote!(#[schemars(description = #text)]));
        let rename = param
            .attr
            .rename
            .as_ref()
            .map(|rename| quote!(#[serde(rename = #rename)]));
        let forwarded = &param.forwarded;
        let user_deserializes = forwarded.iter().any(|attr| overrides_deserialize(attr));
        let with = |extra: TokenStream| {
            if user_deserializes {
                extra
            } else if extra.is_empty() {
                quote!(deserialize_with = #de_path)
            } else {
                quote!(#extra, deserialize_with = #de_path)
            }
        };
        let serde_attr = match (&param.kind, &param.attr.default) {
            (ParamKind::Optional { inner }, _) => {
                helpers.push(quote! {
                    fn #de<'de, D: #private::serde::Deserializer<'de>>(deserializer: D)
                        -> ::core::result::Result<::core::option::Option<#inner>, D::Error> {
                        #private::field::<::core::option::Option<#inner>, D>(#wire, deserializer)
                    }
                });
                // `required` makes schemars describe `T`, not `T | null`; `default` and
                // `skip_serializing_if` keep it out of `required` without a `"default": null`.
                let attrs = with(quote!(
                    default,
                    skip_serializing_if = "::core::option::Option::is_none"
                ));
                quote!(#[serde(#attrs)] #[schemars(required)])
            }
            (_, Some(default)) => {
                let default_fn = format_ident!("default_{index}");
                let default_path = format!("{args_ident}::{default_fn}");
                let value = match default {
                    ParamDefault::Trait(key) => {
                        quote_spanned!(key.span()=> ::core::default::Default::default())
                    }
                    // A string literal default converts (`&str` ⇒ `String`); others are used as written.
                    ParamDefault::Expr(_, expr) if is_str_literal(expr) => {
                        quote_spanned!(expr.span()=> ::core::convert::Into::into(#expr))
                    }
                    ParamDefault::Expr(_, expr) => quote!(#expr),
                };
                helpers.push(quote! {
                    fn #default_fn() -> #ty { #value }
                    fn #de<'de, D: #private::serde::Deserializer<'de>>(deserializer: D)
                        -> ::core::result::Result<#ty, D::Error> {
                        // `null` counts as absent, like a missing key.
                        #private::field::<::core::option::Option<#ty>, D>(#wire, deserializer)
                            .map(|value| value.unwrap_or_else(Self::#default_fn))
                    }
                });
                let attrs = with(quote!(default = #default_path));
                quote!(#[serde(#attrs)])
            }
            _ => {
                helpers.push(quote! {
                    fn #de<'de, D: #private::serde::Deserializer<'de>>(deserializer: D)
                        -> ::core::result::Result<#ty, D::Error> {
                        #private::field::<#ty, D>(#wire, deserializer)
                    }
                });
                let attrs = with(TokenStream::new());
                if attrs.is_empty() {
                    TokenStream::new()
                } else {
                    quote!(#[serde(#attrs)])
                }
            }
        };
        fields.push(quote! {
            #describe
            #rename
            #(#forwarded)*
            #serde_attr
            #ident: #ty
        });
    }

    let field_idents: Vec<&Ident> = plan.fields.iter().map(|field| field.ident).collect();
    let call_args = model.params.iter().filter_map(|param| match param.kind {
        ParamKind::Context { by_ref: true } => Some(quote!(__ctx)),
        ParamKind::Context { by_ref: false } => Some(quote!(::core::clone::Clone::clone(__ctx))),
        _ => param.ident.map(|ident| quote!(#ident)),
    });
    let sig = model.sig;
    let call = match target {
        CallTarget::Free(ident) => quote!(#ident(#(#call_args),*)),
        CallTarget::Method(ident) => quote!(__tool.0.#ident(#(#call_args),*)),
    };
    let call = match sig.asyncness {
        Some(_) => quote!(#call.await),
        None => call,
    };
    let lower = quote_spanned!(return_span(sig)=> ::toolnexus::__private::IntoToolResult::into_tool_result(__value));
    // An async tool's future must be `Send`; report it at the fn, not inside the macro.
    let boxed = quote_spanned!(sig.ident.span()=> ::std::boxed::Box::pin);
    let decode = |decoder: TokenStream| {
        quote! {
            match #decoder {
                ::core::result::Result::Ok(args) => args.run(self, __ctx),
                ::core::result::Result::Err(error) => ::std::boxed::Box::pin(::core::future::ready(error)),
            }
        }
    };
    let from_value = decode(quote!(#private::decode_args::<#args_ident>(Self::NAME, __args)));
    let from_text = decode(quote!(#private::decode_args_json::<#args_ident>(Self::NAME, __args)));

    quote! {
        #[derive(#private::serde::Deserialize, #private::schemars::JsonSchema)]
        #[serde(crate = "::toolnexus::__private::serde", deny_unknown_fields)]
        #[schemars(crate = "::toolnexus::__private::schemars")]
        struct #args_ident {
            #(#fields),*
        }

        impl #args_ident {
            #(#helpers)*

            /// Calls the fn with these arguments; both `execute` entry points end here.
            fn run<'a>(
                self,
                __tool: &'a #struct_ident,
                __ctx: &'a ::toolnexus::__private::ToolContext,
            ) -> ::toolnexus::__private::BoxFuture<'a, ::toolnexus::__private::ToolResult> {
                let #args_ident { #(#field_idents),* } = self;
                let _ = (__tool, __ctx);
                #boxed(async move {
                    let __value = #call;
                    #lower
                })
            }
        }

        #[automatically_derived]
        impl #struct_ident {
            /// The tool's name, as the model calls it.
            pub const NAME: &'static str = #name;
            /// The tool's description, as the model reads it.
            pub const DESCRIPTION: &'static str = #description;
        }

        #[automatically_derived]
        impl ::toolnexus::__private::Tool for #struct_ident {
            fn name(&self) -> &str {
                Self::NAME
            }

            fn description(&self) -> &str {
                Self::DESCRIPTION
            }

            fn input_schema(&self) -> &#private::serde_json::Map<::std::string::String, #private::serde_json::Value> {
                static SCHEMA: ::std::sync::OnceLock<#private::serde_json::Map<::std::string::String, #private::serde_json::Value>> =
                    ::std::sync::OnceLock::new();
                SCHEMA.get_or_init(#private::input_schema_for::<#args_ident>)
            }

            fn execute<'a>(
                &'a self,
                __args: #private::serde_json::Value,
                __ctx: &'a ::toolnexus::__private::ToolContext,
            ) -> ::toolnexus::__private::BoxFuture<'a, ::toolnexus::__private::ToolResult> {
                #from_value
            }

            fn execute_json<'a>(
                &'a self,
                __args: &'a str,
                __ctx: &'a ::toolnexus::__private::ToolContext,
            ) -> ::toolnexus::__private::BoxFuture<'a, ::toolnexus::__private::ToolResult> {
                #from_text
            }
        }
    }
}

fn return_span(sig: &Signature) -> Span {
    match &sig.output {
        ReturnType::Type(_, ty) => ty.span(),
        ReturnType::Default => sig.ident.span(),
    }
}

fn is_str_literal(expr: &syn::Expr) -> bool {
    matches!(
        expr,
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(_),
            ..
        })
    )
}

/// Whether a forwarded `#[serde(…)]` replaces deserialization (`with`, `deserialize_with`),
/// in which case the field-naming wrapper must stay out of its way.
fn overrides_deserialize(attr: &syn::Attribute) -> bool {
    if !attr.path().is_ident("serde") {
        return false;
    }
    let mut found = false;
    let _ = attr.parse_nested_meta(|meta| {
        if meta.path.is_ident("with") || meta.path.is_ident("deserialize_with") {
            found = true;
        }
        if meta.input.peek(Token![=]) {
            let _: syn::Expr = meta.value()?.parse()?;
        }
        Ok(())
    });
    found
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
