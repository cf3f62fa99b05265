//! What a turn's tool calls are made of, shared by every API's reader and writer in
//! `provider/`: [`Api`], [`ToolCall`], [`ResponseError`], and [`Reader`], which walks a
//! response body and names the path of anything of the wrong shape.

use std::fmt;

use serde_json::{Map, Value};

/// A provider API whose tool calls and results this crate reads and writes.
///
/// One of three provider enums, each answering a different question: `Api` is the shape of a
/// whole turn (a response body in, the messages that answer it out: [`tool_calls`](crate::tool_calls),
/// [`tool_results`](crate::tool_results)); [`Profile`](crate::Profile) is the schema dialect a
/// tool's definition is written in, which a provider can be sent in more than one of (Gemini's
/// OpenAPI subset or its JSON Schema, Anthropic's plain or strict); and
/// [`Style`](crate::parts::Style) is the content-block vocabulary one part is encoded in,
/// which two APIs can share.
///
/// Serde data as `"openAiChat"`, `"openAiResponses"`, `"anthropic"`, `"gemini"`, so a stored
/// transcript says which API a reply came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Api {
    /// OpenAI Chat Completions (`POST /v1/chat/completions`).
    OpenAiChat,
    /// OpenAI Responses (`POST /v1/responses`).
    OpenAiResponses,
    /// Anthropic Messages (`POST /v1/messages`).
    Anthropic,
    /// Gemini `generateContent`.
    Gemini,
}

impl Api {
    /// Every API, in declaration order.
    pub const ALL: [Api; 4] = [
        Api::OpenAiChat,
        Api::OpenAiResponses,
        Api::Anthropic,
        Api::Gemini,
    ];
}

impl fmt::Display for Api {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Api::OpenAiChat => "OpenAI Chat Completions",
            Api::OpenAiResponses => "OpenAI Responses",
            Api::Anthropic => "Anthropic Messages",
            Api::Gemini => "Gemini",
        })
    }
}

/// One tool call a model asked for: plain fields, so callers can build one. Serde data
/// (`{"id", "name", "arguments"}`), as a stored transcript holds it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ToolCall {
    /// The id its result must echo (Chat `id`, Responses `call_id`, Anthropic `id`, Gemini
    /// `id` or a synthesized `call_<index>`).
    pub id: String,
    /// The tool's name, as the model sent it.
    pub name: String,
    /// The arguments as raw JSON text, what [`Toolkit::execute_json`](crate::Toolkit::execute_json)
    /// takes: OpenAI's text as sent; Anthropic's and Gemini's object re-serialized.
    pub arguments: String,
}

/// A response body that is not in the shape its API returns: which API, where, and what was
/// expected there.
///
/// ```
/// use toolnexus::serde_json::json;
/// use toolnexus::{Api, tool_calls};
///
/// let error = tool_calls(Api::OpenAiChat, &json!({"choices": [{"message": {"tool_calls": 7}}]})).unwrap_err();
/// assert_eq!(error.path(), "choices[0].message.tool_calls");
/// assert_eq!(
///     error.to_string(),
///     "OpenAI Chat Completions response: `choices[0].message.tool_calls` should be an array, found a number"
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResponseError {
    api: Api,
    path: String,
    expected: &'static str,
    found: &'static str,
    /// What went wrong when it is not a value of the wrong shape: a stream that ended early,
    /// an event that is not JSON, an error event the provider sent.
    problem: Option<String>,
}

impl ResponseError {
    /// The API whose response was read.
    pub fn api(&self) -> Api {
        self.api
    }

    /// Where the body went wrong, e.g. `output[2].call_id` (empty for the body itself).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// What the API puts there, e.g. `a string`.
    pub fn expected(&self) -> &str {
        self.expected
    }

    /// A reply that went wrong other than by a value's shape (`problem` says how): a stream
    /// cut short, an event that is not JSON, the provider's own error event.
    pub(crate) fn stream(api: Api, problem: impl Into<String>) -> Self {
        Self {
            api,
            path: String::new(),
            expected: "a whole reply",
            found: "something else",
            problem: Some(problem.into()),
        }
    }
}

impl fmt::Display for ResponseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(problem) = &self.problem {
            return write!(f, "{} response: {problem}", self.api);
        }
        let place = if self.path.is_empty() {
            "the body".to_owned()
        } else {
            format!("`{}`", self.path)
        };
        write!(
            f,
            "{} response: {place} should be {}, found {}",
            self.api, self.expected, self.found
        )
    }
}

impl std::error::Error for ResponseError {}

/// A place in a response body, with its path, for reading it without panicking: each step
/// names what the API puts there, and a mismatch becomes a [`ResponseError`] at that path.
#[derive(Clone, Copy)]
pub(crate) struct Reader<'a> {
    api: Api,
    value: Option<&'a Value>,
    parent: Option<&'a Reader<'a>>,
    step: Step<'a>,
}

#[derive(Clone, Copy)]
enum Step<'a> {
    Root,
    Key(&'a str),
    Index(usize),
}

impl<'a> Reader<'a> {
    pub(crate) fn root(api: Api, value: &'a Value) -> Self {
        Self {
            api,
            value: Some(value),
            parent: None,
            step: Step::Root,
        }
    }

