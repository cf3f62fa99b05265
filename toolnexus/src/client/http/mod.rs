//! The four model APIs over HTTPS (feature `client`, SPEC §16 "Transport"): [`HttpModel`], one
//! POST per turn on hyper and rustls (ring), whole or as server-sent events.

mod endpoint;
mod fault;
mod secret;
mod settings;
mod transport;
mod turn;

use std::fmt;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use serde_json::{Map, Value};

use crate::client::model::ModelError;
use crate::provider::tool_call::Api;

use secret::ApiKey;
use transport::Transport;

/// How long one read may wait by default: for the answer's headers, or for the next bytes of
/// its body or stream. Long, because a reasoning model may think for minutes before its
/// first byte; a stream that stops sending for longer is an error, never a hang.
const DEFAULT_READ_TIMEOUT: Duration = Duration::from_secs(300);

/// One of the four APIs over HTTPS, for one model: what [`Client::new`](crate::client::Client::new)
/// runs on (SPEC §16). A [`Model`](crate::client::Model): one POST per turn to the API's own
/// endpoint, its answer read whole ([`reply`](crate::client::Model::reply)) or as server-sent
/// events ([`stream`](crate::client::Model::stream)).
///
/// | API | URL | key header |
/// |---|---|---|
/// | [`Api::OpenAiChat`] | `{base}/chat/completions` | `Authorization: Bearer` |
/// | [`Api::OpenAiResponses`] | `{base}/responses` | `Authorization: Bearer` |
/// | [`Api::Anthropic`] | `{base}/v1/messages` | `x-api-key` (and `anthropic-version: 2023-06-01`) |
/// | [`Api::Gemini`] | `{base}/v1beta/models/{model}:generateContent` (streamed `:streamGenerateContent?alt=sse`) | `x-goog-api-key` |
///
/// `base` defaults to the provider's own SDK's (`https://api.openai.com/v1`,
/// `https://api.anthropic.com`, `https://generativelanguage.googleapis.com`); any
/// OpenAI-compatible server (Ollama, vLLM, llama.cpp) is [`Api::OpenAiChat`] with its
/// [`base_url`](Self::base_url) and no key.
///
/// Faults are classified, not retried here (the run retries): 429, 5xx, a dropped connection
/// and a timeout are [`retryable`](ModelError::retryable), with `Retry-After` (seconds or an
/// HTTP date, at most 60 s) as [`retry_after`](ModelError::retry_after); any other status is
/// fatal with the provider's own error message; a body or stream of the wrong shape, or one
/// that ends early, is fatal. The key is in no error and no `Debug`:
///
/// ```
/// use toolnexus::Api;
/// use toolnexus::client::HttpModel;
///
/// let model = HttpModel::new(Api::Anthropic, "claude-sonnet-4-5").api_key("sk-ant-secret");
/// assert!(!format!("{model:?}").contains("sk-ant-secret"));
/// ```
#[derive(Clone)]
pub struct HttpModel {
    api: Api,
    model: String,
    base_url: String,
    api_key: Option<ApiKey>,
    headers: Vec<(String, String)>,
    params: Map<String, Value>,
    read_timeout: Duration,
    /// Built on the first turn, once the settings above are final.
    http: Arc<OnceLock<Result<Transport, String>>>,
}

impl HttpModel {
    /// `model` on `api`, at the provider's own base URL, with no key yet.
    pub fn new(api: Api, model: impl Into<String>) -> Self {
        Self {
            api,
            model: model.into(),
            base_url: endpoint::default_base_url(api).to_owned(),
            api_key: None,
            headers: Vec::new(),
            params: Map::new(),
            read_timeout: DEFAULT_READ_TIMEOUT,
            http: Arc::default(),
        }
    }

    /// Sends to `url` instead of the provider's own base URL: the part before the API's path
    /// (`http://127.0.0.1:11434/v1` for Ollama's OpenAI-compatible API).
    #[must_use]
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = url.into();
        self.fresh()
    }

    /// Signs each request with `key`, in the API's own header.
    #[must_use]
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(ApiKey::new(key));
        self
    }

    /// Signs each request with the key in the environment variable `name`.
    ///
    /// # Errors
    /// [`MissingApiKey`] naming `name` when it is unset or empty (or not Unicode).
    pub fn api_key_env(self, name: &str) -> Result<Self, MissingApiKey> {
        match std::env::var(name) {
            Ok(key) if !key.is_empty() => Ok(self.api_key(key)),
            _ => Err(MissingApiKey {
                variable: name.to_owned(),
            }),
        }
    }

    /// Adds a header to every request (`OpenAI-Organization`, `anthropic-beta`, …). Its value
    /// never appears in `Debug`; a name or value HTTP refuses fails each turn with an error
    /// naming the header.
    #[must_use]
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Sets a top-level field of every request body (`temperature`, `reasoning`,
    /// `generationConfig`, …), replacing the one the request would otherwise have.
    #[must_use]
    pub fn request_param(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.params.insert(key.into(), value.into());
        self
    }

    /// How long one read may wait — for the answer's headers or the next bytes of its body or
    /// stream — before the turn fails as a (retryable) timeout. Default five minutes.
    #[must_use]
    pub fn read_timeout(mut self, timeout: Duration) -> Self {
        self.read_timeout = timeout;
        self.fresh()
    }

    /// A new connection pool for changed settings (clones made before keep theirs).
    fn fresh(mut self) -> Self {
        self.http = Arc::default();
        self
    }

    /// The connection pool, built on first use.
    fn http(&self) -> Result<&Transport, ModelError> {
        self.http
            .get_or_init(|| Transport::new(self.read_timeout))
            .as_ref()
            .map_err(|message| ModelError::fatal(message.clone()))
    }
}

impl fmt::Debug for HttpModel {
    /// Header values are left out: a user may put a credential in one.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let header_names: Vec<&str> = self.headers.iter().map(|(name, _)| name.as_str()).collect();
        f.debug_struct("HttpModel")
            .field("api", &self.api)
            .field("model", &self.model)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key)
            .field("headers", &header_names)
            .field("params", &self.params)
            .field("read_timeout", &self.read_timeout)
            .finish_non_exhaustive()
    }
}

/// An API key's environment variable is unset: [`HttpModel::api_key_env`]'s (and
/// [`Client::api_key_env`](crate::client::Client::api_key_env)'s) error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MissingApiKey {
    /// The variable read.
    pub variable: String,
}

impl fmt::Display for MissingApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the environment variable {} is not set", self.variable)
    }
}

impl std::error::Error for MissingApiKey {}
