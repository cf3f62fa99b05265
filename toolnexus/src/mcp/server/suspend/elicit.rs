//! Which elicitation a suspension's [`Request`] becomes for the modes a client declared, and
//! what the client's answer means as an [`Answer`] (SPEC §8C), once it reads as an elicitation
//! result (SPEC §10B) — one reading for every path an answer takes.

use rmcp::model::{ElicitRequestParams, ElicitationCapability, ElicitationSchema};
use serde::Deserialize;
use serde_json::Value;

use crate::decode::answers::asked_schema;
use crate::decode::json_kind;
use crate::mcp::server::incoming::quoted;
use crate::result::suspend::{Answer, Reason, Request};

/// The elicitation modes a client declared.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Modes {
    pub(crate) form: bool,
    pub(crate) url: bool,
}

impl Modes {
    /// What `capability` declares; an `elicitation` capability naming no mode means form
    /// mode, as MCP 2025-06-18 defined it.
    pub(crate) fn of(capability: Option<&ElicitationCapability>) -> Self {
        match capability {
            None => Self::default(),
            Some(declared) if declared.form.is_none() && declared.url.is_none() => Self {
                form: true,
                url: false,
            },
            Some(declared) => Self {
                form: declared.form.is_some(),
                url: declared.url.is_some(),
            },
        }
    }
}

/// The elicitation that asks the human for `request`, if the client can show it:
/// - an `"authorization"` with a url ⇒ URL mode (credentials stay out of band: never a form);
/// - a `data.schema` in the flat-primitive subset MCP forms allow ⇒ form mode with it;
/// - anything else, approvals included ⇒ form mode with the prompt and an empty schema.
pub(crate) fn elicitation(request: &Request, modes: Modes) -> Option<ElicitRequestParams> {
    if let (Some(url), "authorization") = (&request.url, request.kind.as_str()) {
        return modes
            .url
            .then(|| ElicitRequestParams::UrlElicitationParams {
                meta: None,
                message: request.prompt.clone(),
                url: url.clone(),
                elicitation_id: request.id.clone(),
            });
    }
    if !modes.form {
        return None;
    }
    let requested = asked_schema(request)
        .and_then(|schema| ElicitationSchema::deserialize(Value::Object(schema.clone())).ok());
    let empty = || {
        ElicitationSchema::deserialize(serde_json::json!({"type": "object", "properties": {}}))
            .expect("the empty object schema is an elicitation schema")
    };
    Some(ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: request.prompt.clone(),
        requested_schema: requested.unwrap_or_else(empty),
    })
}

/// The client's answer to `request_id`, read from `response` (SPEC §10B): accept ⇒ `ok`, with
/// the form's content as `data`; decline and cancel ⇒ not `ok`, with that reason. What is not
/// an elicitation result as MCP's schema has it is refused, saying why, and approves nothing:
/// not an object; `action` missing, not a string, or not `accept`, `decline` or `cancel`;
/// `content` that is not an object, or holds a value a form cannot send (a string, a number, a
/// boolean, or an array of strings); `_meta` that is not an object. Keys the schema does not
/// name are ignored, as it allows. A number with a fraction is taken where the schema says
/// integer: forms ask for `number` fields too.
pub(crate) fn read_answer(request_id: &str, response: &Value) -> Result<Answer, String> {
    let Some(result) = response.as_object() else {
        return Err(format!("it is {}, not an object", json_kind(response)));
    };
    let (ok, reason) = match result.get("action") {
        None => return Err("it has no `action`".to_owned()),
        Some(Value::String(action)) if action == "accept" => (true, None),
        Some(Value::String(action)) if action == "decline" => (false, Some(Reason::Declined)),
        Some(Value::String(action)) if action == "cancel" => (false, Some(Reason::Cancelled)),
        Some(Value::String(action)) => {
            return Err(format!(
                "its `action` `{}` is not `accept`, `decline` or `cancel`",
                quoted(action)
            ));
        }
        Some(other) => {
            return Err(format!(
                "its `action` is {}, not a string",
                json_kind(other)
            ));
        }
    };
    if let Some(meta) = result.get("_meta").filter(|meta| !meta.is_object()) {
        return Err(format!("its `_meta` is {}, not an object", json_kind(meta)));
    }
    let content = match result.get("content") {
        None => None,
        Some(Value::Object(content)) => Some(content),
        Some(other) => {
            return Err(format!(
                "its `content` is {}, not an object",
                json_kind(other)
            ));
        }
    };
    for (key, value) in content.into_iter().flatten() {
        let sendable = match value {
            Value::String(_) | Value::Number(_) | Value::Bool(_) => true,
            Value::Array(items) => items.iter().all(Value::is_string),
            Value::Null | Value::Object(_) => false,
        };
        if !sendable {
            return Err(format!(
                "its `content.{}` is {}, not a string, number, boolean or array of strings",
                quoted(key),
                json_kind(value)
            ));
        }
    }
    Ok(Answer {
        id: request_id.to_owned(),
        ok,
        // Content beside a decline or a cancel grants nothing: it is not kept.
        data: content.filter(|_| ok).cloned(),
        reason,
    })
}
