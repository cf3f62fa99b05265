//! The run (SPEC §16): the loop that calls a model, runs the tool calls it makes and feeds
//! their results back, until the model answers — on any [`Model`], with the four HTTP APIs
//! behind the feature `client`.

#[cfg(feature = "client")]
mod http;
mod message;
mod model;
mod outcome;

pub use message::{Echo, Message, ToolReturn, Usage};
pub use model::{BoxStream, Model, ModelError, ModelEvent, ModelRequest, Reply};
pub use outcome::{Event, Limit, ParkedTurn, RunError, RunResult, Status, ToolCallRecord};
#[cfg(feature = "client")]
pub use http::{HttpModel, MissingApiKey};
