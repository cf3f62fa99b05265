//! The connection one server's tools share: made on first use, made again after it broke
//! (with backoff), signed in when the server asks.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use rmcp::model::ProtocolVersion;
use rmcp::service::{Peer, RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientLifecycleMode, ClientServiceExt};

use super::child::{ChildTransport, Fault};
use super::config::{Endpoint, http_config};
use super::handler::Handler;
use super::inbound::{Inbound, Routes};
use super::remote::{self, RemoteDef};
use super::{Elicit, OAuthClient, Unconnected};

/// Restart waits after consecutive failures: 100 ms, doubling, never more than this.
const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// Suspended 2026-07-28 calls remembered for their retry; the oldest is forgotten past this.
const MAX_SUSPENDED: usize = 1024;

/// One server's connection and what it knows; shared by every tool it made.
pub(crate) struct Shared {
    pub(super) name: String,
    pub(super) endpoint: Endpoint,
    /// The one revision to speak, when pinned.
    pub(super) revision: Option<ProtocolVersion>,
    /// Signs in when an HTTP server asks (`HttpBuilder::oauth`).
    pub(super) oauth: Option<OAuthClient>,
    pub(super) link: tokio::sync::Mutex<Link>,
    pub(super) defs: RwLock<Arc<[Arc<RemoteDef>]>>,
    pub(super) elicit: RwLock<Option<Elicit>>,
    /// Where each call in flight wants its progress (read by the connection's [`Inbound`]).
    pub(super) progress: Arc<Routes>,
    /// The input key and `requestState` of each suspended 2026-07-28 call, by request id.
    pub(super) suspended: Mutex<BTreeMap<String, remote::Suspended>>,
    pub(super) call_timeout: RwLock<Duration>,
}

#[derive(Default)]
pub(super) struct Link {
    pub(super) running: Option<Running>,
    /// Failures in a row (a connection that ended, or one that could not be made).
    pub(super) failures: u32,
    pub(super) last_attempt: Option<Instant>,
}

pub(super) struct Running {
    pub(super) service: RunningService<RoleClient, Handler>,
    pub(super) fault: Fault,
}

impl Shared {
    /// The live connection's peer, connecting (again) first if there is none.
    pub(super) async fn peer(self: &Arc<Self>) -> Result<(Peer<RoleClient>, Fault), Unconnected> {
        let mut link = self.link.lock().await;
        if let Some(running) = &link.running {
            if !running.service.is_closed() && !running.service.peer().is_transport_closed() {
                return Ok((running.service.peer().clone(), Arc::clone(&running.fault)));
            }
        }
        link.running = None;
        if link.failures > 0 {
            let wait = backoff(link.failures);
            let since = link.last_attempt.map_or(wait, |last| last.elapsed());
            if since < wait {
                tokio::time::sleep(wait - since).await;
            }
        }
        link.last_attempt = Some(Instant::now());
        // Boxed: connecting (rmcp's handshake futures) is tens of KB of future, which every
        // call's own future would otherwise carry and copy for the rare call that connects.
        let mut connected = Box::pin(self.connect()).await;
        if matches!(&connected, Err(Unconnected { renewed: true, .. })) {
            connected = Box::pin(self.connect()).await;
        }
        match connected {
            Ok((running, defs)) => {
                link.failures = 0;
                self.set_defs(defs);
                let peer = running.service.peer().clone();
                let fault = Arc::clone(&running.fault);
                link.running = Some(running);
                Ok((peer, fault))
            }
            // A login to make is not a failure to back off from.
            Err(Unconnected {
                sign_in: Some(login),
                why,
                ..
            }) => Err(Unconnected {
                why: format!("MCP server `{}` {why}", self.name),
                sign_in: Some(login),
                renewed: false,
            }),
            Err(Unconnected { why, .. }) => {
                link.failures = link.failures.saturating_add(1);
                Err(format!("MCP server `{}` {why}", self.name).into())
            }
        }
    }

    /// Forgets a connection that ended, so the next call makes a new one (after a backoff).
    pub(super) async fn broken(&self, peer: &Peer<RoleClient>) {
        let mut link = self.link.lock().await;
        let ended = link.running.as_ref().is_some_and(|running| {
            running.service.peer().is_transport_closed() || running.service.is_closed()
        });
        if ended && peer.is_transport_closed() {
            link.running = None;
            link.failures = link.failures.saturating_add(1);
            link.last_attempt = Some(Instant::now());
        }
    }

    /// Drops the connection (after a sign-in), so the next call connects with the new token.
    pub(super) async fn forget(&self) {
        self.link.lock().await.running = None;
    }

