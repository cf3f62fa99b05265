//! The borrowed model of one `#[tool]` fn or method: references into the user's tokens, plus
//! the owned type each parameter is decoded into.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{
    Attribute, FnArg, GenericArgument, Ident, Lifetime, PatType, PathArguments, Receiver,
    Signature, Type,
};

use super::attr::{self, Forwarded, ParamAttr, ToolArgs};
use super::docs::{self, ArgumentBullet, DocLine};
use crate::errors::Errors;

pub struct ToolFn<'a> {
    pub args: ToolArgs,
    pub sig: &'a Signature,
    pub docs: Vec<DocLine<'a>>,
    pub bullets: Vec<ArgumentBullet<'a>>,
    pub receiver: Option<&'a Receiver>,
    pub params: Vec<Param<'a>>,
}

pub struct Param<'a> {
    pub arg: &'a PatType,
    /// `None` when the parameter is a pattern rather than a plain identifier.
    pub ident: Option<&'a Ident>,
    pub ty: &'a Type,
    pub kind: ParamKind,
    pub attr: ParamAttr,
    pub docs: Vec<DocLine<'a>>,
    /// `#[serde(…)]` and `#[schemars(…)]`, minus a `#[serde(default)]` (read into `attr`).
    pub forwarded: Forwarded,
}

pub enum ParamKind {
    /// `&ToolContext` (`by_ref`) or `ToolContext`: injected, never in the schema.
    Context { by_ref: bool },
    /// `&mut ToolContext`: refused, with the fix.
    MutContext,
    /// Taken from the context, never in the schema (SPEC §12).
    Injected(Injection),
    /// A value decoded from the arguments.
    Value(Shape),
    /// A type `#[tool]` cannot decode into.
    Unsupported(Unsupported),
}

/// Where an injected parameter's value comes from.
pub enum Injection {
    /// `State<T>`: the toolkit's state `T`.
    State(Type),
    /// `Extension<T>`: the call's extension `T`, required.
    Extension(Type),
    /// `Option<Extension<T>>`: the call's extension `T`, if any.
    OptionalExtension(Type),
    /// `#[param(inject)]`: the type's `FromToolContext`.
    FromContext,
}

/// The offending tokens of a parameter type, and what to write instead.
pub struct Unsupported {
    pub tokens: TokenStream,
    pub message: &'static str,
}

impl Unsupported {
    fn new(tokens: impl ToTokens, message: &'static str) -> Self {
        Self {
            tokens: tokens.to_token_stream(),
            message,
        }
    }
}

/// How a parameter is decoded and handed to the fn.
pub struct Shape {
    /// What the arguments are decoded into: the parameter's type with borrows made owned
    /// (`&str` ⇒ `String`, `&[T]` ⇒ `Vec<T>`, `&T` ⇒ `T`) and every lifetime `'static`.
    pub owned: Type,
    /// `Option<…>`: not required; `null` means absent.
    pub optional: bool,
    pub lend: Lend,
}

/// How the owned value `v` becomes the argument the fn takes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Lend {
    /// `v`.
    Move,
    /// `&v` (coerces `&String` to `&str`, `&Vec<T>` to `&[T]`).
    Borrow,
    /// `v.as_deref()`: `Option<String>` ⇒ `Option<&str>`, `Option<Vec<T>>` ⇒ `Option<&[T]>`.
    AsDeref,
    /// `v.as_ref()`: `Option<T>` ⇒ `Option<&T>`.
    AsRef,
}

impl<'a> ToolFn<'a> {
    pub fn parse(
        args: TokenStream,
        sig: &'a Signature,
        attrs: &'a [Attribute],
        errors: &mut Errors,
    ) -> Self {
        let docs = docs::doc_lines(attrs);
        let bullets = docs::argument_bullets(&docs);
        let mut receiver = None;
        let mut params = Vec::new();
        for input in &sig.inputs {
            match input {
                FnArg::Receiver(found) => receiver = Some(found),
                FnArg::Typed(arg) => params.push(Param::parse(arg, errors)),
            }
        }
        ToolFn {
            args: attr::parse_tool_args(args, errors),
            sig,
            docs,
            bullets,
            receiver,
            params,
        }
    }
}

