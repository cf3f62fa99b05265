//! The forms a user writes that must compile without a warning (`#![deny(warnings)]` in each
//! module) and register as tools: every `#[tool]` form, borrowed parameters, any parameter
//! name in a module without the prelude, every `#[derive(ToolOutput)]` mode, and a parameter
//! type deriving the user's own schemars. Compiled with the rest of this binary, not by
//! trybuild, whose project then only checks the mistakes of `tests/ui/`. Public, as a user's
//! crate would export them, so that only what the expansion leaves unused is dead code.

pub mod borrowed_parameters;
pub mod forms;
pub mod hygiene;
pub mod output_modes;
pub mod own_schemars;
