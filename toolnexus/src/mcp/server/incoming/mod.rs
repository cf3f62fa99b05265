//! What every MCP transport does with a message before rmcp reads it: refuse what is not
//! JSON-RPC with the JSON-RPC error that says so, and read a `tools/call`'s `arguments` as the
//! text that was sent.
//!
//! rmcp parses a message into its own types, where a key given twice keeps its last value and
//! `arguments` that are not an object make the whole request unreadable (answered as an
//! unknown method). Here the message is read first: a malformed one is answered with `-32700`
//! or `-32600`, a request whose params are an array and a `tools/call` without a `name` with
//! `-32602`, and `arguments` that
//! [`execute_json`](crate::Toolkit::execute_json) would not read as they are (not an object,
//! a key given twice, too deep) are handed to the server as their text, so the call's result
//! is the `isError` result `execute_json` gives for that text — the same message.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use crate::decode::parse_args_strictly;

mod core_routing;
mod task_ids;

pub(crate) use core_routing::CORE_TASKS;
use core_routing::{core_tasks, is_2026};
pub(crate) use task_ids::{TASK_IDS, acknowledged};

/// The `_meta` key under which a `tools/call`'s argument text travels to [`McpServer`]
/// when it cannot travel as an object.
///
/// [`McpServer`]: super::McpServer
const ARGUMENT_TEXT: &str = "io.toolnexus/arguments";

/// The longest part of a parser's message quoted back to the client.
const QUOTED: usize = 200;

/// JSON-RPC's error codes.
pub(crate) const PARSE_ERROR: i64 = -32700;
pub(crate) const INVALID_REQUEST: i64 = -32600;
pub(crate) const INVALID_PARAMS: i64 = -32602;
const METHOD_NOT_FOUND: i64 = -32601;

/// A message read before rmcp reads it.
#[derive(Debug)]
pub(crate) enum Screened {
    /// Hand the text on unchanged.
    Pass(Head),
    /// Hand this text on instead: the `arguments` moved into `_meta` as their text.
    Rewritten(Head, Vec<u8>),
    /// Answer with this JSON-RPC error message and hand nothing on.
    Refused(Value),
}

/// What a transport needs to know about a message it hands on.
#[derive(Debug, Default)]
pub(crate) struct Head {
    /// The request's `id` (a string or an integer); `None` for a notification or a reply.
    pub(crate) id: Option<Value>,
    /// The request's or notification's `method`.
    pub(crate) method: Option<String>,
    /// The tasks a `subscriptions/listen` asks to hear of (the tasks extension's `taskIds`):
    /// its acknowledgment must name them, and rmcp's has no field for them.
    pub(crate) task_ids: Option<Vec<String>>,
}

#[derive(Deserialize)]
struct Envelope<'a> {
    jsonrpc: Option<Value>,
    id: Option<Value>,
    method: Option<Value>,
    #[serde(borrow)]
    params: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct CallParams<'a> {
    name: Option<Value>,
    #[serde(borrow)]
    arguments: Option<&'a RawValue>,
    #[serde(borrow, rename = "_meta")]
    meta: Option<&'a RawValue>,
    /// 2025-11-25's ask for a task.
    #[serde(borrow)]
    task: Option<&'a RawValue>,
    /// A 2026-07-28 retry's fields: of the wrong JSON type, rmcp cannot read the request at
    /// all and answers `-32601`, which a client takes for "no such method" (over HTTP 404,
    /// "session gone"); here they get `-32602` saying what they must be (SPEC §10B).
    #[serde(borrow, rename = "requestState")]
    request_state: Option<&'a RawValue>,
    #[serde(
        borrow,
        rename = "inputResponses",
        default,
        deserialize_with = "present"
    )]
    input_responses: Option<&'a RawValue>,
}

/// A field that is there, `null` included (serde reads a `null` `Option` as absent).
fn present<'de, D: serde::Deserializer<'de>>(field: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(field).map(Some)
}

