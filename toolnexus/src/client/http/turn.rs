//! One turn over HTTP: the request sent (body, URL, headers), and its answer read whole or as
//! server-sent events, every fault a [`ModelError`].

use std::collections::VecDeque;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_core::Stream;
use http::header::{CONTENT_TYPE, HeaderName, HeaderValue, RETRY_AFTER};
use http::{Method, Request, Response, Uri};
use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use serde_json::Value;

use crate::client::http::HttpModel;
use crate::client::http::endpoint;
use crate::client::http::fault;
use crate::client::model::{BoxStream, Model, ModelError, ModelEvent, ModelRequest, Reply};
use crate::provider::tool_call::Api;
use crate::provider::transcript::{ReplyStream, SseDecoder, read_reply, request_body_for};
use crate::tool::future::BoxFuture;

impl Model for HttpModel {
    fn api(&self) -> Api {
        self.api
    }

    fn name(&self) -> &str {
        &self.model
    }

    fn reply<'a>(&'a self, request: ModelRequest<'a>) -> BoxFuture<'a, Result<Reply, ModelError>> {
        Box::pin(async move {
            let response = self.send(request, false).await?;
            let bytes = self.http()?.whole(response.into_body()).await?;
            let body: Value = serde_json::from_slice(&bytes).map_err(|error| {
                ModelError::fatal(format!("the {} reply is not JSON: {error}", self.api))
            })?;
            read_reply(self.api, &body).map_err(|error| ModelError::fatal(error.to_string()))
        })
    }

    fn stream<'a>(
        &'a self,
        request: ModelRequest<'a>,
    ) -> BoxStream<'a, Result<ModelEvent, ModelError>> {
        let turn = StreamedTurn {
            model: self,
            stage: Stage::Start(request),
            queued: VecDeque::new(),
        };
        Box::pin(TurnStream {
            turn: Some(turn),
            next: None,
        })
    }
}

impl HttpModel {
    /// POSTs one turn; a status other than 2xx is the provider's error, read from its body.
    async fn send(
        &self,
        request: ModelRequest<'_>,
        stream: bool,
    ) -> Result<Response<Incoming>, ModelError> {
        let http = self.http()?;
        let mut body = request_body_for(self.api, &self.model, request, stream);
        if let Value::Object(fields) = &mut body {
            fields.extend(
                self.params
                    .iter()
                    .map(|(key, value)| (key.clone(), value.clone())),
            );
        }
        let url = endpoint::turn_url(self.api, &self.base_url, &self.model, stream);
        // A `Value` always serializes.
        let bytes = serde_json::to_vec(&body).unwrap_or_default();
        let mut post = Request::new(Full::new(Bytes::from(bytes)));
        *post.method_mut() = Method::POST;
        *post.uri_mut() = http_url(&url)?;
        let headers = post.headers_mut();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        let key = self.api_key.as_ref().map(|key| key.expose());
        for (name, value) in endpoint::auth_headers(self.api, key) {
            let mut value = HeaderValue::from_str(&value).map_err(|_| {
                ModelError::fatal(format!("the value of `{name}` is not a valid header value"))
            })?;
            value.set_sensitive(true);
            headers.append(name, value);
        }
        for (name, value) in &self.headers {
            let invalid =
                || ModelError::fatal(format!("header `{name}` is not a valid HTTP header"));
            let name = HeaderName::from_bytes(name.as_bytes()).map_err(|_| invalid())?;
            let mut value = HeaderValue::from_str(value).map_err(|_| invalid())?;
            value.set_sensitive(true);
            headers.append(name, value);
        }
        let response = http.send(post).await?;
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let retry_after = response
            .headers()
            .get(RETRY_AFTER)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned);
        // An error body that cannot be read still leaves the status to report.
        let body = http.whole(response.into_body()).await.unwrap_or_default();
        let mut error = fault::status_error(status.as_u16(), retry_after.as_deref(), &body);
        // Some providers quote the key they refused; it goes no further than here.
        if let Some(key) = key.filter(|key| !key.is_empty()) {
            error.message = error.message.replace(key, "<redacted>");
        }
        Err(error)
    }

    /// The next bytes of a streamed answer, within the read timeout; `None` at its end.
    async fn read_chunk(&self, body: &mut Incoming) -> Result<Option<Bytes>, ModelError> {
        self.http()?.chunk(body).await
    }
}

/// `url` as the URI of a request: http or https with a host, or a fatal error (a base URL
/// without its scheme, or of another one, will not work on another try).
fn http_url(url: &str) -> Result<Uri, ModelError> {
    let unusable = || ModelError::fatal(format!("`{url}` is not an http:// or https:// URL"));
    let uri = Uri::try_from(url).map_err(|_| unusable())?;
    let scheme = uri.scheme_str();
    if !matches!(scheme, Some("http" | "https")) || uri.host().is_none_or(str::is_empty) {
        return Err(unusable());
    }
    Ok(uri)
}

