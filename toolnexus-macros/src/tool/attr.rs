//! Parses `#[tool(…)]` arguments, `#[param(…)]` attributes and the forwarded `#[serde]` and
//! `#[schemars]` ones (doc comments are read in `docs`).

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::meta::ParseNestedMeta;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Attribute, Expr, Ident, LitStr, Meta, Token};

use crate::crate_path::{self, CratePath};
use crate::errors::Errors;
use crate::symbol::{
    APPROVAL, CRATE, DEFAULT, DEFER, DESCRIPTION, DESERIALIZE_WITH, DESTRUCTIVE, FLATTEN, HEADER,
    IDEMPOTENT, INJECT, NAME, OPEN_WORLD, PARAM, READ_ONLY, RENAME, RETRIES, SCHEMA_WITH, SCHEMARS,
    SERDE, Symbol, TASK, TITLE, WITH,
};

/// `#[tool(name = "…", description = "…", title = "…", read_only, destructive, idempotent,
/// open_world, approval = "…", defer, retries = N, task, task = "required", crate = "…")]`.
#[derive(Default)]
pub struct ToolArgs {
    pub name: Option<LitStr>,
    pub description: Option<LitStr>,
    pub title: Option<LitStr>,
    pub annotations: Annotations,
    pub approval: Option<LitStr>,
    /// `defer` (SPEC §15): the definition waits until a search finds the tool.
    pub defer: Option<Flag>,
    /// `retries = N` (SPEC §15B): the tool's retry budget.
    pub retries: Option<syn::LitInt>,
    pub task: Option<Task>,
    pub krate: Option<CratePath>,
}

/// `task` (optional) or `task = "optional" | "required"`, with the key for error spans.
pub struct Task {
    pub key: Ident,
    pub required: bool,
}

/// The MCP annotation flags, each with the key that set it (for error spans).
#[derive(Default)]
pub struct Annotations {
    pub read_only: Option<Flag>,
    pub destructive: Option<Flag>,
    pub idempotent: Option<Flag>,
    pub open_world: Option<Flag>,
}

/// `key` (true) or `key = true|false`.
pub struct Flag {
    pub key: Ident,
    pub value: bool,
}

const TOOL_KEYS: &str = "`name`, `description`, `title`, `read_only`, `destructive`, `idempotent`, `open_world`, `approval`, `defer`, `retries`, `task` or `crate`";

pub fn parse_tool_args(args: TokenStream, errors: &mut Errors) -> ToolArgs {
    let mut parsed = ToolArgs::default();
    let parser = syn::meta::parser(|meta| {
        let flags = &mut parsed.annotations;
        let flag = if meta.path == READ_ONLY {
            Some(&mut flags.read_only)
        } else if meta.path == DESTRUCTIVE {
            Some(&mut flags.destructive)
        } else if meta.path == IDEMPOTENT {
            Some(&mut flags.idempotent)
        } else if meta.path == OPEN_WORLD {
            Some(&mut flags.open_world)
        } else {
            None
        };
        if let Some(slot) = flag {
            return set_flag(&meta, slot);
        }
        if meta.path == NAME {
            set_once(&meta, &mut parsed.name, NAME)
        } else if meta.path == DESCRIPTION {
            set_once(&meta, &mut parsed.description, DESCRIPTION)
        } else if meta.path == TITLE {
            set_once(&meta, &mut parsed.title, TITLE)
        } else if meta.path == APPROVAL {
            set_once(&meta, &mut parsed.approval, APPROVAL)
        } else if meta.path == DEFER {
            set_flag(&meta, &mut parsed.defer)
        } else if meta.path == RETRIES {
            set_retries(&meta, &mut parsed.retries)
        } else if meta.path == TASK {
            set_task(&meta, &mut parsed.task)
        } else if meta.path == CRATE {
            crate_path::set(&meta, &mut parsed.krate, "tool")
        } else {
            Err(meta.error(format_args!(
                "unknown `#[tool]` key `{}`; expected {TOOL_KEYS}",
                path_text(&meta)
            )))
        }
    });
    if let Err(error) = parser.parse2(args) {
        errors.push(error);
    }
    parsed
}