/// Reads one JSON-RPC message (a request, a notification or a reply). `declared` is the
/// revision the transport's own header says the message is of (HTTP's
/// `MCP-Protocol-Version`), if it has one: a message it says is of 2026-07-28 or later is never
/// routed as one of 2025-11-25's core tasks, whatever its body lacks, so the header checks
/// (`Mcp-Method`) see the method the client sent.
pub(crate) fn screen(bytes: &[u8], declared: Option<&str>) -> Screened {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Screened::Refused(error(None, PARSE_ERROR, "Parse error: not UTF-8"));
    };
    let envelope: Envelope<'_> = match serde_json::from_str(text) {
        Ok(envelope) => envelope,
        Err(parse) if parse.is_syntax() || parse.is_eof() => {
            return Screened::Refused(error(
                None,
                PARSE_ERROR,
                format_args!("Parse error: {}", quoted(&parse.to_string())),
            ));
        }
        Err(invalid) => {
            let detail = match text.trim_start().starts_with('{') {
                // A key given twice at the top: which one is meant cannot be told.
                true => quoted(&invalid.to_string()),
                false => "a JSON-RPC message is a JSON object".to_owned(),
            };
            return Screened::Refused(error(
                None,
                INVALID_REQUEST,
                format_args!("Invalid Request: {detail}"),
            ));
        }
    };
    let id = match envelope.id {
        None => None,
        Some(id @ Value::String(_)) => Some(id),
        Some(id @ Value::Number(_)) if id.is_i64() => Some(id),
        Some(_) => {
            return Screened::Refused(error(
                None,
                INVALID_REQUEST,
                "Invalid Request: `id` must be a string or an integer",
            ));
        }
    };
    if envelope.jsonrpc.as_ref().and_then(Value::as_str) != Some("2.0") {
        return Screened::Refused(error(
            id,
            INVALID_REQUEST,
            "Invalid Request: `jsonrpc` must be \"2.0\"",
        ));
    }
    let method = match envelope.method {
        None => None,
        Some(Value::String(method)) => Some(method),
        Some(_) => {
            return Screened::Refused(error(
                id,
                INVALID_REQUEST,
                "Invalid Request: `method` must be a string",
            ));
        }
    };
    if let Some(method) = method
        .as_deref()
        .filter(|method| method.starts_with(CORE_TASKS))
    {
        return Screened::Refused(error(id, METHOD_NOT_FOUND, method));
    }
    // MCP's params are an object. A JSON-RPC request's are structured: `5` makes it no request
    // at all, `[5]` is one whose params are in error.
    let params_text = envelope.params.map(RawValue::get);
    if let (Some(method), Some(params), true) = (&method, params_text, id.is_some()) {
        let (code, detail) = match params.as_bytes().first() {
            Some(b'{') | None => (None, ""),
            Some(b'[') => (Some(INVALID_PARAMS), "Invalid params"),
            _ if params == "null" => (None, ""),
            _ => (Some(INVALID_REQUEST), "Invalid Request"),
        };
        if let Some(code) = code {
            let refused = format_args!("{detail}: `{method}` takes an object as its params");
            return Screened::Refused(error(id, code, refused));
        }
    }
    let is_call = method.as_deref() == Some("tools/call") && id.is_some();
    let of_2026 = declared
        .is_some_and(|declared| declared >= rmcp::model::ProtocolVersion::V_2026_07_28.as_str())
        || is_2026(envelope.params);
    let head = Head {
        id,
        method,
        task_ids: None,
    };
    if !is_call {
        if head.method.as_deref() == Some("subscriptions/listen") {
            return task_ids::listened(head, envelope.params);
        }
        let core = matches!(
            head.method.as_deref(),
            Some("tools/list" | "tasks/get" | "tasks/result" | "tasks/list" | "tasks/cancel")
        ) && head.id.is_some()
            && !of_2026;
        return if core {
            core_tasks(head, bytes)
        } else {
            Screened::Pass(head)
        };
    }
    let invalid_params = |head: Head, detail: &str| {
        Screened::Refused(error(
            head.id,
            INVALID_PARAMS,
            format_args!("Invalid params: {detail}"),
        ))
    };
    let Some(params_text) = params_text else {
        return invalid_params(head, "tools/call needs params with the tool's `name`");
    };
    let params: CallParams<'_> = match serde_json::from_str(params_text) {
        Ok(params) => params,
        Err(invalid) => return invalid_params(head, &quoted(&invalid.to_string())),
    };
    // The key is the server's own: sent by a client, it would make the server read other
    // arguments than the ones a proxy in front of it checked.
    if params.meta.is_some_and(|meta| {
        serde_json::from_str::<BTreeMap<String, &RawValue>>(meta.get())
            .is_ok_and(|meta| meta.contains_key(ARGUMENT_TEXT))
    }) {
        return invalid_params(head, &format!("`_meta` key `{ARGUMENT_TEXT}` is reserved"));
    }
    let Some(Value::String(name)) = params.name else {
        return invalid_params(
            head,
            "tools/call needs a `name`, the tool's name as a string",
        );
    };
    // Read by their first character: the text is valid JSON, so `"` is a string, `{` an
    // object; `null` is taken as absent, as rmcp takes it.
    let is = |raw: Option<&RawValue>, open: char| {
        raw.is_none_or(|raw| raw.get().starts_with(open) || raw.get() == "null")
    };
    if !is(params.request_state, '"') {
        return invalid_params(
            head,
            "`requestState` must be a string, the one the server sent with its input request",
        );
    }
    // `inputResponses` is never taken as absent: `null`, or an answer that is not an object
    // (a client's result for the input request), is a protocol error the client must hear
    // about, not a first call (the suite's `sep-2322-validate-input-responses`).
    if let Some(responses) = params.input_responses {
        let answers = serde_json::from_str::<BTreeMap<String, &RawValue>>(responses.get());
        let Ok(answers) = answers else {
            return invalid_params(
                head,
                "`inputResponses` must be an object of answers keyed by input request id",
            );
        };
        if let Some((key, _)) = answers
            .iter()
            .find(|(_, answer)| !answer.get().starts_with('{'))
        {
            return invalid_params(
                head,
                &format!(
                    "`inputResponses.{}` must be an object, the client's result for that input request",
                    quoted(key)
                ),
            );
        }
    }
    let core = params.task.is_some_and(|task| task.get().starts_with('{')) && !of_2026;
    let plain = |head: Head| {
        if core {
            core_tasks(head, bytes)
        } else {
            Screened::Pass(head)
        }
    };
    let Some(arguments) = params.arguments else {
        return plain(head);
    };
    let arguments = arguments.get();
    if arguments.starts_with('{') && parse_args_strictly(&name, arguments).is_ok() {
        return plain(head);
    }
    match with_argument_text(&head, params_text, arguments) {
        Some(rewritten) if core => core_tasks(head, &rewritten),
        Some(rewritten) => Screened::Rewritten(head, rewritten),
        None => invalid_params(head, "`_meta` must be an object"),
    }
}

