//! Answers are checked like arguments (SPEC §10B): an `ok` [`Answer`] to a [`Request`] whose
//! `data.schema` states what it asks for is checked against that schema with the §11 checker
//! before the tool runs again, on every path an answer takes (`Toolkit::call`/`call_with`,
//! MCP 2026-07-28 `inputResponses`, 2025-* `elicitation/create` results).
//!
//! A refused answer is the `isError` result ``answer to `NAME`: <the §11 message>``, and the
//! tool does not run. A string outside a property's listed values (`enum`, or the `oneOf` /
//! `anyOf` of `const`s MCP forms use for a titled choice) is worded as a choice the human
//! made: ``field `env`: unknown variant `moon`, expected one of `staging`, `production` ``.

#![expect(
    clippy::result_large_err,
    reason = "the error is the call's final result; boxing it would only add an allocation"
)]

use serde_json::{Map, Value};

use crate::decode::{Shape, check_args};
use crate::result::ToolResult;
use crate::result::suspend::{Answer, Request};

/// The schema `request` asks with: its `data.schema`, when that is an object — except for
/// an approval, whose `data` is the call's arguments (SPEC §10A), so a `schema` there is an
/// argument the human is shown, not a question.
pub(crate) fn asked_schema(request: &Request) -> Option<&Map<String, Value>> {
    if request.kind == "approval" {
        return None;
    }
    request.data.as_ref()?.get("schema")?.as_object()
}

/// `Ok` unless `answer` is `ok` and its data does not fit `schema` (what the request asked
/// with); then the `isError` result the call ends with instead of running `tool` again.
pub(crate) fn check_answer(
    tool: &str,
    schema: Option<&Map<String, Value>>,
    answer: &Answer,
) -> Result<(), ToolResult> {
    let Some(schema) = schema else {
        return Ok(());
    };
    if !answer.ok {
        return Ok(());
    }
    let data = answer.data.clone().unwrap_or_default();
    if let Some(detail) = unlisted_choice(schema, &data) {
        return Err(ToolResult::error(format!("answer to `{tool}`: {detail}")));
    }
    match schema_check(tool, schema, &Value::Object(data)) {
        Ok(()) => Ok(()),
        Err(arguments) => Err(refused(tool, arguments)),
    }
}

/// The §11 checker on `value` with a [`Shape`] read from `schema`: kept as the one call into
/// it, so a rename there is a one-line change here.
fn schema_check(tool: &str, schema: &Map<String, Value>, value: &Value) -> Result<(), ToolResult> {
    check_args(tool, &Shape::of(schema, false), value)
}

/// The checker's ``invalid arguments for `NAME`: DETAIL`` as ``answer to `NAME`: DETAIL``.
fn refused(tool: &str, arguments: ToolResult) -> ToolResult {
    let prefix = format!("invalid arguments for `{tool}`: ");
    let detail = arguments
        .output
        .strip_prefix(&prefix)
        .unwrap_or(&arguments.output);
    ToolResult::error(format!("answer to `{tool}`: {detail}"))
}

/// ``field `KEY`: unknown variant `VALUE`, expected one of `A`, `B` `` for the first top-level
/// property whose answer is a string its schema does not list among its string choices.
fn unlisted_choice(schema: &Map<String, Value>, data: &Map<String, Value>) -> Option<String> {
    let properties = schema.get("properties")?.as_object()?;
    properties.iter().find_map(|(key, property)| {
        let given = data.get(key)?.as_str()?;
        let choices = string_choices(property)?;
        if choices.contains(&given) {
            return None;
        }
        let expected: Vec<String> = choices.iter().map(|choice| format!("`{choice}`")).collect();
        Some(format!(
            "field `{key}`: unknown variant {}, expected one of {}",
            quoted(given),
            expected.join(", ")
        ))
    })
}

/// `` `given` ``, cut to its first [`QUOTED`] characters (then `…` and its length): the
/// answer is the client's, and a backtick inside it must not make the cut miss.
fn quoted(given: &str) -> String {
    match given.char_indices().nth(QUOTED) {
        None => format!("`{given}`"),
        Some((end, _)) => format!(
            "`{}…` ({} characters)",
            &given[..end],
            given.chars().count()
        ),
    }
}

/// The characters of an answer's value a refusal quotes, as argument errors do.
const QUOTED: usize = 200;