/// `#[toolbox(crate = "…")]`: the only key `#[toolbox]` takes.
pub fn parse_toolbox_args(args: TokenStream, errors: &mut Errors) -> Option<CratePath> {
    let mut krate = None;
    let parser = syn::meta::parser(|meta| {
        if meta.path == CRATE {
            crate_path::set(&meta, &mut krate, "toolbox")
        } else {
            Err(meta.error(format_args!(
                "unknown `#[toolbox]` key `{}`; expected `crate`",
                path_text(&meta)
            )))
        }
    });
    if let Err(error) = parser.parse2(args) {
        errors.push(error);
    }
    krate
}

/// `retries = N`: a non-negative integer literal that fits a `u32`.
fn set_retries(meta: &ParseNestedMeta, slot: &mut Option<syn::LitInt>) -> syn::Result<()> {
    if slot.is_some() {
        return Err(meta.error("duplicate key `retries`"));
    }
    let expected = "`#[tool(retries = …)]` takes a whole number of retries, e.g. `retries = 3`";
    if !meta.input.peek(Token![=]) {
        return Err(meta.error(expected));
    }
    let value: syn::Lit = meta.value()?.parse()?;
    match value {
        syn::Lit::Int(int) if int.suffix().is_empty() || int.suffix() == "u32" => {
            if int.base10_parse::<u32>().is_err() {
                return Err(syn::Error::new(
                    int.span(),
                    "`#[tool(retries = …)]` must fit a `u32` (at most 4294967295)",
                ));
            }
            *slot = Some(int);
            Ok(())
        }
        other => Err(syn::Error::new(other.span(), expected)),
    }
}

/// `task`, `task = "optional"` or `task = "required"`, once.
fn set_task(meta: &ParseNestedMeta, slot: &mut Option<Task>) -> syn::Result<()> {
    let key = meta.path.require_ident()?.clone();
    let required = if meta.input.peek(syn::Token![=]) {
        let mode: LitStr = meta.value()?.parse()?;
        match mode.value().as_str() {
            "optional" => false,
            "required" => true,
            other => {
                return Err(syn::Error::new(
                    mode.span(),
                    format_args!(
                        "unknown `#[tool(task = \"{other}\")]` mode; expected `task` (or `task = \"optional\"`: may run as a task) or `task = \"required\"` (only as one)"
                    ),
                ));
            }
        }
    } else {
        false
    };
    if slot.is_some() {
        return Err(meta.error("duplicate key `task`"));
    }
    *slot = Some(Task { key, required });
    Ok(())
}

fn set_flag(meta: &ParseNestedMeta, slot: &mut Option<Flag>) -> syn::Result<()> {
    let key = meta.path.require_ident()?.clone();
    let value = if meta.input.peek(syn::Token![=]) {
        let lit: syn::LitBool = meta.value()?.parse()?;
        lit.value
    } else {
        true
    };
    if slot.is_some() {
        return Err(meta.error(format_args!("duplicate key `{key}`")));
    }
    *slot = Some(Flag { key, value });
    Ok(())
}

/// `#[param(description = "…", rename = "…", default, default = expr, inject, header = "…")]`.
#[derive(Default)]
pub struct ParamAttr {
    pub description: Option<LitStr>,
    pub rename: Option<LitStr>,
    /// `#[param(header = "Region")]`: the client also sends the argument as the HTTP header
    /// `Mcp-Param-Region` (MCP's `x-mcp-header`, SEP-2243).
    pub header: Option<LitStr>,
    pub default: Option<ParamDefault>,
    /// `#[param(inject)]`: built from the context (`FromToolContext`); the key, for spans.
    pub inject: Option<Ident>,
}

pub enum ParamDefault {
    /// `#[param(default)]` or `#[serde(default)]`: `Default::default()`; keeps the key for
    /// error spans.
    Trait(Ident),
    /// `#[param(default = expr)]`.
    Expr(Ident, Box<Expr>),
    /// `#[serde(default = "path")]`: `path()`.
    Path(Ident, Box<syn::ExprPath>),
}

impl ParamDefault {
    pub fn key(&self) -> &Ident {
        match self {
            Self::Trait(key) | Self::Expr(key, _) | Self::Path(key, _) => key,
        }
    }
}

