//! Conversations that outlive a context window, a process and a provider (SPEC §16B): the
//! token estimate, the compactor over generated transcripts rendered for the four APIs, one
//! conversation moving between the four APIs, and the conversation stores (in memory, and on
//! a real `redis-server` in `redis/`), runs of one conversation at once included.

mod compact;
mod concurrent;
mod corpus;
mod cross;
mod estimate;
#[cfg(feature = "redis")]
mod redis;
#[path = "../provider/wire/replies.rs"]
#[allow(
    dead_code,
    reason = "the wire tests' real-shaped replies; the streamed forms are not used here"
)]
mod replies;
mod requests;
#[path = "../client/scripted.rs"]
#[allow(
    dead_code,
    reason = "the client tests' scripted model; these tests use only part of it"
)]
mod scripted;
mod stores;
mod wire_models;
