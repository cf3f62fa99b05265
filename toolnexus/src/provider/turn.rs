//! The whole turn (SPEC §8B): the tool calls in a provider's response ([`tool_calls`]), and
//! what answers them ([`tool_results`]), for each [`Api`]. Each API's reading and encoding
//! lives beside its provider in `provider/`; this module holds the dispatch, and `tool_call.rs`
//! the types they share, with the `Reader` that walks a response body and names the path of
//! anything of the wrong shape.

use serde_json::Value;

use crate::provider::tool_call::Reader;
pub use crate::provider::tool_call::{Api, ResponseError, ToolCall};

use crate::provider::{anthropic, gemini, openai, search};
use crate::result::ToolResult;

/// The tool calls in `response`, a provider's whole response body as its API returns it, in
/// the order the model made them.
///
/// - [`Api::OpenAiChat`]: `choices[0].message.tool_calls` (entries of another `type` than
///   `function` are not this crate's and are skipped).
/// - [`Api::OpenAiResponses`]: the `output[]` items of type `function_call`; `call_id` is
///   the id.
/// - [`Api::Anthropic`]: the `content[]` blocks of type `tool_use`; `input` re-serialized as
///   the arguments.
/// - [`Api::Gemini`]: the `functionCall` of each of `candidates[0].content.parts[]`; its `id`
///   when present, else `call_<index>` (the call's position among the calls, from 0), which
///   [`tool_results`] knows not to send back. A body with neither `candidates` nor
///   `promptFeedback` is not a Gemini response; one whose prompt was blocked has no calls.
///
/// OpenAI's `arguments` text is kept as sent (an object, as some compatible servers send it,
/// is serialized), so text that is not JSON reaches the tool, which answers with its usual
/// `invalid arguments` result for the model to correct.
///
/// No tool call ⇒ `Ok(vec![])`. A body of the wrong shape ⇒ [`ResponseError`]; this never
/// panics, whatever the JSON.
///
/// ```
/// use toolnexus::serde_json::json;
/// use toolnexus::{Api, ToolCall, tool_calls};
///
/// let reply = json!({"content": [
///     {"type": "text", "text": "Checking."},
///     {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}},
/// ]});
/// assert_eq!(
///     tool_calls(Api::Anthropic, &reply).unwrap(),
///     [ToolCall { id: "toolu_1".into(), name: "get_weather".into(), arguments: r#"{"city":"Paris"}"#.into() }]
/// );
/// ```
pub fn tool_calls(api: Api, response: &Value) -> Result<Vec<ToolCall>, ResponseError> {
    let body = Reader::root(api, response);
    match api {
        Api::OpenAiChat => openai::chat_calls::read(&body),
        Api::OpenAiResponses => openai::responses::read_calls(&body),
        Api::Anthropic => anthropic::tool_use::read(&body),
        Api::Gemini => gemini::function_calls::read(&body),
    }
}

/// What to append to the conversation to answer `calls`, in `api`'s own shape; `results[i]`
/// answers `calls[i]` (as [`Toolkit::run_calls`](crate::Toolkit::run_calls) returns them).
///
/// - [`Api::OpenAiChat`]: one `tool` message per call, then one `user` message with the
///   results' images, files and audio.
/// - [`Api::OpenAiResponses`]: one `function_call_output` item per call; `output` is the
///   text, or, when the result has parts, an array of `input_text`, `input_image` and
///   `input_file` items (a part Responses cannot take becomes its
///   placeholder text, `[unsupported TYPE part (MIME, N bytes)]`).
/// - [`Api::Anthropic`]: ONE `user` message holding every `tool_result` block in call order
///   ([`ToolResult::to_anthropic_block`]).
/// - [`Api::Gemini`]: ONE `user` content whose `parts` hold a `functionResponse` per call:
///   `{"name", "id"?, "response": {"output": …}}`, or `{"error": …}` when `is_error`. The
///   text is the output, then each text part and each placeholder on a line of its own;
///   images (PNG, JPEG, WebP), PDFs and plain text with bytes go inline in its `parts`.
///   `id` is left out for an id Gemini did not send (`call_<digits>`, as [`tool_calls`]
///   synthesizes it).
///
/// Neither OpenAI API has an error flag on a tool's answer: there the output's text says it.
/// No calls ⇒ nothing to append (an empty list).
///
/// # Panics
///
/// When `calls` and `results` differ in length: each call needs exactly one answer, and a
/// conversation with one missing is refused by every provider.
///
/// ```
/// use toolnexus::serde_json::json;
/// use toolnexus::{Api, ToolCall, ToolResult, tool_results};
///
/// let calls = [ToolCall { id: "call_0".into(), name: "get_weather".into(), arguments: "{}".into() }];
/// let results = [ToolResult::error("no weather station there")];
/// assert_eq!(
///     tool_results(Api::Gemini, &calls, &results),
///     [json!({"role": "user", "parts": [{"functionResponse": {
///         "name": "get_weather", "response": {"error": "no weather station there"}
///     }}]})]
/// );
/// ```
pub fn tool_results(api: Api, calls: &[ToolCall], results: &[ToolResult]) -> Vec<Value> {
    assert_eq!(
        calls.len(),
        results.len(),
        "tool_results needs one result per call: {} calls, {} results",
        calls.len(),
        results.len()
    );
    if calls.is_empty() {
        return Vec::new();
    }
    let pairs = calls.iter().zip(results);
    match api {
        Api::OpenAiChat => openai::openai_tool_messages(
            pairs.map(|(call, result)| (call.id.as_str(), call.name.as_str(), result)),
        ),
        Api::OpenAiResponses => pairs
            .map(|(call, result)| {
                search::responses_item(&call.id, &call.name, result)
                    .unwrap_or_else(|| openai::responses::function_call_output(&call.id, result))
            })
            .collect(),
        Api::Anthropic => vec![anthropic::anthropic_tool_results(
            pairs.map(|(call, result)| search::anthropic_block(&call.id, &call.name, result)),
        )],
        Api::Gemini => vec![gemini::results::function_responses(pairs)],
    }
}
