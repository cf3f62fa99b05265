//! The providers: the adapters' definitions and schema profiles, their wire encoding and
//! vectors, the profiles a toolkit keeps, reading a turn of each API, and the cross-port
//! conformance vectors (`conformance/`).

#[path = "../common/mod.rs"]
mod common;

mod adapters;
mod conformance;
mod profiles;
mod provider_encoding;
mod provider_vectors;
mod tool_search;
mod turn;
mod turn_vectors;
mod wire;
