//! The client side of one connection (rmcp's [`ClientHandler`]): a server's elicitation as a
//! §10 suspension the agent answers, and its list changes. (Progress is routed as it is read,
//! by `inbound`.)

use std::sync::Weak;

use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction,
    ElicitationCapability, FormElicitationCapability, Implementation, UrlElicitationCapability,
};
use rmcp::service::{NotificationContext, RequestContext, RoleClient};
use rmcp::{ClientHandler, ErrorData};
use serde_json::Value;

use super::Shared;
use super::convert::{elicit_result, request_of};
use super::remote::RemoteDef;

/// The client side of one connection.
pub(crate) struct Handler {
    pub(crate) shared: Weak<Shared>,
    /// What `initialize` offers (a legacy handshake).
    pub(crate) revision: rmcp::model::ProtocolVersion,
}

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        capabilities.elicitation = Some(
            ElicitationCapability::new()
                .with_form(FormElicitationCapability::default())
                .with_url(UrlElicitationCapability::new()),
        );
        // SPEC §14: a server may answer a call with a task, which the call follows.
        capabilities.extensions = Some(
            [(
                rmcp::model::TASKS_EXTENSION_ID.to_owned(),
                Default::default(),
            )]
            .into(),
        );
        ClientConfig::new(
            capabilities,
            Implementation::new("toolnexus", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(self.revision.clone())
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let handler = self.shared.upgrade().and_then(|shared| {
            shared
                .elicit
                .read()
                .unwrap_or_else(|p| p.into_inner())
                .clone()
        });
        let Some(handler) = handler else {
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        };
        let params = serde_json::to_value(&request).unwrap_or(Value::Null);
        let answer = handler(request_of(&params)).await;
        let wire = elicit_result(&answer);
        serde_json::from_value(wire)
            .map_err(|error| ErrorData::internal_error(error.to_string(), None))
    }

    async fn on_tool_list_changed(&self, context: NotificationContext<RoleClient>) {
        let Some(shared) = self.shared.upgrade() else {
            return;
        };
        // Listing is a request on the connection this notification came in on: asked from a
        // task of its own, not from inside the connection's notification handling.
        tokio::spawn(async move {
            if let Ok(listed) = context.peer.list_all_tools().await {
                shared.set_defs(listed.iter().map(RemoteDef::of).collect());
            }
        });
    }
}
