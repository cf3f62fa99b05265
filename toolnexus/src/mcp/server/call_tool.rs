//! One `tools/call`: the toolkit's execution under the server's deadline, the client's
//! cancellation and progress token, and a suspension carried to the human the way the
//! client's protocol revision can (SPEC §8C), then the result in rmcp's types.

use std::future::{Future, poll_fn};
use std::pin::pin;
use std::task::Poll;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ElicitRequestParams,
    InputRequiredResult, ProtocolVersion,
};
use rmcp::service::{RequestContext, RoleServer, ServiceError};
use serde_json::Value;

use super::caller;
use super::incoming::Arguments;
use super::suspend::{self, Modes, Resumed};
use super::{McpServer, notify_progress};
use crate::result::ToolResult;
use crate::result::suspend::{Answer, Reason, Request};
use crate::tool::context::ToolContext;

/// How a call ends: a result, or (2026-07-28) a question for the client to put to the human.
enum Outcome {
    Done(ToolResult),
    Ask(InputRequiredResult),
}

impl McpServer {
    pub(super) async fn call(
        &self,
        request: CallToolRequestParams,
        args: Arguments,
        resumed: Option<Resumed>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResponse {
        let CallToolRequestParams { name, .. } = request;
        let args = match args {
            Arguments::Object(args) => args,
            // Arguments `execute_json` refuses as text (not an object, a key given twice,
            // nested too deep): its answer, in its words; nothing runs, nothing suspends.
            Arguments::Text(text) => {
                let ctx = ToolContext {
                    timeout: self.call_timeout,
                    ..caller::context_of(&context)
                };
                let id = request_id(&context);
                let refused = until_done(
                    self.toolkit.execute_json_as(&id, &name, &text, &ctx),
                    context.ct.cancelled(),
                    || ctx.cancel.cancel(),
                )
                .await;
                return self.complete(&name, &refused);
            }
        };
        let token = context.meta.get_progress_token();
        // Boxed once per call: the call's future holds every path a suspension may take
        // (a few KiB), and rmcp moves the handler's future several times on its way into a
        // task; a box keeps what it moves small.
        let outcome = Box::pin(notify_progress::reporting(
            &context.peer,
            token,
            |progress| {
                let ctx = ToolContext {
                    timeout: self.call_timeout,
                    progress,
                    ..caller::context_of(&context)
                };
                self.drive(&name, args, ctx, resumed, &context)
            },
        ))
        .await;
        match outcome {
            Outcome::Done(result) => self.complete(&name, &result),
            Outcome::Ask(question) => question.into(),
        }
    }

    async fn drive(
        &self,
        name: &str,
        args: Value,
        ctx: ToolContext,
        resumed: Option<Resumed>,
        context: &RequestContext<RoleServer>,
    ) -> Outcome {
        // The paths after a suspension are boxed: rarely taken, and inline they would make
        // the future every call allocates several times larger.
        if let Some(Resumed { answer, prompt }) = resumed {
            let resumed = Box::pin(self.resume(name, args, ctx, answer, &prompt, context));
            return Outcome::Done(resumed.await);
        }
        let modes = asking_modes(context);
        // The arguments are kept for a second execution (or the state's digest) only when
        // the client could be asked at all; other calls cost what they always did.
        let kept = (modes.form || modes.url).then(|| args.clone());
        let first = self.run(name, args, &ctx, context).await;
        let Some(request) = first.pending() else {
            return Outcome::Done(first);
        };
        let (Some(args), Some(elicitation)) = (kept, suspend::elicitation(&request, modes)) else {
            return Outcome::Done(unanswerable(first, &request));
        };
        if on_2026_07_28(context) {
            let question = self
                .seal
                .input_required(name, &args, &request, elicitation, context);
            return Outcome::Ask(question);
        }
        // Boxed: rmcp's request future is large, and inline it would make every call's
        // future large too — moved, with rmcp's task, on every call.
        match Box::pin(self.elicit(elicitation, &request, context)).await {
            Some(Err(why)) => Outcome::Done(ToolResult::error(format!(
                "answer to `{name}`: the client's answer is not an elicitation result: {why}; \
                 nothing ran"
            ))),
            Some(Ok(answer)) => {
                // SPEC §10B: the answer is checked like arguments before the tool sees it.
                let asked = crate::decode::answers::asked_schema(&request);
                if let Err(refused) = crate::decode::answers::check_answer(name, asked, &answer) {
                    return Outcome::Done(refused);
                }
                Outcome::Done(
                    self.resume(name, args, ctx, answer, &request.prompt, context)
                        .await,
                )
            }
            // The client could not be asked after all.
            None => Outcome::Done(unanswerable(first, &request)),
        }
    }

    /// The §10 loop rule after the human answered `prompt`: not `ok` ⇒ `declined/expired:
    /// <prompt>`; `ok` ⇒ one more execution with the answer, and `unresolved: <prompt>` if
    /// it suspends again.
    async fn resume(
        &self,
        name: &str,
        args: Value,
        ctx: ToolContext,
        answer: Answer,
        prompt: &str,
        context: &RequestContext<RoleServer>,
    ) -> ToolResult {
        if !answer.ok {
            return ToolResult::error(format!("declined/expired: {prompt}"));
        }
        let ctx = ToolContext {
            answer: Some(answer),
            ..ctx
        };
        let second = self.run(name, args, &ctx, context).await;
        if second.is_pending() {
            return ToolResult::error(format!("unresolved: {prompt}"));
        }
        second
    }

    /// One execution; the client's `notifications/cancelled` fires the context's signal.
    async fn run(
        &self,
        name: &str,
        args: Value,
        ctx: &ToolContext,
        context: &RequestContext<RoleServer>,
    ) -> ToolResult {
        let id = request_id(context);
        until_done(
            self.toolkit.execute_as(&id, name, args, ctx),
            context.ct.cancelled(),
            || ctx.cancel.cancel(),
        )
        .await
    }

    /// Sends `elicitation/create` (2025-06-18, 2025-11-25) and waits for the answer within
    /// the call's deadline and cancellation; `None` when the client could not be asked,
    /// `Some(Err(why))` when what it answered is no elicitation result (SPEC §10B: it grants
    /// nothing, and the caller says why).
    pub(super) async fn elicit(
        &self,
        elicitation: ElicitRequestParams,
        request: &Request,
        context: &RequestContext<RoleServer>,
    ) -> Option<Result<Answer, String>> {
        let refused = |reason| Answer {
            id: request.id.clone(),
            ok: false,
            data: None,
            reason: Some(reason),
        };
        let asking = context
            .peer
            .create_elicitation_with_timeout(elicitation, self.call_timeout);
        match unless_cancelled(asking, context.ct.cancelled()).await {
            None => Some(Ok(refused(Reason::Cancelled))),
            Some(Ok(result)) => Some(
                serde_json::to_value(result)
                    .map_err(|error| error.to_string())
                    .and_then(|result| suspend::read_answer(&request.id, &result)),
            ),
            Some(Err(ServiceError::Timeout { .. })) => Some(Ok(refused(Reason::Expired))),
            Some(Err(_)) => None,
        }
    }

    /// `result` as the answer to a `tools/call` of `name`.
    pub(crate) fn complete(&self, name: &str, result: &ToolResult) -> CallToolResponse {
        self.call_result(name, result).into()
    }

    /// `result` as rmcp's `CallToolResult` of a call to `name` (its structured content as the
    /// tool's output schema says, when it has one): what a call answers, and what a task that
    /// ran the call ends with.
    pub(crate) fn call_result(&self, name: &str, result: &ToolResult) -> CallToolResult {
        let wire = match self.toolkit.get(name) {
            Some(tool) => result.to_mcp_for(tool.as_ref()),
            None => result.to_mcp(),
        };
        call_tool_result(wire, result)
    }
}

/// The elicitation modes the client of `context` can be asked in: elicitation came with
/// 2025-06-18 (form mode only) and URL mode with 2025-11-25, so a client is asked only in the
/// modes its revision has.
pub(super) fn asking_modes(context: &RequestContext<RoleServer>) -> Modes {
    let revision = context.protocol_version();
    let at_least = |oldest: ProtocolVersion| {
        revision
            .as_ref()
            .is_some_and(|version| version.as_str() >= oldest.as_str())
    };
    if !at_least(ProtocolVersion::V_2025_06_18) {
        return Modes::default();
    }
    let mut modes = Modes::of(
        context
            .client_capabilities()
            .and_then(|capabilities| capabilities.elicitation)
            .as_ref(),
    );
    modes.url &= at_least(ProtocolVersion::V_2025_11_25);
    modes
}

/// Whether the client of `context` negotiated 2026-07-28: it is asked with an
/// `InputRequiredResult` (MRTR) rather than with an `elicitation/create` of the server's own,
/// and it may follow the tasks extension.
pub(super) fn on_2026_07_28(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|version| version.as_str() >= ProtocolVersion::V_2026_07_28.as_str())
}

