//! The `tracing` feature (SPEC §12C): each execution through a toolkit is an `execute_tool`
//! span with the OpenTelemetry GenAI attributes, and (with `mcp-http`) each MCP request over
//! HTTP a span with the OpenTelemetry MCP attributes. `tracing-opentelemetry` reads
//! `otel.name` as the span's name, so exporters see `execute_tool {name}`.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use tracing::Span;
use tracing::field::Empty;

use crate::result::ToolResult;

/// `call`, the execution of the tool `name` as call `id` (the provider's call id, the JSON-RPC
/// request id over MCP, else empty), inside an `execute_tool` span that records the result's
/// `error.type` when it is an error.
pub(crate) fn execute_tool<F>(name: &str, id: &str, call: F) -> Traced<F> {
    let span = tracing::info_span!(
        "execute_tool",
        otel.name = format_args!("execute_tool {name}"),
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = name,
        gen_ai.tool.call.id = Empty,
        error.type = Empty,
    );
    if !id.is_empty() {
        span.record("gen_ai.tool.call.id", id);
    }
    Traced { span, call }
}

/// A tool call inside its span.
pub(crate) struct Traced<F> {
    span: Span,
    call: F,
}

impl<F: Future<Output = ToolResult> + Unpin> Future for Traced<F> {
    type Output = ToolResult;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ToolResult> {
        let this = &mut *self;
        let _entered = this.span.enter();
        let polled = Pin::new(&mut this.call).poll(cx);
        if let Poll::Ready(result) = &polled {
            if let Some(kind) = error_type(result) {
                this.span.record("error.type", kind);
            }
        }
        polled
    }
}

/// The `error.type` of a result: what the toolkit made of the call when it is one of its own
/// answers (each has a fixed form, SPEC §8), a suspension, else `tool_error`.
fn error_type(result: &ToolResult) -> Option<&'static str> {
    if !result.is_error {
        return None;
    }
    let output = result.output.as_str();
    let kind = if result.is_pending() {
        "suspended"
    } else if output.starts_with("Unknown tool: ") {
        "unknown_tool"
    } else if output.starts_with("invalid arguments for `") {
        "invalid_arguments"
    } else if let Some(rest) = output
        .strip_prefix("tool `")
        .and_then(|rest| rest.split_once("` ").map(|(_, rest)| rest))
    {
        if rest.starts_with("timed out after ") {
            "timeout"
        } else if rest == "was cancelled" {
            "cancelled"
        } else if rest.starts_with("panicked: ") {
            "panic"
        } else {
            "tool_error"
        }
    } else {
        "tool_error"
    };
    Some(kind)
}

/// The span of one MCP request over HTTP; the message's method and id are recorded once its
/// body is read ([`record_message`]).
#[cfg(feature = "mcp-http")]
pub(crate) fn mcp_request(headers: &hyper::HeaderMap) -> Span {
    let header = |name: &str| headers.get(name).and_then(|value| value.to_str().ok());
    let span = tracing::info_span!(
        "mcp.request",
        otel.name = Empty,
        mcp.method.name = Empty,
        mcp.session.id = header("mcp-session-id"),
        mcp.protocol.version = header("mcp-protocol-version"),
        jsonrpc.request.id = Empty,
    );
    span
}

/// Records the method and id of the message the current request carries.
#[cfg(feature = "mcp-http")]
pub(crate) fn record_message(method: Option<&str>, id: Option<&serde_json::Value>) {
    let span = Span::current();
    if let Some(method) = method {
        span.record("mcp.method.name", method);
        span.record("otel.name", method);
    }
    match id {
        Some(serde_json::Value::String(id)) => {
            span.record("jsonrpc.request.id", id.as_str());
        }
        Some(id) if !id.is_null() => {
            span.record("jsonrpc.request.id", tracing::field::display(id));
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use crate::toolkit::trace::*;
    use crate::{Request, pending};

    #[test]
    fn error_types_follow_the_toolkit_s_own_answers() {
        let kind = |output: &str| error_type(&ToolResult::error(output));
        assert_eq!(error_type(&ToolResult::ok("fine")), None);
        assert_eq!(kind("Unknown tool: nope"), Some("unknown_tool"));
        assert_eq!(
            kind("invalid arguments for `add`: field `a`: expected an integer"),
            Some("invalid_arguments")
        );
        assert_eq!(kind("tool `slow` timed out after 20ms"), Some("timeout"));
        assert_eq!(kind("tool `slow` was cancelled"), Some("cancelled"));
        assert_eq!(kind("tool `boom` panicked: oh no"), Some("panic"));
        assert_eq!(kind("the disk is full"), Some("tool_error"));
        assert_eq!(kind("tool `x` said no"), Some("tool_error"));
        let suspended = pending(Request::new("approval", "Deploy?"));
        assert_eq!(error_type(&suspended), Some("suspended"));
    }
}
