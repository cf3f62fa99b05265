//! Long-running calls as tasks (SPEC §14): `Toolkit::spawn` in process, and the task store.
#![cfg(feature = "tasks")]

mod spawn;
#[cfg(feature = "mcp")]
mod store;
