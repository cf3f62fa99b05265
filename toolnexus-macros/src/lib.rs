//! Procedural macros for [toolnexus](https://docs.rs/toolnexus). Use them through the
//! `toolnexus` crate, which re-exports them and the runtime their expansions name.
//!
//! Every macro here only converts tokens; the work happens on `proc_macro2` in the modules,
//! so it can be unit-tested.
#![forbid(unsafe_code)]

use proc_macro::TokenStream;
use syn::parse_macro_input;

mod errors;
mod json_schema;
mod output;
mod tool;

/// Turns a plain function into a tool. See the `toolnexus` crate docs.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    tool::expand::tool(args.into(), input.into()).into()
}

/// Turns every `#[tool]` method of an `impl` block into a tool bound to the instance.
#[proc_macro_attribute]
pub fn toolbox(args: TokenStream, input: TokenStream) -> TokenStream {
    tool::expand::toolbox(args.into(), input.into()).into()
}

/// `tools![a, path::b]`: the tools generated for these fns, as `Vec<Arc<dyn Tool>>`.
#[proc_macro]
pub fn tools(input: TokenStream) -> TokenStream {
    tool::expand::tools(input.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Implements `IntoToolResult` for an enum or struct, variant by variant, thiserror-style:
/// a tool returns its own type and each variant says how it lowers into a `ToolResult`.
///
/// ```
/// use serde::Serialize;
/// use toolnexus::{ContentPart, IntoToolResult, ToolOutput, ToolResult, from_bytes};
///
/// #[derive(Serialize)]
/// struct Summary { deployed: u32 }
///
/// #[derive(ToolOutput)]
/// enum Deploy {
///     #[output("deployed {service} to {env}")]            Done { service: String, env: String },
///     #[output(error, "no such service: {0}")]             Unknown(String),
///     #[output(pending, kind = "approval", prompt = "Approve deploying {0} to production?")]
///                                                          NeedsApproval(String),
///     #[output("chart for {city}")]                        Chart { city: String, #[part] png: ContentPart,
///                                                                  #[metadata] rows: u32 },
///     #[output(json)]                                      Report(Summary),
///     Raw(ToolResult),
/// }
///
/// let done = Deploy::Done { service: "api".into(), env: "prod".into() }.into_tool_result();
/// assert_eq!(done, ToolResult::ok("deployed api to prod"));
///
/// let unknown = Deploy::Unknown("billing".into()).into_tool_result();
/// assert_eq!(unknown, ToolResult::error("no such service: billing"));
///
/// let approval = Deploy::NeedsApproval("api".into()).into_tool_result();
/// assert_eq!(approval.pending().unwrap().prompt, "Approve deploying api to production?");
/// assert!(approval.is_error); // a suspension produced no answer
///
/// let png = from_bytes(b"\x89PNG", "image/png");
/// let chart = Deploy::Chart { city: "Paris".into(), png: png.clone(), rows: 12 }.into_tool_result();
/// assert_eq!(chart, ToolResult::ok("chart for Paris").with_part(png).with_metadata("rows", 12));
///
/// let report = Deploy::Report(Summary { deployed: 3 }).into_tool_result();
/// assert_eq!(report, ToolResult::ok(r#"{"deployed":3}"#));
///
/// assert_eq!(Deploy::Raw(ToolResult::ok("as is")).into_tool_result(), ToolResult::ok("as is"));
/// ```
///
/// # `#[output(...)]` on each variant (or on the struct)
///
/// | form | lowers to |
/// |---|---|
/// | `#[output("fmt")]` | `ToolResult::ok(format!(..))` |
/// | `#[output(error, "fmt")]` | `ToolResult::error(format!(..))` |
/// | `#[output(pending, kind = "fmt", prompt = "fmt", url = "fmt")]` | `toolnexus::pending(Request::new(kind, prompt).with_url(url))`; `url` is optional |
/// | `#[output(json)]` | compact JSON of the single field; of several named fields, an object keyed by field name in declaration order; of several tuple fields, an array |
/// | `#[output(transparent)]` | the single field's own `IntoToolResult` |
/// | none | only on a single-field tuple variant (or tuple struct): as `transparent` |
///
/// Format strings are `std::fmt` syntax over the variant's fields: `{name}`, `{0}`, specs
/// such as `{0:?}`, `{x:>5}` or `{x:>width$}`, and `{{`/`}}` for braces. A placeholder
/// naming no field is a compile error on the string. `json` and `transparent` use the fields
/// that carry neither `#[part]` nor `#[metadata]`.
///
/// # Field attributes
///
/// - `#[part]` on a `ContentPart`, `Vec<ContentPart>`, `Option<ContentPart>` or
///   `Option<Vec<ContentPart>>` field appends it to `parts`; several `#[part]` fields append
///   in declaration order.
/// - `#[metadata]` on a named field of any `Serialize` type stores it in `metadata` under the
///   field's name. If it fails to serialize (a map with non-string keys, say), the whole
///   result becomes an error naming the field rather than a panic or a silently missing key.
///
/// Both combine with every mode. Generic types work: the impl requires of each generic field
/// only what its use needs (`Display` for `{x}`, `Serialize` for `json`, …).
#[proc_macro_derive(ToolOutput, attributes(output, part, metadata))]
pub fn derive_tool_output(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as syn::DeriveInput);
    output::expand::derive(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// schemars' `JsonSchema` derive, usable with toolnexus as the only dependency.
#[proc_macro_derive(JsonSchema, attributes(schemars, serde))]
pub fn derive_json_schema(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as syn::DeriveInput);
    json_schema::derive(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
