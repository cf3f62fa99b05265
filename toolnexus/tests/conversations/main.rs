//! Conversations that outlive a context window (SPEC §16B): the compactor over generated
//! transcripts, rendered for the four APIs.

mod compact;
#[cfg(feature = "redis")]
mod redis;
#[path = "../client/scripted.rs"]
#[allow(
    dead_code,
    reason = "the client tests' scripted model; these tests use only part of it"
)]
mod scripted;
mod stores;
