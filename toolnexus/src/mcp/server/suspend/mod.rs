//! Suspensions that reach the human over MCP (SPEC §8C): which elicitation a [`Request`]
//! becomes, what the client's answer means as an [`Answer`], and the sealed `requestState`
//! that carries a suspended 2026-07-28 call to its retry — opened once, by the caller it was
//! issued to, with an answer that fits what was asked (SPEC §10B).

mod binding;
mod elicit;
mod state_store;

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rmcp::model::{
    ElicitRequest, ElicitRequestParams, InputRequest, InputRequests, InputRequiredResult,
    InputResponses, RequestStateCodec, RequestStateError, SealOptions,
};
use rmcp::service::{RequestContext, RoleServer};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

pub use binding::CallerId;
pub(crate) use binding::Connection;
pub(crate) use elicit::{Modes, elicitation, read_answer};
pub use state_store::{InMemoryStateStore, StateStore, StateStoreError};

use super::McpServer;
use crate::decode::answers::{asked_schema, check_answer};
use crate::result::ToolResult;
use crate::result::suspend::{Answer, Request};
use binding::{Binding, hex};
use state_store::millis;

/// How long a suspended 2026-07-28 call may wait for its retry unless
/// [`McpServer::with_state_expiry`](super::McpServer::with_state_expiry) says otherwise.
pub(super) const DEFAULT_EXPIRY: Duration = Duration::from_secs(10 * 60);

/// Binds every sealed state to its purpose, so no other value sealed under the same key
/// passes for one.
const PURPOSE: &[u8] = b"toolnexus/mcp/tools/call";

/// The key and expiry that seal `requestState`, and the record of the states used.
#[derive(Clone)]
pub(super) struct StateSeal {
    codec: Arc<RequestStateCodec>,
    pub(super) expiry: Duration,
    used: Arc<dyn StateStore>,
}

impl fmt::Debug for StateSeal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StateSeal")
            .field("key", &"<redacted>")
            .field("expiry", &self.expiry)
            .finish_non_exhaustive()
    }
}

impl McpServer {
    /// Records the `requestState`s used in `store` instead of this process's memory, so
    /// that replicas sharing the key ([`with_state_key`](Self::with_state_key)) also share
    /// which states were used: a sealed state opens once (SPEC §10B), and an approved retry
    /// sent again — to this replica or another — is refused with the JSON-RPC error `-32602`
    /// ``tool `NAME` did not run: its requestState was already used``.
    ///
    /// Without it every server in the process shares one [`InMemoryStateStore`]: a state
    /// opens once per process, and stateless replicas behind a load balancer may each run
    /// a replayed retry once. [`StateStore`] says what a shared store needs.
    ///
    /// A retry runs the tool only if all of this holds, and otherwise is refused with a
    /// JSON-RPC `-32602` error saying which did not (``tool `NAME` did not run: …``; SEP-2322:
    /// a server must reject state that fails verification) — except an answer its request's
    /// `data.schema` refuses, which is the `isError` result ``answer to `NAME`: …``:
    ///
    /// | the retry | the error or result says |
    /// |---|---|
    /// | does not verify | ``its requestState does not verify under this server's key: it was tampered with, or issued by another server instance (or by this one before a restart); replicas must share the key (`McpServer::with_state_key`)`` |
    /// | expired | `its requestState has expired; call the tool again` |
    /// | was issued for another tool, or other arguments | ``its requestState was issued for tool `OTHER` ``, `its requestState was issued for other arguments` |
    /// | came on another stdio connection | `its requestState was issued on another connection` |
    /// | came from another [`CallerId`] (or none) | `its requestState was issued to another caller` |
    /// | has no answer to its request, or one that is not an elicitation result (`content` that is not an object, an unknown `action`…) | ``the answer to request `ID` is not an elicitation result: its `content` is a string, not an object`` |
    /// | answers what its request's `data.schema` refuses (SPEC §10B; an `isError` result) | ``answer to `NAME`: field `env`: unknown variant `moon`, expected one of `staging`, `production` `` (the state is not used up) |
    /// | was used before | `its requestState was already used` |
    ///
    /// ```
    /// use std::sync::Arc;
    /// use toolnexus::{Toolkit, mcp::{InMemoryStateStore, McpServer}};
    ///
    /// let used = Arc::new(InMemoryStateStore::with_capacity(10_000));
    /// let server = McpServer::new(Toolkit::new()).with_state_store(used);
    /// ```
    #[must_use]
    pub fn with_state_store(mut self, store: Arc<dyn StateStore>) -> Self {
        self.seal.used = store;
        self
    }
}

