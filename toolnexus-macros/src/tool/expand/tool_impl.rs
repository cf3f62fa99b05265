//! One tool's expansion: what decodes its arguments (see `decode`), what it describes (see
//! `schema`), the fn both `execute`s end in, and `impl Tool`, all inside one
//! `const _: () = { … };`.
//!
//! Hygiene: every local the expansion binds is `Span::mixed_site()`, so no parameter name
//! (the fn's own, `args`, `ctx`, `__value`, …) can shadow or be shadowed by one; items carry
//! `__Toolnexus`/`__toolnexus_` names in a block nothing else can name (see `idents`); every
//! path is absolute (`::core`, `::std`, the toolnexus path), so the expansion compiles under
//! `#![no_implicit_prelude]` and beside local items named `Result`, `Some`, `String`, ….

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, Signature, Type};

use super::super::ast::Injection;
use super::super::ast::{Lend, ToolFn};
use super::super::attr::Flag;
use super::super::valid::{CallArg, Plan};
use super::{decode, inherent, lower, schema};
use crate::format::Format;
use crate::idents;

pub enum CallTarget<'a> {
    Free(&'a Ident),
    /// A `#[toolbox]` method, and the type of the `impl` block it stands in.
    Method(&'a Ident, &'a Type),
}

pub fn expand(
    model: &ToolFn,
    plan: &Plan,
    struct_ident: &Ident,
    target: &CallTarget,
) -> TokenStream {
    let private = &plan.private;
    let map = quote!(#private::serde_json::Map<::std::string::String, #private::serde_json::Value>);
    let described = schema::input(plan);

    let tool = idents::tool();
    let ctx = idents::ctx();
    let args = idents::args();
    let invalid = idents::invalid();
    let raw = idents::raw();
    let schema_fn = idents::schema_fn();
    let run_fn = idents::run_fn();

    let params = plan.fields.iter().map(|field| {
        let binding = field.binding();
        let ty = decode::decoded_type(field);
        quote!(#binding: #ty)
    });
    let unwrap_defaults = plan
        .fields
        .iter()
        .filter(|field| field.has_default())
        .map(|field| {
            let binding = field.binding();
            let default = idents::default_fn(field.index);
            quote! {
                // `null` and a missing key both mean "use the default".
                let #binding = ::core::option::Option::unwrap_or_else(#binding, #default);
            }
        });
    let sig = model.sig;
    let run_body = run_body(plan, sig, target);
    let inject = injections(plan);
    let required_state = required_state_fn(plan);
    let gate = plan
        .approval
        .as_ref()
        .map(|format| approval_gate(plan, format));
    let approval = gate.as_ref();
    let raw_param = approval
        .is_some()
        .then(|| quote!(, #raw: ::core::option::Option<#private::serde_json::Value>));
    let raw_from_value = approval
        .is_some()
        .then(|| quote!(let #raw = #private::approval_arguments(#ctx, &#args);));
    let raw_from_text = approval
        .is_some()
        .then(|| quote!(let #raw = #private::approval_arguments_json(#ctx, #args);));
    let raw_arg = approval.is_some().then(|| quote!(, #raw));

    let title = model.args.title.as_ref().map(|title| {
        quote! {
            fn title(&self) -> ::core::option::Option<&str> {
                ::core::option::Option::Some(#title)
            }
        }
    });
    let annotations = annotations_fn(plan, model);
    let deferred = model.args.defer.as_ref().map(|flag| {
        let value = flag.value;
        quote!(fn deferred(&self) -> bool { #value })
    });
    let retries = model.args.retries.as_ref().map(|retries| {
        let value = retries.base10_parse::<u32>().unwrap_or_default();
        quote! {
            fn retries(&self) -> ::core::option::Option<u32> {
                ::core::option::Option::Some(#value)
            }
        }
    });
    let task_support = model.args.task.as_ref().map(|task| {
        let support = if task.required {
            quote!(Required)
        } else {
            quote!(Optional)
        };
        quote! {
            fn task_support(&self) -> #private::TaskSupport {
                #private::TaskSupport::#support
            }
        }
    });
    let self_ty = match target {
        CallTarget::Method(_, self_ty) => Some(*self_ty),
        CallTarget::Free(_) => None,
    };
    let output_schema = schema::output(plan, sig, self_ty);
    let decode::Decode {
        items: decode_items,
        setup,
        from_value,
        from_text,
        ok,
        unpack,
        values,
    } = decode::expand(plan);
    let run = quote!(#run_fn(self, #ctx #raw_arg #(, #values)*));

    let inherent = inherent::items(plan, struct_ident, matches!(target, CallTarget::Free(_)));
    quote! {
        #inherent

        const _: () = {
            #described

            #decode_items

            /// Calls the fn with decoded arguments; both `execute` entry points end here.
            // It takes what the fn takes, and the tool and context besides.
            #[allow(clippy::too_many_arguments)]
            fn #run_fn<'a>(
                #tool: &'a #struct_ident,
                #ctx: &'a #private::ToolContext
                #raw_param
                #(, #params)*
            ) -> #private::ToolFuture<'a> {
                #(#unwrap_defaults)*
                #inject
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
                #deferred
                #retries
                #task_support

                fn input_schema(&self) -> &#map {
                    &#schema_fn().input
                }

                #output_schema
                #required_state

                fn execute<'a>(
                    &'a self,
                    #args: #private::serde_json::Value,
                    #ctx: &'a #private::ToolContext,
                ) -> #private::BoxFuture<'a, #private::ToolResult> {
                    #private::ToolFuture::into_boxed(
                        <Self as #private::Tool>::execute_value(self, #args, #ctx),
                    )
                }

                fn execute_value<'a>(
                    &'a self,
                    #args: #private::serde_json::Value,
                    #ctx: &'a #private::ToolContext,
                ) -> #private::ToolFuture<'a> {
                    #raw_from_value
                    #setup
                    match #from_value {
                        ::core::result::Result::Ok(#ok) => {
                            #unpack
                            #run
                        }
                        ::core::result::Result::Err(#invalid) => #private::ToolFuture::ready(#invalid),
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

/// Calls the fn with the decoded values and lowers what it returns. A sync fn runs now and
/// its result needs no future on the heap; an async tool's future is boxed, and must be `Send`
/// (reported at the fn, not inside the macro).
fn run_body(plan: &Plan, sig: &Signature, target: &CallTarget) -> TokenStream {
    let private = &plan.private;
    let ctx = idents::ctx();
    let args = plan.call.iter().map(|arg| match arg {
        CallArg::Context { by_ref: true } => quote!(#ctx),
        CallArg::Context { by_ref: false } => quote!(::core::clone::Clone::clone(#ctx)),
        CallArg::Injected(index) => {
            idents::injected(*index, plan.injected[*index].param.ty.span()).into_token_stream()
        }
        CallArg::Field(index) => {
            let field = &plan.fields[*index];
            let binding = field.binding();
            match field.shape.lend {
                Lend::Move => quote!(#binding),
                Lend::Borrow => quote!(&#binding),
                Lend::AsDeref => quote!(::core::option::Option::as_deref(&#binding)),
                Lend::AsRef => quote!(::core::option::Option::as_ref(&#binding)),
            }
        }
    });
    let call = match target {
        CallTarget::Free(ident) => quote!(#ident(#(#args),*)),
        CallTarget::Method(ident, _) => {
            let tool = idents::tool();
            quote!(#tool.0.#ident(#(#args),*))
        }
    };
    let call = match sig.asyncness {
        Some(_) => quote!(#call.await),
        None => call,
    };
    let value = idents::value(Span::mixed_site());
    let lower = lower::lowered(private, sig);
    match sig.asyncness {
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
    }
}

/// The injected parameters (SPEC §12), taken from the context after the arguments decoded; a
/// missing one answers for the tool, which does not run. Each call is spanned at the user's
/// type, so a type without `Send + Sync` (or `FromToolContext`) is reported there.
fn injections(plan: &Plan) -> TokenStream {
    let private = &plan.private;
    let ctx = idents::ctx();
    let name = &plan.name;
    let failed = idents::invalid();
    let lets = plan.injected.iter().enumerate().map(|(index, injected)| {
        let ty = injected.param.ty;
        let binding = idents::injected(index, ty.span());
        let extract = match injected.how {
            Injection::State(inner) => {
                let text = type_text(inner);
                quote_spanned!(inner.span()=> #private::inject_state::<#inner>(#name, #text, #ctx))
            }
            Injection::Extension(inner) => {
                let text = type_text(inner);
                quote_spanned!(inner.span()=> #private::inject_extension::<#inner>(#name, #text, #ctx))
            }
            Injection::OptionalExtension(inner) => {
                let found = quote_spanned!(inner.span()=> #private::inject_optional_extension::<#inner>(#ctx));
                return quote!(let #binding = #found;);
            }
            Injection::FromContext => {
                quote_spanned!(ty.span()=> #private::inject::<#ty>(#name, #ctx))
            }
        };
        quote! {
            let #binding = match #extract {
                ::core::result::Result::Ok(#binding) => #binding,
                ::core::result::Result::Err(#failed) => return #private::ToolFuture::ready(#failed),
            };
        }
    });
    quote!(#(#lets)*)
}

/// `Tool::required_state`: the `State<T>` parameters, for `Toolkit::missing_state`.
fn required_state_fn(plan: &Plan) -> Option<TokenStream> {
    let private = &plan.private;
    let needs: Vec<TokenStream> = plan
        .injected
        .iter()
        .filter_map(|injected| match injected.how {
            Injection::State(inner) => {
                let text = type_text(inner);
                Some(quote_spanned!(inner.span()=> #private::StateType::new::<#inner>(#text)))
            }
            _ => None,
        })
        .collect();
    if needs.is_empty() {
        return None;
    }
    Some(quote! {
        fn required_state(&self) -> &[#private::StateType] {
            const NEEDS: &[#private::StateType] = &[#(#needs),*];
            NEEDS
        }
    })
}

/// A type as a user would write it (`Vec<u8>`, `app::Db`), for messages.
fn type_text(ty: &Type) -> String {
    let spaced = quote!(#ty).to_string();
    let mut text = String::with_capacity(spaced.len());
    let mut chars = spaced.chars().peekable();
    while let Some(c) = chars.next() {
        let glue = |c: char| {
            matches!(
                c,
                '<' | '>' | ':' | ',' | '&' | '\'' | '(' | ')' | '[' | ']'
            )
        };
        if c == ' ' {
            let before = text
                .chars()
                .last()
                .is_some_and(|last| glue(last) && last != ',');
            let after = chars.peek().is_some_and(|&next| glue(next));
            if before || after {
                continue;
            }
        }
        text.push(c);
    }
    text
}

/// `#[tool(approval = "…")]`: the gate in `__toolnexus_run` that asks before the fn runs.
fn approval_gate(plan: &Plan, format: &Format) -> TokenStream {
    let private = &plan.private;
    let ctx = idents::ctx();
    let raw = idents::raw();
    let stop = idents::stop();
    let schema_fn = idents::schema_fn();
    // Only the parameters the prompt names are passed to `format!`, each by its name.
    let used = plan.fields.iter().filter_map(|field| {
        let ident = syn::ext::IdentExt::unraw(field.ident);
        let named = format.args().any(|(arg, _)| ident == arg.to_string());
        let name = format_ident!("{}", ident);
        let binding = field.binding();
        named.then(|| quote!(#name = #binding))
    });
    let rendered = format.render(ToString::to_string);
    quote! {
        if let ::core::option::Option::Some(#stop) = #private::approve(
            &#schema_fn().input,
            #ctx,
            #raw,
            || ::std::format!(#rendered #(, #used)*),
        ) {
            return #private::ToolFuture::ready(#stop);
        }
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

#[cfg(test)]
mod tests {
    use super::type_text;

    #[test]
    fn types_read_as_written() {
        let text = |ty: syn::Type| type_text(&ty);
        assert_eq!(text(syn::parse_quote!(Db)), "Db");
        assert_eq!(text(syn::parse_quote!(app::Db)), "app::Db");
        assert_eq!(text(syn::parse_quote!(Vec<u8>)), "Vec<u8>");
        assert_eq!(
            text(syn::parse_quote!(BTreeMap<String, Vec<u8>>)),
            "BTreeMap<String, Vec<u8>>"
        );
        assert_eq!(text(syn::parse_quote!(&'static str)), "&'static str");
        assert_eq!(text(syn::parse_quote!((A, B))), "(A, B)");
    }
}
