//! The scripted stand-in model the examples `agent_loop` and `mcp_agent` run `Client` on (a
//! file each includes with `#[path]`: examples cannot share a module otherwise; this folder
//! has no `main.rs`, so it is no example of its own).
//!
//! Each turn it answers with its script's canned body in the API's real response shape, read
//! into a `Reply` as any reply is (the `client` feature's HTTP models read real bodies). No
//! network, no API key.

use toolnexus::client::{Message, Model, ModelError, ModelRequest, Reply};
use toolnexus::serde_json::Value;
use toolnexus::{Api, BoxFuture, tool_calls};

/// A model speaking `api` whose reply to turn `n` (0 first) is `script(n)`.
pub struct Canned {
    api: Api,
    script: Box<dyn Fn(usize) -> Value + Send + Sync>,
}

impl Canned {
    /// A model answering turn `n` with the response body `script(n)`.
    pub fn new(api: Api, script: impl Fn(usize) -> Value + Send + Sync + 'static) -> Self {
        Self {
            api,
            script: Box::new(script),
        }
    }
}

impl Model for Canned {
    fn api(&self) -> Api {
        self.api
    }

    fn name(&self) -> &str {
        "canned"
    }

    fn reply<'a>(&'a self, request: ModelRequest<'a>) -> BoxFuture<'a, Result<Reply, ModelError>> {
        // The script's turn is read off the transcript, so a resumed run goes on where it was.
        let turn = (request.messages.iter())
            .filter(|message| matches!(message, Message::Assistant { .. }))
            .count();
        let body = (self.script)(turn);
        let reply = tool_calls(self.api, &body)
            .map(|calls| Reply {
                text: text_of(self.api, &body),
                tool_calls: calls,
                ..Reply::default()
            })
            .map_err(|error| ModelError::fatal(error.to_string()));
        Box::pin(std::future::ready(reply))
    }
}

/// The text of a canned body.
fn text_of(api: Api, body: &Value) -> String {
    let texts: Vec<&Value> = match api {
        Api::OpenAiChat => vec![&body["choices"][0]["message"]["content"]],
        Api::OpenAiResponses => (body["output"].as_array().into_iter().flatten())
            .filter(|item| item["type"] == "message")
            .map(|item| &item["content"][0]["text"])
            .collect(),
        Api::Anthropic => (body["content"].as_array().into_iter().flatten())
            .map(|block| &block["text"])
            .collect(),
        Api::Gemini => (body["candidates"][0]["content"]["parts"]
            .as_array()
            .into_iter()
            .flatten())
        .map(|part| &part["text"])
        .collect(),
    };
    texts.into_iter().filter_map(Value::as_str).collect()
}
