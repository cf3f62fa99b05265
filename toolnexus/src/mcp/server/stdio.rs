//! The line transport [`serve_stdio`](super::serve_stdio) runs on: one JSON-RPC message a
//! line, and an error reply for every line that cannot be read.

use std::collections::HashMap;
use std::fmt;
use std::io;
use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::model::{
    ClientJsonRpcMessage, GetExtensions, ServerJsonRpcMessage, ServerNotification, ServerResult,
};
use rmcp::transport::Transport;
use serde_json::Value;
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::Mutex;

use super::incoming::{self, Head, INVALID_REQUEST, Screened};
use super::suspend::Connection;
use super::tasks::with_core_tasks_capability;
use crate::mcp::lines::{Line, LineReader, MAX_LINE_BYTES};

/// An MCP transport over a byte stream with one JSON-RPC message a line — stdio's framing —
/// for any reader and writer: stdin and stdout, a socket, an in-process pipe.
///
/// Unlike rmcp's own, it answers every line it cannot read instead of dropping it, so a
/// client never waits on an answer that will not come: text that is not JSON gets `-32700`,
/// JSON that is not a JSON-RPC message `-32600` (with the message's `id` when one can be
/// read, `null` otherwise), and so does a line over [`MAX_LINE_BYTES`](crate::mcp::MAX_LINE_BYTES). A `tools/call`'s
/// `arguments` are read as the text sent, so a key given twice or arguments that are not an
/// object come back as the `isError` result
/// [`Toolkit::execute_json`](crate::Toolkit::execute_json) gives for them. A `tools/call`
/// retry whose `requestState` or `inputResponses` has the wrong JSON type gets `-32602`. Each
/// transport is one connection: a 2026-07-28 `requestState` issued on it opens on it only
/// (SPEC §10B).
///
/// ```
/// use toolnexus::{Toolkit, mcp::{LineTransport, McpServer}};
/// use toolnexus::mcp::ServiceExt;
/// use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let (client, server) = tokio::io::duplex(4096);
/// let (server_read, server_write) = tokio::io::split(server);
/// tokio::spawn(McpServer::new(Toolkit::new()).serve(LineTransport::new(server_read, server_write)));
/// let (client_read, mut client_write) = tokio::io::split(client);
/// client_write.write_all(b"not json\n").await.unwrap();
/// let mut reply = String::new();
/// BufReader::new(client_read).read_line(&mut reply).await.unwrap();
/// assert!(reply.contains(r#""id":null"#) && reply.contains("-32700"), "{reply}");
/// # });
/// ```
pub struct LineTransport<R, W> {
    lines: LineReader<R>,
    writer: Arc<Mutex<W>>,
    /// The error reply for the last unreadable line, not yet handed to a writer.
    pending: Option<Vec<u8>>,
    /// The writer of the last error reply: one at a time, so a client that sends garbage
    /// without reading cannot pile replies up.
    replying: Option<tokio::task::JoinHandle<()>>,
    /// Tagged on every request read, so a sealed `requestState` is bound to this connection
    /// (SPEC §10B: stdio has no session id, and a connection is one client).
    connection: Connection,
    /// The task ids each `subscriptions/listen` read asked for, by request id, until its
    /// acknowledgment names them.
    listens: Arc<std::sync::Mutex<HashMap<String, Vec<String>>>>,
}

impl<R, W> fmt::Debug for LineTransport<R, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LineTransport").finish_non_exhaustive()
    }
}

impl<R: tokio::io::AsyncRead + Unpin, W> LineTransport<R, W> {
    /// Reads messages from `reader`, writes them to `writer`.
    pub fn new(reader: R, writer: W) -> Self {
        Self {
            lines: LineReader::new(reader),
            writer: Arc::new(Mutex::new(writer)),
            pending: None,
            replying: None,
            connection: Connection::new(),
            listens: Arc::default(),
        }
    }
}

