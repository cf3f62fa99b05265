//! SPEC §16B: `estimate_tokens` over a 1,000-message transcript carrying ~6 MiB of images,
//! against the floor of serializing the same transcript with each image already replaced by
//! its description (the JSON the estimate counts, with no describing left to do); and one
//! message with an 8 MiB image against the same message with a 16-byte one (a part is never
//! decoded, so the estimate does not grow with its bytes). Budgets: within 1.1× the floor
//! (the estimate writes the descriptions into the JSON as it measures it, with nothing built
//! per message or part), and the 8 MiB image within 1.5× the 16-byte one.
//!
//! Run: `cargo bench -p toolnexus --bench estimate`.

mod common;
mod counting;

use std::hint::black_box;
use std::io;

use counting::allocations;
use toolnexus::client::{Message, ToolReturn, estimate_tokens};
use toolnexus::parts::{describe_part, from_bytes};
use toolnexus::{ContentPart, ToolCall, ToolResult};

const KIB: usize = 1024;

/// Deterministic, incompressible-looking bytes (xorshift), as `parts.rs` makes them.
fn bytes(len: usize, seed: u64) -> Vec<u8> {
    let mut state = 0x9E37_79B9_7F4A_7C15_u64 ^ seed;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state.to_le_bytes()[0]
        })
        .collect()
}

/// A system prompt, then 333 rounds of user prompt, assistant call, tool result: 1,000
/// messages. Every third prompt carries a 24 KiB screenshot and every fourth result a 48 KiB
/// chart, 195 images in all (6.5 MiB).
fn transcript() -> Vec<Message> {
    let mut messages = vec![Message::system("You are a support agent for a web shop.")];
    for round in 0..333_u64 {
        let parts = (round % 3 == 0)
            .then(|| from_bytes(&bytes(24 * KIB, round), "image/png"))
            .into_iter()
            .collect();
        messages.push(Message::User {
            text: format!("Order {round} shows the wrong price on this page; can you check it?"),
            parts,
        });
        let id = format!("call_{round}");
        messages.push(Message::Assistant {
            text: String::new(),
            tool_calls: vec![ToolCall {
                id: id.clone(),
                name: "price_history".into(),
                arguments: format!(r#"{{"order":{round},"days":30}}"#),
            }],
            echo: None,
        });
        let mut result = ToolResult::ok(format!(
            "order {round}: 3 price changes in 30 days, last on day 28"
        ));
        if round % 4 == 0 {
            result.parts = vec![from_bytes(&bytes(48 * KIB, !round), "image/png")];
        }
        messages.push(Message::Tool {
            results: vec![ToolReturn {
                call_id: id,
                name: "price_history".into(),
                result,
            }],
        });
    }
    messages
}

/// `messages` with each non-text part replaced by the text part of its description.
fn described(mut messages: Vec<Message>) -> Vec<Message> {
    let describe = |parts: &mut Vec<ContentPart>| {
        for part in parts {
            if part.media().is_some() {
                *part = ContentPart::text(describe_part(part));
            }
        }
    };
    for message in &mut messages {
        match message {
            Message::User { parts, .. } => describe(parts),
            Message::Tool { results } => {
                for tool_return in results {
                    describe(&mut tool_return.result.parts);
                }
            }
            Message::System { .. } | Message::Assistant { .. } => {}
        }
    }
    messages
}

/// An `io::Write` that only counts the bytes written to it.
struct Length(usize);

impl io::Write for Length {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0 += bytes.len();
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The floor: Σ ceil(len(JSON) / 4) of messages whose parts are already described, measured
/// as serde_json writes them (nothing allocated for the JSON).
fn floor_tokens(messages: &[Message]) -> usize {
    messages
        .iter()
        .map(|message| {
            let mut length = Length(0);
            serde_json::to_writer(&mut length, message).expect("a message serializes");
            length.0.div_ceil(4)
        })
        .sum()
}

fn image_bytes(messages: &[Message]) -> usize {
    let parts = messages.iter().flat_map(|message| match message {
        Message::User { parts, .. } => parts.iter().collect::<Vec<_>>(),
        Message::Tool { results } => results.iter().flat_map(|r| &r.result.parts).collect(),
        Message::System { .. } | Message::Assistant { .. } => Vec::new(),
    });
    parts.map(toolnexus::parts::part_bytes).sum()
}

fn one_image(len: usize) -> Vec<Message> {
    vec![Message::User {
        text: "What does this screenshot show?".into(),
        parts: vec![from_bytes(&bytes(len, 7), "image/png")],
    }]
}

fn main() {
    let mut c = common::criterion();
    let mut summary = common::Summary::new();

    // The transcript, and the floor's input: the same messages, parts described beforehand.
    let messages = transcript();
    let plain = described(messages.clone());
    assert_eq!(messages.len(), 1_000);
    let images = image_bytes(&messages);
    assert!(images > 5 << 20, "{images} bytes of images");
    assert_eq!(estimate_tokens(&messages), floor_tokens(&plain));
    // Nothing is built per message or part: the whole estimate allocates nothing.
    let (_, allocated) = allocations(|| estimate_tokens(black_box(&messages)));
    assert_eq!(allocated, 0, "allocations per estimate of 1,000 messages");
    println!(
        "1,000 messages, {:.1} MiB of images ({:.1} MiB of base64): {} tokens estimated, 0 allocations",
        images as f64 / (1 << 20) as f64,
        serde_json::to_string(&messages).unwrap().len() as f64 / (1 << 20) as f64,
        estimate_tokens(&messages)
    );

    let floor = |()| floor_tokens(black_box(&plain));
    let subject = |()| estimate_tokens(black_box(&messages));
    let mut group = c.benchmark_group("estimate_1000_messages");
    group.bench_function("floor_described_json", |b| b.iter(|| floor(())));
    group.bench_function("estimate_tokens", |b| b.iter(|| subject(())));
    group.finish();
    summary.compare_interleaved(
        "estimate_1000_messages",
        "floor_described_json",
        "estimate_tokens",
        Some(1.1),
        || (),
        floor,
        subject,
    );

    // One message: an 8 MiB image against a 16-byte one. Their descriptions differ only in
    // the digits of the size; the bytes themselves are never read.
    let small = one_image(16);
    let large = one_image(8 << 20);
    assert!(estimate_tokens(&large) - estimate_tokens(&small) <= 2);
    let estimate_small = |()| estimate_tokens(black_box(&small));
    let estimate_large = |()| estimate_tokens(black_box(&large));
    let mut group = c.benchmark_group("estimate_one_image");
    group.bench_function("image_16b", |b| b.iter(|| estimate_small(())));
    group.bench_function("image_8mib", |b| b.iter(|| estimate_large(())));
    group.finish();
    summary.compare_interleaved(
        "estimate_one_image",
        "image_16b",
        "image_8mib",
        Some(1.5),
        || (),
        estimate_small,
        estimate_large,
    );

    c.final_summary();
    summary.print();
}
