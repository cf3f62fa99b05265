//! Emits `impl IntoToolResult` for a checked model.
use std::collections::BTreeSet;

use proc_macro2::{TokenStream, TokenTree};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{DeriveInput, Generics, Ident, Type};

use super::Errors;
use super::ast::{Field, Input, Role, Spec, Style, Variant};
use super::attr::{Mode, Output};
use super::valid;
use crate::crate_path;
use crate::format::{Arg, Format, Usage};
use crate::idents;

/// `#[derive(ToolOutput)]`. Mistakes come back as `compile_error!`s beside a stub impl, so
/// code that relies on the impl does not add errors of its own.
pub fn derive(input: &DeriveInput) -> TokenStream {
    let mut errors = Errors::default();
    let krate = crate_path::from_container(&input.attrs, &mut errors);
    let private = crate_path::private(krate.as_ref());
    let model = Input::from_syn(input, &mut errors);
    if let Some(model) = &model {
        valid::check(model, &mut errors);
    }
    match (model, errors.finish()) {
        (Some(model), Ok(())) => implement(&model, &private),
        (_, result) => {
            let error = result.err().map(syn::Error::into_compile_error);
            let stub = wrap(
                &private,
                &input.ident,
                &input.generics,
                &TokenStream::new(),
                &quote!(::core::unreachable!(
                    "`#[derive(ToolOutput)]` did not compile"
                )),
            );
            quote!(#error #stub)
        }
    }
}

fn implement(input: &Input, private: &TokenStream) -> TokenStream {
    let mut bounds = Bounds::new(input.generics);
    let arms: Vec<_> = input
        .variants
        .iter()
        .map(|variant| arm(variant, private, &mut bounds))
        .collect();
    let lowering = wrap(
        private,
        input.ident,
        input.generics,
        &bounds.predicates(),
        &quote!(match self { #(#arms)* }),
    );
    let from = input
        .variants
        .iter()
        .find(|variant| valid::retry_conversion(variant).is_some())
        .map(|variant| from_retry(input, variant, private));
    let as_error = input
        .variants
        .iter()
        .any(|variant| matches!(&variant.output, Spec::Given(output) if matches!(output.mode, Mode::Retry(_))))
        .then(|| error_impl(input, private, &bounds.predicates()));
    quote!(#lowering #from #as_error)
}

/// A type with `retry` variants is a tool's error type: `Err(e)` lowers through its own
/// `#[output]`s (a `Display` impl would lower every variant as a plain error, losing the
/// retry mark), so it gets `IntoToolError`.
fn error_impl(input: &Input, private: &TokenStream, bounds: &TokenStream) -> TokenStream {
    let ident = input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let where_clause = with_bounds(where_clause, bounds);
    quote! {
        #[automatically_derived]
        impl #impl_generics #private::IntoToolError for #ident #ty_generics #where_clause {
            fn into_tool_error(self) -> #private::ToolResult {
                #private::IntoToolResult::into_tool_result(self)
            }
        }
    }
}

/// `impl From<Retry>` for the type whose variant holds a `Retry` (`#[output(retry)]`).
fn from_retry(input: &Input, variant: &Variant, private: &TokenStream) -> TokenStream {
    let ident = input.ident;
    let path = variant.path();
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    // The same conversion, at the same span, as the result's (`lower`): one error, not two.
    let field = variant.fields[0].ty();
    let field = quote_spanned!(field.span()=> <#field as #private::RetryField>::from_retry(retry));
    quote! {
        #[automatically_derived]
        impl #impl_generics ::core::convert::From<#private::Retry> for #ident #ty_generics #where_clause {
            fn from(retry: #private::Retry) -> Self {
                #path(#field)
            }
        }
    }
}

/// The item's own `where` clause with the bounds the fields need added.
fn with_bounds(clause: Option<&syn::WhereClause>, bounds: &TokenStream) -> TokenStream {
    match (clause, bounds.is_empty()) {
        (None, true) => TokenStream::new(),
        (None, false) => quote!(where #bounds),
        (Some(clause), _) => {
            let predicates = clause.predicates.iter();
            quote!(where #(#predicates,)* #bounds)
        }
    }
}

/// The impl itself, in an anonymous const so nothing it names leaks into the user's scope.
fn wrap(
    private: &TokenStream,
    ident: &Ident,
    generics: &Generics,
    bounds: &TokenStream,
    body: &TokenStream,
) -> TokenStream {
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let where_clause = with_bounds(where_clause, bounds);
    quote! {
        const _: () = {
            #[automatically_derived]
            impl #impl_generics #private::IntoToolResult for #ident #ty_generics #where_clause {
                fn into_tool_result(self) -> #private::ToolResult {
                    #body
                }
            }
        };
    }
}

/// One `match` arm: bind the fields the variant uses, build the base result from its mode,
/// then add `#[metadata]` and `#[part]` fields.
fn arm(variant: &Variant, private: &TokenStream, bounds: &mut Bounds) -> TokenStream {
    let mut used = BTreeSet::new();
    let base = match &variant.output {
        Spec::Given(output) => base(variant, output, private, bounds, &mut used),
        Spec::Absent | Spec::Broken => {
            let field =
                valid::delegate(variant).expect("checked: a variant without `#[output]` delegates");
            delegate(field, private, bounds, &mut used)
        }
    };
    let mut extras = TokenStream::new();
    let lowering = idents::lowering();
    // Metadata first: it borrows fields that the parts below may move.
    for field in &variant.fields {
        if let Role::Metadata(_) = field.role {
            used.insert(field.index);
            let key = field.name();
            let binding = field.binding();
            let value = checked(field.ty(), quote!(#private::serialize));
            bounds.add(field.ty(), quote!(#private::serde::Serialize));
            extras.extend(quote!(#lowering.metadata(#key, #value(&#binding));));
        }
    }
    for field in &variant.fields {
        if let Role::Part(_) = field.role {
            used.insert(field.index);
            let binding = field.binding();
            let ty = field.ty();
            let append = quote_spanned!(ty.span()=> <#ty as #private::OutputPart>::append_to);
            bounds.add(ty, quote!(#private::OutputPart));
            extras.extend(quote!(#append(#binding, #lowering.parts());));
        }
    }
    let pattern = pattern(variant, &used);
    if extras.is_empty() {
        return quote!(#pattern => #base,);
    }
    quote! {
        #pattern => {
            let mut #lowering = #private::Lowering::new(#base);
            #extras
            #lowering.finish()
        }
    }
}

fn base(
    variant: &Variant,
    output: &Output,
    private: &TokenStream,
    bounds: &mut Bounds,
    used: &mut BTreeSet<usize>,
) -> TokenStream {
    let mut text = |format: &Format| format_call(variant, format, bounds, used);
    match &output.mode {
        Mode::Ok => {
            let text = text(
                output
                    .format
                    .as_ref()
                    .expect("checked: ok has a format string"),
            );
            quote!(#private::ToolResult::ok(#text))
        }
        Mode::Error(_) => {
            let text = text(
                output
                    .format
                    .as_ref()
                    .expect("checked: error has a format string"),
            );
            quote!(#private::ToolResult::error(#text))
        }
        Mode::Retry(_) => match &output.format {
            Some(format) => {
                let text = text(format);
                quote!(#private::retry(#text))
            }
            None => {
                let field = &variant.fields[0];
                used.insert(field.index);
                let binding = field.binding();
                let ty = field.ty();
                let retry =
                    quote_spanned!(ty.span()=> <#ty as #private::RetryField>::into_retry(#binding));
                quote!(#private::lower_retry(#retry))
            }
        },
        Mode::Pending(_) => {
            let [kind, prompt] = [&output.kind, &output.prompt].map(|keyed| {
                text(
                    &keyed
                        .as_ref()
                        .expect("checked: pending has kind and prompt")
                        .format,
                )
            });
            let url = output.url.as_ref().map(|url| {
                let url = text(&url.format);
                quote!(.with_url(#url))
            });
            quote!(#private::pending(#private::Request::new(#kind, #prompt) #url))
        }
        Mode::Json(_) => json(variant, private, bounds, used),
        Mode::Transparent(_) => {
            let field = variant
                .plain_fields()
                .next()
                .expect("checked: transparent has one field");
            delegate(field, private, bounds, used)
        }
    }
}

/// `format!` over the fields a format string names, each passed as a named argument so a
/// field the string does not use is not bound at all.
fn format_call(
    variant: &Variant,
    format: &Format,
    bounds: &mut Bounds,
    used: &mut BTreeSet<usize>,
) -> TokenStream {
    let field = |arg: &Arg| {
        variant
            .field(arg)
            .expect("checked: every placeholder names a field")
    };
    let lit = format.render(|arg| field(arg).binding().to_string());
    let mut args = Vec::new();
    for (arg, usage) in format.args() {
        let field = field(arg);
        if let Usage::Trait(name) = usage {
            let name = format_ident!("{name}");
            bounds.add(field.ty(), quote!(::core::fmt::#name));
        }
        used.insert(field.index);
        if !args.contains(&field.index) {
            args.push(field.index);
        }
    }
    let args = args.iter().map(|&index| {
        let binding = variant.fields[index].binding();
        // The value resolves like the binding but sits on the format string, so a field that
        // lacks the trait its placeholder needs is reported there, not on the derive.
        let mut value = binding.clone();
        value.set_span(binding.span().located_at(format.span()));
        quote!(#binding = #value)
    });
    quote!(::std::format!(#lit #(, #args)*))
}

/// `#[output(json)]`: one field serializes as itself; several as an object of named fields
/// or an array of tuple fields.
fn json(
    variant: &Variant,
    private: &TokenStream,
    bounds: &mut Bounds,
    used: &mut BTreeSet<usize>,
) -> TokenStream {
    let fields: Vec<_> = variant.plain_fields().collect();
    for field in &fields {
        used.insert(field.index);
        bounds.add(field.ty(), quote!(#private::serde::Serialize));
    }
    let value = |field: &Field| {
        let binding = field.binding();
        let serialize = checked(field.ty(), quote!(#private::serialize));
        quote!(#serialize(&#binding))
    };
    match fields.as_slice() {
        [field] => {
            let binding = field.binding();
            let text = checked(field.ty(), quote!(#private::json_text));
            quote!(#text(&#binding))
        }
        _ if variant.style == Style::Named => {
            let entries = fields.iter().map(|field| {
                let key = field.name();
                let value = value(field);
                quote!((#key, #value))
            });
            quote!(#private::json_object([#(#entries),*]))
        }
        _ => {
            let items = fields.iter().map(|field| value(field));
            quote!(#private::json_array([#(#items),*]))
        }
    }
}

/// A field lowered by its own `IntoToolResult` (`transparent`, or no `#[output]`).
fn delegate(
    field: &Field,
    private: &TokenStream,
    bounds: &mut Bounds,
    used: &mut BTreeSet<usize>,
) -> TokenStream {
    used.insert(field.index);
    let ty = field.ty();
    let binding = field.binding();
    bounds.add(ty, quote!(#private::IntoToolResult));
    let lower = quote_spanned!(ty.span()=> <#ty as #private::IntoToolResult>::into_tool_result);
    quote!(#lower(#binding))
}

/// `helper::<FieldType>`, spanned on the field's type, so a type lacking the helper's bound
/// is reported at the user's field rather than inside the expansion.
fn checked(ty: &Type, helper: TokenStream) -> TokenStream {
    quote_spanned!(ty.span()=> #helper::<#ty>)
}

/// The pattern binding exactly the fields in `used`, so none is left unused.
fn pattern(variant: &Variant, used: &BTreeSet<usize>) -> TokenStream {
    let path = variant.path();
    let used_fields = variant
        .fields
        .iter()
        .filter(|field| used.contains(&field.index));
    match variant.style {
        Style::Unit => path,
        Style::Named => {
            let bindings = used_fields.map(Field::binding);
            quote!(#path { #(#bindings,)* .. })
        }
        Style::Tuple => {
            let bindings = variant.fields.iter().map(|field| {
                if used.contains(&field.index) {
                    field.binding().into_token_stream()
                } else {
                    quote!(_)
                }
            });
            quote!(#path(#(#bindings),*))
        }
    }
}

/// Where-clause predicates for field types that mention a type parameter; other types are
/// concrete, so their checks above already point at them.
struct Bounds<'a> {
    params: Vec<&'a Ident>,
    seen: BTreeSet<String>,
    predicates: Vec<TokenStream>,
}

impl<'a> Bounds<'a> {
    fn new(generics: &'a Generics) -> Self {
        Self {
            params: generics.type_params().map(|param| &param.ident).collect(),
            seen: BTreeSet::new(),
            predicates: Vec::new(),
        }
    }

    fn add(&mut self, ty: &Type, bound: TokenStream) {
        if !mentions(ty.to_token_stream(), &self.params) {
            return;
        }
        let predicate = quote!(#ty: #bound);
        if self.seen.insert(predicate.to_string()) {
            self.predicates.push(predicate);
        }
    }

    fn predicates(&self) -> TokenStream {
        let predicates = &self.predicates;
        quote!(#(#predicates,)*)
    }
}

fn mentions(tokens: TokenStream, params: &[&Ident]) -> bool {
    tokens.into_iter().any(|token| match token {
        TokenTree::Ident(ident) => params.contains(&&ident),
        TokenTree::Group(group) => mentions(group.stream(), params),
        _ => false,
    })
}