    /// The login `challenge` (a `WWW-Authenticate` header) asks for, when this server signs
    /// in with OAuth; else `why` as it is.
    pub(super) async fn sign_in(&self, challenge: Option<&str>, why: String) -> Unconnected {
        let (Some(oauth), Some(challenge), Endpoint::Http { url, .. }) =
            (&self.oauth, challenge, &self.endpoint)
        else {
            return why.into();
        };
        match oauth.begin(&self.name, url, challenge).await {
            Ok(Some(login)) => Unconnected {
                why: format!(
                    "needs a sign-in: {}",
                    login.url.as_deref().unwrap_or_default()
                ),
                sign_in: Some(login),
                renewed: false,
            },
            Ok(None) => Unconnected {
                why: format!("{why}; signed in again without asking anyone: call again"),
                sign_in: None,
                renewed: true,
            },
            Err(failed) => failed.into(),
        }
    }

    pub(super) async fn connect(
        self: &Arc<Self>,
    ) -> Result<(Running, Vec<RemoteDef>), Unconnected> {
        let fault = Fault::default();
        let handler = Handler {
            shared: Arc::downgrade(self),
            revision: self
                .revision
                .clone()
                .unwrap_or(ProtocolVersion::V_2025_11_25),
        };
        let lifecycle = match &self.revision {
            None => ClientLifecycleMode::Auto {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                legacy_version: Some(ProtocolVersion::V_2025_11_25),
            },
            Some(revision) if revision.has_initialize() => ClientLifecycleMode::Initialize,
            Some(revision) => ClientLifecycleMode::Discover {
                preferred_versions: vec![revision.clone()],
            },
        };
        let service = match &self.endpoint {
            Endpoint::Stdio { command, args, env } => {
                let transport = ChildTransport::spawn(command, args, env, Arc::clone(&fault))
                    .map_err(|error| format!("could not be started (`{command}`): {error}"))?;
                let transport = Inbound::new(transport, Arc::clone(&self.progress));
                handler.serve_with_lifecycle(transport, lifecycle).await
            }
            Endpoint::Http { url, headers } => {
                let config = http_config(url, headers)?;
                match &self.oauth {
                    None => {
                        let transport = StreamableHttpClientTransport::from_config(config);
                        let transport = Inbound::new(transport, Arc::clone(&self.progress));
                        handler.serve_with_lifecycle(transport, lifecycle).await
                    }
                    Some(oauth) => {
                        let client = oauth.client(url).await?;
                        let transport = StreamableHttpClientTransport::with_client(client, config);
                        let transport = Inbound::new(transport, Arc::clone(&self.progress));
                        handler.serve_with_lifecycle(transport, lifecycle).await
                    }
                }
            }
        };
        let service = match service {
            Ok(service) => service,
            Err(error) => {
                let fault = fault.lock().unwrap_or_else(|p| p.into_inner()).clone();
                let why = format!(
                    "could not be initialized: {}",
                    fault.unwrap_or_else(|| error.to_string())
                );
                return Err(self.sign_in(error.auth_challenge(), why).await);
            }
        };
        let listed = match service.peer().list_all_tools().await {
            Ok(listed) => listed,
            Err(error) => {
                let why = format!("did not list its tools: {error}");
                return Err(self.sign_in(error.auth_challenge(), why).await);
            }
        };
        let defs = listed.iter().map(RemoteDef::of).collect();
        Ok((Running { service, fault }, defs))
    }

    pub(super) fn set_defs(&self, defs: Vec<RemoteDef>) {
        let defs: Arc<[Arc<RemoteDef>]> = defs.into_iter().map(Arc::new).collect();
        *self.defs.write().unwrap_or_else(|p| p.into_inner()) = defs;
    }

    pub(super) fn call_timeout(&self) -> Duration {
        *self.call_timeout.read().unwrap_or_else(|p| p.into_inner())
    }

    pub(super) fn remember(&self, id: String, suspended: remote::Suspended) {
        let mut map = self.suspended.lock().unwrap_or_else(|p| p.into_inner());
        if map.len() >= MAX_SUSPENDED {
            // Ids sort by their creation time (`pnd-<base36 millis>-…` of equal length for
            // centuries), so the first is about the oldest.
            if let Some(oldest) = map.keys().next().cloned() {
                map.remove(&oldest);
            }
        }
        map.insert(id, suspended);
    }

    pub(super) fn take_suspended(&self, id: &str) -> Option<remote::Suspended> {
        self.suspended
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(id)
    }
}

fn backoff(failures: u32) -> Duration {
    let doubled =
        Duration::from_millis(100).saturating_mul(1 << failures.saturating_sub(1).min(16));
    doubled.min(MAX_BACKOFF)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    pub(super) fn backoff_doubles_from_100ms_up_to_5s() {
        let waits: Vec<u64> = (1..=8).map(|n| backoff(n).as_millis() as u64).collect();
        assert_eq!(waits, [100, 200, 400, 800, 1600, 3200, 5000, 5000]);
        assert_eq!(backoff(u32::MAX), MAX_BACKOFF);
    }
}