pub fn is_param_attr(attr: &Attribute) -> bool {
    attr.path() == PARAM
}

/// A parameter's `#[serde]` and `#[schemars]` attributes, read once: what the generated
/// argument fields get, and what expansion needs to know of them.
#[derive(Default)]
pub struct Forwarded {
    /// Every one, in the order written, for the schema struct; a `#[serde(default)]` is taken
    /// out (into [`ParamAttr::default`]).
    pub attrs: Vec<Attribute>,
    /// The `#[serde]` ones, for the arguments struct serde derives.
    pub serde: Vec<SerdeAttr>,
    /// The user's own deserializer: `deserialize_with = "path"` ⇒ `path`, `with = "module"` ⇒
    /// `module::deserialize`, spanned at the user's string; the last one written.
    pub decoder: Option<TokenStream>,
    /// `#[serde(flatten)]`: the parameter's fields are spread over the arguments.
    pub flatten: bool,
    /// `#[schemars(with = …)]`, `#[schemars(schema_with = …)]` or `#[serde(with = …)]`
    /// (which schemars reads as a type): the schema is not the parameter type's own.
    pub described_otherwise: bool,
}

/// One forwarded `#[serde(…)]`.
pub struct SerdeAttr {
    pub attr: Attribute,
    /// Its metas, whole, so a nested list (`rename(deserialize = "…")`) is read past rather
    /// than ending the scan; `None` if it does not parse (serde reports that).
    pub metas: Option<Metas>,
}

pub type Metas = Punctuated<Meta, Token![,]>;

