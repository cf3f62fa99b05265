//! The borrowed model of one `#[tool]` fn or method: references into the user's tokens.

use proc_macro2::TokenStream;
use syn::ext::IdentExt;
use syn::{
    Attribute, FnArg, GenericArgument, Ident, PatType, PathArguments, Receiver, Signature, Type,
};

use super::attr::{self, ArgumentBullet, DocLine, ParamAttr, ToolArgs};
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
    pub kind: ParamKind<'a>,
    pub attr: ParamAttr,
    pub docs: Vec<DocLine<'a>>,
    pub forwarded: Vec<&'a Attribute>,
}

pub enum ParamKind<'a> {
    /// `&ToolContext` (`by_ref`) or `ToolContext`: injected, never in the schema.
    Context { by_ref: bool },
    /// `Option<inner>`: not required; `null` means absent.
    Optional { inner: &'a Type },
    /// Any other type.
    Value,
}

impl<'a> ToolFn<'a> {
    pub fn parse(
        args: TokenStream,
        sig: &'a Signature,
        attrs: &'a [Attribute],
        errors: &mut Errors,
    ) -> Self {
        let docs = attr::doc_lines(attrs);
        let bullets = attr::argument_bullets(&docs);
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
        Param {
            arg,
            ident,
            ty: &arg.ty,
            kind: classify(&arg.ty),
            attr: attr::parse_param_attrs(&arg.attrs, errors),
            docs: attr::doc_lines(&arg.attrs),
            forwarded: arg
                .attrs
                .iter()
                .filter(|a| attr::is_forwarded_attr(a))
                .collect(),
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
        matches!(self.kind, ParamKind::Context { .. })
    }
}

fn classify(ty: &Type) -> ParamKind<'_> {
    match ty {
        Type::Reference(reference) if is_tool_context(&reference.elem) => {
            ParamKind::Context { by_ref: true }
        }
        ty if is_tool_context(ty) => ParamKind::Context { by_ref: false },
        ty => match option_inner(ty) {
            Some(inner) => ParamKind::Optional { inner },
            None => ParamKind::Value,
        },
    }
}

fn last_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match ty {
        Type::Path(path) if path.qself.is_none() => path.path.segments.last(),
        Type::Group(group) => last_segment(&group.elem),
        Type::Paren(paren) => last_segment(&paren.elem),
        _ => None,
    }
}

fn is_tool_context(ty: &Type) -> bool {
    last_segment(ty).is_some_and(|segment| segment.ident == "ToolContext")
}

fn option_inner(ty: &Type) -> Option<&Type> {
    let segment = last_segment(ty)?;
    if segment.ident != "Option" {
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