/// The strings a property's schema lists as its only values: `enum` of strings, or `oneOf` /
/// `anyOf` whose every branch is a string `const`.
fn string_choices(property: &Value) -> Option<Vec<&str>> {
    if let Some(listed) = property.get("enum").and_then(Value::as_array) {
        return listed.iter().map(Value::as_str).collect();
    }
    let branches = ["oneOf", "anyOf"]
        .iter()
        .find_map(|keyword| property.get(*keyword)?.as_array())?;
    branches
        .iter()
        .map(|branch| branch.get("const")?.as_str())
        .collect::<Option<Vec<_>>>()
        .filter(|choices| !choices.is_empty())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::decode::answers::*;

    fn ok(data: Value) -> Answer {
        Answer {
            id: "pnd-1".to_owned(),
            ok: true,
            data: data.as_object().cloned(),
            reason: None,
        }
    }

    fn env_schema() -> Map<String, Value> {
        json!({
            "type": "object",
            "properties": {"env": {"type": "string", "enum": ["staging", "production"]}},
            "required": ["env"],
        })
        .as_object()
        .cloned()
        .unwrap()
    }

    #[test]
    fn an_unlisted_choice_reads_as_the_spec_says() {
        let refused = check_answer(
            "pick_environment",
            Some(&env_schema()),
            &ok(json!({"env": "moon"})),
        )
        .unwrap_err();
        assert!(refused.is_error);
        assert_eq!(
            refused.output,
            "answer to `pick_environment`: field `env`: unknown variant `moon`, expected one of `staging`, `production`"
        );
        let titled = json!({"type": "object", "properties": {"env": {"type": "string",
            "oneOf": [{"const": "staging", "title": "Staging"}, {"const": "production", "title": "Production"}]}}});
        let refused =
            check_answer("t", titled.as_object(), &ok(json!({"env": "moon"}))).unwrap_err();
        assert_eq!(
            refused.output,
            "answer to `t`: field `env`: unknown variant `moon`, expected one of `staging`, `production`"
        );
    }

    #[test]
    fn a_long_answer_is_quoted_in_part() {
        for long in ["x".repeat(10_000), format!("a`b{}", "`c".repeat(5_000))] {
            let refused =
                check_answer("p", Some(&env_schema()), &ok(json!({"env": long}))).unwrap_err();
            let length = format!("…` ({} characters), expected", long.chars().count());
            assert!(
                refused.output.len() < 400 && refused.output.contains(&length),
                "{}",
                refused.output
            );
        }
    }

    #[test]
    fn other_refusals_carry_the_checkers_message() {
        let schema = Some(env_schema());
        let missing = check_answer("p", schema.as_ref(), &ok(json!({}))).unwrap_err();
        let wrong_type = check_answer("p", schema.as_ref(), &ok(json!({"env": 3}))).unwrap_err();
        for (refused, arguments) in [(missing, json!({})), (wrong_type, json!({"env": 3}))] {
            let checker = schema_check("p", schema.as_ref().unwrap(), &arguments).unwrap_err();
            let detail = checker
                .output
                .strip_prefix("invalid arguments for `p`: ")
                .unwrap();
            assert_eq!(refused.output, format!("answer to `p`: {detail}"));
        }
    }

    #[test]
    fn only_an_ok_answer_to_a_request_with_a_schema_is_checked() {
        let schema = env_schema();
        assert!(check_answer("p", Some(&schema), &ok(json!({"env": "staging"}))).is_ok());
        assert!(check_answer("p", None, &ok(json!({"env": "moon"}))).is_ok());
        let declined = Answer {
            ok: false,
            ..ok(json!({"env": "moon"}))
        };
        assert!(check_answer("p", Some(&schema), &declined).is_ok());
        let request = Request::new("input", "Which?").with_data(
            json!({"schema": "not an object"})
                .as_object()
                .cloned()
                .unwrap(),
        );
        assert_eq!(asked_schema(&request), None);
        // An approval's data is the call's arguments: an argument named `schema` asks nothing.
        let arguments = json!({"schema": env_schema()})
            .as_object()
            .cloned()
            .unwrap();
        let approval = Request::new("approval", "Apply?").with_data(arguments.clone());
        assert_eq!(asked_schema(&approval), None);
        let input = Request::new("input", "Which?").with_data(arguments);
        assert_eq!(asked_schema(&input), Some(&env_schema()));
    }
}
