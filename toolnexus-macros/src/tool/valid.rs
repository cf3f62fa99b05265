//! Checks a parsed `#[tool]` and resolves its name, description and argument fields.

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{GenericParam, Ident, LitStr, WherePredicate};

use super::ast::{Injection, Param, ParamKind, Shape, ToolFn};
use crate::crate_path::{self, CratePath};
use crate::errors::Errors;
use crate::format::{Arg, Format};
use crate::idents;

/// Tool names every provider accepts: `^[a-zA-Z0-9_-]{1,64}$`.
const MAX_NAME_LEN: usize = 64;

/// What expansion needs, after validation.
pub struct Plan<'a> {
    pub name: String,
    pub description: String,
    pub fields: Vec<Field<'a>>,
    /// The parameters taken from the context (SPEC §12), in their order.
    pub injected: Vec<Injected<'a>>,
    /// What the fn is called with, in its parameters' order.
    pub call: Vec<CallArg>,
    /// The approval prompt, its placeholders checked against the parameters.
    pub approval: Option<Format>,
    /// `#[tool(crate = …)]`, else `#[toolbox(crate = …)]`, else `::toolnexus`; then
    /// `::__private`.
    pub private: TokenStream,
}

/// One schema property: a non-context parameter.
pub struct Field<'a> {
    /// Its place among the fields, which names what the expansion generates for it.
    pub index: usize,
    pub param: &'a Param<'a>,
    pub ident: &'a Ident,
    pub shape: &'a Shape,
    pub description: Option<String>,
}

/// One parameter taken from the context.
pub struct Injected<'a> {
    pub param: &'a Param<'a>,
    pub how: &'a Injection,
}

/// One argument of the call to the fn.
pub enum CallArg {
    /// The context, by reference or cloned.
    Context { by_ref: bool },
    /// The value of field `index`.
    Field(usize),
    /// The injected value `index`.
    Injected(usize),
}

impl Field<'_> {
    /// The alias of its owned type (see [`idents::param_type`]).
    pub fn param_type(&self) -> Ident {
        idents::param_type(self.index, self.param.ty.span())
    }

    /// The local holding its value.
    pub fn binding(&self) -> Ident {
        idents::param(self.index, self.ident.span())
    }

    /// Its key in the arguments object.
    pub fn key(&self) -> String {
        self.param.wire_name().unwrap_or_default()
    }

    pub fn has_default(&self) -> bool {
        self.param.attr.default.is_some()
    }
}

impl Plan<'_> {
    /// Whether a parameter is `#[serde(flatten)]`: then the runtime closes the schema and
    /// refuses unknown keys, since serde cannot beside a flattened enum.
    pub fn flattened(&self) -> bool {
        self.fields
            .iter()
            .any(|field| field.param.forwarded.flatten)
    }

    /// `"<crate>::__private::serde"` and the like, for `#[serde(crate = …)]` strings.
    pub fn private_str(&self, module: &str) -> String {
        crate_path::private_str(&self.private, module)
    }
}

/// `<crate>::__private` from the tool's own `crate`, else its toolbox's.
pub fn private_path(own: Option<&CratePath>, outer: Option<&CratePath>) -> TokenStream {
    crate_path::private(own.or(outer))
}

/// Where the fn stands: a free fn, or a method inside `#[toolbox]`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Place {
    Free,
    Toolbox,
}

pub fn validate<'a>(
    tool: &'a ToolFn<'a>,
    place: Place,
    outer_crate: Option<&CratePath>,
    errors: &mut Errors,
) -> Plan<'a> {
    let sig = tool.sig;
    check_signature(tool, place, errors);
    check_annotations(tool, errors);
    check_task(tool, errors);
    let name = resolve_name(tool, errors);
    let description = match &tool.args.description {
        Some(text) => text.value().trim().to_owned(),
        None => super::docs::doc_description(&tool.docs),
    };
    if description.is_empty() {
        let at: &dyn quote::ToTokens = match &tool.args.description {
            Some(literal) => literal,
            None => &sig.ident,
        };
        errors.spanned(
            at,
            format_args!(
                "`#[tool]` needs a description: add a doc comment to `{}` or write `#[tool(description = \"…\")]`",
                sig.ident
            ),
        );
    }
    let (fields, injected, call) = resolve_fields(tool, errors);
    check_bullets(tool, errors);
    let approval = tool
        .args
        .approval
        .as_ref()
        .map(|lit| check_approval(tool, lit, errors));
    Plan {
        name,
        description,
        fields,
        injected,
        call,
        approval,
        private: private_path(tool.args.krate.as_ref(), outer_crate),
    }
}

