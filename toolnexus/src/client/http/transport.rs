//! The HTTP/1.1 connection pool the turns are sent on: hyper-util's client over rustls (ring,
//! the operating system's roots), each connection made within [`CONNECT_TIMEOUT`] and each
//! read — the answer's head, then every frame of its body — within the read timeout.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use http::{Request, Response, Uri};
use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper_rustls::{HttpsConnector, HttpsConnectorBuilder};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::{TokioExecutor, TokioTimer};

use crate::client::http::fault;
use crate::client::model::ModelError;

/// How long connecting (TCP and TLS) may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// A pool of keep-alive connections, plain or TLS by the URL's scheme, and the read timeout.
pub(crate) struct Transport {
    client: Client<ConnectWithin, Full<Bytes>>,
    read_timeout: Duration,
}

impl Transport {
    /// The pool; its TLS is set up here, its first connection made on the first request.
    pub(crate) fn new(read_timeout: Duration) -> Result<Self, String> {
        let client = Client::builder(TokioExecutor::new())
            .timer(TokioTimer::new())
            .pool_timer(TokioTimer::new())
            .build(ConnectWithin {
                connector: tls_connector()?,
                limit: CONNECT_TIMEOUT,
            });
        Ok(Self {
            client,
            read_timeout,
        })
    }

    /// Sends `request`; its answer with the head read, within the read timeout (connecting
    /// included).
    pub(crate) async fn send(
        &self,
        request: Request<Full<Bytes>>,
    ) -> Result<Response<Incoming>, ModelError> {
        match tokio::time::timeout(self.read_timeout, self.client.request(request)).await {
            Ok(answer) => answer.map_err(|error| fault::transport_error(&error)),
            Err(_) => Err(self.timed_out("the answer's head")),
        }
    }

    /// The next bytes of `body`, within the read timeout; `None` at its end. Trailers are
    /// skipped.
    pub(crate) async fn chunk(&self, body: &mut Incoming) -> Result<Option<Bytes>, ModelError> {
        loop {
            match tokio::time::timeout(self.read_timeout, body.frame()).await {
                Err(_) => return Err(self.timed_out("the answer's next bytes")),
                Ok(None) => return Ok(None),
                Ok(Some(Err(error))) => return Err(fault::transport_error(&error)),
                Ok(Some(Ok(frame))) => {
                    if let Ok(bytes) = frame.into_data() {
                        return Ok(Some(bytes));
                    }
                }
            }
        }
    }

    /// All of `body`, each read within the read timeout.
    pub(crate) async fn whole(&self, mut body: Incoming) -> Result<Vec<u8>, ModelError> {
        let mut all = Vec::new();
        while let Some(bytes) = self.chunk(&mut body).await? {
            all.extend_from_slice(&bytes);
        }
        Ok(all)
    }

    /// A read that waited past the read timeout: retryable, as a slow moment may pass.
    fn timed_out(&self, waited_for: &str) -> ModelError {
        ModelError::transient(format!(
            "timed out: no part of {waited_for} within {:?}",
            self.read_timeout
        ))
    }
}

/// TCP, and for `https://` URLs TLS on ring with its own `ClientConfig`: no process-wide
/// rustls provider is read or set, so every other rustls user of the process is left as it was.
fn tls_connector() -> Result<HttpsConnector<HttpConnector>, String> {
    // ring rather than rustls' default aws-lc-rs, which builds C with cmake; rustls 0.23.48
    // deprecates ring's provider for lacking post-quantum key exchange, which the classical
    // groups it does offer (X25519, P-256, P-384) leave at today's TLS 1.3 strength.
    #[expect(
        deprecated,
        reason = "ring: a pure-Rust build without cmake; see above"
    )]
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut tcp = HttpConnector::new();
    // `https://` URLs go through the TLS layer above it.
    tcp.enforce_http(false);
    // A request is one write; waiting to batch it with the next only delays the answer.
    tcp.set_nodelay(true);
    Ok(HttpsConnectorBuilder::new()
        .with_provider_and_platform_verifier(provider)
        .map_err(|error| format!("cannot set up TLS: {error}"))?
        .https_or_http()
        .enable_http1()
        .wrap_connector(tcp))
}

/// hyper-rustls' connector, each connection (TCP connect and TLS handshake together) given
/// at most `limit` ([`CONNECT_TIMEOUT`]); hyper-util's own connect timeout covers TCP only.
#[derive(Clone)]
struct ConnectWithin {
    connector: HttpsConnector<HttpConnector>,
    limit: Duration,
}

/// What connecting fails with: hyper-util's client takes any boxed error from its connector.
type BoxError = Box<dyn std::error::Error + Send + Sync>;

impl tower_service::Service<Uri> for ConnectWithin {
    type Response = <HttpsConnector<HttpConnector> as tower_service::Service<Uri>>::Response;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, BoxError>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.connector.poll_ready(cx)
    }

    fn call(&mut self, destination: Uri) -> Self::Future {
        let connecting = self.connector.call(destination);
        let limit = self.limit;
        Box::pin(async move {
            match tokio::time::timeout(limit, connecting).await {
                Ok(connected) => connected,
                Err(_) => Err(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    format!("connecting took longer than {limit:?}"),
                )
                .into()),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tower_service::Service;

    #[test]
    fn the_tls_connector_builds_outside_a_runtime_and_sets_no_process_wide_provider() {
        let transport = Transport::new(Duration::from_secs(7)).unwrap();
        assert_eq!(transport.read_timeout, Duration::from_secs(7));
        assert!(rustls::crypto::CryptoProvider::get_default().is_none());
    }

    #[tokio::test]
    async fn a_tls_handshake_past_the_connect_limit_is_a_timeout_of_its_own() {
        // Accepts, then never answers the TLS hello.
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let https: Uri = format!("https://{}/", listener.local_addr().unwrap())
            .parse()
            .unwrap();
        let mut connect = ConnectWithin {
            connector: tls_connector().unwrap(),
            limit: Duration::from_millis(200),
        };
        let started = std::time::Instant::now();
        let Err(error) = connect.call(https).await else {
            panic!("a handshake nobody answers does not connect");
        };
        assert!(started.elapsed() < Duration::from_secs(5));
        let error = error.downcast::<std::io::Error>().unwrap();
        assert_eq!(error.kind(), std::io::ErrorKind::TimedOut);
        assert_eq!(error.to_string(), "connecting took longer than 200ms");
        let fault = fault::transport_error(&*error);
        assert!(fault.retryable && fault.message.starts_with("timed out: "));
        drop(listener);
    }
}
