//! The run (SPEC §16): `Client::with_model` driven by a scripted model in process — the loop
//! and its budgets, model-call retries and errors, hooks, suspensions answered or parked and
//! resumed, and streaming.

#[path = "../common/asking.rs"]
mod asking;
mod budgets;
mod faults;
mod hooks;
mod loop_turns;
mod scripted;
mod streaming;
mod suspensions;
mod typed;
mod typed_requests;