impl<'a> Param<'a> {
    fn parse(arg: &'a PatType, errors: &mut Errors) -> Self {
        let ident = match &*arg.pat {
            syn::Pat::Ident(pat) if pat.by_ref.is_none() && pat.subpat.is_none() => {
                Some(&pat.ident)
            }
            _ => None,
        };
        let mut attr = attr::parse_param_attrs(&arg.attrs, errors);
        let forwarded = attr::forwarded_attrs(&arg.attrs, &mut attr, errors);
        let kind = match attr.inject {
            Some(_) => ParamKind::Injected(Injection::FromContext),
            None => classify(&arg.ty),
        };
        Param {
            arg,
            ident,
            ty: &arg.ty,
            kind,
            attr,
            docs: docs::doc_lines(&arg.attrs),
            forwarded,
        }
    }

    /// The argument's key in the JSON object: `rename`, else the identifier without `r#`.
    pub fn wire_name(&self) -> Option<String> {
        if let Some(rename) = &self.attr.rename {
            return Some(rename.value());
        }
        Some(self.ident?.unraw().to_string())
    }

    pub fn is_context(&self) -> bool {
        matches!(self.kind, ParamKind::Context { .. } | ParamKind::MutContext)
    }
}

fn classify(ty: &Type) -> ParamKind {
    if let Some(injection) = injection(ty) {
        return ParamKind::Injected(injection);
    }
    match ungroup(ty) {
        Type::Reference(reference) if is_tool_context(&reference.elem) => {
            match reference.mutability {
                Some(_) => ParamKind::MutContext,
                None => ParamKind::Context { by_ref: true },
            }
        }
        ty if is_tool_context(ty) => ParamKind::Context { by_ref: false },
        Type::Reference(reference) => {
            if let Some(mutability) = reference.mutability {
                return ParamKind::Unsupported(Unsupported::new(
                    mutability,
                    "`#[tool]` parameters cannot be `&mut`: the arguments are decoded for this call only; take the value by value or as `&T`",
                ));
            }
            match owned_of_borrowed(&reference.elem) {
                Ok((owned, _)) => value(owned, Lend::Borrow),
                Err(problem) => ParamKind::Unsupported(problem),
            }
        }
        ty => match option_inner(ty).map(ungroup) {
            Some(Type::Reference(reference)) => {
                if let Some(mutability) = reference.mutability {
                    return ParamKind::Unsupported(Unsupported::new(
                        mutability,
                        "`#[tool]` parameters cannot be `Option<&mut T>`: take `Option<T>` or `Option<&T>`",
                    ));
                }
                match owned_of_borrowed(&reference.elem) {
                    Ok((inner, deref)) => {
                        let lend = if deref { Lend::AsDeref } else { Lend::AsRef };
                        value(option_of(ty, inner), lend)
                    }
                    Err(problem) => ParamKind::Unsupported(problem),
                }
            }
            _ => match owned(ty) {
                Ok(owned) => value(owned, Lend::Move),
                Err(problem) => ParamKind::Unsupported(problem),
            },
        },
    }
}

fn value(owned: Type, lend: Lend) -> ParamKind {
    let optional = option_inner(&owned).is_some();
    ParamKind::Value(Shape {
        owned,
        optional,
        lend,
    })
}

