//! A remote server's shapes as ours and back: a `CallToolResult` as a [`ToolResult`] (SPEC
//! §13), an elicitation as a §10 [`Request`] and an [`Answer`] as its result. Read from JSON so that every
//! revision's shape (and a server's extra fields) reads alike.
//!
//! Where SPEC §13 pins the mapping it is followed; where it is silent, the Python port's
//! (`toolnexus==0.21.0`, `mcp_source.py`) choices are, so that results read the same in both:
//! an embedded resource carrying text joins the output (it is text the server meant the model
//! to read; SPEC §13 makes it a file part as well), only non-text content gives one `describe_part` line per part, and every result
//! carries `metadata.server`. `tests/vectors/mcp_client_results.json` holds both ports'
//! answers, and says where SPEC §13 makes them differ.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value, json};

use crate::result::ToolResult;
use crate::result::part::{ContentPart, Media, Source, describe_part};
use crate::result::suspend::{Answer, Reason, Request};

/// `result` (a `CallToolResult`'s JSON) from server `server`.
pub(crate) fn tool_result(server: &str, result: &Value) -> ToolResult {
    let empty = Vec::new();
    let content = result
        .get("content")
        .and_then(Value::as_array)
        .unwrap_or(&empty);
    let mut texts = Vec::new();
    let mut embedded = Vec::new();
    let mut parts = Vec::new();
    for block in content {
        let field = |key: &str| block.get(key).and_then(Value::as_str);
        match field("type") {
            Some("text") => texts.extend(field("text").map(str::to_owned)),
            Some(kind @ ("image" | "audio")) => {
                if let (Some(data), Some(mime)) = (field("data"), field("mimeType")) {
                    let media = media(mime, Source::Data(data.to_owned()), None);
                    parts.push(if kind == "image" {
                        ContentPart::Image(media)
                    } else {
                        ContentPart::Audio(media)
                    });
                }
            }
            Some("resource_link") => {
                if let Some(uri) = field("uri") {
                    texts.push(format!("resource link: {uri}"));
                    let name = field("name").filter(|name| !name.is_empty());
                    let mime = field("mimeType").unwrap_or("application/octet-stream");
                    let source = Source::Url(uri.to_owned());
                    parts.push(ContentPart::File(media(mime, source, name)));
                }
            }
            Some("resource") => {
                let resource = block.get("resource").unwrap_or(&Value::Null);
                let field = |key: &str| resource.get(key).and_then(Value::as_str);
                // SPEC §13: an embedded resource is a file part; one carrying text also joins
                // the output (as in the Python port), so the model reads it either way.
                if let Some(text) = field("text") {
                    embedded.push(text.to_owned());
                    let mime = field("mimeType").unwrap_or("text/plain");
                    let source = Source::Data(STANDARD.encode(text));
                    parts.push(ContentPart::File(media(mime, source, field("uri"))));
                } else if let Some(blob) = field("blob") {
                    let mime = field("mimeType").unwrap_or("application/octet-stream");
                    let source = Source::Data(blob.to_owned());
                    parts.push(ContentPart::File(media(mime, source, field("uri"))));
                }
            }
            _ => {}
        }
    }
    let has_text = !texts.is_empty() || !embedded.is_empty();
    texts.extend(embedded);
    let is_error = result.get("isError").and_then(Value::as_bool) == Some(true);
    let structured = result
        .get("structuredContent")
        .filter(|value| !value.is_null());
    let output = match structured {
        // What the other ports answer for an error that says nothing.
        _ if is_error && !has_text => "MCP tool returned an error".to_owned(),
        Some(structured) if !has_text => structured.to_string(),
        _ if !has_text && !parts.is_empty() => parts
            .iter()
            .map(describe_part)
            .collect::<Vec<_>>()
            .join("\n"),
        _ => texts.join("\n"),
    };
    let mut mapped = if is_error {
        ToolResult::error(output)
    } else {
        ToolResult::ok(output)
    };
    mapped.parts = parts;
    mapped.with_metadata("server", server)
}

fn media(mime: &str, source: Source, name: Option<&str>) -> Media {
    Media {
        mime_type: mime.to_owned(),
        source,
        name: name.map(str::to_owned),
    }
}