/// `read_only` with `destructive` (true) says two opposite things: MCP and the other ports
/// read a read-only tool as not destructive.
fn check_annotations(tool: &ToolFn, errors: &mut Errors) {
    let flags = &tool.args.annotations;
    if let (Some(read_only), Some(destructive)) = (&flags.read_only, &flags.destructive) {
        if read_only.value && destructive.value {
            errors.spanned(
                &destructive.key,
                "`#[tool(read_only, destructive)]` contradict each other: a read-only tool is not destructive; drop one of them",
            );
        }
    }
}

/// A task runs for minutes; a sync fn would hold one of the runtime's async threads for all
/// of them (its work happens inside a poll), stalling every other call on that thread. So
/// `task` needs an `async fn`, whose blocking parts the author moves off those threads.
fn check_task(tool: &ToolFn, errors: &mut Errors) {
    if let (Some(task), None) = (&tool.args.task, &tool.sig.asyncness) {
        errors.spanned(
            &task.key,
            format_args!(
                "`#[tool(task)]` needs an `async fn`: a sync fn would block an async thread for as long as the task runs; write `async fn {}` and move blocking work into `tokio::task::spawn_blocking`",
                tool.sig.ident
            ),
        );
    }
}

/// Every placeholder of `#[tool(approval = "…")]` must name a parameter (by its Rust name).
fn check_approval(tool: &ToolFn, lit: &syn::LitStr, errors: &mut Errors) -> Format {
    let format = Format::parse(lit.clone(), errors);
    let params: BTreeSet<String> = tool
        .params
        .iter()
        .filter(|param| matches!(param.kind, ParamKind::Value(_)))
        .filter_map(|param| param.ident)
        .map(|ident| ident.unraw().to_string())
        .collect();
    let mut reported = BTreeSet::new();
    for (arg, _) in format.args() {
        let known = matches!(arg, Arg::Name(name) if params.contains(name));
        if !known && reported.insert(arg.to_string()) {
            errors.spanned(
                lit,
                match arg {
                    Arg::Index(_) => format!(
                        "`#[tool(approval = \"…\")]` placeholders name parameters: `{{{arg}}}` is positional; write `{{name}}`"
                    ),
                    Arg::Name(name) => format!(
                        "`#[tool(approval = \"…\")]` has the placeholder `{{{name}}}`, which names no parameter of `{}`",
                        tool.sig.ident
                    ),
                },
            );
        }
    }
    format
}

fn check_signature(tool: &ToolFn, place: Place, errors: &mut Errors) {
    let sig = tool.sig;
    // Lifetimes are fine: arguments are decoded into owned values and lent to the fn.
    for param in &sig.generics.params {
        match param {
            GenericParam::Lifetime(_) => {}
            GenericParam::Type(param) => errors.spanned(
                param,
                "`#[tool]` cannot be used on a fn with type parameters: the schema needs concrete parameter types",
            ),
            GenericParam::Const(param) => errors.spanned(
                param,
                "`#[tool]` cannot be used on a fn with const parameters: the schema needs concrete parameter types",
            ),
        }
    }
    let where_predicates = sig.generics.where_clause.iter().flat_map(|c| &c.predicates);
    for predicate in where_predicates {
        if !matches!(predicate, WherePredicate::Lifetime(_)) {
            errors.spanned(
                predicate,
                "`#[tool]` cannot be used on a fn with a `where` clause on types: the schema needs concrete parameter types",
            );
        }
    }
    if let syn::Safety::Unsafe(unsafety) = &sig.safety {
        errors.spanned(unsafety, "`#[tool]` cannot be used on an `unsafe fn`");
    }
    if let Some(variadic) = &sig.variadic {
        errors.spanned(variadic, "`#[tool]` cannot be used on a variadic fn");
    }
    match (place, tool.receiver) {
        (Place::Free, Some(receiver)) => errors.spanned(
            receiver,
            "a `self` receiver needs `#[toolbox]` on the enclosing `impl` block",
        ),
        (Place::Toolbox, None) => errors.spanned(
            &sig.ident,
            "a `#[tool]` method inside `#[toolbox]` needs a `&self` receiver",
        ),
        (Place::Toolbox, Some(receiver))
            if receiver.mutability.is_some()
                || matches!(receiver.kind, syn::ReceiverKind::Reference(_, _, Some(_))) =>
        {
            errors.spanned(
            receiver,
            "a `#[tool]` method cannot take `&mut self`: tools run concurrently; use `&self` with interior mutability (a `Mutex`, an atomic)",
            )
        }
        (Place::Toolbox, Some(receiver))
            if !matches!(receiver.kind, syn::ReceiverKind::Reference(..)) =>
        {
            errors.spanned(
                receiver,
                "a `#[tool]` method must take `&self`: the toolbox shares one instance between its tools",
            )
        }
        _ => {}
    }
}

