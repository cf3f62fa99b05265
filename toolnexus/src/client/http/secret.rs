//! The API key as a value that never prints: its `Debug` is `ApiKey(<redacted>)`.

use std::fmt;

/// An API key. Its `Debug` hides it, so a `{:?}` of an [`HttpModel`](super::HttpModel), a
/// `Client` or any error holding one never shows it; it is only ever read into a request header.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct ApiKey(String);

impl ApiKey {
    /// Keeps `key`.
    pub(crate) fn new(key: impl Into<String>) -> Self {
        Self(key.into())
    }

    /// The key itself, for the one header it goes in.
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(<redacted>)")
    }
}
