//! A scripted model for each API, sharing one script of replies so that a conversation can
//! move between them: each reply is written in the answering API's real response shape
//! (`Script::whole`, ids as that provider makes them) and read back with `read_reply`, and
//! every request a run sends is rendered with `request_body` and kept with the transcript
//! it was rendered from.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};
use toolnexus::client::{
    Message, Model, ModelError, ModelRequest, Reply, read_reply, request_body,
};
use toolnexus::{Api, BoxFuture};

use crate::replies::Script;

/// One reply of the script, in no API's shape.
#[derive(Clone, Debug)]
pub struct Step {
    pub text: String,
    /// Tool names, in call order (parallel calls when more than one).
    pub calls: Vec<&'static str>,
    /// Whether the reply carries reasoning the API wants echoed (Responses reasoning items,
    /// Anthropic thinking blocks, Gemini thought signatures).
    pub thinking: bool,
    /// Whether its call ids are the long ones some providers make (an OpenAI-compatible
    /// server's `chatcmpl-tool-…`, Vertex's `toolu_vrtx_…`, Gemini's own ids when it sends
    /// them).
    pub long_ids: bool,
}

/// One request a run sent: the API, the transcript and the body rendered from it.
#[derive(Clone, Debug)]
pub struct Sent {
    pub api: Api,
    pub messages: Vec<Message>,
    pub body: Value,
}

/// What the four models share: the replies still to give, the requests sent, a counter that
/// makes each reply's ids and signatures its own.
#[derive(Clone, Default)]
pub struct Script4 {
    steps: Arc<Mutex<VecDeque<Step>>>,
    pub sent: Arc<Mutex<Vec<Sent>>>,
    replies: Arc<AtomicU32>,
}

impl Script4 {
    pub fn push(&self, steps: impl IntoIterator<Item = Step>) {
        self.steps.lock().unwrap().extend(steps);
    }

    pub fn left(&self) -> usize {
        self.steps.lock().unwrap().len()
    }

    pub fn model(&self, api: Api) -> WireModel {
        WireModel {
            api,
            script: self.clone(),
        }
    }
}

/// The reasoning signature of reply `at` made by `api`: distinct per API and reply, so a
/// request shows whose echo it carries.
pub fn signature(api: Api, at: u32) -> String {
    STANDARD.encode(format!("{api}-signature-{at}"))
}

pub struct WireModel {
    api: Api,
    script: Script4,
}

impl Model for WireModel {
    fn api(&self) -> Api {
        self.api
    }

    fn name(&self) -> &str {
        "scripted"
    }

    fn reply<'a>(&'a self, request: ModelRequest<'a>) -> BoxFuture<'a, Result<Reply, ModelError>> {
        let body = request_body(self.api, "model-x", request.messages, request.tools, false);
        self.script.sent.lock().unwrap().push(Sent {
            api: self.api,
            messages: request.messages.to_vec(),
            body,
        });
        let step = self.script.steps.lock().unwrap().pop_front();
        let at = self.script.replies.fetch_add(1, Ordering::SeqCst);
        let reply = match step {
            Some(step) => read_reply(self.api, &reply_body(self.api, &step, at))
                .map_err(|error| ModelError::fatal(error.to_string())),
            None => Err(ModelError::fatal("the script ran out")),
        };
        Box::pin(async move { reply })
    }
}

/// Reply `at` of `step` as `api` sends it.
fn reply_body(api: Api, step: &Step, at: u32) -> Value {
    let script = Script {
        text: step.text.clone(),
        calls: step
            .calls
            .iter()
            .enumerate()
            .map(|(n, name)| ((*name).to_owned(), json!({"n": n})))
            .collect(),
        input_tokens: 100,
        output_tokens: 20,
        thinking: step
            .thinking
            .then(|| (format!("Thinking {at}."), signature(api, at))),
        cuts: Vec::new(),
        interleave: Vec::new(),
        tag: at,
    };
    let mut body = script.whole(api);
    let long = |n: usize| format!("{at}x{n}{}", "7".repeat(48));
    match api {
        Api::OpenAiChat if step.long_ids => {
            for (n, call) in items(&mut body["choices"][0]["message"]["tool_calls"]) {
                call["id"] = format!("chatcmpl-tool-{}", long(n)).into();
            }
        }
        Api::OpenAiResponses => {
            for (n, item) in items(&mut body["output"]) {
                // Item ids are unique across a conversation, as the API makes them.
                let kind = item["id"].as_str().unwrap_or("item").split('_').next();
                item["id"] = format!("{}_{at}x{n}", kind.unwrap_or("item")).into();
                if step.long_ids && item["type"] == "function_call" {
                    item["call_id"] = format!("call_{}", long(n)).into();
                }
            }
        }
        Api::Anthropic if step.long_ids => {
            for (n, block) in items(&mut body["content"]) {
                if block["type"] == "tool_use" {
                    block["id"] = format!("toolu_vrtx_01{}", long(n)).into();
                }
            }
        }
        Api::Gemini if step.long_ids => {
            for (n, part) in items(&mut body["candidates"][0]["content"]["parts"]) {
                if let Some(call) = part.get_mut("functionCall") {
                    call["id"] = format!("function-call-{}", long(n)).into();
                }
            }
        }
        _ => {}
    }
    body
}

fn items(value: &mut Value) -> impl Iterator<Item = (usize, &mut Value)> {
    value.as_array_mut().into_iter().flatten().enumerate()
}
