//! Every identifier the expansions make up, named once, so each file that emits or refers to
//! one asks here instead of spelling it again.
//!
//! Two kinds, and the span says which:
//! - locals (`Span::mixed_site()`): bindings no user token can name or shadow, whatever the
//!   user calls a parameter (`args`, `ctx`, `__value`, …);
//! - items (`Span::call_site()`): `__toolnexus_`/`__Toolnexus` names inside the expansion's
//!   own `const _: () = { … };`, which nothing else can name, or the hidden fns `tools![]`
//!   calls on a tool struct.

use proc_macro2::Span;
use quote::format_ident;
use syn::Ident;
use syn::ext::IdentExt as _;

fn local(name: &str) -> Ident {
    Ident::new(name, Span::mixed_site())
}

fn item(name: &str) -> Ident {
    Ident::new(name, Span::call_site())
}

// Locals of one tool's `execute`, `execute_json` and `__toolnexus_run`.

/// The tool, as `__toolnexus_run` receives it.
pub fn tool() -> Ident {
    local("__tool")
}

/// The `ToolContext`.
pub fn ctx() -> Ident {
    local("__ctx")
}

/// The arguments as received: a `Value` in `execute`, the text in `execute_json`.
pub fn args() -> Ident {
    local("__args")
}

/// The `ToolResult` a failed decoding returns.
pub fn invalid() -> Ident {
    local("__invalid")
}

/// The arguments an approval request carries.
pub fn raw() -> Ident {
    local("__raw")
}

/// The result that stops a call awaiting approval.
pub fn stop() -> Ident {
    local("__stop")
}

/// What the fn returned, located at `at` (the return type) so a type that cannot be lowered
/// is reported there.
pub fn value(at: Span) -> Ident {
    Ident::new("__value", Span::mixed_site().located_at(at))
}

/// The slots decoding by parameter fills.
pub fn slots() -> Ident {
    local("__slots")
}

/// The derived arguments struct, once decoded.
pub fn decoded() -> Ident {
    local("__decoded")
}

/// The local holding parameter `index`'s value, located at the parameter (for error spans).
pub fn param(index: usize, at: Span) -> Ident {
    Ident::new(
        &format!("__param{index}"),
        Span::mixed_site().located_at(at),
    )
}

/// The local holding injected parameter `index`'s value (SPEC §12), located at the parameter.
pub fn injected(index: usize, at: Span) -> Ident {
    Ident::new(
        &format!("__injected{index}"),
        Span::mixed_site().located_at(at),
    )
}

// Items inside one tool's `const _: () = { … };`.

/// The alias naming parameter `index`'s owned type, at the user's type (`at`) so errors
/// from the derives land there.
pub fn param_type(index: usize, at: Span) -> Ident {
    Ident::new(&format!("__ToolnexusParam{index}"), at)
}

/// `fn() -> T` giving a defaulted parameter its default.
pub fn default_fn(index: usize) -> Ident {
    format_ident!("__toolnexus_default_{index}")
}

/// The `deserialize_with` fn that reads `null` as absent before the user's own deserializer.
pub fn null_as_absent_fn(index: usize) -> Ident {
    format_ident!("__toolnexus_null_as_absent_{index}")
}

/// The newtype the user's own deserializer fills, for [`null_as_absent_fn`].
pub fn user_decoded(index: usize) -> Ident {
    format_ident!("__ToolnexusUserDecoded{index}")
}

/// `fn() -> &'static ToolSchema`: the input schema, built once.
pub fn schema_fn() -> Ident {
    item("__toolnexus_schema")
}

/// The struct schemars describes as the input schema.
pub fn schema_struct() -> Ident {
    item("__ToolnexusSchema")
}

/// The fn both `execute`s end in: it calls the user's fn with the decoded arguments.
pub fn run_fn() -> Ident {
    item("__toolnexus_run")
}

/// The keys of the arguments object, for decoding by parameter.
pub fn keys() -> Ident {
    item("__TOOLNEXUS_KEYS")
}

/// The tuple of each parameter's slot, for decoding by parameter.
pub fn slots_struct() -> Ident {
    item("__ToolnexusSlots")
}

/// The arguments struct serde derives, for a tool with forwarded `#[serde]` attributes.
pub fn args_struct() -> Ident {
    item("__ToolnexusArgs")
}

/// The `index`th tool struct of a `#[toolbox]`.
pub fn toolbox_tool(index: usize) -> Ident {
    format_ident!("__ToolnexusTool{index}")
}

// Hidden fns of a free fn's tool struct, called by `tools![]`.

/// `fn() -> Arc<dyn Tool>`.
pub fn shared_fn() -> Ident {
    item("__toolnexus_shared")
}

/// `const fn(&[&str]) -> Option<DuplicateToolName>`: the first name that repeats.
pub fn duplicate_name_fn() -> Ident {
    item("__toolnexus_duplicate_name")
}

// `#[derive(ToolOutput)]` and `#[derive(JsonSchema)]`.

/// The result a variant with `#[part]` or `#[metadata]` fields is assembled in.
pub fn lowering() -> Ident {
    item("__toolnexus_lowering")
}

/// The binding of tuple field `index` in the generated `match`.
pub fn tuple_field(index: usize) -> Ident {
    format_ident!("__field{index}")
}

/// The private copy of a type that `#[derive(JsonSchema)]` hands to schemars.
pub fn schema_copy(name: &str) -> Ident {
    format_ident!("__ToolnexusJsonSchemaOf{name}", span = Span::mixed_site())
}

/// `get_weather` ⇒ `GetWeatherTool`, keeping the fn name's span for navigation.
pub fn struct_ident(fn_ident: &Ident) -> Ident {
    Ident::new(&format!("{}Tool", pascal_case(fn_ident)), fn_ident.span())
}

fn pascal_case(ident: &Ident) -> String {
    ident
        .unraw()
        .to_string()
        .split('_')
        .filter(|piece| !piece.is_empty())
        .map(|piece| {
            let mut chars = piece.chars();
            let first = chars.next().map(|c| c.to_ascii_uppercase());
            first.into_iter().chain(chars).collect::<String>()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pascal_case_names_the_generated_struct() {
        let ident = |s: &str| Ident::new(s, Span::call_site());
        assert_eq!(struct_ident(&ident("get_weather")), "GetWeatherTool");
        assert_eq!(struct_ident(&ident("_add__two")), "AddTwoTool");
        assert_eq!(
            struct_ident(&Ident::new_raw("type", Span::call_site())),
            "TypeTool"
        );
    }
}
