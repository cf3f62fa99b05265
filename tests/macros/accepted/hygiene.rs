//! Any parameter name compiles, and so does the expansion in a module without the prelude
//! beside local items named like the prelude's.
#![deny(warnings)]
#![allow(
    clippy::too_many_arguments,
    reason = "every name the expansion might use, as parameters of one fn"
)]
#![allow(non_snake_case, non_camel_case_types)]

use toolnexus::{ToolContext, tool, tools};

/// Every name the expansion might use for itself.
#[tool]
fn names(
    names: u32,
    args: u32,
    ctx: u32,
    tool: u32,
    value: u32,
    self_: u32,
    Result: u32,
    __ctx: u32,
    __args: u32,
    __value: u32,
    __tool: u32,
    __param0: u32,
    deserializer: u32,
    __decoded: u32,
    r#type: u32,
    context: &ToolContext,
) -> u32 {
    let _ = context;
    names
        + args
        + ctx
        + tool
        + value
        + self_
        + Result
        + __ctx
        + __args
        + __value
        + __tool
        + __param0
        + deserializer
        + __decoded
        + r#type
}

/// A parameter named like its fn.
#[tool]
fn units(unit: String, units: Vec<String>) -> usize {
    units.len() + unit.len()
}

/// An ordinary case of the same.
#[tool]
fn query(query: String) -> String {
    query
}

pub mod bare {
    #![no_implicit_prelude]

    pub struct Result;
    pub struct Option;
    pub struct String;
    pub struct Vec;
    pub struct Box;
    pub struct Default;
    pub fn Some() {}
    pub fn Ok() {}
    pub fn None() {}
    pub trait Into {}

    /// Looks things up without the prelude, beside items named like its own.
    #[::toolnexus::tool(title = "Lookup", read_only, approval = "Look up {key}?")]
    pub async fn lookup(
        key: &str,
        limit: ::core::option::Option<u32>,
        #[param(default = 5)] depth: u8,
        #[param(default = "x")] mark: ::std::string::String,
        ctx: &::toolnexus::ToolContext,
    ) -> ::core::result::Result<::toolnexus::Json<::std::vec::Vec<u8>>, ::std::string::String> {
        let _ = (key, limit, depth, mark, ctx);
        ::core::result::Result::Ok(::toolnexus::Json(::std::vec::Vec::new()))
    }
}

pub mod bare_injected {
    #![no_implicit_prelude]

    pub struct Db;
    #[derive(::core::clone::Clone)]
    pub struct User;
    pub struct Trace;

    impl ::toolnexus::context::FromToolContext for Trace {
        fn from_tool_context(
            _: &::toolnexus::ToolContext,
        ) -> ::core::result::Result<Self, ::std::string::String> {
            ::core::result::Result::Ok(Trace)
        }
    }

    /// Takes every kind of injected value without the prelude.
    #[::toolnexus::tool]
    pub fn injected(
        db: ::toolnexus::State<Db>,
        __injected0: u32,
        user: ::toolnexus::Extension<User>,
        maybe: ::core::option::Option<::toolnexus::Extension<User>>,
        #[param(inject)] trace: Trace,
    ) -> u32 {
        let _ = (db, user, maybe, trace);
        __injected0
    }
}

pub mod bare_names {
    #![no_implicit_prelude]

    /// Parameters named like prelude items, where the prelude does not claim them.
    #[::toolnexus::tool]
    pub fn flags(Some: bool, Ok: bool, None: bool) -> bool {
        Some && Ok && None
    }
}

#[test]
fn every_name_compiles_in_a_module_without_the_prelude() {
    let all = tools![
        names,
        units,
        query,
        bare::lookup,
        bare_injected::injected,
        bare_names::flags
    ];
    assert_eq!(all.len(), 6);
}
