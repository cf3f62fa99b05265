//! A run as a stream of [`Event`]s (SPEC §16): the loop's future pushes events into a queue
//! the stream pops, and is polled whenever the queue is empty — no async runtime, no task.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use futures_core::Stream;

use crate::client::Client;
use crate::client::outcome::{Event, RunError, RunResult};
use crate::client::run::{Events, Run};
use crate::tool::future::BoxFuture;
use crate::toolkit::Toolkit;

impl Client {
    /// [`run`](Self::run), as it happens: the model's text as it is written
    /// ([`Event::Text`]), each tool call once complete ([`Event::ToolCall`]), each result
    /// ([`Event::ToolResult`]), each turn's [`Event::Usage`], an [`Event::Pending`] when the
    /// run parks, and last [`Event::Done`] with the same [`RunResult`] `run` returns for the
    /// same replies, or [`Event::Error`]. The model is called with [`Model::stream`](crate::client::Model::stream).
    ///
    /// The stream is the run: it runs as it is polled, on any executor, and dropping it
    /// stops the run.
    pub fn stream<'a>(
        &'a self,
        prompt: impl Into<String>,
        toolkit: &'a Toolkit,
    ) -> impl Stream<Item = Event> + Send + Unpin + 'a {
        let events = Events::default();
        let run = Run::fresh(
            self,
            toolkit,
            Vec::new(),
            prompt.into(),
            Some(events.clone()),
        );
        RunStream {
            events,
            run: Some(Box::pin(self.drive(run.turns()))),
        }
    }
}

/// The events of a run and the run itself, until it ends.
struct RunStream<'a> {
    events: Events,
    run: Option<BoxFuture<'a, Result<RunResult, RunError>>>,
}

impl RunStream<'_> {
    fn next_event(&self) -> Option<Event> {
        let queue: &Mutex<VecDeque<Event>> = &self.events;
        queue
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop_front()
    }
}

impl Stream for RunStream<'_> {
    type Item = Event;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Event>> {
        if let Some(event) = self.next_event() {
            return Poll::Ready(Some(event));
        }
        let Some(run) = self.run.as_mut() else {
            return Poll::Ready(None);
        };
        let polled = run.as_mut().poll(cx);
        if let Poll::Ready(end) = polled {
            self.run = None;
            let last = match end {
                Ok(result) => Event::Done(Box::new(result)),
                Err(error) => Event::Error(Box::new(error)),
            };
            let events: &Arc<Mutex<VecDeque<Event>>> = &self.events;
            events
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push_back(last);
        }
        // What the run handed on before it waited (or ended), else wait for its wake.
        match self.next_event() {
            Some(event) => Poll::Ready(Some(event)),
            None => Poll::Pending,
        }
    }
}
