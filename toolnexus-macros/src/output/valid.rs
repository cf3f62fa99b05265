//! Checks that each variant's `#[output]` fits its fields, before anything is emitted.
use super::Errors;
use super::ast::{Field, Input, Role, Spec, Style, Variant};
use super::attr::{Keyed, Mode, Output};
use crate::format::Format;

pub fn check(input: &Input, errors: &mut Errors) {
    let mut retry_from: Option<&syn::Ident> = None;
    for variant in &input.variants {
        if let Some(word) = retry_conversion(variant) {
            if let Some(first) = retry_from {
                errors.spanned(
                    word,
                    format!(
                        "only one variant can take `#[output(retry)]` without a format string: it gives the type `From<Retry>`, which `{}` already does",
                        first
                    ),
                );
            } else {
                retry_from = Some(variant.ident);
            }
        }
        match &variant.output {
            Spec::Absent => check_delegating(variant, errors),
            Spec::Broken => {}
            Spec::Given(output) => check_output(variant, output, errors),
        }
        check_fields(variant, errors);
    }
}

/// Without `#[output]`, only a single-field tuple variant has an obvious lowering: its field's.
fn check_delegating(variant: &Variant, errors: &mut Errors) {
    if delegate(variant).is_none() {
        let what = if variant.parent.is_some() {
            "variant"
        } else {
            "struct"
        };
        errors.spanned(
            variant.ident,
            format!(
                "{what} `{}` needs `#[output(...)]`; only a single-field tuple {what} without one lowers as its field",
                variant.display_name()
            ),
        );
    }
}

/// The `retry` keyword of a variant that holds a `Retry` (`#[output(retry)]` without a format
/// string): the type gets `From<Retry>`, so `?` works in a tool returning it.
pub fn retry_conversion<'v>(variant: &'v Variant) -> Option<&'v syn::Ident> {
    match &variant.output {
        Spec::Given(output) => match (&output.mode, &output.format) {
            (Mode::Retry(word), None) => Some(word),
            _ => None,
        },
        _ => None,
    }
}

/// The field a variant without `#[output]` lowers as, if it has that shape.
pub fn delegate<'v, 'a>(variant: &'v Variant<'a>) -> Option<&'v Field<'a>> {
    match variant.fields.as_slice() {
        [field] if variant.style == Style::Tuple && matches!(field.role, Role::Plain) => {
            Some(field)
        }
        _ => None,
    }
}

fn check_output(variant: &Variant, output: &Output, errors: &mut Errors) {
    if !matches!(output.mode, Mode::Pending(_)) {
        for keyed in [&output.kind, &output.prompt, &output.url]
            .into_iter()
            .flatten()
        {
            errors.spanned(
                &keyed.key,
                format!("`{}` applies only to `#[output(pending, ...)]`", keyed.key),
            );
        }
    }
    match &output.mode {
        Mode::Ok => {
            if output.format.is_none() {
                errors.spanned(
                    output.attr,
                    "`#[output]` needs a format string, e.g. `#[output(\"done: {0}\")]`",
                );
            }
        }
        Mode::Error(word) => {
            if output.format.is_none() {
                errors.spanned(
                    word,
                    "`#[output(error)]` needs a format string, e.g. `#[output(error, \"failed: {0}\")]`",
                );
            }
        }
        Mode::Retry(word) if output.format.is_none() => {
            let single =
                matches!(variant.fields.as_slice(), [field] if matches!(field.role, Role::Plain));
            if variant.style != Style::Tuple || !single {
                errors.spanned(
                    word,
                    format!(
                        "`#[output(retry)]` without a format string needs `{}` to hold just a `toolnexus::Retry`, e.g. `#[output(retry)] Again(Retry)`; or give the text: `#[output(retry, \"…\")]`",
                        variant.display_name()
                    ),
                );
            }
        }
        Mode::Retry(_) => {}
        Mode::Pending(word) => {
            let missing: Vec<_> = [("kind", &output.kind), ("prompt", &output.prompt)]
                .into_iter()
                .filter(|(_, keyed)| keyed.is_none())
                .map(|(key, _)| format!("`{key}`"))
                .collect();
            if !missing.is_empty() {
                errors.spanned(
                    word,
                    format!(
                        "`#[output(pending)]` needs {}, e.g. `#[output(pending, kind = \"approval\", prompt = \"Deploy {{0}}?\")]`",
                        missing.join(" and ")
                    ),
                );
            }
            if let Some(format) = &output.format {
                errors.spanned(
                    &format.lit,
                    "`#[output(pending)]` takes its text as `prompt = \"…\"`, not as a bare format string",
                );
            }
        }
        Mode::Json(word) => {
            reject_format(output, word, errors);
            if variant.plain_fields().next().is_none() {
                errors.spanned(
                    word,
                    format!(
                        "`#[output(json)]` needs a field to serialize, and `{}` has none besides `#[part]` and `#[metadata]` fields",
                        variant.display_name()
                    ),
                );
            }
        }
        Mode::Transparent(word) => {
            reject_format(output, word, errors);
            let plain = variant.plain_fields().count();
            if plain != 1 {
                errors.spanned(
                    word,
                    format!(
                        "`#[output(transparent)]` needs exactly one field besides `#[part]` and `#[metadata]` fields, and `{}` has {plain}",
                        variant.display_name()
                    ),
                );
            }
        }
    }
    let keyed = [&output.kind, &output.prompt, &output.url]
        .into_iter()
        .flatten();
    for format in output
        .format
        .iter()
        .chain(keyed.map(|keyed: &Keyed| &keyed.format))
    {
        check_placeholders(variant, format, errors);
    }
}

fn reject_format(output: &Output, word: &syn::Ident, errors: &mut Errors) {
    if let Some(format) = &output.format {
        errors.spanned(
            &format.lit,
            format!("`#[output({word})]` takes no format string"),
        );
    }
}

fn check_placeholders(variant: &Variant, format: &Format, errors: &mut Errors) {
    for (arg, _) in format.args() {
        if variant.field(arg).is_some() {
            continue;
        }
        let names: Vec<_> = variant
            .fields
            .iter()
            .map(|f| format!("`{}`", f.name()))
            .collect();
        let fields = if names.is_empty() {
            "it has no fields".to_owned()
        } else {
            format!("its fields are {}", names.join(", "))
        };
        errors.spanned(
            &format.lit,
            format!(
                "`{{{arg}}}` names no field of `{}`; {fields}",
                variant.display_name()
            ),
        );
    }
}

fn check_fields(variant: &Variant, errors: &mut Errors) {
    let pending = matches!(&variant.output, Spec::Given(o) if matches!(o.mode, Mode::Pending(_)));
    for field in &variant.fields {
        let Role::Metadata(attr) = field.role else {
            continue;
        };
        match &field.original.ident {
            None => errors.spanned(
                attr,
                "`#[metadata]` needs a named field: the field's name is the metadata key",
            ),
            Some(ident) if pending && ident == "pending" => errors.spanned(
                ident,
                "a `#[metadata]` field named `pending` would replace the suspension's `pending` entry; rename the field",
            ),
            Some(_) => {}
        }
    }
}
