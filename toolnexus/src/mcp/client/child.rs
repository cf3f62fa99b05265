//! A stdio server as a client transport: the child's stdin and stdout, one JSON-RPC message
//! a line (read by the line reader the server reads with, `mcp::lines`).
//!
//! Not rmcp's `TokioChildProcess`: its transport skips a line it cannot read, so a server
//! that writes garbage would leave the calls in flight waiting for their deadline. Here a
//! line that is not a JSON-RPC message, or is past `MAX_LINE_BYTES`, ends the connection, and why is kept in [`Fault`] for
//! the message every call in flight then answers.

use std::collections::BTreeMap;
use std::io;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::RoleClient;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::io::AsyncWriteExt;
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use crate::mcp::lines::{Line, LineReader, MAX_LINE_BYTES};

/// Why a connection ended, when the transport saw it end (read by every call it fails).
pub(crate) type Fault = Arc<Mutex<Option<String>>>;

/// The transport of one spawned server process. Dropping it kills the process.
pub(crate) struct ChildTransport {
    child: Child,
    stdout: LineReader<ChildStdout>,
    stdin: Arc<tokio::sync::Mutex<ChildStdin>>,
    fault: Fault,
}

impl ChildTransport {
    /// Starts `command` with `args`, `env` added to this process's environment. Its stderr
    /// is this process's (a server logs there).
    pub(crate) fn spawn(
        command: &str,
        args: &[String],
        env: &BTreeMap<String, String>,
        fault: Fault,
    ) -> io::Result<Self> {
        let mut child = Command::new(command)
            .args(args)
            .envs(env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(io::Error::other("the child's stdio was not piped"));
        };
        Ok(Self {
            child,
            stdout: LineReader::new(stdout),
            stdin: Arc::new(tokio::sync::Mutex::new(stdin)),
            fault,
        })
    }

    fn fail(&self, why: String) {
        let mut fault = self
            .fault
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        fault.get_or_insert(why);
    }
}

impl Transport<RoleClient> for ChildTransport {
    type Error = io::Error;

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), io::Error>> + Send + 'static {
        let stdin = Arc::clone(&self.stdin);
        async move {
            let mut line = serde_json::to_vec(&item).map_err(io::Error::other)?;
            line.push(b'\n');
            let mut stdin = stdin.lock().await;
            stdin.write_all(&line).await?;
            stdin.flush().await
        }
    }

    async fn receive(&mut self) -> Option<ServerJsonRpcMessage> {
        loop {
            // Cancel-safe (rmcp selects over `receive`): the reader keeps a line read in part.
            match self.stdout.next().await {
                Ok(Line::Read(line)) if line.trim_ascii().is_empty() => continue,
                Ok(Line::Read(line)) => match serde_json::from_slice(&line) {
                    Ok(message) => return Some(message),
                    Err(_) => {
                        let shown = String::from_utf8_lossy(&line[..line.len().min(80)]);
                        self.fail(format!("wrote a line that is not JSON-RPC: `{shown}`"));
                    }
                },
                Ok(Line::TooLong) => self.fail(format!(
                    "could not be read: wrote a line longer than {MAX_LINE_BYTES} bytes"
                )),
                Ok(Line::End) => {
                    // Output ends a moment before the process does: wait for its status
                    // briefly, so the message can say how it ended.
                    let exited =
                        tokio::time::timeout(Duration::from_millis(500), self.child.wait()).await;
                    let status = match exited {
                        Ok(Ok(status)) => format!("exited ({status})"),
                        _ => "closed its stdout".to_owned(),
                    };
                    self.fail(status);
                }
                Err(error) => self.fail(format!("could not be read: {error}")),
            }
            let _ = self.child.start_kill();
            return None;
        }
    }

    async fn close(&mut self) -> Result<(), io::Error> {
        let _ = self.child.start_kill();
        Ok(())
    }
}