/// An elicitation's params as a §10 [`Request`] (as every port maps it): URL mode ⇒ kind
/// `"authorization"` with the url; a form ⇒ kind `"input"` with `data.schema`.
pub(super) fn request_of(params: &Value) -> Request {
    let text = |key: &str| params.get(key).and_then(Value::as_str);
    let message = text("message").unwrap_or_default();
    if text("mode") == Some("url") {
        let request = Request::new("authorization", message);
        match text("url") {
            Some(url) => request.with_url(url),
            None => request,
        }
    } else {
        let request = Request::new("input", message);
        match params.get("requestedSchema") {
            Some(schema) => {
                let mut data = Map::new();
                data.insert("schema".to_owned(), schema.clone());
                request.with_data(data)
            }
            None => request,
        }
    }
}

/// A §10 [`Answer`] as an `ElicitResult`'s JSON: ok ⇒ accept with the data (or `{}`);
/// declined ⇒ decline; anything else ⇒ cancel.
pub(super) fn elicit_result(answer: &Answer) -> Value {
    match (answer.ok, answer.reason) {
        (true, _) => {
            json!({"action": "accept", "content": answer.data.clone().unwrap_or_default()})
        }
        (false, Some(Reason::Declined)) => json!({"action": "decline"}),
        (false, _) => json!({"action": "cancel"}),
    }
}

#[cfg(test)]
mod tests {
    use crate::mcp::client::convert::*;

    /// `tests/vectors/mcp_client_results.json`, made by `scripts/mcp_client_vectors.py` from
    /// the Python port's own MCP tool: every result maps as Python maps it, except where
    /// SPEC §13 pins another answer (the vector's `rust`, with `why`).
    #[test]
    fn results_map_as_the_python_port_maps_them() {
        let vectors: Value = serde_json::from_str(include_str!(
            "../../../tests/vectors/mcp_client_results.json"
        ))
        .unwrap();
        let server = vectors["server"].as_str().unwrap();
        let vectors = vectors["vectors"].as_array().unwrap();
        assert!(vectors.len() >= 15);
        for vector in vectors {
            let expected = vector.get("rust").unwrap_or(&vector["python"]);
            let mapped = serde_json::to_value(tool_result(server, &vector["result"])).unwrap();
            assert_eq!(&mapped, expected, "{}", vector["name"]);
        }
    }

    #[test]
    fn a_url_elicitation_is_an_authorization_and_a_form_an_input() {
        let url = request_of(
            &json!({"mode": "url", "message": "Sign in", "url": "https://x/login", "elicitationId": "e"}),
        );
        assert_eq!(
            (url.kind.as_str(), url.prompt.as_str()),
            ("authorization", "Sign in")
        );
        assert_eq!(url.url.as_deref(), Some("https://x/login"));
        assert_eq!(url.data, None);
        let schema = json!({"type": "object", "properties": {"env": {"type": "string"}}});
        let form =
            request_of(&json!({"mode": "form", "message": "Which?", "requestedSchema": schema}));
        assert_eq!((form.kind.as_str(), form.url), ("input", None));
        assert_eq!(form.data.unwrap()["schema"], schema);
    }

    #[test]
    fn answers_become_elicitation_results() {
        let answer = |ok, reason, data: Option<Value>| Answer {
            id: "a".to_owned(),
            ok,
            data: data.and_then(|d| d.as_object().cloned()),
            reason,
        };
        assert_eq!(
            elicit_result(&answer(true, None, Some(json!({"env": "staging"})))),
            json!({"action": "accept", "content": {"env": "staging"}})
        );
        assert_eq!(
            elicit_result(&answer(true, None, None)),
            json!({"action": "accept", "content": {}})
        );
        assert_eq!(
            elicit_result(&answer(false, Some(Reason::Declined), None)),
            json!({"action": "decline"})
        );
        assert_eq!(
            elicit_result(&answer(false, Some(Reason::Expired), None)),
            json!({"action": "cancel"})
        );
        assert_eq!(
            elicit_result(&answer(false, None, None)),
            json!({"action": "cancel"})
        );
    }
}
