//! The approval gate (SPEC §10A): a tool that asks a human before it acts, by
//! `#[tool(approval = "…")]` or [`ToolDef::approval`](crate::ToolDef::approval).
//!
//! After the arguments decode, a call without an answer suspends with an `"approval"`
//! [`Request`] carrying the prompt and the arguments; an `ok` answer lets the tool run; any
//! other answer gives the loop rule's `declined/expired: <prompt>` without running it.

use serde_json::{Map, Value};

use crate::decode::{parse_args, within_nesting};
use crate::result::ToolResult;
use crate::result::suspend::{Request, pending};
use crate::tool::context::ToolContext;

/// The arguments the request will carry, when the call has no answer yet (the only time they
/// are shown): a copy of the `Value` before it is decoded.
///
/// Arguments nested past the decoder's limit are not copied (`Value`'s clone recurses once
/// per level, so hostile nesting would overflow the stack); they never decode, so the gate
/// they would feed is never reached.
pub fn approval_arguments(ctx: &ToolContext, args: &Value) -> Option<Value> {
    let decodable = match args {
        Value::Object(object) => within_nesting(object),
        _ => true,
    };
    (ctx.answer.is_none() && decodable).then(|| args.clone())
}

/// [`approval_arguments`] for raw argument text. Only used once the text has decoded, so it
/// parses; empty text is `{}`.
pub fn approval_arguments_json(ctx: &ToolContext, text: &str) -> Option<Value> {
    ctx.answer
        .is_none()
        .then(|| parse_args("", text).unwrap_or(Value::Null))
}

/// The gate of a `#[tool(approval = "…")]`, after its arguments decoded: `None` lets the fn
/// run; `Some` is the result to return instead.
///
/// `arguments` are the arguments as received (see [`approval_arguments`]); the request's
/// `data` is that object with every absent or `null` parameter that has a schema `default`
/// filled in from it, so a UI shows exactly what will run — without asking the parameter
/// types to implement `Serialize`.
pub fn approve(
    schema: &Map<String, Value>,
    ctx: &ToolContext,
    arguments: Option<Value>,
    prompt: impl FnOnce() -> String,
) -> Option<ToolResult> {
    gate(ctx, prompt, || approval_data(schema, arguments.as_ref()))
}

pub(crate) fn gate(
    ctx: &ToolContext,
    prompt: impl FnOnce() -> String,
    data: impl FnOnce() -> Map<String, Value>,
) -> Option<ToolResult> {
    match &ctx.answer {
        Some(answer) if answer.ok => None,
        // The loop rule's wording (SPEC §10), whatever the reason.
        Some(_) => Some(ToolResult::error(format!("declined/expired: {}", prompt()))),
        None => Some(pending(
            Request::new("approval", prompt()).with_data(data()),
        )),
    }
}

/// The arguments as received, in schema order, with absent or `null` properties that have a
/// `default` filled in; keys the schema does not list follow as received.
pub(crate) fn approval_data(
    schema: &Map<String, Value>,
    arguments: Option<&Value>,
) -> Map<String, Value> {
    let received = arguments.and_then(Value::as_object);
    let given = |key: &str| {
        received
            .and_then(|args| args.get(key))
            .filter(|v| !v.is_null())
    };
    let mut data = Map::new();
    if let Some(Value::Object(properties)) = schema.get("properties") {
        for (key, property) in properties {
            if let Some(value) = given(key).or_else(|| property.get("default")) {
                data.insert(key.clone(), value.clone());
            }
        }
    }
    for (key, value) in received.into_iter().flatten() {
        if !value.is_null() && !data.contains_key(key) {
            data.insert(key.clone(), value.clone());
        }
    }
    data
}

/// Fills `{name}` placeholders of a run-time approval prompt from the arguments: a string
/// argument as its text, anything else as compact JSON. A placeholder naming no argument is
/// left as written, so the human sees that something is missing; `{{` and `}}` are braces.
pub(crate) fn format_prompt(template: &str, arguments: &Map<String, Value>) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(at) = rest.find(['{', '}']) {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        if tail.starts_with("{{") || tail.starts_with("}}") {
            out.push_str(&tail[..1]);
            rest = &tail[2..];
            continue;
        }
        let hole = tail
            .strip_prefix('{')
            .and_then(|inner| Some(&inner[..inner.find('}')?]));
        match hole {
            Some(name) => {
                match arguments.get(name) {
                    Some(Value::String(text)) => out.push_str(text),
                    Some(value) => out.push_str(&value.to_string()),
                    None => out.push_str(&tail[..name.len() + 2]),
                }
                rest = &tail[name.len() + 2..];
            }
            None => {
                out.push_str(&tail[..1]);
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::tool::approval::*;

    fn object(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => unreachable!("an object literal"),
        }
    }

    #[test]
    fn prompts_fill_strings_raw_and_other_values_as_json() {
        let args = object(json!({"path": "/a", "n": 2, "tags": ["x"], "none": null}));
        assert_eq!(
            format_prompt(
                "Delete {path} ({n}, {tags}, {none}, {gone})? {{ok}} }{",
                &args
            ),
            r#"Delete /a (2, ["x"], null, {gone})? {ok} }{"#
        );
    }

    #[test]
    fn data_fills_defaults_in_schema_order() {
        let schema = object(json!({"properties": {
            "path": {"type": "string"},
            "env": {"type": "string", "default": "staging"},
            "force": {"type": "boolean"},
        }}));
        let data = approval_data(
            &schema,
            Some(&json!({"force": null, "extra": 1, "path": "/a"})),
        );
        assert_eq!(
            Value::Object(data.clone()),
            json!({"path": "/a", "env": "staging", "extra": 1})
        );
        assert_eq!(data.keys().collect::<Vec<_>>(), ["path", "env", "extra"]);
    }
}
