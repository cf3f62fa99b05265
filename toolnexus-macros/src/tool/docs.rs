//! Reads doc comments: a tool's description (up to the first `# ` heading) and the bullets
//! of a rustdoc `# Arguments` section, each line kept with its attribute for error spans.

use crate::symbol::DOC;
use syn::{Attribute, Expr};

/// One line of a doc comment, with the attribute it came from (for error spans).
pub struct DocLine<'a> {
    pub text: String,
    pub attr: &'a Attribute,
}

pub fn doc_lines(attrs: &[Attribute]) -> Vec<DocLine<'_>> {
    let mut lines = Vec::new();
    for attr in attrs.iter().filter(|attr| attr.path() == DOC) {
        let syn::Meta::NameValue(meta) = &attr.meta else {
            continue;
        };
        let Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(text),
            ..
        }) = &meta.value
        else {
            continue;
        };
        for line in text.value().split('\n') {
            lines.push(DocLine {
                text: line.trim().to_owned(),
                attr,
            });
        }
    }
    lines
}

/// A doc comment's text up to its first `# ` heading: lines trimmed, paragraphs kept.
pub fn doc_description(lines: &[DocLine]) -> String {
    let mut text = String::new();
    let mut blank_run = false;
    for line in lines.iter().take_while(|line| !is_heading(&line.text)) {
        if line.text.is_empty() {
            blank_run = !text.is_empty();
            continue;
        }
        if blank_run {
            text.push_str("\n\n");
        } else if !text.is_empty() {
            text.push('\n');
        }
        blank_run = false;
        text.push_str(&line.text);
    }
    text
}

fn is_heading(line: &str) -> bool {
    line.starts_with("# ")
}

/// A bullet of a rustdoc `# Arguments` section: `` * `city` - text `` or `* city - text`.
pub struct ArgumentBullet<'a> {
    pub name: String,
    pub text: String,
    pub attr: &'a Attribute,
}

pub fn argument_bullets<'a>(lines: &[DocLine<'a>]) -> Vec<ArgumentBullet<'a>> {
    let mut bullets: Vec<ArgumentBullet<'a>> = Vec::new();
    let mut in_section = false;
    for line in lines {
        if is_heading(&line.text) {
            in_section = line.text[2..].trim().eq_ignore_ascii_case("arguments");
            continue;
        }
        if !in_section || line.text.is_empty() {
            continue;
        }
        if let Some(item) = line
            .text
            .strip_prefix("* ")
            .or(line.text.strip_prefix("- "))
        {
            let (name, text) = split_bullet(item);
            bullets.push(ArgumentBullet {
                name,
                text,
                attr: line.attr,
            });
        } else if let Some(last) = bullets.last_mut() {
            // A wrapped continuation line of the previous bullet.
            if !last.text.is_empty() {
                last.text.push(' ');
            }
            last.text.push_str(&line.text);
        }
    }
    bullets
}

fn split_bullet(item: &str) -> (String, String) {
    let item = item.trim();
    let (name, rest) = match item.strip_prefix('`') {
        Some(quoted) => quoted.split_once('`').unwrap_or((quoted, "")),
        None => item
            .split_once(char::is_whitespace)
            .map_or((item, ""), |(name, rest)| {
                (name.trim_end_matches(':'), rest)
            }),
    };
    let text = rest.trim_start().trim_start_matches(['-', ':', '—']).trim();
    (name.to_owned(), text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    fn lines_of(item: &syn::ItemFn) -> Vec<DocLine<'_>> {
        doc_lines(&item.attrs)
    }

    #[test]
    fn description_stops_at_the_first_heading_and_keeps_paragraphs() {
        let item: syn::ItemFn = parse_quote! {
            ///   Current weather for a city.
            /// Second line.
            ///
            ///
            /// Use it before suggesting clothes.
            ///
            /// # Arguments
            /// * `city` - City name
            fn f() {}
        };
        assert_eq!(
            doc_description(&lines_of(&item)),
            "Current weather for a city.\nSecond line.\n\nUse it before suggesting clothes."
        );
    }

    #[test]
    fn argument_bullets_accept_both_rustdoc_forms_and_continuations() {
        let item: syn::ItemFn = parse_quote! {
            /// Adds.
            ///
            /// # Arguments
            ///
            /// * `a` - The first
            ///   number
            /// * b - The second
            /// - `c`: The third
            ///
            /// # Examples
            /// * `d` - not an argument
            fn f() {}
        };
        let bullets = argument_bullets(&lines_of(&item));
        let pairs: Vec<_> = bullets
            .iter()
            .map(|b| (b.name.as_str(), b.text.as_str()))
            .collect();
        assert_eq!(
            pairs,
            [
                ("a", "The first number"),
                ("b", "The second"),
                ("c", "The third")
            ]
        );
    }
}
