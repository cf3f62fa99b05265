//! A long conversation kept within a small token budget (SPEC §16B).
//!
//! A support agent talks with one customer for 40 turns, each turn looking orders up with
//! tools (some turns two calls at once, one returning a 96 KiB photo of the parcel). The
//! conversation is kept by id in the client's store (`client.conversation(id)`), so its
//! transcript grows whole, to many times the budget; a `Compactor` in front of the model keeps
//! every request within 700 estimated tokens: over the budget, the system prompt, one summary
//! of the older messages, written by a plain function here (no model call), and the latest
//! turns. A photo costs the estimate its description, never its bytes.
//!
//! It runs against a scripted stand-in model (no network, no API key) that writes down the
//! estimate of each request it is sent; each turn prints the largest.
//!
//! Run it with `cargo run --example long_conversation`.

use std::sync::{Arc, Mutex, PoisonError};

use toolnexus::client::{
    Client, Compactor, Message, Model, ModelError, ModelRequest, Reply, estimate_tokens,
};
use toolnexus::parts::{ContentPartError, from_bytes, part_bytes};
use toolnexus::{Api, BoxFuture, ContentPart, ToolCall, Toolkit, tool, tools};

/// The budget every request stays within, in estimated tokens.
const BUDGET: usize = 700;
/// How many turns the customer talks.
const TURNS: u32 = 40;

/// Looks an order up: its status and where the parcel is.
#[tool]
fn lookup_order(
    /// The order number
    order: u32,
) -> String {
    format!(
        "order {order}: paid, shipped on day {}, parcel at the {} depot, delivery expected within {} days",
        order % 28 + 1,
        ["Lyon", "Lille", "Nantes", "Dijon"][order as usize % 4],
        order % 5 + 2
    )
}

/// The courier's photo of an order's parcel.
#[tool]
fn parcel_photo(
    /// The order number
    order: u32,
) -> Result<ContentPart, ContentPartError> {
    // A stand-in photo: 96 KiB of bytes, as large as a real one.
    let bytes: Vec<u8> = (0..96 * 1024).map(|i| (i as u32 ^ order) as u8).collect();
    Ok(from_bytes(&bytes, "image/jpeg"))
}

/// The summary of the older messages: a plain function, not a model call. It sees each
/// photo as its description ("image (image/jpeg, 98304 bytes)"), never its bytes.
async fn summarize(older: &[Message]) -> String {
    let orders: Vec<u32> = older
        .iter()
        .filter_map(|message| match message {
            Message::User { text, .. } => order_in(text),
            _ => None,
        })
        .collect();
    format!(
        "Summary of {} earlier messages: the customer asked about orders #{} to #{}; each was \
         looked up and answered.",
        older.len(),
        orders.first().unwrap_or(&0),
        orders.last().unwrap_or(&0),
    )
}

/// The order number a customer's message names (`#12`).
fn order_in(text: &str) -> Option<u32> {
    let digits = text.split_once('#')?.1;
    let end = digits
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(digits.len());
    digits[..end].parse().ok()
}

/// A stand-in model: looks up the order the customer names (with its photo every third
/// turn), then answers from what the tools said. It writes down the estimated tokens of
/// every request it is sent, and whether the request began with a summary.
#[derive(Default)]
struct SupportModel {
    requests: Arc<Mutex<Vec<(usize, bool)>>>,
}

impl Model for SupportModel {
    fn api(&self) -> Api {
        Api::OpenAiChat
    }

    fn name(&self) -> &str {
        "scripted-support"
    }

    fn reply<'a>(&'a self, request: ModelRequest<'a>) -> BoxFuture<'a, Result<Reply, ModelError>> {
        let summarized = matches!(request.messages.get(1), Some(Message::System { .. }));
        self.requests
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((estimate_tokens(request.messages), summarized));
        let reply = match request.messages.last() {
            Some(Message::Tool { results }) => Reply {
                text: format!("Here is what I found: {}.", results[0].result.output),
                ..Reply::default()
            },
            Some(Message::User { text, .. }) => {
                let order = order_in(text).unwrap_or(0);
                let arguments = format!(r#"{{"order":{order}}}"#);
                let mut tool_calls = vec![ToolCall {
                    id: format!("call_{order}_a"),
                    name: "lookup_order".into(),
                    arguments: arguments.clone(),
                }];
                if order % 3 == 0 {
                    tool_calls.push(ToolCall {
                        id: format!("call_{order}_b"),
                        name: "parcel_photo".into(),
                        arguments,
                    });
                }
                Reply {
                    tool_calls,
                    ..Reply::default()
                }
            }
            _ => Reply::default(),
        };
        Box::pin(std::future::ready(Ok(reply)))
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let toolkit = Toolkit::new().with_all(tools![lookup_order, parcel_photo]);
    let model = SupportModel::default();
    let requests = Arc::clone(&model.requests);
    let client = Client::with_model(model)
        .system("You are the support agent of a web shop. Look orders up before answering.")
        .compactor(Compactor::new(BUDGET).summarize(summarize));
    let conversation = client.conversation("customer-42");

    println!("# {TURNS} turns, every request within {BUDGET} estimated tokens\n");
    let mut largest_overall = 0;
    let mut transcript = Vec::new();
    for turn in 1..=TURNS {
        let prompt = format!("Where is my order #{turn}? I ordered it last week.");
        let result = conversation
            .run(prompt, &toolkit)
            .await
            .expect("the scripted model and the in-memory store never fail");
        let sent: Vec<(usize, bool)> =
            std::mem::take(&mut *requests.lock().unwrap_or_else(PoisonError::into_inner));
        let largest = sent.iter().map(|(tokens, _)| *tokens).max().unwrap_or(0);
        let summarized = sent.iter().any(|(_, summarized)| *summarized);
        largest_overall = largest_overall.max(largest);
        println!(
            "turn {turn:>2}: {} requests, largest {largest} tokens (budget {BUDGET}); \
             transcript {} messages, {} tokens{}",
            sent.len(),
            result.messages.len(),
            estimate_tokens(&result.messages),
            if summarized { "; summarized" } else { "" }
        );
        transcript = result.messages;
    }
    let photos: Vec<&ContentPart> = transcript
        .iter()
        .flat_map(|message| match message {
            Message::Tool { results } => results.iter().flat_map(|r| &r.result.parts).collect(),
            _ => Vec::new(),
        })
        .collect();
    println!(
        "\nThe stored transcript: {} messages ({} photos, {} KiB), {} tokens; the largest \
         request: {largest_overall} tokens, within {BUDGET}.",
        transcript.len(),
        photos.len(),
        photos.iter().map(|photo| part_bytes(photo)).sum::<usize>() / 1024,
        estimate_tokens(&transcript)
    );
    println!("Last answer: {}", result_text(&transcript));
}

/// The text of the transcript's last assistant message.
fn result_text(messages: &[Message]) -> &str {
    messages
        .iter()
        .rev()
        .find_map(|message| match message {
            Message::Assistant { text, .. } if !text.is_empty() => Some(text.as_str()),
            _ => None,
        })
        .unwrap_or_default()
}