/// The `tools/call` with `params.arguments` moved to `params._meta` as their text. Only the
/// envelope is parsed again: arguments too deep for a `Value` travel as they are.
fn with_argument_text(head: &Head, params: &str, arguments: &str) -> Option<Vec<u8>> {
    #[derive(serde::Serialize)]
    struct Call<'a> {
        jsonrpc: &'a str,
        id: &'a Value,
        method: &'a str,
        params: BTreeMap<String, Box<RawValue>>,
    }
    let mut params: BTreeMap<String, Box<RawValue>> = serde_json::from_str(params).ok()?;
    params.remove("arguments");
    let mut meta: Map<String, Value> = match params.get("_meta") {
        Some(meta) => serde_json::from_str(meta.get()).ok()?,
        None => Map::new(),
    };
    meta.insert(
        ARGUMENT_TEXT.to_owned(),
        Value::String(arguments.to_owned()),
    );
    params.insert(
        "_meta".to_owned(),
        serde_json::value::to_raw_value(&meta).ok()?,
    );
    let call = Call {
        jsonrpc: "2.0",
        id: head.id.as_ref()?,
        method: "tools/call",
        params,
    };
    serde_json::to_vec(&call).ok()
}

/// A `tools/call`'s arguments as [`screen`] handed them on.
pub(crate) enum Arguments {
    /// Read as an object, by rmcp.
    Object(Value),
    /// The text sent, which [`Toolkit::execute_json`] reads (and refuses).
    Text(String),
}

impl Arguments {
    /// Takes the arguments out of a `tools/call`: the text [`screen`] put in `_meta` (which
    /// rmcp hands over as the request's context, `meta`), if it is there, otherwise the
    /// object rmcp read.
    pub(crate) fn take(
        request: &mut rmcp::model::CallToolRequestParams,
        meta: &mut rmcp::model::RequestMetaObject,
    ) -> Self {
        let text = request
            .meta
            .as_mut()
            .and_then(|meta| meta.0.0.remove(ARGUMENT_TEXT))
            .or_else(|| meta.0.0.remove(ARGUMENT_TEXT));
        match text {
            Some(Value::String(text)) => Self::Text(text),
            _ => Self::Object(Value::Object(request.arguments.take().unwrap_or_default())),
        }
    }
}

/// A JSON-RPC error message; `id` is `null` when none could be read.
pub(crate) fn error(id: Option<Value>, code: i64, message: impl std::fmt::Display) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id.unwrap_or(Value::Null),
        "error": {"code": code, "message": message.to_string()},
    })
}

/// `text`, cut to its first [`QUOTED`] characters (and its length said) when longer: a parser's
/// message can quote the whole offending value.
pub(crate) fn quoted(text: &str) -> String {
    match text.char_indices().nth(QUOTED) {
        None => text.to_owned(),
        Some((end, _)) => format!(
            "{}… ({} characters in all)",
            &text[..end],
            text.chars().count()
        ),
    }
}

#[cfg(test)]
mod tests;
