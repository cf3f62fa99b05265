//! Format strings the macros take: `#[output("…")]` over a variant's fields and
//! `#[tool(approval = "…")]` over a tool's parameters, both `std::fmt` syntax.
//!
//! The string is scanned here so each placeholder can be checked against the fields or
//! parameters at expansion time (rustc alone would only say "cannot find value") and so
//! positional placeholders (`{0}`), which `format!` cannot capture, can be renamed to the
//! bindings of the tuple fields.
use proc_macro2::Span;
use syn::LitStr;

use crate::errors::Errors;

/// A parsed format string, still tied to its literal for spans.
pub struct Format {
    pub lit: LitStr,
    segments: Vec<Segment>,
}

/// What a placeholder names: `{0}` or `{name}` (also `0$`/`name$` inside a spec).
#[derive(PartialEq)]
pub enum Arg {
    Index(usize),
    Name(String),
}

/// How a field is used by a placeholder, which decides the bound a generic field needs.
pub enum Usage {
    /// Formatted through this `core::fmt` trait (`Display`, `Debug`, `LowerHex`, …).
    Trait(&'static str),
    /// A width or precision (`name$`), which `format!` requires to be a `usize`.
    Count,
}

enum Segment {
    /// Literal text, with `{{` and `}}` kept escaped.
    Text(String),
    Hole {
        arg: Arg,
        spec: Vec<Spec>,
    },
}

enum Spec {
    Text(String),
    Count(Arg),
}

impl Format {
    /// Scans `lit`, reporting malformed placeholders; what could not be read is kept as text
    /// so the caller can go on checking the rest of the input.
    pub fn parse(lit: LitStr, errors: &mut Errors) -> Self {
        let value = lit.value();
        let mut segments = Vec::new();
        let mut text = String::new();
        let mut rest = value.as_str();
        while let Some(at) = rest.find(['{', '}']) {
            text.push_str(&rest[..at]);
            let brace = &rest[at..];
            if brace.starts_with("{{") || brace.starts_with("}}") {
                text.push_str(&brace[..2]);
                rest = &brace[2..];
                continue;
            }
            if let Some(after) = brace.strip_prefix('}') {
                errors.spanned(
                    &lit,
                    "unmatched `}` in format string; write `}}` for a literal brace",
                );
                text.push_str("}}");
                rest = after;
                continue;
            }
            let Some(end) = brace.find('}') else {
                errors.spanned(
                    &lit,
                    "unterminated `{` in format string; write `{{` for a literal brace",
                );
                text.push_str("{{");
                rest = &brace[1..];
                continue;
            };
            let inside = &brace[1..end];
            rest = &brace[end + 1..];
            match parse_hole(inside) {
                Ok((arg, spec)) => {
                    segments.push(Segment::Text(std::mem::take(&mut text)));
                    segments.push(Segment::Hole { arg, spec });
                }
                Err(message) => errors.spanned(&lit, message),
            }
        }
        text.push_str(rest);
        segments.push(Segment::Text(text));
        Self { lit, segments }
    }

    /// Every field reference, in order, with how it is used.
    pub fn args(&self) -> impl Iterator<Item = (&Arg, Usage)> {
        self.segments.iter().flat_map(|segment| {
            let Segment::Hole { arg, spec } = segment else {
                return Vec::new();
            };
            let mut args = vec![(arg, Usage::Trait(fmt_trait(spec)))];
            args.extend(spec.iter().filter_map(|piece| match piece {
                Spec::Count(arg) => Some((arg, Usage::Count)),
                Spec::Text(_) => None,
            }));
            args
        })
    }