impl SerdeAttr {
    /// The attribute minus `with` and `deserialize_with`, for a parameter whose decoder the
    /// expansion wraps.
    pub fn without_decoder(&self) -> TokenStream {
        match &self.metas {
            Some(metas) => {
                let rest = metas
                    .iter()
                    .filter(|meta| !(meta.path() == WITH || meta.path() == DESERIALIZE_WITH));
                quote!(#[serde(#(#rest),*)])
            }
            None => self.attr.to_token_stream(),
        }
    }
}

/// Attributes forwarded to the generated argument field.
pub fn is_forwarded_attr(attr: &Attribute) -> bool {
    attr.path() == SERDE || attr.path() == SCHEMARS
}

/// Reads the `#[serde]` and `#[schemars]` attributes to forward, with a `#[serde(default)]`
/// or `#[serde(default = "path")]` taken out into `param.default`: a defaulted parameter is
/// decoded as an `Option` (so `null` means absent, like a missing key) and unwrapped with the
/// default at the call, which a forwarded serde `default` would defeat.
pub fn forwarded_attrs(
    attrs: &[Attribute],
    param: &mut ParamAttr,
    errors: &mut Errors,
) -> Forwarded {
    let mut forwarded = Forwarded::default();
    for attr in attrs.iter().filter(|attr| is_forwarded_attr(attr)) {
        if attr.path() != SERDE {
            // An unreadable `#[schemars]` is schemars' to report; the schema is left to it.
            forwarded.described_otherwise |=
                attr.parse_args_with(Metas::parse_terminated)
                    .map_or(true, |metas| {
                        metas
                            .iter()
                            .any(|meta| meta.path() == WITH || meta.path() == SCHEMA_WITH)
                    });
            forwarded.attrs.push(attr.clone());
            continue;
        }
        let Ok(metas) = attr.parse_args_with(Metas::parse_terminated) else {
            // Not ours to judge: serde reports its own syntax errors.
            forwarded.described_otherwise = true;
            forwarded.attrs.push(attr.clone());
            forwarded.serde.push(SerdeAttr {
                attr: attr.clone(),
                metas: None,
            });
            continue;
        };
        let mut kept = Metas::new();
        for meta in metas {
            if meta.path() == DEFAULT {
                take_default(&meta, param, errors);
            } else {
                read_serde_meta(&meta, &mut forwarded);
                kept.push(meta);
            }
        }
        if !kept.is_empty() {
            let mut attr = attr.clone();
            attr.meta = syn::parse_quote!(serde(#kept));
            forwarded.attrs.push(attr.clone());
            forwarded.serde.push(SerdeAttr {
                attr,
                metas: Some(kept),
            });
        }
    }
    forwarded
}

/// What a kept serde meta tells expansion: a decoder of the user's, or `flatten`.
fn read_serde_meta(meta: &Meta, forwarded: &mut Forwarded) {
    if meta.path() == FLATTEN {
        forwarded.flatten = true;
    }
    if meta.path() == WITH {
        forwarded.described_otherwise = true;
    }
    let Meta::NameValue(pair) = meta else {
        return;
    };
    let Expr::Lit(syn::ExprLit {
        lit: syn::Lit::Str(path),
        ..
    }) = &pair.value
    else {
        return;
    };
    // serde itself reports a path that does not parse; decoding is left to it then.
    let Ok(path) = path.parse::<syn::Path>() else {
        return;
    };
    if pair.path == DESERIALIZE_WITH {
        forwarded.decoder = Some(quote!(#path));
    } else if pair.path == WITH {
        forwarded.decoder = Some(quote!(#path::deserialize));
    }
}

/// A `#[serde(default)]` or `#[serde(default = "path")]`, read into `param.default`.
fn take_default(meta: &Meta, param: &mut ParamAttr, errors: &mut Errors) {
    let Some(key) = meta.path().get_ident().cloned() else {
        return;
    };
    let default = match meta {
        Meta::Path(_) => Some(ParamDefault::Trait(key.clone())),
        Meta::NameValue(syn::MetaNameValue {
            value:
                Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(lit),
                    ..
                }),
            ..
        }) => match lit.parse::<syn::ExprPath>() {
            Ok(path) => Some(ParamDefault::Path(key.clone(), Box::new(path))),
            Err(error) => {
                errors.push(error);
                None
            }
        },
        Meta::List(_) | Meta::NameValue(_) => {
            errors.spanned(
                meta,
                "expected `#[serde(default)]` or `#[serde(default = \"path\")]`",
            );
            None
        }
    };
    if param.default.is_some() {
        errors.spanned(
            &key,
            "`#[serde(default)]` and `#[param(default)]` both give this parameter a default; keep one",
        );
    } else {
        param.default = default;
    }
}

pub fn parse_param_attrs(attrs: &[Attribute], errors: &mut Errors) -> ParamAttr {
    let mut parsed = ParamAttr::default();
    for attr in attrs.iter().filter(|attr| is_param_attr(attr)) {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path == DESCRIPTION {
                set_once(&meta, &mut parsed.description, DESCRIPTION)
            } else if meta.path == RENAME {
                set_once(&meta, &mut parsed.rename, RENAME)
            } else if meta.path == HEADER {
                set_once(&meta, &mut parsed.header, HEADER)
            } else if meta.path == DEFAULT {
                let key = meta.path.require_ident()?.clone();
                if parsed.default.is_some() {
                    return Err(meta.error("duplicate `#[param]` key `default`"));
                }
                parsed.default = Some(if meta.input.peek(syn::Token![=]) {
                    ParamDefault::Expr(key, Box::new(meta.value()?.parse()?))
                } else {
                    ParamDefault::Trait(key)
                });
                Ok(())
            } else if meta.path == INJECT {
                let key = meta.path.require_ident()?.clone();
                if parsed.inject.is_some() {
                    return Err(meta.error("duplicate `#[param]` key `inject`"));
                }
                parsed.inject = Some(key);
                Ok(())
            } else {
                Err(meta.error(format_args!(
                    "unknown `#[param]` key `{}`; expected `description`, `rename`, `default`, `inject` or `header`",
                    path_text(&meta)
                )))
            }
        });
        if let Err(error) = result {
            errors.push(error);
        }
    }
    parsed
}

fn set_once(meta: &ParseNestedMeta, slot: &mut Option<LitStr>, key: Symbol) -> syn::Result<()> {
    let value: LitStr = meta.value()?.parse()?;
    if slot.is_some() {
        return Err(meta.error(format_args!("duplicate key `{key}`")));
    }
    *slot = Some(value);
    Ok(())
}

fn path_text(meta: &ParseNestedMeta) -> String {
    crate_path::path_text(&meta.path)
}