/// Why [`McpServer::with_state_key`](super::McpServer::with_state_key) refused a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateKeyError {
    length: usize,
}

impl fmt::Display for StateKeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the requestState key must be at least {} bytes of secret, got {}",
            RequestStateCodec::MIN_KEY_LENGTH,
            self.length
        )
    }
}

impl std::error::Error for StateKeyError {}

/// What a sealed state says about the suspended call. Signed, not encrypted: it holds
/// nothing the client may not read (digests, not ids).
#[derive(Serialize, Deserialize)]
struct Sealed {
    /// The tool that suspended.
    tool: String,
    /// SHA-256 of the call's canonical arguments (hex).
    arguments: String,
    /// The suspension's request: its id keys the answer, its prompt is the loop rule's, its
    /// `data.schema` what the answer is checked against.
    id: String,
    prompt: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    schema: Option<Map<String, Value>>,
    /// Random: names this state in the record of used states.
    nonce: String,
    /// When it stops opening, in milliseconds since the Unix epoch.
    expires: u64,
    /// Digests of the stdio connection and the verified caller it was issued to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    connection: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    caller: Option<String>,
}

/// A retry whose state opened and whose answer was found.
pub(crate) struct Resumed {
    pub(super) answer: Answer,
    pub(super) prompt: String,
}

impl StateSeal {
    /// A seal under a fresh random key: states it seals open in this process only.
    pub(super) fn random() -> Self {
        let mut key = [0_u8; 32];
        // Without an OS random source the server cannot keep states secret, and it must not
        // run with a guessable key.
        getrandom::fill(&mut key).expect("the OS random source for the requestState key");
        Self::with_key(key.to_vec()).expect("32 bytes is a long enough key")
    }

    /// A seal under `key` (shared by replicas, so one process opens what another sealed).
    pub(super) fn with_key(key: Vec<u8>) -> Result<Self, StateKeyError> {
        let length = key.len();
        let codec = RequestStateCodec::try_new(key).map_err(|_| StateKeyError { length })?;
        Ok(Self {
            codec: Arc::new(codec),
            expiry: DEFAULT_EXPIRY,
            used: state_store::process_store(),
        })
    }

    /// This seal under `key` instead, keeping its expiry and its record of used states.
    pub(super) fn rekeyed(&self, key: Vec<u8>) -> Result<Self, StateKeyError> {
        Ok(Self {
            expiry: self.expiry,
            used: Arc::clone(&self.used),
            ..Self::with_key(key)?
        })
    }

