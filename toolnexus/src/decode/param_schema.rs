//! The input schema of a `#[tool]` whose parameters carry no attribute schemars would read,
//! built at run time from a list of its parameters instead of a schema struct the tool
//! derives `JsonSchema` for: the same schema, without a derive's code in every tool.

use schemars::{Schema, SchemaGenerator};
use serde_json::{Map, Value};

use super::schema::{ToolSchema, tool_schema_built};

/// One parameter of a `#[tool]`, as its input schema describes it.
#[derive(Clone, Copy, Debug)]
pub struct ParamSchema {
    /// The parameter's key in the arguments object.
    pub key: &'static str,
    /// Its description; empty for none.
    pub description: &'static str,
    /// Whether it may be left out (an `Option`), so it is not `required`.
    pub optional: bool,
    /// Its type's schema (`described` or `described_present` at the parameter's type).
    pub schema: fn(&mut SchemaGenerator) -> Schema,
}

/// The [`ToolSchema`] of a tool whose parameters are `params`, in order: what
/// [`tool_schema_of`](super::schema::tool_schema_of) gives for the struct `#[tool]` would
/// otherwise derive (`deny_unknown_fields`, each field's `schema_with` and `description`, an
/// optional one `default` and `skip_serializing_if`), written as schemars' derive writes it.
pub fn tool_schema_of_params(params: &[ParamSchema]) -> ToolSchema {
    tool_schema_built(
        |generator| {
            let mut schema = schemars::json_schema!({
                "type": "object",
                "additionalProperties": false,
            });
            let object = schema.ensure_object();
            let mut properties = Map::new();
            let mut required = Vec::new();
            for param in params {
                let mut described = (param.schema)(generator);
                if !param.description.is_empty() {
                    described.insert("description".to_owned(), param.description.into());
                }
                properties.insert(param.key.to_owned(), described.into());
                if !param.optional {
                    required.push(Value::from(param.key));
                }
            }
            if !params.is_empty() {
                object.insert("properties".to_owned(), Value::Object(properties));
            }
            if !required.is_empty() {
                object.insert("required".to_owned(), Value::Array(required));
            }
            schema
        },
        false,
    )
}
