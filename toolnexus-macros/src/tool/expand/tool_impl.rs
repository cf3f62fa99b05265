//! One tool's expansion: what decodes its arguments (see `decode`), the schema struct
//! schemars describes, and `impl Tool`, all inside one `const _: () = { … };`.
//!
//! Hygiene: every local the expansion binds is `Span::mixed_site()`, so no parameter name
//! (the fn's own, `args`, `ctx`, `__value`, …) can shadow or be shadowed by one; items carry
//! `__Toolnexus`/`__toolnexus_` names in a block nothing else can name; every path is
//! absolute (`::core`, `::std`, the toolnexus path), so the expansion compiles under
//! `#![no_implicit_prelude]` and beside local items named `Result`, `Some`, `String`, ….

use proc_macro2::{Group, Span, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{Ident, LitStr, ReturnType, Signature, Type};

use super::super::ast::{Lend, ParamKind, ToolFn};
use super::super::attr::{Flag, ParamDefault};
use super::super::valid::{Field, Plan};
use super::decode;

pub enum CallTarget<'a> {
    Free(&'a Ident),
    /// A `#[toolbox]` method, and the type of the `impl` block it stands in.
    Method(&'a Ident, &'a Type),
}

/// A local of the expansion, unreachable from the user's tokens.
pub fn local(name: &str) -> Ident {
    Ident::new(name, Span::mixed_site())
}

/// A local holding one parameter's value, located at the parameter (for error spans).
pub fn param_local(index: usize, at: Span) -> Ident {
    Ident::new(
        &format!("__param{index}"),
        Span::mixed_site().located_at(at),
    )
}

pub fn expand(
    model: &ToolFn,
    plan: &Plan,
    struct_ident: &Ident,
    target: &CallTarget,
) -> TokenStream {
    let private = &plan.private;
    let schemars_crate = plan.private_str("schemars");
    let map = quote!(#private::serde_json::Map<::std::string::String, #private::serde_json::Value>);

    let aliases = plan.fields.iter().enumerate().map(|(index, field)| {
        let alias = alias_ident(index, field);
        let owned = &field.shape.owned;
        quote!(type #alias = #owned;)
    });
    let assertions = plan.fields.iter().enumerate().map(|(index, field)| {
        let alias = alias_ident(index, field);
        let span = field.param.ty.span();
        quote_spanned! {span=>
            #private::assert_deserialize::<#alias>();
            #private::assert_json_schema::<#alias>();
        }
    });
    let defaults = plan
        .fields
        .iter()
        .enumerate()
        .filter_map(|(index, field)| default_fn(index, field));
    let schema_fields = plan
        .fields
        .iter()
        .enumerate()
        .map(|(index, field)| schema_field(index, field));

    // With a flattened parameter the runtime closes the schema (see `decode::derived`).
    let flattened = plan.fields.iter().any(decode::flattens);
    let deny_unknown = (!flattened).then(|| quote!(#[serde(deny_unknown_fields)]));

    let tool = local("__tool");
    let ctx = local("__ctx");
    let args = local("__args");
    let invalid = local("__invalid");
    let raw = local("__raw");
    let stop = local("__stop");
    let value = local("__value");

    let params = plan.fields.iter().enumerate().map(|(index, field)| {
        let binding = param_local(index, field.ident.span());
        let ty = decode::decoded_type(index, field);
        quote!(#binding: #ty)
    });
    let unwrap_defaults = plan.fields.iter().enumerate().map(|(index, field)| {
        field.param.attr.default.as_ref()?;
        let binding = param_local(index, field.ident.span());
        let default = default_ident(index);
        Some(quote! {
            // `null` and a missing key both mean "use the default".
            let #binding = ::core::option::Option::unwrap_or_else(#binding, #default);
        })
    });
    let mut field_index = 0;
    let call_args: Vec<TokenStream> = model
        .params
        .iter()
        .filter_map(|param| match &param.kind {
            ParamKind::Context { by_ref: true } => Some(quote!(#ctx)),
            ParamKind::Context { by_ref: false } => Some(quote!(::core::clone::Clone::clone(#ctx))),
            ParamKind::Value(shape) => {
                let at = param.ident.map_or_else(|| param.ty.span(), Ident::span);
                let binding = param_local(field_index, at);
                field_index += 1;
                Some(match shape.lend {
                    Lend::Move => quote!(#binding),
                    Lend::Borrow => quote!(&#binding),
                    Lend::AsDeref => quote!(::core::option::Option::as_deref(&#binding)),
                    Lend::AsRef => quote!(::core::option::Option::as_ref(&#binding)),
                })
            }
            ParamKind::MutContext | ParamKind::Unsupported(..) => None,
        })
        .collect();
    let sig = model.sig;
    let call = match target {
        CallTarget::Free(ident) => quote!(#ident(#(#call_args),*)),
        CallTarget::Method(ident, _) => quote!(#tool.0.#ident(#(#call_args),*)),
    };
    let call = match sig.asyncness {
        Some(_) => quote!(#call.await),
        None => call,
    };
    // Every token at the return type, so a type that cannot be lowered is reported there.
    let at_return = Span::mixed_site().located_at(return_span(sig));
    let lower_path = respan(
        quote!(#private::IntoToolResult::into_tool_result),
        at_return,
    );
    let lowered = Ident::new("__value", at_return);
    let lower = quote_spanned!(at_return=> #lower_path(#lowered));
    // A sync fn runs now and its result needs no future on the heap; an async tool's future
    // is boxed, and must be `Send` (reported at the fn, not inside the macro).
    let run_body = match sig.asyncness {
        Some(_) => {
            let boxed = quote_spanned!(sig.ident.span()=> ::std::boxed::Box::pin);
            quote! {
                #private::ToolFuture::boxed(#boxed(async move {
                    let #value = #call;
                    #lower
                }))
            }
        }
        None => quote! {
            let #value = #call;
            #private::ToolFuture::ready(#lower)
        },
    };
    let ready = |result: &Ident| quote!(#private::ToolFuture::ready(#result));
    let ready_stop = ready(&stop);

    let (gate, raw_param, raw_from_value, raw_from_text, raw_arg) = match &plan.approval {
        Some(format) => {
            let names: Vec<TokenStream> = plan
                .fields
                .iter()
                .enumerate()
                .map(|(index, field)| {
                    let name = format_ident!("{}", syn::ext::IdentExt::unraw(field.ident));
                    let binding = param_local(index, field.ident.span());
                    quote!(#name = #binding)
                })
                .collect();
            let used: Vec<&TokenStream> = plan
                .fields
                .iter()
                .zip(&names)
                .filter(|(field, _)| {
                    let ident = syn::ext::IdentExt::unraw(field.ident).to_string();
                    format.args().any(|(arg, _)| arg.to_string() == ident)
                })
                .map(|(_, name)| name)
                .collect();
            let rendered = format.render(ToString::to_string);
            (
                quote! {
                    if let ::core::option::Option::Some(#stop) = #private::approve(
                        &__toolnexus_schema().input,
                        #ctx,
                        #raw,
                        || ::std::format!(#rendered #(, #used)*),
                    ) {
                        return #ready_stop;
                    }
                },
                quote!(, #raw: ::core::option::Option<#private::serde_json::Value>),
                quote!(let #raw = #private::approval_arguments(#ctx, &#args);),
                quote!(let #raw = #private::approval_arguments_json(#ctx, #args);),
                quote!(, #raw),
            )
        }
        None => Default::default(),
    };

    let title = model.args.title.as_ref().map(|title| {
        quote! {
            fn title(&self) -> ::core::option::Option<&str> {
                ::core::option::Option::Some(#title)
            }
        }
    });
    let annotations = annotations_fn(plan, model);
    let ret = return_type(sig, target);
    let output_schema = ret.map(|ret| {
        quote! {
            fn output_schema(&self) -> ::core::option::Option<&#map> {
                static OUTPUT_SCHEMA: #private::Built<::core::option::Option<#map>> =
                    #private::Built::new();
                ::core::option::Option::as_ref(OUTPUT_SCHEMA.get(|| {
                    #[allow(unused_imports)]
                    use #private::{ProbeStructured as _, ProbeUnstructured as _};
                    (&#private::OutputSchemaProbe::<#ret>::new()).output_schema()
                }))
            }
        }
    });
    let decode::Decode {
        items: decode_items,
        setup,
        from_value,
        from_text,
        ok,
        unpack,
        values,
    } = decode::expand(plan);
    let run = quote!(__toolnexus_run(self, #ctx #raw_arg #(, #values)*));

    let inherent = super::inherent_items(plan, struct_ident, matches!(target, CallTarget::Free(_)));
    quote! {
        #inherent

        const _: () = {
            #(#aliases)*

            // Missing `Deserialize`/`JsonSchema` on a parameter type, reported first and with
            // the fix (the traits' `on_unimplemented`), at the parameter's type.
            const _: () = { #(#assertions)* };

            #(#defaults)*

            #decode_items

            /// The input schema and what decoding needs to know of it, built once.
            fn __toolnexus_schema() -> &'static #private::ToolSchema {
                static SCHEMA: #private::Built<#private::ToolSchema> = #private::Built::new();
                SCHEMA.get(|| {
                    // schemars' derive names prelude items (`None`, `Into`, …); this block
                    // gives them back under `#![no_implicit_prelude]`. The parameter types
                    // are the aliases above, resolved outside it.
                    #[allow(unused_imports)]
                    use ::std::prelude::rust_2021::*;
                    // Only ever described, never built.
                    #[allow(dead_code)]
                    #[derive(#private::schemars::JsonSchema)]
                    #[schemars(crate = #schemars_crate)]
                    #deny_unknown
                    struct __ToolnexusSchema {
                        #(#schema_fields),*
                    }
                    #private::tool_schema_of(
                        <__ToolnexusSchema as #private::schemars::JsonSchema>::json_schema,
                        #flattened,
                    )
                })
            }

            /// Calls the fn with decoded arguments; both `execute` entry points end here.
            // It takes what the fn takes, and the tool and context besides.
            #[allow(clippy::too_many_arguments)]
            fn __toolnexus_run<'a>(
                #tool: &'a #struct_ident,
                #ctx: &'a #private::ToolContext
                #raw_param
                #(, #params)*
            ) -> #private::ToolFuture<'a> {
                #(#unwrap_defaults)*
                #gate
                let _ = (#tool, #ctx);
                #run_body
            }

            #[automatically_derived]
            impl #private::Tool for #struct_ident {
                fn name(&self) -> &str {
                    Self::NAME
                }

                fn description(&self) -> &str {
                    Self::DESCRIPTION
                }

                #title
                #annotations

                fn input_schema(&self) -> &#map {
                    &__toolnexus_schema().input
                }

                #output_schema

                fn execute<'a>(
                    &'a self,
                    #args: #private::serde_json::Value,
                    #ctx: &'a #private::ToolContext,
                ) -> #private::BoxFuture<'a, #private::ToolResult> {
                    #raw_from_value
                    #setup
                    match #from_value {
                        ::core::result::Result::Ok(#ok) => {
                            #unpack
                            #private::ToolFuture::into_boxed(#run)
                        }
                        ::core::result::Result::Err(#invalid) => {
                            ::std::boxed::Box::pin(::core::future::ready(#invalid))
                        }
                    }
                }

                fn execute_json<'a>(
                    &'a self,
                    #args: &'a str,
                    #ctx: &'a #private::ToolContext,
                ) -> #private::ToolFuture<'a> {
                    #raw_from_text
                    #setup
                    match #from_text {
                        ::core::result::Result::Ok(#ok) => {
                            #unpack
                            #run
                        }
                        ::core::result::Result::Err(#invalid) => #private::ToolFuture::ready(#invalid),
                    }
                }
            }
        };
    }
}

/// The alias naming parameter `index`'s owned type, located at the user's type so errors
/// from the derives land there.
pub fn alias_ident(index: usize, field: &Field) -> Ident {
    Ident::new(&format!("__ToolnexusParam{index}"), field.param.ty.span())
}

pub fn default_ident(index: usize) -> Ident {
    format_ident!("__toolnexus_default_{index}")
}

/// `fn __toolnexus_default_N() -> T` for a defaulted parameter: it fills the value in at the
/// call and gives the schema its `"default"`.
fn default_fn(index: usize, field: &Field) -> Option<TokenStream> {
    let default = field.param.attr.default.as_ref()?;
    let alias = alias_ident(index, field);
    let value = match default {
        ParamDefault::Trait(key) => {
            quote_spanned!(key.span()=> ::core::default::Default::default())
        }
        // A string literal default converts (`&str` ⇒ `String`); others are used as written.
        ParamDefault::Expr(_, expr) if is_str_literal(expr) => {
            quote_spanned!(expr.span()=> ::core::convert::Into::into(#expr))
        }
        ParamDefault::Expr(_, expr) => quote!(#expr),
        ParamDefault::Path(_, path) => quote!(#path()),
    };
    let name = default_ident(index);
    Some(quote!(fn #name() -> #alias { #value }))
}

/// The field schemars describes: the parameter's own type, its description, its default.
fn schema_field(index: usize, field: &Field) -> TokenStream {
    let ident = field.ident;
    let alias = alias_ident(index, field);
    let param = field.param;
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
    let optional = if param.attr.default.is_some() {
        let path = LitStr::new(&default_ident(index).to_string(), Span::call_site());
        quote!(#[serde(default = #path)])
    } else if field.shape.optional {
        // `required` makes schemars describe `T`, not `T | null`; `default` and
        // `skip_serializing_if` keep it out of `required` without a `"default": null`.
        quote! {
            #[serde(default, skip_serializing_if = "::core::option::Option::is_none")]
            #[schemars(required)]
        }
    } else {
        TokenStream::new()
    };
    quote! {
        #describe
        #rename
        #(#forwarded)*
        #optional
        #ident: #alias
    }
}

fn annotations_fn(plan: &Plan, model: &ToolFn) -> Option<TokenStream> {
    let flags = &model.args.annotations;
    let all = [
        &flags.read_only,
        &flags.destructive,
        &flags.idempotent,
        &flags.open_world,
    ];
    if all.iter().all(|flag| flag.is_none()) {
        return None;
    }
    let hint = |flag: &Option<Flag>| match flag {
        Some(flag) => {
            let value = flag.value;
            quote!(::core::option::Option::Some(#value))
        }
        None => quote!(::core::option::Option::None),
    };
    let private = &plan.private;
    let [read_only, destructive, idempotent, open_world] = all.map(hint);
    Some(quote! {
        fn annotations(&self) -> #private::ToolAnnotations {
            #private::ToolAnnotations {
                read_only: #read_only,
                destructive: #destructive,
                idempotent: #idempotent,
                open_world: #open_world,
            }
        }
    })
}

/// The return type as the output-schema probe names it outside the fn: named lifetimes
/// inferred (`'_`), `Self` spelled out in a toolbox. `None` when it cannot be named there
/// (`impl Trait`), which only means the tool has no output schema.
fn return_type(sig: &Signature, target: &CallTarget) -> Option<Type> {
    let mut ty = match &sig.output {
        ReturnType::Type(_, ty) => (**ty).clone(),
        ReturnType::Default => syn::parse_quote!(()),
    };
    let self_ty = match target {
        CallTarget::Method(_, self_ty) => Some(*self_ty),
        CallTarget::Free(_) => None,
    };
    let mut nameable = Nameable {
        self_ty,
        impl_trait: false,
    };
    nameable.visit_type_mut(&mut ty);
    (!nameable.impl_trait).then_some(ty)
}

struct Nameable<'a> {
    self_ty: Option<&'a Type>,
    impl_trait: bool,
}

impl VisitMut for Nameable<'_> {
    fn visit_lifetime_mut(&mut self, lifetime: &mut syn::Lifetime) {
        if lifetime.ident != "static" {
            lifetime.ident = Ident::new("_", lifetime.ident.span());
        }
    }

    fn visit_type_impl_trait_mut(&mut self, _: &mut syn::TypeImplTrait) {
        self.impl_trait = true;
    }

    fn visit_type_mut(&mut self, ty: &mut Type) {
        if let (Type::Path(path), Some(self_ty)) = (&*ty, self.self_ty) {
            if path.qself.is_none() && path.path.is_ident("Self") {
                *ty = self_ty.clone();
                return;
            }
        }
        syn::visit_mut::visit_type_mut(self, ty);
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
