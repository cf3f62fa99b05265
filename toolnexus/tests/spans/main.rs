//! The `tracing` feature's spans: a test binary of its own, since `fields.rs` installs the
//! process's global subscriber.

#[path = "../common/mod.rs"]
mod common;

mod client;
mod fields;
mod fmt;
mod otel;
