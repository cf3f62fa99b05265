//! The builders of a connection: headers for an HTTP server, the environment of a stdio one.

use std::collections::BTreeMap;
use std::path::Path;

use super::config::{Endpoint, host_of};
use super::{McpClientError, McpTools, OAuthClient};

/// Builds a connection to a streamable HTTP server: [`McpTools::http`], then headers, then
/// [`connect`](Self::connect).
#[derive(Clone, Debug)]
#[must_use]
pub struct HttpBuilder {
    pub(super) name: Option<String>,
    pub(super) url: String,
    pub(super) headers: BTreeMap<String, String>,
    pub(super) revision: Option<String>,
    pub(super) oauth: Option<OAuthClient>,
}

impl HttpBuilder {
    /// Signs in with `client` when the server asks (a `401` naming its authorization
    /// server): see [`OAuthClient`]. A connection that needs a login fails with the login as
    /// [`McpClientError::pending`]; a call that needs one suspends with it.
    pub fn oauth(mut self, client: OAuthClient) -> Self {
        self.oauth = Some(client);
        self
    }

    /// Sends `Authorization: Bearer <token>` with every request.
    pub fn bearer_token(self, token: impl Into<String>) -> Self {
        self.header("Authorization", format!("Bearer {}", token.into()))
    }

    /// Sends `name: value` with every request.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.insert(name.into(), value.into());
        self
    }

    /// The server's name in messages (default: the URL's host and port).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Speaks only `revision` (e.g. `"2025-06-18"`) instead of trying 2026-07-28 first;
    /// an unknown revision is refused by [`connect`](Self::connect).
    pub fn protocol_version(mut self, revision: &str) -> Self {
        self.revision = Some(revision.to_owned());
        self
    }

    /// Connects, and reads the server's tools.
    pub async fn connect(self) -> Result<McpTools, McpClientError> {
        let name = self.name.unwrap_or_else(|| host_of(&self.url));
        let endpoint = Endpoint::Http {
            url: self.url,
            headers: self.headers,
        };
        McpTools::start(name, endpoint, self.revision, self.oauth).await
    }
}

/// Builds a connection to a stdio server: [`McpTools::command`], then its environment, then
/// [`connect`](Self::connect).
#[derive(Clone, Debug)]
#[must_use]
pub struct StdioBuilder {
    pub(super) name: Option<String>,
    pub(super) command: String,
    pub(super) args: Vec<String>,
    pub(super) env: BTreeMap<String, String>,
    pub(super) revision: Option<String>,
}

impl StdioBuilder {
    /// Sets `key=value` in the server's environment (beside this process's).
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.insert(key.into(), value.into());
        self
    }

    /// The server's name in messages (default: the command's file name).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Speaks only `revision` (e.g. `"2025-06-18"`) instead of trying 2026-07-28 first.
    pub fn protocol_version(mut self, revision: &str) -> Self {
        self.revision = Some(revision.to_owned());
        self
    }

    /// Starts the server, and reads its tools.
    pub async fn connect(self) -> Result<McpTools, McpClientError> {
        let name = self.name.unwrap_or_else(|| {
            Path::new(&self.command).file_name().map_or_else(
                || self.command.clone(),
                |name| name.to_string_lossy().into_owned(),
            )
        });
        let endpoint = Endpoint::Stdio {
            command: self.command,
            args: self.args,
            env: self.env,
        };
        McpTools::start(name, endpoint, self.revision, None).await
    }
}
