//! The token estimate of a transcript (SPEC §16B): [`estimate_tokens`], and the
//! [`TokenCounter`] trait a real tokenizer plugs into.

use std::io;

use serde::Serialize;
use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde_json::{Map, Value};

use crate::client::message::{Echo, Message, ToolReturn};
use crate::provider::tool_call::ToolCall;
use crate::result::part::{ContentPart, Description};

/// How many tokens a transcript costs the model: what a
/// [`Compactor`](crate::client::Compactor) weighs against its budget.
///
/// [`Estimate`] (SPEC §16B's arithmetic) is the default; implement it on a real tokenizer to
/// count exactly.
///
/// ```
/// use toolnexus::client::{Message, TokenCounter};
///
/// /// One token per whitespace-separated word of the messages' text.
/// struct Words;
/// impl TokenCounter for Words {
///     fn count(&self, messages: &[Message]) -> usize {
///         messages
///             .iter()
///             .map(|message| match message {
///                 Message::System { text } | Message::User { text, .. } => text.split_whitespace().count(),
///                 _ => 1,
///             })
///             .sum()
///     }
/// }
/// assert_eq!(Words.count(&[Message::user("Weather in Paris?")]), 3);
/// ```
pub trait TokenCounter: Send + Sync {
    /// The tokens `messages` cost.
    fn count(&self, messages: &[Message]) -> usize;
}

/// The default [`TokenCounter`]: [`estimate_tokens`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Estimate;

impl TokenCounter for Estimate {
    fn count(&self, messages: &[Message]) -> usize {
        estimate_tokens(messages)
    }
}

/// SPEC §16B's token estimate: Σ ceil(len(JSON of the message) / 4), where a non-text part
/// (image, file, audio) counts as its [`describe_part`](crate::parts::describe_part) text —
/// the JSON of the text part `{"type":"text","text":"image (image/png, 8388608 bytes)"}` in
/// its place — never its bytes: the model reads a part's description where the API cannot
/// carry the part, and the bytes are not in the estimate.
///
/// It builds nothing it does not count: the JSON is measured as it is written (no string of
/// it, no copy of a message, no description string), and a part's base64 is never read, so
/// an 8 MiB image costs the same time and tokens as an 8-byte one.
///
/// ```
/// use toolnexus::client::{Message, estimate_tokens};
///
/// // `{"role":"user","text":"Weather in Paris?"}` is 42 bytes: ceil(42 / 4) = 11.
/// assert_eq!(estimate_tokens(&[Message::user("Weather in Paris?")]), 11);
/// ```
pub fn estimate_tokens(messages: &[Message]) -> usize {
    messages.iter().map(message_tokens).sum()
}

/// ceil(len(JSON of `message`, parts described) / 4).
fn message_tokens(message: &Message) -> usize {
    let mut length = Length(0);
    // Writing into a byte counter cannot fail, and every value here is plain serde data.
    let _ = serde_json::to_writer(&mut length, &Described::of(message));
    length.0.div_ceil(4)
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

/// A [`Message`] as it serializes, by reference, with each non-text part in its described
/// form. Its serde attributes mirror `Message`'s (a test holds them equal for messages
/// without parts).
#[derive(Serialize)]
#[serde(
    tag = "role",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
enum Described<'a> {
    System {
        text: &'a str,
    },
    User {
        #[serde(skip_serializing_if = "str::is_empty")]
        text: &'a str,
        #[serde(skip_serializing_if = "Parts::is_empty")]
        parts: Parts<'a>,
    },
    Assistant {
        #[serde(skip_serializing_if = "str::is_empty")]
        text: &'a str,
        #[serde(skip_serializing_if = "<[ToolCall]>::is_empty")]
        tool_calls: &'a [ToolCall],
        #[serde(skip_serializing_if = "Option::is_none")]
        echo: Option<&'a Echo>,
    },
    Tool {
        results: Returns<'a>,
    },
}

impl<'a> Described<'a> {
    fn of(message: &'a Message) -> Self {
        match message {
            Message::System { text } => Self::System { text },
            Message::User { text, parts } => Self::User {
                text,
                parts: Parts(parts),
            },
            Message::Assistant {
                text,
                tool_calls,
                echo,
            } => Self::Assistant {
                text,
                tool_calls,
                echo: echo.as_ref(),
            },
            Message::Tool { results } => Self::Tool {
                results: Returns(results),
            },
        }
    }
}

/// Tool returns serialized one by one as [`DescribedReturn`]s (no list of them is built).
struct Returns<'a>(&'a [ToolReturn]);

impl Serialize for Returns<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(DescribedReturn::of))
    }
}

/// A [`ToolReturn`] as it serializes, its result's parts described.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DescribedReturn<'a> {
    call_id: &'a str,
    name: &'a str,
    result: DescribedResult<'a>,
}

/// A [`ToolResult`](crate::ToolResult) as it serializes, its parts described.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DescribedResult<'a> {
    output: &'a str,
    is_error: bool,
    #[serde(skip_serializing_if = "Parts::is_empty")]
    parts: Parts<'a>,
    #[serde(skip_serializing_if = "Map::is_empty")]
    metadata: &'a Map<String, Value>,
}

impl<'a> DescribedReturn<'a> {
    fn of(tool_return: &'a ToolReturn) -> Self {
        let result = &tool_return.result;
        Self {
            call_id: &tool_return.call_id,
            name: &tool_return.name,
            result: DescribedResult {
                output: &result.output,
                is_error: result.is_error,
                parts: Parts(&result.parts),
                metadata: &result.metadata,
            },
        }
    }
}

