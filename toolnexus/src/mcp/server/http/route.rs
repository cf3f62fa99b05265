//! One request's way through the endpoint: the `Host` count and the origin, then (past
//! tower-http's CORS layer) the token, the body and the session cap, then rmcp — and the
//! JSON-RPC error for a message rmcp cannot read.

use std::sync::Arc;

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::header::{HOST, HeaderMap, HeaderValue, ORIGIN, RETRY_AFTER};
use hyper::{Method, Request, Response, StatusCode};
use serde_json::Value;

use super::acknowledged;
use super::body::{self, CancelInSession, Extras, RequestBody};
use super::endpoint::Shared;
use super::json::json_when_plain;
use super::resume::Polling;
use super::{ResponseBody, plain};
use crate::mcp::server::incoming::{self, Screened};
use crate::mcp::server::suspend::Connection;
use crate::mcp::server::tasks::with_core_tasks_capability;

/// The header that names a request's session.
const SESSION_ID: &str = "mcp-session-id";

/// The header that names the revision a request is of, which rmcp's header checks read.
const PROTOCOL_VERSION: &str = "mcp-protocol-version";

/// What is refused before anything else: two `Host` headers (400), an `Origin` not allowed
/// (403, before the token is asked for, as the MCP transport requires).
pub(super) fn refused(shared: &Shared, headers: &HeaderMap) -> Option<Response<ResponseBody>> {
    if headers.get_all(HOST).iter().nth(1).is_some() {
        // Which one a proxy or rmcp would read cannot be told; neither is trusted.
        return Some(plain(
            StatusCode::BAD_REQUEST,
            "Bad Request: more than one Host header",
        ));
    }
    let origins_allowed = headers
        .get_all(ORIGIN)
        .iter()
        .all(|origin| shared.origins.allows(origin));
    (!origins_allowed).then(|| plain(StatusCode::FORBIDDEN, "Forbidden: Origin not allowed"))
}

/// A request past CORS: the token, the body and the session cap, then rmcp.
pub(super) async fn authorized(
    shared: &Shared,
    request: Request<RequestBody>,
    extras: &mut Extras,
) -> Response<ResponseBody> {
    let (mut parts, body) = request.into_parts();
    if let Err(refused) = shared.guard.check(&mut parts).await {
        return refused;
    }
    if let (&Method::GET, Some(streams_end)) = (&parts.method, &shared.streams_end) {
        // A GET is the session's event stream, open until the client leaves; on shutdown it
        // ends, so it does not hold the server up for the whole grace period.
        let mut streams_end = streams_end.clone();
        extras.ends = Some(Box::pin(async move {
            let _ = streams_end.wait_for(|ended| *ended).await;
        }));
    }
    if parts.method == Method::GET {
        // A client back for the rest of a stream the server closed (`poll_after`).
        let session = parts
            .headers
            .get(SESSION_ID)
            .and_then(|id| id.to_str().ok());
        if let Some(resumed) = shared.resumable.resume(&parts.headers, session) {
            return resumed;
        }
    }
    if parts.method != Method::POST {
        let delete = parts.method == Method::DELETE;
        let request = Request::from_parts(parts, Full::new(Bytes::new()));
        let mut response = shared.endpoint.handle(request).await;
        if delete && response.status() == StatusCode::ACCEPTED {
            // A session ended: rmcp says 202, which both Python SDKs log as a failure; they
            // expect 200 or 204.
            *response.status_mut() = StatusCode::NO_CONTENT;
        }
        return response;
    }
    let body = match body::read(body, shared.max_body_bytes, shared.body_read_timeout).await {
        Ok(body) => body,
        Err(response) => return response,
    };
    let declared = parts
        .headers
        .get(PROTOCOL_VERSION)
        .and_then(|version| version.to_str().ok());
    let (mut head, body) = match incoming::screen(&body, declared) {
        Screened::Refused(error) => return json_rpc_error(&error),
        Screened::Pass(head) => (head, body),
        Screened::Rewritten(head, text) => (head, Bytes::from(text)),
    };
    #[cfg(feature = "tracing")]
    crate::toolkit::trace::record_message(head.method.as_deref(), head.id.as_ref());
    let session = parts
        .headers
        .get(SESSION_ID)
        .and_then(|id| id.to_str().ok())
        .map(Arc::<str>::from);
    if let (Some(sessions), Some(session)) = (&shared.sessions, &session) {
        // Tagged as a stdio connection is, so that what binds to the caller (a task, SPEC
        // §14) binds to the session when no identity is verified. Only a live session: an id
        // the client made up names nobody.
        if sessions.manager.sessions.read().await.contains_key(session) {
            parts.extensions.insert(Connection(Arc::clone(session)));
        }
    }
    let request = Request::from_parts(parts, Full::new(body));
    let initialize = head.method.as_deref() == Some("initialize");
    let task_ids = head.task_ids.take();
    let id = head.id.clone();
    // A request (it has a method and an id) may be answered as JSON.
    let request_id = head.method.is_some().then(|| head.id.clone()).flatten();
    let Some(sessions) = &shared.sessions else {
        let response = readable(shared.endpoint.handle(request).await, id).await;
        let response = plain_as_json(response, request_id, None).await;
        return amended(response, initialize, task_ids).await;
    };
    // A call in a session may have its stream closed, to be resumed (`poll_after`).
    let polling = match (shared.poll_after, &session, head.method.as_deref()) {
        (Some(after), Some(session), Some("tools/call")) => Some(Polling {
            after,
            session: Arc::clone(session),
            streams: &shared.resumable,
        }),
        _ => None,
    };
    let response = match (session, head.method.as_deref(), head.id) {
        (None, Some("initialize"), _) => {
            let _opening = sessions.opening.lock().await;
            if sessions.manager.sessions.read().await.len() >= sessions.max {
                let mut response = plain(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "Service Unavailable: the server has as many sessions as it keeps; try again later",
                );
                response
                    .headers_mut()
                    .insert(RETRY_AFTER, sessions.retry_after.clone());
                return response;
            }
            shared.endpoint.handle(request).await
        }
        (Some(session), Some("tools/call"), Some(id)) => {
            extras.cancel = Some(CancelInSession {
                sessions: Arc::clone(&sessions.manager),
                session,
                request: Some(id),
            });
            shared.endpoint.handle(request).await
        }
        _ => shared.endpoint.handle(request).await,
    };
    let response = plain_as_json(readable(response, id).await, request_id, polling).await;
    amended(response, initialize, task_ids).await
}

