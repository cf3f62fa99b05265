//! Which elicitation a suspension's [`Request`] becomes for the modes a client declared, and
//! what the client's answer means as an [`Answer`] (SPEC §8C).

use rmcp::model::{
    ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationCapability, ElicitationSchema,
};
use serde::Deserialize;
use serde_json::Value;

use crate::decode::answers::asked_schema;
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

/// The client's answer to `request_id`: accept ⇒ `ok`, with the form's content as `data`;
/// decline and cancel ⇒ not `ok`, with that reason.
pub(crate) fn answer(request_id: &str, result: ElicitResult) -> Answer {
    let (ok, reason) = match result.action {
        ElicitationAction::Accept => (true, None),
        ElicitationAction::Decline => (false, Some(Reason::Declined)),
        // Cancel, and whatever a later revision adds: nothing was granted.
        _ => (false, Some(Reason::Cancelled)),
    };
    let data = match result.content {
        Some(Value::Object(content)) if ok => Some(content),
        _ => None,
    };
    Answer {
        id: request_id.to_owned(),
        ok,
        data,
        reason,
    }
}