fn resolve_name(tool: &ToolFn, errors: &mut Errors) -> String {
    let (name, span) = match &tool.args.name {
        Some(literal) => (literal.value(), literal.span()),
        None => (tool.sig.ident.unraw().to_string(), tool.sig.ident.span()),
    };
    let valid_chars = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if name.is_empty() || !valid_chars {
        errors.push(syn::Error::new(
            span,
            format_args!(
                "invalid tool name `{name}`: use 1 to {MAX_NAME_LEN} ASCII letters, digits, `_` or `-`"
            ),
        ));
    } else if name.len() > MAX_NAME_LEN {
        errors.push(syn::Error::new(
            span,
            format_args!(
                "tool name `{name}` is {} characters long; providers accept at most {MAX_NAME_LEN}",
                name.len()
            ),
        ));
    }
    name
}

type Resolved<'a> = (Vec<Field<'a>>, Vec<Injected<'a>>, Vec<CallArg>);

fn resolve_fields<'a>(tool: &'a ToolFn<'a>, errors: &mut Errors) -> Resolved<'a> {
    let mut fields = Vec::new();
    let mut injected = Vec::new();
    let mut call = Vec::new();
    let mut seen_context = false;
    let mut wire_names = BTreeSet::new();
    let mut headers = BTreeSet::new();
    for param in &tool.params {
        let Some(ident) = param.ident else {
            errors.spanned(
                &param.arg.pat,
                "tool parameters must be plain identifiers: bind the argument to a name and destructure it in the body",
            );
            continue;
        };
        if param.is_context() {
            if seen_context {
                errors.spanned(param.ty, "a tool takes at most one `ToolContext` parameter");
            }
            seen_context = true;
            if let Some(attr) = param
                .arg
                .attrs
                .iter()
                .find(|a| super::attr::is_param_attr(a) || super::attr::is_forwarded_attr(a))
            {
                errors.spanned(
                    attr,
                    "the `ToolContext` parameter is injected, not read from the arguments: remove this attribute",
                );
            }
            match param.kind {
                ParamKind::Context { by_ref } => call.push(CallArg::Context { by_ref }),
                _ => errors.spanned(
                    param.ty,
                    "a tool takes the context as `&ToolContext` (it is shared with the caller), not `&mut ToolContext`",
                ),
            }
            continue;
        }
        let shape = match &param.kind {
            ParamKind::Value(shape) => shape,
            ParamKind::Injected(how) => {
                check_injected_attrs(param, how, errors);
                call.push(CallArg::Injected(injected.len()));
                injected.push(Injected { param, how });
                continue;
            }
            ParamKind::Unsupported(problem) => {
                errors.spanned(&problem.tokens, problem.message);
                continue;
            }
            ParamKind::Context { .. } | ParamKind::MutContext => continue,
        };
        if let (true, Some(default)) = (shape.optional, &param.attr.default) {
            errors.spanned(
                default.key(),
                "`#[param(default)]` cannot be used on an `Option` parameter: a missing `Option` is already `None`",
            );
        }
        let wire = param.wire_name().unwrap_or_default();
        if !wire_names.insert(wire.clone()) {
            let at: &dyn quote::ToTokens = match &param.attr.rename {
                Some(literal) => literal,
                None => ident,
            };
            errors.spanned(
                at,
                format_args!(
                    "two parameters of this tool are both named `{wire}` in its arguments"
                ),
            );
        }
        if let Some(header) = &param.attr.header {
            check_header(header, &mut headers, errors);
        }
        call.push(CallArg::Field(fields.len()));
        fields.push(Field {
            index: fields.len(),
            param,
            ident,
            shape,
            description: describe_param(tool, param, ident),
        });
    }
    (fields, injected, call)
}

