//! Procedural macros for [toolnexus](https://docs.rs/toolnexus). Use them through the
//! `toolnexus` crate, which re-exports them and the runtime their expansions name.
#![forbid(unsafe_code)]
