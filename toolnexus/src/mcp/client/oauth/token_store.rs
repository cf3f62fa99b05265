//! Where signed-in tokens are kept: the [`TokenStore`] trait, in memory or in a file.

use std::collections::BTreeMap;
use std::fmt;
use std::io;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use rmcp::transport::auth::{AuthError, CredentialStore, StoredCredentials};

/// Keeps the tokens of each MCP server an [`OAuthClient`](super::OAuthClient) signed in to.
///
/// Each entry is keyed by the server's URL (the resource the tokens were issued for) and
/// holds an opaque JSON text: the client id, the access and refresh tokens, the scopes
/// granted and when. Treat it as a secret. A store is called from async code and should be
/// quick (a file, a keychain); it is never asked for a key it was not given.
///
/// [`MemoryTokenStore`] is the default; [`FileTokenStore`] keeps tokens across runs.
///
/// ```
/// use toolnexus::mcp::{MemoryTokenStore, TokenStore};
///
/// let store = MemoryTokenStore::default();
/// store.save("http://127.0.0.1:8765/mcp", "{}").unwrap();
/// assert_eq!(store.load("http://127.0.0.1:8765/mcp").unwrap().as_deref(), Some("{}"));
/// assert_eq!(store.load("http://elsewhere/mcp").unwrap(), None);
/// ```
pub trait TokenStore: Send + Sync + 'static {
    /// The entry kept for `resource`, if any.
    fn load(&self, resource: &str) -> io::Result<Option<String>>;
    /// Keeps `tokens` for `resource`, replacing what was there.
    fn save(&self, resource: &str, tokens: &str) -> io::Result<()>;
    /// Forgets what is kept for `resource`.
    fn clear(&self, resource: &str) -> io::Result<()>;
}

/// Tokens in this process's memory only, gone when it exits (the default store).
#[derive(Debug, Default, Clone)]
pub struct MemoryTokenStore {
    entries: Arc<Mutex<BTreeMap<String, String>>>,
}

impl TokenStore for MemoryTokenStore {
    fn load(&self, resource: &str) -> io::Result<Option<String>> {
        Ok(self.lock().get(resource).cloned())
    }

    fn save(&self, resource: &str, tokens: &str) -> io::Result<()> {
        self.lock().insert(resource.to_owned(), tokens.to_owned());
        Ok(())
    }

    fn clear(&self, resource: &str) -> io::Result<()> {
        self.lock().remove(resource);
        Ok(())
    }
}

impl MemoryTokenStore {
    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, String>> {
        self.entries.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Tokens in one JSON file (`{resource: entry}`), readable and writable by its owner only.
///
/// On Unix the file is created with mode `0600` and every save replaces it through a new
/// `0600` file renamed over it, so no moment exposes it to other users; a file found with
/// wider permissions is narrowed on the next save. (On other systems the file inherits its
/// directory's access rules.) A file that is not such a JSON object is an error, never
/// silently overwritten.
///
/// ```
/// use toolnexus::mcp::{FileTokenStore, TokenStore};
///
/// let path = std::env::temp_dir().join(format!("tokens-doc-{}.json", std::process::id()));
/// let store = FileTokenStore::new(&path);
/// store.save("http://127.0.0.1:8765/mcp", "{}").unwrap();
/// assert_eq!(FileTokenStore::new(&path).load("http://127.0.0.1:8765/mcp").unwrap().as_deref(), Some("{}"));
/// # std::fs::remove_file(&path).unwrap();
/// ```
#[derive(Debug, Clone)]
pub struct FileTokenStore {
    path: PathBuf,
}

/// One writer at a time in this process, whichever store it goes through, so no save is
/// lost to another's read-modify-write. (Processes sharing a file are not coordinated.)
static WRITING: Mutex<()> = Mutex::new(());

impl FileTokenStore {
    /// A store in the file at `path` (created on the first save).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self { path: path.into() }
    }

    fn read(&self) -> io::Result<BTreeMap<String, String>> {
        match std::fs::read_to_string(&self.path) {
            // Where it broke, not serde's message, which can quote a token.
            Ok(text) => serde_json::from_str(&text).map_err(|error| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "{}: not a token file (line {}, column {})",
                        self.path.display(),
                        error.line(),
                        error.column()
                    ),
                )
            }),
            Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(BTreeMap::new()),
            Err(error) => Err(error),
        }
    }

    fn write(&self, entries: &BTreeMap<String, String>) -> io::Result<()> {
        let text = serde_json::to_string_pretty(entries).map_err(io::Error::other)?;
        // One writer per process at a time (`WRITING`): the process id makes the name its own.
        let mut fresh = self.path.clone().into_os_string();
        fresh.push(format!(".{}.tmp", std::process::id()));
        let fresh = PathBuf::from(fresh);
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let written = (|| {
            use std::io::Write;
            let mut file = options.open(&fresh)?;
            // `mode` applies only to a file it creates: a leftover one is narrowed too.
            #[cfg(unix)]
            std::fs::set_permissions(&fresh, std::os::unix::fs::PermissionsExt::from_mode(0o600))?;
            file.write_all(text.as_bytes())?;
            file.sync_all()
        })();
        match written.and_then(|()| std::fs::rename(&fresh, &self.path)) {
            Ok(()) => Ok(()),
            Err(error) => {
                let _ = std::fs::remove_file(&fresh);
                Err(error)
            }
        }
    }

    fn change(&self, edit: impl FnOnce(&mut BTreeMap<String, String>)) -> io::Result<()> {
        let _one_writer = WRITING.lock().unwrap_or_else(|p| p.into_inner());
        let mut entries = self.read()?;
        edit(&mut entries);
        self.write(&entries)
    }
}

impl TokenStore for FileTokenStore {
    fn load(&self, resource: &str) -> io::Result<Option<String>> {
        Ok(self.read()?.remove(resource))
    }

    fn save(&self, resource: &str, tokens: &str) -> io::Result<()> {
        self.change(|entries| {
            entries.insert(resource.to_owned(), tokens.to_owned());
        })
    }

    fn clear(&self, resource: &str) -> io::Result<()> {
        self.change(|entries| {
            entries.remove(resource);
        })
    }
}

/// One server's entry of a [`TokenStore`], as rmcp's credential store: every token rmcp
/// keeps for the connection to `resource` goes here, and only here.
pub(super) struct Entry {
    pub(super) store: Arc<dyn TokenStore>,
    pub(super) resource: String,
}

impl fmt::Debug for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Entry")
            .field("resource", &self.resource)
            .finish_non_exhaustive()
    }
}

fn store_error(error: impl fmt::Display) -> AuthError {
    AuthError::CredentialStoreError(format!("token store: {error}"))
}

/// An entry that does not parse, said without quoting it: serde's messages can quote the
/// value they choked on, which may be a token.
fn unreadable(error: &serde_json::Error) -> AuthError {
    store_error(format_args!(
        "an entry that is not tokens (line {}, column {})",
        error.line(),
        error.column()
    ))
}

#[async_trait::async_trait]
impl CredentialStore for Entry {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        match self.store.load(&self.resource).map_err(store_error)? {
            None => Ok(None),
            Some(text) => serde_json::from_str(&text)
                .map(Some)
                .map_err(|error| unreadable(&error)),
        }
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        let text = serde_json::to_string(&credentials).map_err(store_error)?;
        self.store.save(&self.resource, &text).map_err(store_error)
    }

    async fn clear(&self) -> Result<(), AuthError> {
        self.store.clear(&self.resource).map_err(store_error)
    }
}