/// An injected parameter is not read from the arguments: no key of `#[param]` but `inject`
/// applies to it, nor a forwarded `#[serde]`/`#[schemars]`.
fn check_injected_attrs(param: &Param, how: &Injection, errors: &mut Errors) {
    let attr = &param.attr;
    let stray = param.arg.attrs.iter().find(|a| {
        super::attr::is_forwarded_attr(a)
            || (super::attr::is_param_attr(a) && attr.inject.is_none())
    });
    if attr.inject.is_some() {
        // A `#[serde(default)]` is reported once, as the stray attribute it is.
        let default = attr.default.as_ref().filter(|_| stray.is_none());
        let others: [(&str, Option<&dyn quote::ToTokens>); 4] = [
            ("default", default.map(|d| d.key() as _)),
            ("rename", attr.rename.as_ref().map(|r| r as _)),
            ("description", attr.description.as_ref().map(|d| d as _)),
            ("header", attr.header.as_ref().map(|h| h as _)),
        ];
        for (key, at) in others {
            if let Some(at) = at {
                errors.spanned(
                    at,
                    format_args!(
                        "`#[param(inject)]` cannot be used with `{key}`: an injected parameter is not read from the arguments"
                    ),
                );
            }
        }
    }
    let what = match how {
        Injection::State(_) => "a `State<T>` parameter",
        Injection::Extension(_) | Injection::OptionalExtension(_) => "an `Extension<T>` parameter",
        Injection::FromContext => "a `#[param(inject)]` parameter",
    };
    if let Some(stray) = stray {
        errors.spanned(
            stray,
            format_args!("{what} is injected, not read from the arguments: remove this attribute"),
        );
    }
}

/// `#[param(header = "…")]` names the `Mcp-Param-{name}` HTTP header: an HTTP token (RFC 9110
/// `tchar`s), once per tool ignoring case, as MCP (SEP-2243) requires of `x-mcp-header`.
fn check_header(header: &LitStr, seen: &mut BTreeSet<String>, errors: &mut Errors) {
    let name = header.value();
    let tchar = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
    if name.is_empty() || !name.chars().all(tchar) {
        errors.spanned(
            header,
            format_args!(
                "`#[param(header = {name:?})]` is not an HTTP header name: use letters, digits and `-` (the client sends `Mcp-Param-<name>`)"
            ),
        );
    } else if !seen.insert(name.to_ascii_lowercase()) {
        errors.spanned(
            header,
            format_args!(
                "two parameters of this tool are sent as the header `Mcp-Param-{name}` (header names ignore case)"
            ),
        );
    }
}

fn describe_param(tool: &ToolFn, param: &Param, ident: &Ident) -> Option<String> {
    if let Some(text) = &param.attr.description {
        return Some(text.value().trim().to_owned());
    }
    let docs = super::docs::doc_description(&param.docs);
    if !docs.is_empty() {
        return Some(docs);
    }
    let ident = ident.unraw().to_string();
    tool.bullets
        .iter()
        .find(|bullet| bullet.name == ident)
        .map(|bullet| bullet.text.clone())
        .filter(|text| !text.is_empty())
}

fn check_bullets(tool: &ToolFn, errors: &mut Errors) {
    let names: BTreeSet<String> = tool
        .params
        .iter()
        .filter_map(|param| param.ident)
        .map(|ident| ident.unraw().to_string())
        .collect();
    for bullet in &tool.bullets {
        if !names.contains(&bullet.name) {
            errors.spanned(
                bullet.attr,
                format_args!(
                    "the `# Arguments` section names `{}`, which is not a parameter of `{}`",
                    bullet.name, tool.sig.ident
                ),
            );
        }
    }
}