/// The owned type behind `&elem`, and whether it is lent through `Deref` (`str`, `[T]`).
fn owned_of_borrowed(elem: &Type) -> Result<(Type, bool), Unsupported> {
    match ungroup(elem) {
        Type::Path(path) if path.qself.is_none() && path.path.is_ident("str") => Ok((
            syn::parse_quote_spanned!(elem.span()=> ::std::string::String),
            true,
        )),
        Type::Slice(slice) => {
            let item = owned(&slice.elem)?;
            Ok((
                syn::parse_quote_spanned!(elem.span()=> ::std::vec::Vec<#item>),
                true,
            ))
        }
        Type::TraitObject(object) => Err(Unsupported::new(
            object,
            "`#[tool]` cannot decode a trait object: take a concrete type that implements `Deserialize` and `JsonSchema`",
        )),
        Type::Reference(_) => Err(Unsupported::new(
            elem,
            "`#[tool]` parameters borrow at most once: take `&T`, not `&&T`",
        )),
        other => Ok((owned(other)?, false)),
    }
}

/// `ty` with every lifetime `'static` (an elided `Cow<str>` gets one too), or why it cannot be
/// decoded: a borrow inside another type, or `impl Trait`.
fn owned(ty: &Type) -> Result<Type, Unsupported> {
    let mut owned = ty.clone();
    let mut check = MakeOwned { problem: None };
    check.visit_type_mut(&mut owned);
    match check.problem {
        Some(problem) => Err(problem),
        None => Ok(owned),
    }
}

struct MakeOwned {
    problem: Option<Unsupported>,
}

impl VisitMut for MakeOwned {
    fn visit_lifetime_mut(&mut self, lifetime: &mut Lifetime) {
        lifetime.ident = Ident::new("static", lifetime.ident.span());
    }

    fn visit_type_reference_mut(&mut self, reference: &mut syn::TypeReference) {
        self.problem.get_or_insert_with(|| {
            Unsupported::new(reference, "`#[tool]` decodes arguments into owned values: a borrow is allowed only as the whole parameter (`&str`, `&[T]`, `&T`, `Option<&T>`); use an owned type here, such as `String` for `&str`")
        });
    }

    fn visit_type_impl_trait_mut(&mut self, found: &mut syn::TypeImplTrait) {
        self.problem.get_or_insert_with(|| {
            Unsupported::new(
                found,
                "`impl Trait` parameters make the fn generic; `#[tool]` needs a concrete type",
            )
        });
    }

    fn visit_path_segment_mut(&mut self, segment: &mut syn::PathSegment) {
        // `Cow<str>` elides its lifetime, which a struct field may not.
        if segment.ident == "Cow" {
            if let PathArguments::AngleBracketed(args) = &mut segment.arguments {
                let has_lifetime = args
                    .args
                    .iter()
                    .any(|arg| matches!(arg, GenericArgument::Lifetime(_)));
                if !has_lifetime {
                    let lifetime = Lifetime::new("'static", segment.ident.span());
                    args.args.insert(0, GenericArgument::Lifetime(lifetime));
                }
            }
        }
        syn::visit_mut::visit_path_segment_mut(self, segment);
    }
}

/// `Option<inner>`, keeping the path the user wrote for `Option`.
fn option_of(option: &Type, inner: Type) -> Type {
    let mut ty = ungroup(option).clone();
    if let Type::Path(path) = &mut ty {
        if let Some(segment) = path.path.segments.last_mut() {
            if let PathArguments::AngleBracketed(args) = &mut segment.arguments {
                args.args = std::iter::once(GenericArgument::Type(inner)).collect();
            }
        }
    }
    ty
}

fn ungroup(ty: &Type) -> &Type {
    match ty {
        Type::Group(group) => ungroup(&group.elem),
        Type::Paren(paren) => ungroup(&paren.elem),
        ty => ty,
    }
}

fn last_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match ungroup(ty) {
        Type::Path(path) if path.qself.is_none() => path.path.segments.last(),
        _ => None,
    }
}

/// `State<T>`, `Extension<T>` or `Option<Extension<T>>`, recognised by the last path
/// segment as `ToolContext` is.
fn injection(ty: &Type) -> Option<Injection> {
    if let Some(inner) = option_inner(ty) {
        return single_argument(inner, "Extension")
            .map(|t| Injection::OptionalExtension(t.clone()));
    }
    if let Some(inner) = single_argument(ty, "State") {
        return Some(Injection::State(inner.clone()));
    }
    single_argument(ty, "Extension").map(|inner| Injection::Extension(inner.clone()))
}

/// `T` in `Name<T>`.
fn single_argument<'t>(ty: &'t Type, name: &str) -> Option<&'t Type> {
    let segment = last_segment(ty)?;
    if segment.ident != name {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &segment.arguments else {
        return None;
    };
    match args.args.iter().collect::<Vec<_>>()[..] {
        [GenericArgument::Type(inner)] => Some(inner),
        _ => None,
    }
}

