//! The provider-neutral transcript of a run (SPEC §16): [`Message`], what each API needs echoed
//! back ([`Echo`]), a tool's answer by call id ([`ToolReturn`]) and token [`Usage`].

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::provider::tool_call::{Api, ToolCall};
use crate::result::ToolResult;
use crate::result::part::ContentPart;

/// One entry of a run's transcript, in no provider's shape: each API's request is rendered
/// from it, so a conversation begun on one API continues on another.
///
/// Serde data (`{"role": "user", "text": …}`), so a transcript can be stored and read back.
///
/// ```
/// use toolnexus::client::Message;
///
/// let message = Message::user("Weather in Paris?");
/// let json = toolnexus::serde_json::to_string(&message).unwrap();
/// assert_eq!(json, r#"{"role":"user","text":"Weather in Paris?"}"#);
/// assert_eq!(toolnexus::serde_json::from_str::<Message>(&json).unwrap(), message);
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "role",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Message {
    /// Instructions: the client's system prompt, or a summary a compactor wrote.
    System {
        /// The instructions.
        text: String,
    },
    /// What the user said: text, and parts (images, files) where the API takes them.
    User {
        /// The text.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        text: String,
        /// Non-text parts, after the text.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        parts: Vec<ContentPart>,
    },
    /// What the model answered: its text and the tool calls it made, in its order.
    Assistant {
        /// The reply's text (empty when it only called tools).
        #[serde(default, skip_serializing_if = "String::is_empty")]
        text: String,
        /// The tool calls, in the order the model made them.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCall>,
        /// What the API that made this reply needs to see again on the next turn.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        echo: Option<Echo>,
    },
    /// The answers to the previous assistant message's tool calls, in call order.
    Tool {
        /// One per call.
        results: Vec<ToolReturn>,
    },
}

impl Message {
    /// A user message of text alone.
    pub fn user(text: impl Into<String>) -> Self {
        Self::User {
            text: text.into(),
            parts: Vec::new(),
        }
    }

    /// A system message.
    pub fn system(text: impl Into<String>) -> Self {
        Self::System { text: text.into() }
    }
}

/// What an API needs echoed back on the next turn, as that API sent it: OpenAI Responses'
/// output items (reasoning items before the calls), Anthropic's content blocks (thinking blocks
/// with their signatures), Gemini's content parts (thought signatures on the calls).
///
/// A request to the same API sends `items` as they are; a request to another API renders the
/// assistant message from its text and tool calls instead (another API cannot read them).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Echo {
    /// The API that sent them.
    pub api: Api,
    /// The items, blocks or parts, verbatim.
    pub items: Vec<Value>,
}

/// A tool's answer to one call, by the call's id.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolReturn {
    /// The id of the call it answers.
    pub call_id: String,
    /// The tool's name, as the call named it.
    pub name: String,
    /// What the tool gave.
    pub result: ToolResult,
}

/// Tokens a run used, summed from the providers' own usage fields.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    /// Tokens read (the prompt, the transcript, the tool definitions).
    pub input_tokens: u64,
    /// Tokens written.
    pub output_tokens: u64,
}

impl Usage {
    /// Both counts summed.
    pub fn total(&self) -> u64 {
        self.input_tokens.saturating_add(self.output_tokens)
    }
}

impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, other: Self) {
        self.input_tokens = self.input_tokens.saturating_add(other.input_tokens);
        self.output_tokens = self.output_tokens.saturating_add(other.output_tokens);
    }
}
