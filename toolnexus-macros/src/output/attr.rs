//! The attributes of `#[derive(ToolOutput)]`: `#[output(...)]` on a variant or struct,
//! `#[part]` and `#[metadata]` on a field.
use syn::ext::IdentExt;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Attribute, Expr, ExprLit, Ident, Lit, LitStr, Meta, Token};

use super::Errors;
use crate::format::Format;

/// A parsed `#[output(...)]`, as written: whether the pieces fit together (a `pending` with
/// its `kind`, a format string where one is needed) is checked in `valid`.
pub struct Output<'a> {
    pub attr: &'a Attribute,
    pub mode: Mode,
    pub format: Option<Format>,
    pub kind: Option<Keyed>,
    pub prompt: Option<Keyed>,
    pub url: Option<Keyed>,
}

/// The mode keyword, kept for spans.
pub enum Mode {
    Ok,
    Error(Ident),
    /// `retry` (SPEC §15B): an error the model should fix, counted by a retry budget.
    Retry(Ident),
    Pending(Ident),
    Json(Ident),
    Transparent(Ident),
}

/// A `key = "format"` entry.
pub struct Keyed {
    pub key: Ident,
    pub format: Format,
}

enum Entry {
    Format(LitStr),
    Word(Ident),
    Key(Ident, Expr),
}

impl Parse for Entry {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        if input.peek(LitStr) {
            return input.parse().map(Self::Format);
        }
        if !input.peek(Ident::peek_any) {
            return Err(input.error(
                "expected a format string, a mode (`error`, `retry`, `pending`, `json`, `transparent`) or `key = \"…\"`",
            ));
        }
        // `parse_any` so a keyword used as a key (`type = "…"`) gets the unknown-key error.
        let ident = Ident::parse_any(input)?;
        if input.parse::<Option<Token![=]>>()?.is_some() {
            return Ok(Self::Key(ident, input.parse()?));
        }
        Ok(Self::Word(ident))
    }
}

/// Parses `#[output(...)]`. Returns `None` when its tokens cannot be read at all (the error
/// is recorded); mistakes in single entries are recorded and the entry skipped, so the rest
/// is still checked.
pub fn parse_output<'a>(attr: &'a Attribute, errors: &mut Errors) -> Option<Output<'a>> {
    let list = match &attr.meta {
        Meta::List(list) => list,
        Meta::Path(_) => {
            errors.spanned(
                attr,
                "`#[output]` needs a format string or a mode, e.g. `#[output(\"done\")]`",
            );
            return None;
        }
        Meta::NameValue(_) => {
            errors.spanned(attr, "write `#[output(\"…\")]`, not `#[output = …]`");
            return None;
        }
    };
    let entries = match list.parse_args_with(Punctuated::<Entry, Token![,]>::parse_terminated) {
        Ok(entries) => entries,
        Err(error) => {
            errors.push(error);
            return None;
        }
    };
    if entries.is_empty() {
        errors.spanned(
            attr,
            "`#[output()]` needs a format string or a mode, e.g. `#[output(\"done\")]`",
        );
        return None;
    }
    let mut output = Output {
        attr,
        mode: Mode::Ok,
        format: None,
        kind: None,
        prompt: None,
        url: None,
    };
    for entry in entries {
        match entry {
            Entry::Format(lit) if output.format.is_some() => {
                errors.spanned(&lit, "`#[output]` takes one format string");
            }
            Entry::Format(lit) => output.format = Some(Format::parse(lit, errors)),
            Entry::Word(word) => set_mode(&mut output, word, errors),
            Entry::Key(key, value) => set_key(&mut output, key, &value, errors),
        }
    }
    Some(output)
}

fn set_mode(output: &mut Output, word: Ident, errors: &mut Errors) {
    if let Some(current) = output.mode.keyword() {
        errors.spanned(
            &word,
            format!("`#[output]` takes one mode; `{word}` conflicts with `{current}`"),
        );
        return;
    }
    output.mode = match word.to_string().as_str() {
        "error" => Mode::Error(word),
        "retry" => Mode::Retry(word),
        "pending" => Mode::Pending(word),
        "json" => Mode::Json(word),
        "transparent" => Mode::Transparent(word),
        _ => {
            errors.spanned(
                &word,
                format!(
                    "unknown `#[output]` mode `{word}`; expected `error`, `retry`, `pending`, `json` or `transparent` (no mode means a successful result)"
                ),
            );
            return;
        }
    };
}

fn set_key(output: &mut Output, key: Ident, value: &Expr, errors: &mut Errors) {
    let slot = match key.to_string().as_str() {
        "kind" => &mut output.kind,
        "prompt" => &mut output.prompt,
        "url" => &mut output.url,
        _ => {
            errors.spanned(
                &key,
                format!("unknown `#[output]` key `{key}`; expected `kind`, `prompt` or `url`"),
            );
            return;
        }
    };
    if slot.is_some() {
        errors.spanned(&key, format!("duplicate `{key}` in `#[output]`"));
        return;
    }
    let Expr::Lit(ExprLit {
        lit: Lit::Str(lit), ..
    }) = value
    else {
        errors.spanned(
            value,
            format!("`{key}` takes a format string, e.g. `{key} = \"…\"`"),
        );
        return;
    };
    *slot = Some(Keyed {
        format: Format::parse(lit.clone(), errors),
        key,
    });
}

impl Mode {
    pub fn keyword(&self) -> Option<&Ident> {
        match self {
            Self::Ok => None,
            Self::Error(word)
            | Self::Retry(word)
            | Self::Pending(word)
            | Self::Json(word)
            | Self::Transparent(word) => Some(word),
        }
    }
}

/// Checks that a field marker (`#[part]`, `#[metadata]`) is bare: it takes no arguments.
pub fn check_marker(attr: &Attribute, errors: &mut Errors) {
    if attr.meta.require_path_only().is_err() {
        let name = attr
            .path()
            .get_ident()
            .map(Ident::to_string)
            .unwrap_or_default();
        errors.spanned(&attr.meta, format!("`#[{name}]` takes no arguments"));
    }
}