    /// The `InputRequiredResult` of a call to `tool` with `arguments` that suspended with
    /// `request`, asking `elicitation`.
    pub(super) fn input_required(
        &self,
        tool: &str,
        arguments: &Value,
        request: &Request,
        elicitation: ElicitRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> InputRequiredResult {
        let mut nonce = [0_u8; 16];
        getrandom::fill(&mut nonce).expect("the OS random source for the requestState id");
        let Binding { connection, caller } = Binding::of(context);
        let sealed = Sealed {
            tool: tool.to_owned(),
            arguments: digest(arguments),
            id: request.id.clone(),
            prompt: request.prompt.clone(),
            schema: asked_schema(request).cloned(),
            nonce: hex(&nonce),
            expires: millis(SystemTime::now() + self.expiry),
            connection,
            caller,
        };
        let options = SealOptions::new().associated_data(PURPOSE).ttl(self.expiry);
        let state = self
            .codec
            .seal_json_with(&sealed, &options)
            .expect("strings always serialize");
        let mut requests = InputRequests::new();
        requests.insert(
            request.id.clone(),
            InputRequest::Elicitation(ElicitRequest::new(elicitation)),
        );
        InputRequiredResult::new(Some(requests), Some(state))
    }

    /// Opens a retry's `state` for a call to `tool` with `arguments` and finds its answer in
    /// `responses`; the error is what the retry gets instead (the tool does not run). In
    /// order: the state verifies and has not expired; it was issued for this tool, these
    /// arguments, this connection and this caller; the answer is there, is an elicitation
    /// result and fits what was asked (SPEC §10B); and the state was not used before —
    /// recorded last, so a refused retry does not use it up.
    pub(super) async fn open(
        &self,
        state: &str,
        tool: &str,
        arguments: &Value,
        responses: Option<&InputResponses>,
        context: &RequestContext<RoleServer>,
    ) -> Result<Resumed, Refused> {
        let refused = |why: &str| Refused::Invalid(format!("tool `{tool}` did not run: {why}"));
        let sealed: Sealed = match self.codec.open_json_with(state, PURPOSE) {
            Ok(sealed) => sealed,
            Err(RequestStateError::Expired) => return Err(refused(EXPIRED)),
            Err(_) => return Err(refused(UNVERIFIED)),
        };
        if sealed.tool != tool {
            return Err(refused(&format!(
                "its requestState was issued for tool `{}`",
                sealed.tool
            )));
        }
        if sealed.arguments != digest(arguments) {
            return Err(refused("its requestState was issued for other arguments"));
        }
        let here = Binding::of(context);
        if sealed.connection != here.connection {
            return Err(refused("its requestState was issued on another connection"));
        }
        if sealed.caller != here.caller {
            return Err(refused("its requestState was issued to another caller"));
        }
        let expires_at = UNIX_EPOCH + Duration::from_millis(sealed.expires);
        if SystemTime::now() >= expires_at {
            return Err(refused(EXPIRED));
        }
        let response = responses
            .and_then(|responses| responses.get(&sealed.id))
            .ok_or_else(|| {
                refused(&format!(
                    "the retry has no answer to request `{}`",
                    sealed.id
                ))
            })?;
        let answer = read_answer(&sealed.id, response).map_err(|why| {
            refused(&format!(
                "the answer to request `{}` is not an elicitation result: {why}",
                sealed.id
            ))
        })?;
        check_answer(tool, sealed.schema.as_ref(), &answer).map_err(Refused::Result)?;
        match self.used.first_use(&sealed.nonce, expires_at).await {
            Ok(true) => {}
            Ok(false) => return Err(refused("its requestState was already used")),
            Err(error) => {
                return Err(Refused::Result(ToolResult::error(format!(
                    "tool `{tool}` did not run: its requestState could not be recorded as used: {error}; nothing ran"
                ))));
            }
        }
        Ok(Resumed {
            answer,
            prompt: sealed.prompt,
        })
    }
}

/// Why a retry did not run.
pub(crate) enum Refused {
    /// The retry itself is refused (SEP-2322: a server MUST reject state that fails
    /// verification), with a JSON-RPC `-32602` saying which and naming the tool: a state
    /// tampered with, expired, for another tool, other arguments or another caller, used
    /// before; an answer missing or not an elicitation result.
    Invalid(String),
    /// The call is answered with this `isError` result: an answer its request's
    /// `data.schema` refuses (SPEC §10B, the state not used up), a record of used states out
    /// of reach.
    Result(ToolResult),
}

/// Who owns a task started by the call `context` belongs to (SPEC §14): the verified caller,
/// else the connection (stdio) or session (HTTP); calls with neither share `":"`. Every
/// `tasks/*` of every revision compares this, so another caller's task is one that never
/// existed.
pub(crate) fn owner_of(context: &RequestContext<RoleServer>) -> String {
    match Binding::of(context) {
        Binding {
            caller: Some(caller),
            ..
        } => format!(":{caller}"),
        Binding { connection, .. } => format!("{}:", connection.unwrap_or_default()),
    }
}

/// Why a retry whose state has expired did not run.
const EXPIRED: &str = "its requestState has expired; call the tool again";

/// Why a retry whose state does not verify did not run, with the likely causes.
const UNVERIFIED: &str = "its requestState does not verify under this server's key: \
    it was tampered with, or issued by another server instance (or by this one before a \
    restart); replicas must share the key (`McpServer::with_state_key`)";

/// SHA-256 (hex) of `arguments` written canonically: object keys sorted, no spaces, so the
/// same arguments in another key order digest the same.
fn digest(arguments: &Value) -> String {
    let mut text = String::new();
    canonical(arguments, &mut text);
    hex(&Sha256::digest(text.as_bytes()))
}

fn canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(object) => {
            let mut keys: Vec<&String> = object.keys().collect();
            keys.sort();
            out.push('{');
            for (index, key) in keys.into_iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                out.push_str(&Value::from(key.as_str()).to_string());
                out.push(':');
                canonical(&object[key.as_str()], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                canonical(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Map, json};

    use super::*;

    fn object(value: &Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn the_digest_ignores_key_order_and_nothing_else() {
        let a = json!({"b": [1, {"y": 2, "x": "é"}], "a": null});
        let b = json!({"a": null, "b": [1, {"x": "é", "y": 2}]});
        assert_eq!(digest(&a), digest(&b));
        assert_ne!(
            digest(&a),
            digest(&json!({"a": null, "b": [1, {"x": "é", "y": 3}]}))
        );
        let mut text = String::new();
        canonical(&a, &mut text);
        assert_eq!(text, r#"{"a":null,"b":[1,{"x":"é","y":2}]}"#);
    }

    #[test]
    fn a_short_key_is_refused_and_says_why() {
        let error = StateSeal::with_key(b"short".to_vec()).unwrap_err();
        assert_eq!(
            error.to_string(),
            "the requestState key must be at least 32 bytes of secret, got 5"
        );
    }

    #[test]
    fn each_kind_of_request_gets_its_elicitation() {
        let both = Modes {
            form: true,
            url: true,
        };
        let login = Request::new("authorization", "Sign in").with_url("https://auth.example/login");
        assert!(matches!(
            elicitation(&login, both),
            Some(ElicitRequestParams::UrlElicitationParams { .. })
        ));
        // Never a form for credentials: without URL mode there is no elicitation at all.
        assert!(
            elicitation(
                &login,
                Modes {
                    form: true,
                    url: false
                }
            )
            .is_none()
        );

        let schema = json!({"type": "object", "properties": {"env": {"type": "string"}}, "required": ["env"]});
        let input = Request::new("input", "Which environment?")
            .with_data(object(&json!({"schema": schema})));
        let Some(ElicitRequestParams::FormElicitationParams {
            requested_schema, ..
        }) = elicitation(&input, both)
        else {
            panic!("a form");
        };
        assert_eq!(serde_json::to_value(requested_schema).unwrap(), schema);

        let nested = Request::new("input", "Address?").with_data(object(
            &json!({"schema": {"type": "object", "properties": {"street": {"type": "object"}}}}),
        ));
        // An approval's data is the call's arguments: one named `schema` is no form.
        let approval = Request::new("approval", "Delete note 1?").with_data(object(
            &json!({"schema": {"type": "object", "properties": {"env": {"type": "string"}}}}),
        ));
        for request in [nested, approval] {
            let Some(ElicitRequestParams::FormElicitationParams {
                message,
                requested_schema,
                ..
            }) = elicitation(&request, both)
            else {
                panic!("a form");
            };
            assert_eq!(message, request.prompt);
            assert_eq!(
                serde_json::to_value(requested_schema).unwrap(),
                json!({"type": "object", "properties": {}})
            );
        }
        assert!(
            elicitation(
                &Request::new("approval", "Go?"),
                Modes {
                    form: false,
                    url: true
                }
            )
            .is_none()
        );
    }
}