    /// The value here, `None` when absent (or `null`, which the APIs send for "none").
    pub(crate) fn value(&self) -> Option<&'a Value> {
        self.value.filter(|value| !value.is_null())
    }

    /// The member `key` of this object (absent when this is absent).
    pub(crate) fn key<'b>(&'b self, key: &'b str) -> Reader<'b> {
        self.child(self.value.and_then(|value| value.get(key)), Step::Key(key))
    }

    fn child<'b>(&'b self, value: Option<&'b Value>, step: Step<'b>) -> Reader<'b> {
        Reader {
            api: self.api,
            value,
            parent: Some(self),
            step,
        }
    }

    /// The elements of this array, each with its path; absent ⇒ none.
    pub(crate) fn items<'b>(&'b self) -> Result<Vec<Reader<'b>>, ResponseError> {
        match self.value() {
            None => Ok(Vec::new()),
            Some(Value::Array(items)) => Ok(items
                .iter()
                .enumerate()
                .map(|(at, item)| self.child(Some(item), Step::Index(at)))
                .collect()),
            Some(other) => Err(self.error("an array", Some(other))),
        }
    }

    /// This array's first element, an object the API always sends.
    pub(crate) fn first<'b>(&'b self) -> Result<Reader<'b>, ResponseError> {
        let item = self.required_array()?.first();
        let item = self.child(item, Step::Index(0));
        item.required_object()?;
        Ok(item)
    }

    fn required_array(&self) -> Result<&'a Vec<Value>, ResponseError> {
        match self.value() {
            Some(Value::Array(items)) => Ok(items),
            other => Err(self.error("an array", other)),
        }
    }

    /// This object, which the API always sends.
    pub(crate) fn required_object(&self) -> Result<&'a Map<String, Value>, ResponseError> {
        match self.value() {
            Some(Value::Object(map)) => Ok(map),
            other => Err(self.error("an object", other)),
        }
    }

    /// This object, or `None` when absent.
    pub(crate) fn object(&self) -> Result<Option<&'a Map<String, Value>>, ResponseError> {
        match self.value() {
            None => Ok(None),
            Some(Value::Object(map)) => Ok(Some(map)),
            Some(other) => Err(self.error("an object", Some(other))),
        }
    }

    /// This string, which the API always sends.
    pub(crate) fn string(&self) -> Result<&'a str, ResponseError> {
        match self.value() {
            Some(Value::String(text)) => Ok(text),
            other => Err(self.error("a string", other)),
        }
    }

    /// This string, or `None` when absent.
    pub(crate) fn optional_string(&self) -> Result<Option<&'a str>, ResponseError> {
        match self.value() {
            None => Ok(None),
            Some(Value::String(text)) => Ok(Some(text)),
            Some(other) => Err(self.error("a string", Some(other))),
        }
    }

    /// Arguments sent as text: the text as is; an object serialized; absent ⇒ empty text
    /// (which [`execute_json`](crate::Toolkit::execute_json) reads as `{}`).
    pub(crate) fn arguments_text(&self) -> Result<String, ResponseError> {
        match self.value() {
            None => Ok(String::new()),
            Some(Value::String(text)) => Ok(text.clone()),
            Some(object @ Value::Object(_)) => Ok(object.to_string()),
            Some(other) => Err(self.error("a string of JSON or an object", Some(other))),
        }
    }

    /// Arguments sent as an object, serialized; absent ⇒ `{}` when `optional`.
    pub(crate) fn arguments_object(&self, optional: bool) -> Result<String, ResponseError> {
        match self.value() {
            None if optional => Ok("{}".to_owned()),
            Some(object @ Value::Object(_)) => Ok(object.to_string()),
            other => Err(self.error("an object", other)),
        }
    }

    /// This count of tokens (a non-negative integer), or 0 when absent.
    pub(crate) fn count(&self) -> Result<u64, ResponseError> {
        match self.value() {
            None => Ok(0),
            Some(Value::Number(number)) if number.as_u64().is_some() => {
                Ok(number.as_u64().unwrap_or_default())
            }
            Some(other) => Err(self.error("a count", Some(other))),
        }
    }

    /// Whether this object's `type` is `kind`; a missing or non-string `type` is an error.
    pub(crate) fn is_type(&self, kind: &str) -> Result<bool, ResponseError> {
        self.required_object()?;
        Ok(self.key("type").string()? == kind)
    }

    pub(crate) fn error(&self, expected: &'static str, found: Option<&Value>) -> ResponseError {
        ResponseError {
            api: self.api,
            path: self.path(),
            expected,
            problem: None,
            found: match found {
                None if self.value.is_some() => "null",
                None => "nothing",
                Some(value) => crate::decode::json_kind(value),
            },
        }
    }

    fn path(&self) -> String {
        let mut steps = Vec::new();
        let mut at = Some(self);
        while let Some(reader) = at {
            steps.push(reader.step);
            at = reader.parent;
        }
        let mut path = String::new();
        for step in steps.into_iter().rev() {
            match step {
                Step::Root => {}
                Step::Key(key) if path.is_empty() => path.push_str(key),
                Step::Key(key) => {
                    path.push('.');
                    path.push_str(key);
                }
                Step::Index(at) => path.push_str(&format!("[{at}]")),
            }
        }
        path
    }
}
