//! Conversations that outlive a context window, a process and a provider (SPEC §16B): the
//! token estimate, the compactor over generated transcripts rendered for the four APIs, and
//! the conversation stores (in memory, and on a real `redis-server` in `redis/`).

mod compact;
mod estimate;
#[cfg(feature = "redis")]
mod redis;
#[path = "../client/scripted.rs"]
#[allow(
    dead_code,
    reason = "the client tests' scripted model; these tests use only part of it"
)]
mod scripted;
mod stores;
