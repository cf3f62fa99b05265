//! What goes wrong connecting: the error a caller sees, and why a connection is missing.

use std::fmt;

use crate::result::suspend::Request;

/// What went wrong connecting to a server or reading an `mcp.json`. The message names the
/// server (and, for a config file, the file and the field).
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let dir = std::env::temp_dir().join(format!("mcp-config-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("mcp.json");
/// std::fs::write(&path, r#"{"mcpServers": {"files": {"args": ["-y"]}}}"#).unwrap();
/// let error = toolnexus::mcp::McpTools::from_config(&path).await.unwrap_err();
/// assert_eq!(
///     error.to_string(),
///     format!("{}: server `files`: needs `command` (a stdio server) or `url` (an HTTP server)", path.display())
/// );
/// # });
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct McpClientError {
    message: String,
    sign_in: Option<Box<Request>>,
}

impl McpClientError {
    pub(super) fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            sign_in: None,
        }
    }

    /// The login the server asks for, when that is why it could not be connected to (an
    /// [`OAuthClient`](super::OAuthClient) was given and no token it holds is accepted): kind `"authorization"`,
    /// the authorization URL as `url`. Show it to the person, then hand the answer to
    /// [`OAuthClient::sign_in`](super::OAuthClient::sign_in) and connect again.
    pub fn pending(&self) -> Option<&Request> {
        self.sign_in.as_deref()
    }
}

impl fmt::Display for McpClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for McpClientError {}

/// Why there is no connection, and the login that would make one (when the server asked
/// for a sign-in an `OAuthClient` can start).
pub(crate) struct Unconnected {
    pub(crate) why: String,
    pub(crate) sign_in: Option<Request>,
    /// A new token was obtained on the spot (no person asked): connecting again may work.
    pub(crate) renewed: bool,
}

impl From<String> for Unconnected {
    fn from(why: String) -> Self {
        Self {
            why,
            sign_in: None,
            renewed: false,
        }
    }
}

impl From<Unconnected> for McpClientError {
    fn from(unconnected: Unconnected) -> Self {
        Self {
            message: unconnected.why,
            sign_in: unconnected.sign_in.map(Box::new),
        }
    }
}
