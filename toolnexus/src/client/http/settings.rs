//! [`Client`]'s HTTP settings (feature `client`): `Client::new(api, model)` on an
//! [`HttpModel`], and the builder methods that configure it.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::client::Client;
use crate::client::http::{HttpModel, MissingApiKey};
use crate::provider::tool_call::Api;

impl Client {
    /// A client for `model` on one of the four HTTP APIs (feature `client`): an
    /// [`HttpModel`] at the provider's own base URL, with no key until
    /// [`api_key`](Self::api_key) or [`api_key_env`](Self::api_key_env) sets one.
    ///
    /// ```
    /// use toolnexus::Api;
    /// use toolnexus::client::Client;
    ///
    /// let local = Client::new(Api::OpenAiChat, "qwen3:8b").base_url("http://127.0.0.1:11434/v1");
    /// assert_eq!(local.model().name(), "qwen3:8b");
    /// ```
    pub fn new(api: Api, model: impl Into<String>) -> Self {
        let http = HttpModel::new(api, model);
        let mut client = Self::with_model(http.clone());
        client.http = Some(http);
        client
    }

    /// Sends to `url` instead of the provider's own base URL ([`HttpModel::base_url`]).
    ///
    /// This and the other HTTP settings below configure the model [`new`](Self::new) made; a
    /// client made by [`with_model`](Self::with_model) has no HTTP model, and they leave it
    /// as it is.
    #[must_use]
    pub fn base_url(self, url: impl Into<String>) -> Self {
        self.http_setting(|http| http.base_url(url))
    }

    /// Signs each request with `key` ([`HttpModel::api_key`]); it appears in no error, no
    /// `Debug` and no span.
    #[must_use]
    pub fn api_key(self, key: impl Into<String>) -> Self {
        self.http_setting(|http| http.api_key(key))
    }

    /// Signs each request with the key in the environment variable `name`.
    ///
    /// # Errors
    /// [`MissingApiKey`] naming `name` when it is unset or empty.
    ///
    /// ```
    /// use toolnexus::Api;
    /// use toolnexus::client::Client;
    ///
    /// let error = Client::new(Api::Anthropic, "claude-sonnet-4-5")
    ///     .api_key_env("TOOLNEXUS_DOC_UNSET_KEY")
    ///     .unwrap_err();
    /// assert_eq!(error.to_string(), "the environment variable TOOLNEXUS_DOC_UNSET_KEY is not set");
    /// ```
    pub fn api_key_env(self, name: &str) -> Result<Self, MissingApiKey> {
        match &self.http {
            Some(http) => {
                let http = http.clone().api_key_env(name)?;
                Ok(self.http_setting(|_| http))
            }
            None => Ok(self),
        }
    }

    /// Adds a header to every request ([`HttpModel::header`]).
    #[must_use]
    pub fn header(self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.http_setting(|http| http.header(name, value))
    }

    /// Sets a top-level field of every request body (`temperature`, `reasoning`, …;
    /// [`HttpModel::request_param`]).
    #[must_use]
    pub fn request_param(self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.http_setting(|http| http.request_param(key, value))
    }

    /// How long one read of a model's answer may wait ([`HttpModel::read_timeout`]).
    #[must_use]
    pub fn read_timeout(self, timeout: Duration) -> Self {
        self.http_setting(|http| http.read_timeout(timeout))
    }

    /// Changes the HTTP model, which the client then sends its turns to.
    fn http_setting(mut self, change: impl FnOnce(HttpModel) -> HttpModel) -> Self {
        if let Some(http) = self.http.take() {
            let http = change(http);
            self.model = Arc::new(http.clone());
            self.http = Some(http);
        }
        self
    }
}
