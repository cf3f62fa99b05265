//! What macro-generated code calls, re-exported as `toolnexus::__private`: one list, so the
//! generated code's whole dependency on this crate can be read in one place.

mod error_chain;
mod output_derive;
mod tool_macro;

pub use schemars;
pub use serde;
pub use serde_json;

pub use crate::decode::schema::{
    Built, OutputSchemaProbe, ProbeStructured, ProbeUnstructured, StructuredOutput, ToolSchema,
    WRAPPED_RESULT, input_schema_for, output_schema_for, tool_schema_of,
};
// Not for generated code: how often judged argument text was vouched for, in debug builds,
// for `tests/schema_truth.rs` to report.
#[cfg(debug_assertions)]
pub use crate::decode::judged_text_verdicts;
pub use crate::decode::param_schema::{ParamSchema, tool_schema_of_params};
pub use crate::decode::{
    IntegerSlot, Slot, decode_args, decode_args_json, decode_params, decode_params_json, take,
};
pub use crate::tool::approval::{approval_arguments, approval_arguments_json, approve};
pub use crate::tool::context::{
    StateType, inject, inject_extension, inject_optional_extension, inject_state,
};
pub use error_chain::{
    AsItIs, BoxedErrorWithSources, BoxedResultWithSources, ErrorWithSources, Held,
    ResultWithSources,
};
pub use output_derive::{
    Lowering, OutputPart, RetryField, json_array, json_object, json_text, lower_retry, retry,
    serialize,
};
pub use tool_macro::{
    CheckJsonOutput, CheckOtherOutput, DuplicateToolName, HeaderParam, OutputCheck,
    OutputJsonSchema, ParamDeserialize, ParamJsonSchema, ReturnsJson, assert_deserialize,
    assert_header, defaulted_slot, described, described_present, duplicate_tool_name, integer_slot,
    slot,
};
// The public items generated code names, reached the same way as everything else here.
pub use crate::task::TaskSupport;
pub use crate::{
    BoxFuture, IntoToolError, IntoToolResult, Request, Retry, Tool, ToolAnnotations, ToolContext,
    ToolFuture, ToolResult, pending,
};
