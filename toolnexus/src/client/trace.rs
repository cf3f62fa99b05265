//! The `tracing` feature's spans of a run (SPEC §16): `invoke_agent` around the whole run
//! and `chat` around each model call, with the OpenTelemetry GenAI attributes; the
//! toolkit's `execute_tool` spans open inside the run's.

use std::future::Future;

use tracing::Instrument;
use tracing::field::Empty;

use crate::client::model::{ModelError, Reply};

/// `run` inside an `invoke_agent` span for `model`.
pub(crate) fn invoke_agent<F: Future>(model: &str, run: F) -> impl Future<Output = F::Output> {
    let span = tracing::info_span!(
        "invoke_agent",
        otel.name = "invoke_agent",
        gen_ai.operation.name = "invoke_agent",
        gen_ai.request.model = model,
    );
    run.instrument(span)
}

/// One model call inside a `chat` span that records the reply's usage and finish reason.
pub(crate) async fn chat<E>(
    model: &str,
    call: impl Future<Output = Result<Reply, E>>,
) -> Result<Reply, E>
where
    E: AsRef<ModelError>,
{
    let span = tracing::info_span!(
        "chat",
        otel.name = format_args!("chat {model}"),
        gen_ai.operation.name = "chat",
        gen_ai.request.model = model,
        gen_ai.usage.input_tokens = Empty,
        gen_ai.usage.output_tokens = Empty,
        gen_ai.response.finish_reasons = Empty,
        error.type = Empty,
    );
    let outcome = call.instrument(span.clone()).await;
    match &outcome {
        Ok(reply) => {
            span.record("gen_ai.usage.input_tokens", reply.usage.input_tokens);
            span.record("gen_ai.usage.output_tokens", reply.usage.output_tokens);
            if let Some(reason) = &reply.finish_reason {
                span.record("gen_ai.response.finish_reasons", reason.as_str());
            }
        }
        Err(failure) => {
            let error = failure.as_ref();
            let kind = error
                .status
                .map_or_else(|| "model_error".to_owned(), |s| s.to_string());
            span.record("error.type", kind.as_str());
        }
    }
    outcome
}
