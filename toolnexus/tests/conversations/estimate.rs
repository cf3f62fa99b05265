//! `estimate_tokens` never reads a part's bytes (SPEC §16B): an image costs its description,
//! whatever its size, whatever its content — even base64 that does not decode.

use proptest::prelude::*;
use toolnexus::client::{Message, ToolReturn, estimate_tokens};
use toolnexus::parts::{Media, Source, describe_part, from_bytes};
use toolnexus::{ContentPart, ToolResult};

/// A user message and a tool result, each carrying `part`.
fn carrying(part: &ContentPart) -> Vec<Message> {
    let mut result = ToolResult::ok("the chart");
    result.parts = vec![part.clone()];
    vec![
        Message::User {
            text: "What does this show?".into(),
            parts: vec![part.clone()],
        },
        Message::Tool {
            results: vec![ToolReturn {
                call_id: "call_1".into(),
                name: "chart".into(),
                result,
            }],
        },
    ]
}

/// An image whose base64 body is `body`, taken as it is (not checked, not decoded).
fn image_of(body: String) -> ContentPart {
    ContentPart::Image(Media {
        mime_type: "image/png".into(),
        source: Source::Data(body),
        name: None,
    })
}

/// Deterministic bytes of `len` from `seed`.
fn bytes(len: usize, seed: u64) -> Vec<u8> {
    let mut state = seed | 1;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state.to_le_bytes()[0]
        })
        .collect()
}

#[test]
fn an_8_mib_image_costs_what_a_16_byte_one_does_but_for_the_digits_of_its_size() {
    let small = from_bytes(&bytes(16, 1), "image/png");
    let large = from_bytes(&bytes(8 << 20, 2), "image/png");
    assert_eq!(describe_part(&large), "image (image/png, 8388608 bytes)");
    // The two descriptions differ by five characters ("8388608" against "16") in each of
    // the two messages: at most two tokens each.
    let (small, large) = (
        estimate_tokens(&carrying(&small)),
        estimate_tokens(&carrying(&large)),
    );
    assert!(large > small && large - small <= 4, "{small} vs {large}");
    assert!(large < 80, "8 MiB of image estimated as {large} tokens");
}

#[test]
fn base64_that_does_not_decode_costs_what_valid_base64_of_its_length_does() {
    let len = 8 << 20;
    let valid = from_bytes(&bytes(len, 3), "image/png");
    let Some(Media {
        source: Source::Data(data),
        ..
    }) = valid.media()
    else {
        panic!("from_bytes makes a data part")
    };
    // The same length and padding, but every other character outside the base64 alphabet:
    // an estimate that decoded the part could not count it as the valid one.
    let garbage: String = data
        .char_indices()
        .map(|(at, c)| if at % 2 == 0 && c != '=' { '!' } else { c })
        .collect();
    assert_eq!(garbage.len(), data.len());
    assert_eq!(
        estimate_tokens(&carrying(&image_of(garbage))),
        estimate_tokens(&carrying(&valid))
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// For any size and content, an image costs exactly the text part of its description.
    #[test]
    fn an_image_costs_the_text_of_its_description(
        len in prop_oneof![0..4096usize, 0..(3usize << 20)],
        seed in any::<u64>(),
        mime in prop_oneof![Just("image/png"), Just("image/jpeg"), Just("image/webp")],
    ) {
        let image = from_bytes(&bytes(len, seed), mime);
        let described = ContentPart::text(describe_part(&image));
        prop_assert_eq!(
            estimate_tokens(&carrying(&image)),
            estimate_tokens(&carrying(&described))
        );
        // And the content does not count: other bytes of the same length cost the same.
        let other = from_bytes(&bytes(len, !seed), mime);
        prop_assert_eq!(
            estimate_tokens(&carrying(&image)),
            estimate_tokens(&carrying(&other))
        );
    }
}