/// Where a streamed turn is.
enum Stage<'a> {
    /// Not sent yet.
    Start(ModelRequest<'a>),
    /// Reading the answer's events.
    Reading {
        body: Incoming,
        decoder: SseDecoder,
        reply: Box<ReplyStream>,
    },
    /// Done, or failed.
    Ended,
}

/// A streamed turn's state between events.
struct StreamedTurn<'a> {
    model: &'a HttpModel,
    stage: Stage<'a>,
    /// Events read but not yet yielded (one chunk of bytes may hold several).
    queued: VecDeque<Result<ModelEvent, ModelError>>,
}

impl<'a> StreamedTurn<'a> {
    /// The next event and the state after it; `None` once the turn ended (after
    /// [`ModelEvent::Done`] or an error).
    async fn next(mut self) -> Option<(Result<ModelEvent, ModelError>, Self)> {
        loop {
            if let Some(item) = self.queued.pop_front() {
                return Some((item, self));
            }
            match std::mem::replace(&mut self.stage, Stage::Ended) {
                Stage::Ended => return None,
                Stage::Start(request) => match self.model.send(request, true).await {
                    Ok(response) => {
                        self.stage = Stage::Reading {
                            body: response.into_body(),
                            decoder: SseDecoder::new(),
                            reply: Box::new(ReplyStream::new(self.model.api)),
                        }
                    }
                    Err(error) => self.queued.push_back(Err(error)),
                },
                Stage::Reading {
                    mut body,
                    mut decoder,
                    mut reply,
                } => match self.model.read_chunk(&mut body).await {
                    Ok(Some(bytes)) => match read_events(&mut decoder, &mut reply, &bytes) {
                        Ok(events) => {
                            self.queued.extend(events.into_iter().map(Ok));
                            self.stage = Stage::Reading {
                                body,
                                decoder,
                                reply,
                            };
                        }
                        Err(error) => self.queued.push_back(Err(error)),
                    },
                    // The stream ended: whole, or cut short (which `finish` refuses).
                    Ok(None) => self.queued.push_back(
                        reply
                            .finish()
                            .map(ModelEvent::Done)
                            .map_err(|error| ModelError::fatal(error.to_string())),
                    ),
                    Err(error) => self.queued.push_back(Err(error)),
                },
            }
        }
    }
}

/// The text pieces and tool calls in one chunk of the stream's bytes.
fn read_events(
    decoder: &mut SseDecoder,
    reply: &mut ReplyStream,
    bytes: &[u8],
) -> Result<Vec<ModelEvent>, ModelError> {
    let mut events = Vec::new();
    for event in decoder.push(bytes) {
        let read = reply
            .push(&event)
            .map_err(|error| ModelError::fatal(error.to_string()))?;
        events.extend(read);
    }
    Ok(events)
}

/// A [`StreamedTurn`] as a [`Stream`]: each poll drives its `next` step.
struct TurnStream<'a> {
    turn: Option<StreamedTurn<'a>>,
    next: Option<StepFuture<'a>>,
}

/// One step of a [`StreamedTurn`].
type StepFuture<'a> = BoxFuture<'a, Option<(Result<ModelEvent, ModelError>, StreamedTurn<'a>)>>;

impl Stream for TurnStream<'_> {
    type Item = Result<ModelEvent, ModelError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        if this.next.is_none() {
            match this.turn.take() {
                Some(turn) => this.next = Some(Box::pin(turn.next())),
                None => return Poll::Ready(None),
            }
        }
        let Some(step) = this.next.as_mut() else {
            return Poll::Ready(None);
        };
        match step.as_mut().poll(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(step) => {
                this.next = None;
                Poll::Ready(step.map(|(item, turn)| {
                    this.turn = Some(turn);
                    item
                }))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn any_base_url_is_an_http_or_https_uri_with_a_host_or_a_fatal_error(
            url in "((https?|ftp)://)?[a-z0-9.:/@\\[\\]%?# -]{0,40}",
        ) {
            match http_url(&url) {
                Ok(uri) => {
                    prop_assert!(matches!(uri.scheme_str(), Some("http" | "https")), "{url}");
                    prop_assert!(uri.host().is_some_and(|host| !host.is_empty()), "{url}");
                }
                Err(error) => {
                    prop_assert!(!error.retryable);
                    prop_assert!(error.message.ends_with("is not an http:// or https:// URL"));
                }
            }
        }
    }

    #[test]
    fn each_providers_default_url_is_usable() {
        for api in Api::ALL {
            let url = endpoint::turn_url(api, endpoint::default_base_url(api), "m", true);
            assert_eq!(http_url(&url).unwrap().scheme_str(), Some("https"), "{url}");
        }
    }
}
