//! Conversations that outlive a context window (SPEC §16B): the compactor over generated
//! transcripts, rendered for the four APIs; one conversation moving between the four APIs.

mod compact;
mod corpus;
mod cross;
#[path = "../provider/wire/replies.rs"]
#[allow(
    dead_code,
    reason = "the wire tests' real-shaped replies; the streamed forms are not used here"
)]
mod replies;
mod requests;
mod wire_models;
