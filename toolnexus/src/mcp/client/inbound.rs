//! What the client does with a server's messages before rmcp reads them: each progress
//! notification goes to its call the moment it is read, in wire order, and a 2025-era server's
//! success answer to `server/discover` is read as what it means ("no 2026-07-28 here").
//!
//! rmcp hands every notification to a task of its own, so a progress notification the server
//! sent before its result could reach the call after the call resolved, or never. Read here,
//! by the one loop that reads the connection, it is in the call's channel before the result
//! is even handed on.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rmcp::RoleClient;
use rmcp::model::{
    ClientJsonRpcMessage, ClientRequest, ErrorCode, ErrorData, GetMeta, JsonRpcError,
    JsonRpcMessage, JsonRpcVersion2_0, ProgressToken, RequestId, ServerJsonRpcMessage,
    ServerNotification, ServerResult,
};
use rmcp::transport::Transport;
use tokio::sync::mpsc;

/// One `notifications/progress`, passed to the call it belongs to.
pub(crate) type ProgressStep = (f64, Option<f64>, Option<String>);

/// Progress kept for a call that has not yet said where it wants it; past this, later steps
/// are dropped (a call registers within moments of sending).
const MAX_EARLY_STEPS: usize = 1024;

/// Where each call in flight wants its progress, by the token rmcp gave its request.
#[derive(Default)]
pub(crate) struct Routes(Mutex<HashMap<ProgressToken, Route>>);

enum Route {
    /// The request was sent, its call has not registered yet: what arrived meanwhile.
    Early(Vec<ProgressStep>),
    To(mpsc::UnboundedSender<ProgressStep>),
}

impl Routes {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<ProgressToken, Route>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A request carrying `token` is being sent: its progress is kept from now on.
    fn open(&self, token: ProgressToken) {
        self.lock()
            .entry(token)
            .or_insert_with(|| Route::Early(Vec::new()));
    }

    /// A progress notification, read off the connection.
    fn deliver(&self, token: &ProgressToken, step: ProgressStep) {
        match self.lock().get_mut(token) {
            Some(Route::To(call)) => {
                let _ = call.send(step);
            }
            Some(Route::Early(steps)) if steps.len() < MAX_EARLY_STEPS => steps.push(step),
            // For no call in flight (it ended), or past the early limit.
            _ => {}
        }
    }

    /// The call of `token` wants its progress in `call`, what arrived before included.
    pub(crate) fn follow(&self, token: ProgressToken, call: mpsc::UnboundedSender<ProgressStep>) {
        let mut routes = self.lock();
        if let Some(Route::Early(steps)) = routes.remove(&token) {
            for step in steps {
                let _ = call.send(step);
            }
        }
        routes.insert(token, Route::To(call));
    }

    /// The call of `token` ended.
    pub(crate) fn close(&self, token: &ProgressToken) {
        self.lock().remove(token);
    }
}

/// A client transport with the two readings above.
pub(crate) struct Inbound<T> {
    inner: T,
    routes: Arc<Routes>,
    /// The id of the `server/discover` request whose answer has not come yet.
    discover: Option<RequestId>,
}

impl<T> Inbound<T> {
    pub(crate) fn new(inner: T, routes: Arc<Routes>) -> Self {
        Self {
            inner,
            routes,
            discover: None,
        }
    }
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for Inbound<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), T::Error>> + Send + 'static {
        if let JsonRpcMessage::Request(request) = &item {
            match &request.request {
                ClientRequest::DiscoverRequest(_) => self.discover = Some(request.id.clone()),
                // Opened before the request leaves, so no answer can outrun it.
                ClientRequest::CallToolRequest(_) => {
                    if let Some(token) = request.request.get_meta().get_progress_token() {
                        self.routes.open(token);
                    }
                }
                _ => {}
            }
        }
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<ServerJsonRpcMessage> {
        let message = self.inner.receive().await?;
        match &message {
            JsonRpcMessage::Notification(notification) => {
                if let ServerNotification::ProgressNotification(progress) =
                    &notification.notification
                {
                    let params = &progress.params;
                    let step = (params.progress, params.total, params.message.clone());
                    self.routes.deliver(&params.progress_token, step);
                }
            }
            JsonRpcMessage::Response(response) if self.discover.as_ref() == Some(&response.id) => {
                self.discover = None;
                if !matches!(response.result, ServerResult::DiscoverResult(_)) {
                    return Some(not_discovered(response.id.clone()));
                }
            }
            JsonRpcMessage::Error(error) if error.id.is_some() && error.id == self.discover => {
                self.discover = None;
            }
            _ => {}
        }
        Some(message)
    }

    async fn close(&mut self) -> Result<(), T::Error> {
        self.inner.close().await
    }
}

/// A success answer to `server/discover` that is not a discover result: 2025-era servers (the
/// conformance suite's among them) answer a method they do not know with `{}`. It means the
/// server does not speak 2026-07-28, which rmcp hears from `-32601` (and then sends
/// `initialize`); from any other answer it gives up.
fn not_discovered(id: RequestId) -> ServerJsonRpcMessage {
    JsonRpcMessage::Error(JsonRpcError {
        jsonrpc: JsonRpcVersion2_0,
        id: Some(id),
        error: ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            "server/discover was answered with a result that is not a discover result",
            None,
        ),
    })
}

#[cfg(test)]
mod tests {
    use crate::mcp::client::inbound::*;

    #[test]
    fn progress_read_before_its_call_registered_is_kept_for_it_in_order() {
        let routes = Routes::default();
        let token = ProgressToken(rmcp::model::NumberOrString::Number(1));
        let step = |n: f64| (n, Some(3.0), None);
        // No request sent with this token: nothing to keep.
        routes.deliver(&token, step(0.0));
        routes.open(token.clone());
        routes.deliver(&token, step(1.0));
        routes.deliver(&token, step(2.0));
        let (call, mut steps) = mpsc::unbounded_channel();
        routes.follow(token.clone(), call);
        routes.deliver(&token, step(3.0));
        routes.close(&token);
        routes.deliver(&token, step(4.0));
        let mut seen = Vec::new();
        while let Ok((done, _, _)) = steps.try_recv() {
            seen.push(done);
        }
        assert_eq!(seen, [1.0, 2.0, 3.0]);
    }
}