impl<R, W> Transport<RoleServer> for LineTransport<R, W>
where
    R: tokio::io::AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), io::Error>> + Send + 'static {
        let writer = Arc::clone(&self.writer);
        let listens = Arc::clone(&self.listens);
        async move {
            let line = match &item {
                ServerJsonRpcMessage::Notification(notification)
                    if matches!(
                        notification.notification,
                        ServerNotification::SubscriptionsAcknowledgedNotification(_)
                    ) =>
                {
                    let mut message = serde_json::to_value(&item).map_err(io::Error::other)?;
                    let id = message["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"]
                        .to_string();
                    let ids = listens
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .remove(&id);
                    if let Some(ids) = ids {
                        incoming::acknowledged(&mut message, &ids);
                    }
                    serde_json::to_vec(&message)
                }
                ServerJsonRpcMessage::Response(response)
                    if matches!(response.result, ServerResult::InitializeResult(_)) =>
                {
                    let mut message = serde_json::to_value(&item).map_err(io::Error::other)?;
                    with_core_tasks_capability(&mut message);
                    serde_json::to_vec(&message)
                }
                _ => serde_json::to_vec(&item),
            };
            write_line(&writer, line.map_err(io::Error::other)?).await
        }
    }

    // Cancel-safe, as rmcp needs: every await (the previous reply's writer, the line reader)
    // can be dropped and polled again with nothing lost.
    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            if self.pending.is_some() {
                if let Some(replying) = self.replying.as_mut() {
                    let _ = replying.await;
                    self.replying = None;
                }
                if let Some(reply) = self.pending.take() {
                    let writer = Arc::clone(&self.writer);
                    // A client that stopped reading cannot be told; the next line is still
                    // served.
                    self.replying = Some(tokio::spawn(async move {
                        let _ = write_line(&writer, reply).await;
                    }));
                }
            }
            let error = match self.lines.next().await {
                Err(_) | Ok(Line::End) => return None,
                Ok(Line::TooLong) => incoming::error(
                    None,
                    INVALID_REQUEST,
                    format_args!("Invalid Request: the line is longer than {MAX_LINE_BYTES} bytes"),
                ),
                Ok(Line::Read(line)) if line.trim_ascii().is_empty() => continue,
                Ok(Line::Read(line)) => match read_message(&line) {
                    Ok((mut message, head)) => {
                        if let (Some(id), Some(ids)) = (head.id, head.task_ids) {
                            self.listens
                                .lock()
                                .unwrap_or_else(std::sync::PoisonError::into_inner)
                                .insert(id.to_string(), ids);
                        }
                        if let ClientJsonRpcMessage::Request(request) = &mut message {
                            request
                                .request
                                .extensions_mut()
                                .insert(self.connection.clone());
                        }
                        return Some(message);
                    }
                    Err(error) => error,
                },
            };
            self.pending = Some(error.to_string().into_bytes());
        }
    }

    async fn close(&mut self) -> Result<(), io::Error> {
        self.writer.lock().await.flush().await
    }
}

/// One line as rmcp's message (and what the screen read of it), or the JSON-RPC error that
/// answers it.
fn read_message(line: &[u8]) -> Result<(ClientJsonRpcMessage, Head), Value> {
    let (head, text) = match incoming::screen(line, None) {
        Screened::Refused(error) => return Err(error),
        Screened::Pass(head) => (head, None),
        Screened::Rewritten(head, text) => (head, Some(text)),
    };
    match serde_json::from_slice(text.as_deref().unwrap_or(line)) {
        Ok(message) => Ok((message, head)),
        Err(error) => Err(incoming::error(
            head.id,
            INVALID_REQUEST,
            format_args!(
                "Invalid Request: {}",
                incoming::quoted(&crate::decode::without_position(&error))
            ),
        )),
    }
}

async fn write_line<W: AsyncWrite + Unpin>(writer: &Mutex<W>, mut line: Vec<u8>) -> io::Result<()> {
    line.push(b'\n');
    let mut writer = writer.lock().await;
    writer.write_all(&line).await?;
    writer.flush().await
}
