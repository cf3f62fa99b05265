//! Conversations that outlive a context window (SPEC §16B): the compactor over generated
//! transcripts, rendered for the four APIs.

mod compact;
mod estimate;