    /// The string with every argument renamed by `name`, spanned on the user's literal so
    /// errors from `format!` still point at it.
    pub fn render(&self, name: impl Fn(&Arg) -> String) -> LitStr {
        let mut out = String::new();
        for segment in &self.segments {
            match segment {
                Segment::Text(text) => out.push_str(text),
                Segment::Hole { arg, spec } => {
                    out.push('{');
                    out.push_str(&name(arg));
                    if !spec.is_empty() {
                        out.push(':');
                    }
                    for piece in spec {
                        match piece {
                            Spec::Text(text) => out.push_str(text),
                            Spec::Count(arg) => {
                                out.push_str(&name(arg));
                                out.push('$');
                            }
                        }
                    }
                    out.push('}');
                }
            }
        }
        LitStr::new(&out, self.span())
    }

    pub fn span(&self) -> Span {
        self.lit.span()
    }
}

impl Arg {
    fn parse(text: &str) -> Option<Self> {
        if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
            return text.parse().ok().map(Self::Index);
        }
        let mut chars = text.chars();
        let starts_ident = chars.next().is_some_and(|c| c == '_' || c.is_alphabetic());
        (starts_ident && chars.all(is_ident_char)).then(|| Self::Name(text.to_owned()))
    }
}

impl std::fmt::Display for Arg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Index(index) => write!(f, "{index}"),
            Self::Name(name) => f.write_str(name),
        }
    }
}

fn parse_hole(inside: &str) -> Result<(Arg, Vec<Spec>), String> {
    let (arg, spec) = inside.split_once(':').unwrap_or((inside, ""));
    if arg.is_empty() {
        return Err(format!(
            "`{{{inside}}}` must name a field, e.g. `{{0}}` or `{{name}}`"
        ));
    }
    let arg = Arg::parse(arg).ok_or_else(|| format!("`{{{inside}}}` does not name a field"))?;
    Ok((arg, parse_spec(spec)?))
}

/// Splits a format spec into text and `arg$` references (widths and precisions taken from
/// fields). Any run of identifier characters directly before a `$` is such a reference,
/// except a leading `0`, which is the zero-padding flag (`{:01$}` pads to the width in `{1}`).
fn parse_spec(spec: &str) -> Result<Vec<Spec>, String> {
    let mut pieces = Vec::new();
    let mut text = String::new();
    let mut rest = spec;
    while let Some(c) = rest.chars().next() {
        if rest.starts_with(".*") {
            return Err(format!(
                "`.*` precision is not supported in `#[output]` format strings; take the precision from a field, e.g. `{{x:.prec$}}` in `{{:{spec}}}`"
            ));
        }
        if !is_ident_char(c) {
            text.push(c);
            rest = &rest[c.len_utf8()..];
            continue;
        }
        let len = rest.find(|c| !is_ident_char(c)).unwrap_or(rest.len());
        let (mut run, after) = rest.split_at(len);
        rest = after;
        let Some(after_dollar) = rest.strip_prefix('$') else {
            text.push_str(run);
            continue;
        };
        rest = after_dollar;
        if run.len() > 1 && run.starts_with('0') {
            text.push('0');
            run = &run[1..];
        }
        let arg = Arg::parse(run)
            .ok_or_else(|| format!("`{run}$` in `{{:{spec}}}` does not name a field"))?;
        pieces.push(Spec::Text(std::mem::take(&mut text)));
        pieces.push(Spec::Count(arg));
    }
    pieces.push(Spec::Text(text));
    pieces.retain(|piece| !matches!(piece, Spec::Text(text) if text.is_empty()));
    Ok(pieces)
}

/// The `core::fmt` trait a spec asks for: its last character is the type (`?`, `x`, …), as
/// a fill character is always followed by an alignment and a count by `$`.
fn fmt_trait(spec: &[Spec]) -> &'static str {
    let last = match spec.last() {
        Some(Spec::Text(text)) => text.chars().last(),
        _ => None,
    };
    match last {
        Some('?') => "Debug",
        Some('x') => "LowerHex",
        Some('X') => "UpperHex",
        Some('o') => "Octal",
        Some('b') => "Binary",
        Some('e') => "LowerExp",
        Some('E') => "UpperExp",
        Some('p') => "Pointer",
        _ => "Display",
    }
}

fn is_ident_char(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}
