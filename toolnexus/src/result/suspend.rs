//! Suspension (SPEC §10): a tool that cannot finish until someone answers.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::result::ToolResult;

/// What a suspended tool is waiting for: an approval, an answer, a login.
///
/// Wire keys are fixed across ports: `id, kind, prompt, url, data, expiresAt`; absent options
/// are omitted.
///
/// ```
/// use toolnexus::Request;
///
/// let request = Request::new("approval", "Deploy to production?").with_url("https://ci/approve");
/// assert!(request.id.starts_with("pnd-"));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Request {
    /// Unique id (`pnd-<base36 millis>-<counter>` when made by [`Request::new`]).
    pub id: String,
    /// What kind of answer is wanted, e.g. `"approval"`, `"input"`, `"authorization"`.
    pub kind: String,
    /// What to show the human.
    pub prompt: String,
    /// Where the human acts (a login or approval page), if anywhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Extra data for the code that resolves the request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Map<String, Value>>,
    /// When the request stops being answerable (an RFC 3339 timestamp, by convention).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
}

impl Request {
    /// A request with a fresh process-unique id.
    pub fn new(kind: impl Into<String>, prompt: impl Into<String>) -> Self {
        Self {
            id: next_id(),
            kind: kind.into(),
            prompt: prompt.into(),
            url: None,
            data: None,
            expires_at: None,
        }
    }

    /// Replaces the generated id (to resume a request persisted elsewhere).
    #[must_use]
    pub fn with_id(mut self, id: impl Into<String>) -> Self {
        self.id = id.into();
        self
    }

    /// Sets the url where the human acts.
    #[must_use]
    pub fn with_url(mut self, url: impl Into<String>) -> Self {
        self.url = Some(url.into());
        self
    }

    /// Sets the extra data.
    #[must_use]
    pub fn with_data(mut self, data: Map<String, Value>) -> Self {
        self.data = Some(data);
        self
    }

    /// Sets the expiry timestamp.
    #[must_use]
    pub fn with_expires_at(mut self, expires_at: impl Into<String>) -> Self {
        self.expires_at = Some(expires_at.into());
        self
    }
}

/// The answer to a [`Request`], handed back to the tool in
/// [`ToolContext::answer`](crate::ToolContext::answer) when it is executed again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    /// The id of the request this answers.
    pub id: String,
    /// Whether the request was granted.
    pub ok: bool,
    /// What the human supplied, if anything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Map<String, Value>>,
    /// Why a request was not granted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<Reason>,
}

impl Answer {
    /// Grants `request`: `ok`, with nothing supplied.
    ///
    /// ```
    /// use toolnexus::{Answer, Request};
    ///
    /// let request = Request::new("approval", "Delete a.txt?");
    /// let answer = Answer::approve(&request);
    /// assert_eq!((answer.id.as_str(), answer.ok), (request.id.as_str(), true));
    /// ```
    pub fn approve(request: &Request) -> Self {
        Self {
            id: request.id.clone(),
            ok: true,
            data: None,
            reason: None,
        }
    }

    /// Refuses `request`, saying why ([`Reason::Declined`] when the human said no).
    ///
    /// ```
    /// use toolnexus::{Answer, Reason, Request};
    ///
    /// let request = Request::new("approval", "Delete a.txt?");
    /// let answer = Answer::decline(&request, Reason::Declined);
    /// assert_eq!((answer.ok, answer.reason), (false, Some(Reason::Declined)));
    /// ```
    pub fn decline(request: &Request, reason: Reason) -> Self {
        Self {
            id: request.id.clone(),
            ok: false,
            data: None,
            reason: Some(reason),
        }
    }

    /// What the human supplied with the answer — a form's fields — which the tool reads from
    /// `ctx.answer` once it runs again. Checked against the request's `data.schema`, when it
    /// has one, before the tool runs (SPEC §10B).
    ///
    /// ```
    /// use toolnexus::serde_json::json;
    /// use toolnexus::{Answer, Request};
    ///
    /// let request = Request::new("input", "Which environment?");
    /// let fields = json!({"env": "staging"}).as_object().cloned().unwrap();
    /// let answer = Answer::approve(&request).with_data(fields);
    /// assert_eq!(answer.data.unwrap()["env"], "staging");
    /// ```
    #[must_use]
    pub fn with_data(mut self, data: Map<String, Value>) -> Self {
        self.data = Some(data);
        self
    }
}

/// Why a [`Request`] was not granted. Serialized lowercase: `"declined"`, `"cancelled"`, `"expired"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Reason {
    /// The human said no.
    Declined,
    /// The request was withdrawn.
    Cancelled,
    /// Nobody answered in time.
    Expired,
}

/// A suspended result: `output` is the prompt (plus `"\n" + url` when there is one),
/// `is_error` is `true` on purpose (no answer was produced) and `metadata.pending` holds the
/// request's wire form.
///
/// ```
/// use toolnexus::{pending, pending_of, Request};
///
/// let result = pending(Request::new("input", "Which environment?"));
/// assert_eq!(result.output, "Which environment?");
/// assert_eq!(pending_of(&result).unwrap().kind, "input");
/// ```
pub fn pending(request: Request) -> ToolResult {
    let output = match &request.url {
        Some(url) => format!("{}\n{url}", request.prompt),
        None => request.prompt.clone(),
    };
    let wire = serde_json::to_value(&request).expect("a Request always serializes");
    ToolResult::error(output).with_metadata("pending", wire)
}

/// A suspension asking the human to log in at `url`, with the standard prompt
/// `"Authorization required to continue"`.
pub fn auth_required(url: impl Into<String>) -> ToolResult {
    auth_required_with(url, "Authorization required to continue")
}

/// [`auth_required`] with a custom prompt.
pub fn auth_required_with(url: impl Into<String>, prompt: impl Into<String>) -> ToolResult {
    pending(Request::new("authorization", prompt).with_url(url))
}

/// The request a suspended result carries, or `None` for an ordinary result (or one whose
/// `metadata.pending` is not a valid request).
pub fn pending_of(result: &ToolResult) -> Option<Request> {
    result.pending()
}

/// Reading a suspension back (SPEC §1): the builder is [`pending`], the reader is this.
impl ToolResult {
    /// The suspension this result carries, if it is one (see [`pending`](crate::pending)).
    pub fn pending(&self) -> Option<Request> {
        Request::deserialize(self.metadata.get("pending")?).ok()
    }

    /// Whether this result is a suspension waiting on a human or another system.
    ///
    /// Suspensions also set `is_error` (they produced no answer); this tells the two apart.
    pub fn is_pending(&self) -> bool {
        self.pending().is_some()
    }
}

fn next_id() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let count = COUNTER.fetch_add(1, Ordering::Relaxed) + 1;
    let millis = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    format!("pnd-{}-{count}", base36(millis))
}

fn base36(mut n: u128) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).expect("base36 digits are ASCII")
}

#[cfg(test)]
mod tests {
    use crate::result::suspend::*;

    #[test]
    fn base36_matches_javascript_to_string_36() {
        assert_eq!(base36(0), "0");
        assert_eq!(base36(35), "z");
        assert_eq!(base36(36), "10");
        assert_eq!(base36(1_700_000_000_000), "loyw3v28");
    }
}
