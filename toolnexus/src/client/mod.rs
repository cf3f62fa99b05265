//! The run (SPEC §16): the loop that calls a model, runs the tool calls it makes and feeds
//! their results back, until the model answers — on any [`Model`], with the four HTTP APIs
//! behind the feature `client`.

#[cfg(feature = "client")]
mod http;
pub(crate) mod message;
pub(crate) mod model;
mod outcome;

/// Each API's wire for a run: the request body rendered from the transcript, and the reply
/// read back whole or from its server-sent events (what an HTTP transport, or a user's own,
/// sends and reads).
pub use crate::provider::transcript::{
    ReplyStream, SseDecoder, SseEvent, read_reply, request_body,
};
pub use message::{Echo, Message, ToolReturn, Usage};
pub use model::{BoxStream, Model, ModelError, ModelEvent, ModelRequest, Reply};
pub use outcome::{Event, Limit, ParkedTurn, RunError, RunResult, Status, ToolCallRecord};
#[cfg(feature = "client")]
pub use http::{HttpModel, MissingApiKey};
