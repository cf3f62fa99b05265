//! Each API's wire for a run (SPEC §16): transcripts rendered as request bodies, replies read
//! whole and streamed, and the corpus `scripts/provider-sdk-checks.py` checks with the
//! providers' own SDKs.

mod corpus;
mod render;
mod replies;
mod stream;