/// Parts serialized with each non-text part as the text part of its description.
struct Parts<'a>(&'a [ContentPart]);

impl Parts<'_> {
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Serialize for Parts<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for part in self.0 {
            match part {
                ContentPart::Text { .. } => seq.serialize_element(part)?,
                _ => seq.serialize_element(&DescribedPart(part))?,
            }
        }
        seq.end()
    }
}

/// A non-text part as the text part of its description,
/// `{"type":"text","text":"image (image/png, 82 bytes)"}`, the description written straight
/// into the JSON (no `String` per part). It reads the base64's length and last two bytes,
/// never its body.
struct DescribedPart<'a>(&'a ContentPart);

impl Serialize for DescribedPart<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("type", "text")?;
        map.serialize_entry("text", &DescriptionText(self.0))?;
        map.end()
    }
}

/// The description as a JSON string.
struct DescriptionText<'a>(&'a ContentPart);

impl Serialize for DescriptionText<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&Description(self.0))
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::client::message::Echo;
    use crate::provider::tool_call::Api;
    use crate::result::ToolResult;
    use crate::result::part::{Media, Source};

    fn image(bytes: usize) -> ContentPart {
        // Padded base64 of `bytes` zero bytes, built without encoding anything.
        let mut data = "A".repeat(bytes.div_ceil(3) * 4);
        match bytes % 3 {
            1 => data.replace_range(data.len() - 2.., "=="),
            2 => data.replace_range(data.len() - 1.., "="),
            _ => {}
        }
        ContentPart::Image(Media {
            mime_type: "image/png".into(),
            source: Source::Data(data),
            name: None,
        })
    }

    fn json_tokens(message: &Message) -> usize {
        serde_json::to_string(message).unwrap().len().div_ceil(4)
    }

    #[test]
    fn a_part_costs_its_description_never_its_bytes() {
        let small = Message::User {
            text: "look".into(),
            parts: vec![image(8)],
        };
        let large = Message::User {
            text: "look".into(),
            parts: vec![image(8 << 20)],
        };
        // What the estimate counts in place of each: the text part of the description.
        let described = |bytes: usize| Message::User {
            text: "look".into(),
            parts: vec![ContentPart::text(format!(
                "image (image/png, {bytes} bytes)"
            ))],
        };
        assert_eq!(estimate_tokens(&[small]), json_tokens(&described(8)));
        assert_eq!(
            estimate_tokens(std::slice::from_ref(&large)),
            json_tokens(&described(8 << 20))
        );
        // The bytes would be millions of tokens; the description under thirty.
        assert!(estimate_tokens(&[large]) < 30);
    }

    #[test]
    fn a_tool_results_parts_cost_their_description_too() {
        let mut result = ToolResult::ok("the chart");
        result.parts = vec![image(8 << 20), ContentPart::text("a caption")];
        let message = Message::Tool {
            results: vec![ToolReturn {
                call_id: "c1".into(),
                name: "chart".into(),
                result: result.clone(),
            }],
        };
        result.parts[0] = ContentPart::text(format!("image (image/png, {} bytes)", 8 << 20));
        let described = Message::Tool {
            results: vec![ToolReturn {
                call_id: "c1".into(),
                name: "chart".into(),
                result,
            }],
        };
        assert_eq!(estimate_tokens(&[message]), json_tokens(&described));
    }

    #[test]
    fn the_estimate_is_a_sum_of_ceilings_per_message() {
        // 42 bytes and 38 bytes: 11 + 10, where ceil(80 / 4) would be 20.
        let messages = [
            Message::user("Weather in Paris?"),
            Message::system("Be concise."),
        ];
        assert_eq!(serde_json::to_string(&messages[1]).unwrap().len(), 38);
        assert_eq!(estimate_tokens(&messages), 11 + 10);
        assert_eq!(estimate_tokens(&[]), 0);
        assert_eq!(Estimate.count(&messages), 21);
    }

    fn text() -> impl Strategy<Value = String> {
        prop_oneof!["", "[a-z \"\\\\é\n]{0,40}"]
    }

    fn message_without_parts() -> impl Strategy<Value = Message> {
        let call = (text(), text(), text()).prop_map(|(id, name, arguments)| ToolCall {
            id,
            name,
            arguments,
        });
        prop_oneof![
            text().prop_map(|text| Message::System { text }),
            text().prop_map(|text| Message::User {
                text,
                parts: Vec::new()
            }),
            (
                text(),
                prop::collection::vec(call, 0..3),
                prop::option::of(text())
            )
                .prop_map(|(text, tool_calls, echo)| Message::Assistant {
                    text,
                    tool_calls,
                    echo: echo.map(|item| Echo {
                        api: Api::Anthropic,
                        items: vec![Value::String(item)],
                    }),
                }),
            prop::collection::vec((text(), text(), any::<bool>(), text()), 0..3).prop_map(
                |results| Message::Tool {
                    results: results
                        .into_iter()
                        .map(|(call_id, name, is_error, output)| {
                            let mut result = ToolResult::ok(output);
                            result.is_error = is_error;
                            if is_error {
                                result.metadata.insert("k".into(), Value::Bool(true));
                            }
                            ToolReturn {
                                call_id,
                                name,
                                result,
                            }
                        })
                        .collect(),
                }
            ),
        ]
    }

    proptest! {
        /// Without parts the estimate is exactly ceil(len(JSON of the message) / 4): the
        /// described view serializes as `Message` does.
        #[test]
        fn without_parts_the_estimate_is_the_messages_json(message in message_without_parts()) {
            prop_assert_eq!(estimate_tokens(std::slice::from_ref(&message)), json_tokens(&message));
        }
    }
}