fn is_tool_context(ty: &Type) -> bool {
    last_segment(ty).is_some_and(|segment| segment.ident == "ToolContext")
}

pub fn option_inner(ty: &Type) -> Option<&Type> {
    single_argument(ty, "Option")
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    fn shape(ty: Type) -> (String, bool, &'static str) {
        match classify(&ty) {
            ParamKind::Value(shape) => (
                shape.owned.to_token_stream().to_string(),
                shape.optional,
                match shape.lend {
                    Lend::Move => "move",
                    Lend::Borrow => "borrow",
                    Lend::AsDeref => "as_deref",
                    Lend::AsRef => "as_ref",
                },
            ),
            _ => panic!("not a value: {}", ty.to_token_stream()),
        }
    }

    fn problem(ty: Type) -> String {
        match classify(&ty) {
            ParamKind::Unsupported(problem) => problem.message.to_owned(),
            _ => panic!("accepted: {}", ty.to_token_stream()),
        }
    }

    #[test]
    fn borrowed_parameters_decode_into_owned_values() {
        assert_eq!(
            shape(parse_quote!(&str)),
            (":: std :: string :: String".into(), false, "borrow")
        );
        assert_eq!(
            shape(parse_quote!(&'a [Unit])),
            (":: std :: vec :: Vec < Unit >".into(), false, "borrow")
        );
        assert_eq!(
            shape(parse_quote!(&Point)),
            ("Point".into(), false, "borrow")
        );
        assert_eq!(
            shape(parse_quote!(Option<&str>)),
            (
                "Option < :: std :: string :: String >".into(),
                true,
                "as_deref"
            )
        );
        assert_eq!(
            shape(parse_quote!(Option<&'a Point>)),
            ("Option < Point >".into(), true, "as_ref")
        );
        assert_eq!(
            shape(parse_quote!(Cow<'_, str>)),
            ("Cow < 'static , str >".into(), false, "move")
        );
        assert_eq!(
            shape(parse_quote!(std::borrow::Cow<str>)),
            (
                "std :: borrow :: Cow < 'static , str >".into(),
                false,
                "move"
            )
        );
        assert_eq!(
            shape(parse_quote!(&Option<u8>)),
            ("Option < u8 >".into(), true, "borrow")
        );
    }

    #[test]
    fn other_borrows_say_what_to_write() {
        assert!(problem(parse_quote!(&mut String)).contains("cannot be `&mut`"));
        assert!(problem(parse_quote!(Vec<&str>)).contains("`String` for `&str`"));
        assert!(problem(parse_quote!(&dyn Display)).contains("trait object"));
        assert!(problem(parse_quote!(&impl Display)).contains("`impl Trait`"));
        assert!(problem(parse_quote!(&&str)).contains("borrow at most once"));
        assert!(matches!(
            classify(&parse_quote!(&mut ToolContext)),
            ParamKind::MutContext
        ));
    }

    #[test]
    fn state_and_extensions_are_injected() {
        let inner = |ty: Type| match classify(&ty) {
            ParamKind::Injected(Injection::State(t)) => format!("state {}", t.to_token_stream()),
            ParamKind::Injected(Injection::Extension(t)) => format!("ext {}", t.to_token_stream()),
            ParamKind::Injected(Injection::OptionalExtension(t)) => {
                format!("opt {}", t.to_token_stream())
            }
            _ => "value".to_owned(),
        };
        assert_eq!(inner(parse_quote!(State<Db>)), "state Db");
        assert_eq!(
            inner(parse_quote!(toolnexus::State<app::Db>)),
            "state app :: Db"
        );
        assert_eq!(inner(parse_quote!(Extension<User>)), "ext User");
        assert_eq!(inner(parse_quote!(Option<Extension<User>>)), "opt User");
        assert_eq!(inner(parse_quote!(Option<User>)), "value");
        assert_eq!(inner(parse_quote!(Vec<Extension<User>>)), "value");
    }
}
