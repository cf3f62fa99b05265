//! Where each API is reached and how it is signed (SPEC §16 "Transport"): the default base URL
//! (each provider's own SDK's), the path of a turn, whole or streamed, and the auth headers.

use crate::provider::tool_call::Api;

/// The base URL each provider's own SDK calls its API at (OpenAI's ends in `/v1`,
/// Anthropic's and Gemini's do not).
pub(crate) fn default_base_url(api: Api) -> &'static str {
    match api {
        Api::OpenAiChat | Api::OpenAiResponses => "https://api.openai.com/v1",
        Api::Anthropic => "https://api.anthropic.com",
        Api::Gemini => "https://generativelanguage.googleapis.com",
    }
}

/// The URL one turn is POSTed to: `base` (a trailing `/` ignored) and the API's path; Gemini's
/// names the model and, streamed, asks for server-sent events.
pub(crate) fn turn_url(api: Api, base: &str, model: &str, stream: bool) -> String {
    let base = base.trim_end_matches('/');
    match api {
        Api::OpenAiChat => format!("{base}/chat/completions"),
        Api::OpenAiResponses => format!("{base}/responses"),
        Api::Anthropic => format!("{base}/v1/messages"),
        Api::Gemini if stream => {
            format!("{base}/v1beta/models/{model}:streamGenerateContent?alt=sse")
        }
        Api::Gemini => format!("{base}/v1beta/models/{model}:generateContent"),
    }
}

/// The headers that carry `key` to `api`, plus any the API requires on every request
/// (Anthropic's `anthropic-version`). Without a key (a local OpenAI-compatible server) only
/// the required ones.
pub(crate) fn auth_headers(api: Api, key: Option<&str>) -> Vec<(&'static str, String)> {
    let mut headers = Vec::with_capacity(2);
    if api == Api::Anthropic {
        headers.push(("anthropic-version", "2023-06-01".to_owned()));
    }
    if let Some(key) = key {
        headers.push(match api {
            Api::OpenAiChat | Api::OpenAiResponses => ("authorization", format!("Bearer {key}")),
            Api::Anthropic => ("x-api-key", key.to_owned()),
            Api::Gemini => ("x-goog-api-key", key.to_owned()),
        });
    }
    headers
}
