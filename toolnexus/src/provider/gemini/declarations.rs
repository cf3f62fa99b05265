//! Gemini's function declarations: `parameters` (the OpenAPI subset) or
//! `parametersJsonSchema`, each tool's entry of the `tools` list.

use serde_json::{Map, Value};

use super::json_schema;
use crate::provider::name_and_description;
use crate::tool::Tool;

/// The `tools` list: `[{"functionDeclarations": declarations}]`.
pub(crate) fn tools_list(declarations: Vec<Value>) -> Value {
    let mut entry = Map::new();
    entry.insert(
        "functionDeclarations".to_owned(),
        Value::Array(declarations),
    );
    Value::Array(vec![Value::Object(entry)])
}

/// One function declaration, `{name, description, parameters}`.
pub(crate) fn declaration(tool: &dyn Tool, parameters: Map<String, Value>) -> Value {
    Value::Object(declare(tool, "parameters", parameters))
}

/// One function declaration for [`to_gemini_json_schema`](crate::Toolkit::to_gemini_json_schema):
/// `{name, description, parametersJsonSchema, responseJsonSchema}`, the response only for a
/// tool with an [`output_schema`](Tool::output_schema).
pub(crate) fn json_schema_declaration(tool: &dyn Tool, parameters: Map<String, Value>) -> Value {
    let mut declaration = declare(tool, "parametersJsonSchema", parameters);
    if let Some(output) = tool.output_schema() {
        let (response, _) = json_schema::rewrite(output);
        declaration.insert("responseJsonSchema".to_owned(), Value::Object(response));
    }
    Value::Object(declaration)
}

/// `{name, description}` and the parameters under `key`, left out when the schema has no
/// properties (Gemini rejects an `OBJECT` with no properties; a function without parameters
/// leaves them unset).
fn declare(tool: &dyn Tool, key: &str, parameters: Map<String, Value>) -> Map<String, Value> {
    let empty = parameters
        .get("properties")
        .and_then(Value::as_object)
        .is_none_or(Map::is_empty);
    let mut declaration = name_and_description(tool);
    if !empty {
        declaration.insert(key.to_owned(), Value::Object(parameters));
    }
    declaration
}
