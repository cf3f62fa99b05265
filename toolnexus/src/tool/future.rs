//! The futures a [`Tool`](crate::Tool) returns: [`BoxFuture`] from `execute` (SPEC §1), and
//! [`ToolFuture`] from `execute_json`, which carries a result already computed without
//! allocating.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::result::ToolResult;

/// A boxed, `Send` future: what [`Tool::execute`](crate::Tool::execute) returns, so `Tool`
/// stays object safe.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What [`Tool::execute_json`](crate::Tool::execute_json) returns: either a result that is
/// already known, or a boxed future that will produce one.
///
/// A synchronous tool has its result as soon as it has run, and bad arguments are an answer
/// before anything runs; neither needs a future on the heap, which every call would otherwise
/// allocate and free. An `async` tool still needs the box, because `Tool` is object safe and
/// so cannot name its future's type. Either way this is one `Unpin` type, awaited like any
/// future.
///
/// ```
/// use toolnexus::{ToolFuture, ToolResult};
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let ready = ToolFuture::ready(ToolResult::ok("done"));
/// assert_eq!(ready.await.output, "done");
/// let later = ToolFuture::boxed(Box::pin(async { ToolResult::ok("later") }));
/// assert_eq!(later.await.output, "later");
/// # });
/// ```
pub struct ToolFuture<'a>(State<'a>);

enum State<'a> {
    /// `None` once the result has been handed out.
    Ready(Option<ToolResult>),
    Boxed(BoxFuture<'a, ToolResult>),
}

impl<'a> ToolFuture<'a> {
    /// A future that is ready at its first poll with `result`.
    #[inline]
    pub fn ready(result: ToolResult) -> Self {
        Self(State::Ready(Some(result)))
    }

    /// A future that polls `future`.
    #[inline]
    pub fn boxed(future: BoxFuture<'a, ToolResult>) -> Self {
        Self(State::Boxed(future))
    }

    /// The same future as a [`BoxFuture`], for [`Tool::execute`](crate::Tool::execute): a
    /// boxed one is handed over as it is (never boxed twice); a ready one is boxed now.
    ///
    /// # Panics
    ///
    /// When the future has already completed.
    #[inline]
    pub fn into_boxed(self) -> BoxFuture<'a, ToolResult> {
        match self.0 {
            State::Ready(result) => Box::pin(std::future::ready(
                result.expect("a ToolFuture converted after it completed"),
            )),
            State::Boxed(future) => future,
        }
    }
}

impl<'a> ToolFuture<'a> {
    /// The result, if it is already known; otherwise the boxed future.
    #[inline]
    pub(crate) fn into_ready(self) -> Result<ToolResult, BoxFuture<'a, ToolResult>> {
        match self.0 {
            State::Ready(Some(result)) => Ok(result),
            State::Ready(None) => panic!("a ToolFuture used after it completed"),
            State::Boxed(future) => Err(future),
        }
    }
}

impl<'a> From<BoxFuture<'a, ToolResult>> for ToolFuture<'a> {
    #[inline]
    fn from(future: BoxFuture<'a, ToolResult>) -> Self {
        Self::boxed(future)
    }
}

impl Future for ToolFuture<'_> {
    type Output = ToolResult;

    #[inline]
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ToolResult> {
        match &mut self.0 {
            State::Ready(result) => Poll::Ready(
                result
                    .take()
                    .expect("a ToolFuture polled after it completed"),
            ),
            State::Boxed(future) => future.as_mut().poll(cx),
        }
    }
}

impl fmt::Debug for ToolFuture<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            State::Ready(result) => f.debug_tuple("ToolFuture::Ready").field(result).finish(),
            State::Boxed(_) => f.write_str("ToolFuture::Boxed(..)"),
        }
    }
}
