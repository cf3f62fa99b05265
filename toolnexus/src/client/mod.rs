//! The run (SPEC §16): the loop that calls a model, runs the tool calls it makes and feeds
//! their results back, until the model answers — on any [`Model`], with the four HTTP APIs
//! behind the feature `client`.

mod compact;
mod conversations;
mod estimate;
mod message;
mod model;
mod outcome;

pub use compact::{Compactor, Summarize};
#[cfg(feature = "redis")]
pub use conversations::RedisConversations;
pub use conversations::{
    Conversation, ConversationError, ConversationStore, InMemoryConversations,
};
pub use estimate::{Estimate, TokenCounter, estimate_tokens};
pub use message::{Echo, Message, ToolReturn, Usage};
pub use model::{BoxStream, Model, ModelError, ModelEvent, ModelRequest, Reply};
pub use outcome::{Event, Limit, ParkedTurn, RunError, RunResult, Status, ToolCallRecord};