/// A result's MCP wire form (`wire`, from [`ToolResult::to_mcp_for`]) as rmcp's type, built
/// with rmcp's constructors so that the fields a revision requires and our wire form does not
/// carry (`resultType` on 2026-07-28) are set; rmcp drops them again for older peers.
fn call_tool_result(mut wire: Value, result: &ToolResult) -> CallToolResult {
    let content = serde_json::from_value::<Vec<ContentBlock>>(wire["content"].take());
    let mut converted = match content {
        Ok(content) if wire["isError"] == Value::Bool(true) => CallToolResult::error(content),
        Ok(content) => CallToolResult::success(content),
        // Unreachable with the block types `to_mcp` emits; kept as a result, never a panic.
        Err(error) => {
            return CallToolResult::error(vec![
                ContentBlock::text(result.output.clone()),
                ContentBlock::text(format!(
                    "toolnexus: result not representable in MCP: {error}"
                )),
            ]);
        }
    };
    if let Some(structured) = wire.get_mut("structuredContent") {
        converted.structured_content = Some(structured.take());
    }
    converted
}

/// The JSON-RPC request id as a layer sees it ([`ToolCall::id`](crate::ToolCall::id)): a
/// number's digits, or the string.
fn request_id(context: &RequestContext<RoleServer>) -> String {
    match serde_json::to_value(&context.id) {
        Ok(Value::String(id)) => id,
        Ok(other) => other.to_string(),
        Err(_) => String::new(),
    }
}

