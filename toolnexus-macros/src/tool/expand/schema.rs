//! What one tool describes: the aliases of its parameter types (with the checks that they
//! decode and have a schema), its defaults, the struct schemars describes as its input
//! schema, and its output schema.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{Ident, LitStr, ReturnType, Signature, Type};

use super::super::attr::ParamDefault;
use super::super::valid::{Field, Plan};
use crate::idents;

/// The items before decoding: a type alias per parameter, the checks on those types, the
/// default fns, and `__toolnexus_schema`.
pub fn input(plan: &Plan) -> TokenStream {
    let private = &plan.private;
    let aliases = plan.fields.iter().map(|field| {
        let alias = field.param_type();
        let owned = &field.shape.owned;
        quote!(type #alias = #owned;)
    });
    // Decoded one at a time, a parameter's slot checks its type (`decode::by_parameter`).
    let by_parameter = super::decode::decodes_by_parameter(plan);
    let assertions = plan.fields.iter().map(|field| {
        let alias = field.param_type();
        let span = field.param.ty.span();
        // A header carries a string, an integer or a boolean (SEP-2243).
        let header = field
            .param
            .attr
            .header
            .as_ref()
            .map(|_| quote_spanned!(span=> #private::assert_header::<#alias>();));
        let decodes = (!by_parameter)
            .then(|| quote_spanned!(span=> #private::assert_deserialize::<#alias>();));
        quote!(#decodes #header)
    });
    let defaults = plan.fields.iter().filter_map(default_fn);
    let described: Vec<Option<Described>> = plan
        .fields
        .iter()
        .map(|field| Described::new(plan, field))
        .collect();
    let markers: Vec<&Ident> = described
        .iter()
        .flatten()
        .map(|described| &described.marker)
        .collect();
    let schema_fn = idents::schema_fn();
    let built = match listed(plan, &described) {
        Some(params) => quote! {
            // Types named after the parameters, only so a missing `JsonSchema` names one.
            #(#[allow(dead_code, non_camel_case_types)] struct #markers {})*
            #private::tool_schema_of_params(&[#(#params),*])
        },
        None => derived(plan, &described, &markers),
    };
    quote! {
        #(#aliases)*

        // Missing `Deserialize` on a parameter type (of a tool with `#[serde]` attributes),
        // reported first and with the fix (the trait's `on_unimplemented`), at the type.
        const _: () = { #(#assertions)* };

        #(#defaults)*

        /// The input schema and what decoding needs to know of it, built once.
        fn #schema_fn() -> &'static #private::ToolSchema {
            static SCHEMA: #private::Built<#private::ToolSchema> = #private::Built::new();
            SCHEMA.get(|| { #built })
        }
    }
}

/// The parameters as `tool_schema_of_params` takes them, when none carries anything only
/// schemars' derive reads (a forwarded attribute, a default, a header) and each is described
/// by its type: the schema without a derive in every tool, which was most of what a tool cost
/// a build.
fn listed(plan: &Plan, described: &[Option<Described>]) -> Option<Vec<TokenStream>> {
    let private = &plan.private;
    plan.fields
        .iter()
        .zip(described)
        .map(|(field, described)| {
            let param = field.param;
            let plain = param.forwarded.attrs.is_empty()
                && param.forwarded.serde.is_empty()
                && !field.has_default()
                && param.attr.header.is_none();
            let described = described.as_ref().filter(|_| plain)?;
            let key = LitStr::new(&field.key(), Span::call_site());
            let description = field.description.as_deref().unwrap_or_default();
            let optional = field.shape.optional;
            let function = &described.function;
            let alias = field.param_type();
            let marker = &described.marker;
            let schema = quote_spanned!(param.ty.span()=> #private::#function::<#alias, #marker>);
            Some(quote! {
                #private::ParamSchema {
                    key: #key,
                    description: #description,
                    optional: #optional,
                    schema: #schema,
                }
            })
        })
        .collect()
}

/// The schema struct schemars describes, for a tool whose parameters need its derive.
fn derived(plan: &Plan, described: &[Option<Described>], markers: &[&Ident]) -> TokenStream {
    let private = &plan.private;
    let schemars_crate = plan.private_str("schemars");
    let schema_fields = plan
        .fields
        .iter()
        .zip(described)
        .map(|(field, described)| schema_field(field, described.as_ref()));
    // With a flattened parameter the runtime closes the schema (see `decode::derived`).
    let flattened = plan.flattened();
    let deny_unknown = (!flattened).then(|| quote!(#[serde(deny_unknown_fields)]));
    let schema_struct = idents::schema_struct();
    quote! {
        // schemars' derive names prelude items (`None`, `Into`, …); this block gives them
        // back under `#![no_implicit_prelude]`. The parameter types are the aliases above,
        // resolved outside it.
        #[allow(unused_imports)]
        use ::std::prelude::rust_2021::*;
        // Types named after the parameters, only so a missing `JsonSchema` names one.
        #(#[allow(dead_code, non_camel_case_types)] struct #markers {})*
        // Only ever described, never built.
        #[allow(dead_code)]
        #[derive(#private::schemars::JsonSchema)]
        #[schemars(crate = #schemars_crate)]
        #deny_unknown
        struct #schema_struct {
            #(#schema_fields),*
        }
        #private::tool_schema_of(
            <#schema_struct as #private::schemars::JsonSchema>::json_schema,
            #flattened,
        )
    }
}

/// `fn __toolnexus_default_N() -> T` for a defaulted parameter: it fills the value in at the
/// call and gives the schema its `"default"`.
fn default_fn(field: &Field) -> Option<TokenStream> {
    let default = field.param.attr.default.as_ref()?;
    let alias = field.param_type();
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
    let name = idents::default_fn(field.index);
    Some(quote!(fn #name() -> #alias { #value }))
}

/// How the schema struct describes a parameter it has no other description for:
/// `#[schemars(schema_with = "…::described::<T, name>")]`, `T`'s own schema, whose bound
/// reports a missing `JsonSchema` once, at the parameter's type, naming the parameter through
/// `name`, a type called after it.
struct Described {
    marker: Ident,
    /// `described` or `described_present`.
    function: Ident,
    schema_with: LitStr,
}

impl Described {
    /// `None` where the user describes the parameter, or where a type named after it would
    /// shadow one the schema struct names: the expansion's own (`__…`), or the first segment of
    /// a relative `crate` path. Such a parameter's type is described as it is, and rustc's own
    /// message says what it lacks.
    fn new(plan: &Plan, field: &Field) -> Option<Self> {
        let name = syn::ext::IdentExt::unraw(field.ident).to_string();
        let crate_root = match plan.private.clone().into_iter().next() {
            Some(proc_macro2::TokenTree::Ident(root)) => Some(root.to_string()),
            _ => None,
        };
        if field.param.forwarded.described_otherwise
            || name.starts_with("__")
            || crate_root.as_deref() == Some(name.as_str())
        {
            return None;
        }
        let mut marker = field.ident.clone();
        marker.set_span(Span::call_site());
        // An optional parameter is `required` to schemars (see `schema_field`), which then
        // asks for the schema without `null`.
        let function = if field.shape.optional && !field.has_default() {
            "described_present"
        } else {
            "described"
        };
        let schema_with = format!(
            "{}::<{}, {marker}>",
            plan.private_str(function),
            field.param_type()
        );
        Some(Self {
            marker,
            function: Ident::new(function, Span::call_site()),
            schema_with: LitStr::new(&schema_with, field.param.ty.span()),
        })
    }
}

/// The field schemars describes: the parameter's own type, its description, its default.
fn schema_field(field: &Field, described: Option<&Described>) -> TokenStream {
    let ident = field.ident;
    let alias = field.param_type();
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
    let header = param
        .attr
        .header
        .as_ref()
        .map(|header| quote!(#[schemars(extend("x-mcp-header" = #header))]));
    let forwarded = &param.forwarded.attrs;
    let with = described.map(|described| {
        let schema_with = &described.schema_with;
        quote!(#[schemars(schema_with = #schema_with)])
    });
    let optional = if field.has_default() {
        let path = idents::default_fn(field.index).to_string();
        let path = LitStr::new(&path, Span::call_site());
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
        #header
        #(#forwarded)*
        #with
        #optional
        #ident: #alias
    }
}

/// `Tool::output_schema`, for a return type the probe can name: `Some` exactly when the type
/// is a `StructuredOutput` (`Json<T>` with `T: JsonSchema`, or an `Option`/`Result` of one).
/// A `Json<T>` whose `T` has no JSON Schema is a compile error at the return type, rather than
/// a tool silently without an output schema (`OutputCheck`). `self_ty` is the `impl` block's
/// type for a `#[toolbox]` method.
pub fn output(plan: &Plan, sig: &Signature, self_ty: Option<&Type>) -> Option<TokenStream> {
    let ret = return_type(sig, self_ty)?;
    let private = &plan.private;
    let map = quote!(#private::serde_json::Map<::std::string::String, #private::serde_json::Value>);
    let check = quote_spanned! {ret.span()=>
        (&#private::OutputCheck::<#ret>::new()).check_output();
    };
    Some(quote! {
        fn output_schema(&self) -> ::core::option::Option<&#map> {
            static OUTPUT_SCHEMA: #private::Built<::core::option::Option<#map>> =
                #private::Built::new();
            ::core::option::Option::as_ref(OUTPUT_SCHEMA.get(|| {
                #[allow(unused_imports)]
                use #private::{
                    CheckJsonOutput as _, CheckOtherOutput as _, ProbeStructured as _,
                    ProbeUnstructured as _,
                };
                #check
                (&#private::OutputSchemaProbe::<#ret>::new()).output_schema()
            }))
        }
    })
}

/// The return type as the output-schema probe names it outside the fn: named lifetimes
/// inferred (`'_`), `Self` spelled out in a toolbox. `None` when it cannot be named there
/// (`impl Trait`), which only means the tool has no output schema.
fn return_type(sig: &Signature, self_ty: Option<&Type>) -> Option<Type> {
    let mut ty = match &sig.output {
        ReturnType::Type(_, ty) => (**ty).clone(),
        ReturnType::Default => syn::parse_quote!(()),
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

fn is_str_literal(expr: &syn::Expr) -> bool {
    matches!(
        expr,
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(_),
            ..
        })
    )
}