/// rmcp's answer with what its types cannot say: an `initialize`'s 2025-11-25 core tasks
/// capability, a `subscriptions/listen` acknowledgment's `taskIds`.
async fn amended(
    response: Response<ResponseBody>,
    initialize: bool,
    task_ids: Option<Vec<String>>,
) -> Response<ResponseBody> {
    match task_ids {
        _ if initialize => with_core_tasks(response).await,
        Some(ids) => acknowledged::naming_tasks(response, &ids).await,
        None => response,
    }
}

/// An `initialize` answered as JSON, with 2025-11-25's core tasks capability when it is of
/// that revision and the server has a task-capable tool (rmcp's capabilities have no field for
/// it).
async fn with_core_tasks(response: Response<ResponseBody>) -> Response<ResponseBody> {
    let is_json = response
        .headers()
        .get(hyper::header::CONTENT_TYPE)
        .is_some_and(|kind| kind.as_bytes().starts_with(b"application/json"));
    if response.status() != StatusCode::OK || !is_json {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(body) = body.collect().await.map(|body| body.to_bytes());
    let Ok(mut answer) = serde_json::from_slice::<Value>(&body) else {
        return Response::from_parts(parts, Full::new(body).boxed_unsync());
    };
    with_core_tasks_capability(&mut answer);
    let body = Bytes::from(answer.to_string());
    parts.headers.remove(hyper::header::CONTENT_LENGTH);
    Response::from_parts(parts, Full::new(body).boxed_unsync())
}

async fn plain_as_json(
    response: Response<ResponseBody>,
    id: Option<Value>,
    polling: Option<Polling<'_>>,
) -> Response<ResponseBody> {
    match id {
        Some(id) => json_when_plain(response, &id, polling).await,
        None => response,
    }
}

/// rmcp's answer, except that a message it could not read as one of its own (which it
/// answers `415`, as if the content type were wrong) gets the JSON-RPC `-32600` it is.
async fn readable(response: Response<ResponseBody>, id: Option<Value>) -> Response<ResponseBody> {
    if response.status() != StatusCode::UNSUPPORTED_MEDIA_TYPE {
        return response;
    }
    let (parts, body) = response.into_parts();
    let Ok(body) = body.collect().await.map(|body| body.to_bytes());
    match body.strip_prefix(b"fail to deserialize request body ") {
        Some(why) => json_rpc_error(&incoming::error(
            id,
            incoming::INVALID_REQUEST,
            format_args!(
                "Invalid Request: {}",
                incoming::quoted(&String::from_utf8_lossy(why))
            ),
        )),
        None => Response::from_parts(parts, Full::new(body).boxed_unsync()),
    }
}

/// A JSON-RPC error answered by the server itself: `400` with the error as its body.
fn json_rpc_error(error: &Value) -> Response<ResponseBody> {
    let mut response = Response::new(Full::new(Bytes::from(error.to_string())).boxed_unsync());
    *response.status_mut() = StatusCode::BAD_REQUEST;
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}