/// Drives `work` to completion, calling `on_cancel` once if `cancelled` finishes first. Here
/// `on_cancel` fires the call's cancel signal, which makes the toolkit resolve `work` at once.
async fn until_done<T>(
    work: impl Future<Output = T>,
    cancelled: impl Future<Output = ()>,
    on_cancel: impl FnOnce(),
) -> T {
    let mut work = pin!(work);
    tokio::select! {
        biased;
        () = cancelled => {
            on_cancel();
            work.await
        }
        output = &mut work => output,
    }
}

/// `work`'s output, or `None` (and `work` dropped) if `cancelled` finishes first.
async fn unless_cancelled<T>(
    work: impl Future<Output = T>,
    cancelled: impl Future<Output = ()>,
) -> Option<T> {
    let mut work = pin!(work);
    let mut cancelled = pin!(cancelled);
    poll_fn(|cx| {
        if cancelled.as_mut().poll(cx).is_ready() {
            return Poll::Ready(None);
        }
        work.as_mut().poll(cx).map(Some)
    })
    .await
}

/// A suspension for a client that cannot put it to its human (SPEC §8C): its text says what
/// is needed and that this client cannot ask for it, so neither the model nor the person
/// mistakes it for the tool's failure; the url follows on its own line. The result stays a
/// suspension (`metadata.pending`), so a client that reads it can still act on it.
pub(super) fn unanswerable(mut result: ToolResult, request: &Request) -> ToolResult {
    let needed = match request.kind.as_str() {
        "approval" => "approval".to_owned(),
        kind => format!("{kind} input"),
    };
    result.output = format!(
        "needs {needed}, which this client cannot ask for: {}",
        request.prompt
    );
    if let Some(url) = &request.url {
        result.output.push('\n');
        result.output.push_str(url);
    }
    result
}

#[cfg(test)]
mod tests {
    use crate::mcp::server::call_tool::*;
    use crate::result::part::ContentPart;

    #[test]
    fn every_block_type_converts() {
        let file = crate::parts::from_bytes(b"%PDF", "application/pdf");
        let result = ToolResult::ok("out")
            .with_part(ContentPart::text("more"))
            .with_part(crate::parts::from_bytes(b"\x89PNG", "image/png"))
            .with_part(crate::parts::from_bytes(b"RIFF", "audio/wav"))
            .with_part(file);
        let converted = call_tool_result(result.to_mcp(), &result);
        assert_eq!(
            serde_json::to_value(&converted).unwrap()["content"],
            result.to_mcp()["content"]
        );
        assert_eq!(converted.is_error, Some(false));
        assert!(
            converted.result_type.is_some(),
            "built by rmcp's constructor"
        );
    }

    #[test]
    fn a_cancelled_request_sets_the_cancel_signal_and_still_finishes() {
        let ctx = ToolContext::default();
        let work = async {
            tokio::task::yield_now().await;
            ctx.cancel.is_cancelled()
        };
        let saw_cancel = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(until_done(work, std::future::ready(()), || {
                ctx.cancel.cancel()
            }));
        assert!(saw_cancel);
    }
}
