//! Remote tools with schemas nobody here wrote — the `tools/list` of
//! `@modelcontextprotocol/server-everything`, `server-filesystem` and a FastMCP server
//! (tests/fixtures/real_schemas/, from `scripts/mcp_real_servers.sh --dump`), served again by
//! tests/fixtures/fake_mcp_server.py — keep their schemas as sent, go through every provider
//! profile and `check`, and have their arguments checked before anything is sent.
#![cfg(feature = "mcp-client")]

use serde_json::{Value, json};
use toolnexus::mcp::McpTools;
use toolnexus::{Profile, ToolContext, ToolSource, Toolkit};

const SCRIPT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/fake_mcp_server.py"
);
const SERVERS: [&str; 3] = ["everything", "filesystem", "fastmcp"];

fn fixture(server: &str) -> String {
    format!(
        "{}/tests/fixtures/real_schemas/{server}.json",
        env!("CARGO_MANIFEST_DIR")
    )
}

async fn serve(server: &str) -> (McpTools, Vec<Value>) {
    let listed: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(fixture(server)).unwrap()).unwrap();
    let remote = McpTools::command("python3", [SCRIPT])
        .name(server)
        .env("FAKE_TOOLS_FILE", fixture(server))
        .connect()
        .await
        .expect("the fake server starts");
    (remote, listed)
}

/// Every object schema under `schema` (properties, items, combinators, definitions).
fn objects<'a>(schema: &'a Value, found: &mut Vec<&'a Value>) {
    match schema {
        Value::Object(map) => {
            if map.get("type") == Some(&json!("object")) {
                found.push(schema);
            }
            for value in map.values() {
                objects(value, found);
            }
        }
        Value::Array(items) => items.iter().for_each(|item| objects(item, found)),
        _ => {}
    }
}

fn keys_anywhere(schema: &Value, key: &str) -> bool {
    match schema {
        Value::Object(map) => {
            map.contains_key(key) || map.values().any(|value| keys_anywhere(value, key))
        }
        Value::Array(items) => items.iter().any(|item| keys_anywhere(item, key)),
        _ => false,
    }
}

#[tokio::test]
async fn real_schemas_are_kept_as_sent_and_every_profile_renders_them() {
    for server in SERVERS {
        let (remote, listed) = serve(server).await;
        let toolkit = Toolkit::new().with_all(remote.tools());
        assert_eq!(toolkit.len(), listed.len(), "{server}");
        for (tool, entry) in toolkit.tools().iter().zip(&listed) {
            assert_eq!(tool.source(), ToolSource::Mcp);
            assert_eq!(tool.name(), entry["name"], "{server}");
            assert_eq!(
                Value::Object(tool.input_schema().clone()),
                entry["inputSchema"],
                "{server}"
            );
            assert_eq!(
                tool.output_schema().cloned().map(Value::Object),
                entry.get("outputSchema").cloned(),
                "{server}"
            );
            assert_eq!(
                tool.title(),
                entry.get("title").and_then(Value::as_str),
                "{server}"
            );
        }
        // What we list again is what the server listed.
        assert_eq!(toolkit.to_mcp(), Value::Array(listed.clone()), "{server}");

        // OpenAI strict: a tool sent strict has every object closed and every property
        // required; one that cannot be is sent non-strict, and `check` says why.
        let strict = toolkit.to_openai_strict();
        let issues = toolkit.check(Profile::OpenAiStrict);
        for definition in strict.as_array().unwrap() {
            let function = &definition["function"];
            let name = function["name"].as_str().unwrap();
            if function["strict"] == json!(true) {
                let mut found = Vec::new();
                objects(&function["parameters"], &mut found);
                for object in found {
                    assert_eq!(
                        object["additionalProperties"],
                        json!(false),
                        "{server}.{name}"
                    );
                    let properties: Vec<&String> = object["properties"]
                        .as_object()
                        .map(|p| p.keys().collect())
                        .unwrap_or_default();
                    let required: Vec<&str> = object["required"]
                        .as_array()
                        .map(|r| r.iter().filter_map(Value::as_str).collect())
                        .unwrap_or_default();
                    assert_eq!(
                        properties.len(),
                        required.len(),
                        "{server}.{name}: {object}"
                    );
                }
                assert!(
                    !keys_anywhere(&function["parameters"], "default"),
                    "{server}.{name}"
                );
            } else {
                assert!(
                    issues.iter().any(|issue| issue.tool == name),
                    "{server}.{name} is non-strict without an issue"
                );
            }
        }
        // Gemini's OpenAPI subset: none of the keywords it refuses, anywhere.
        for declaration in toolkit.to_gemini()[0]["functionDeclarations"]
            .as_array()
            .unwrap()
        {
            for keyword in [
                "$schema",
                "$ref",
                "$defs",
                "additionalProperties",
                "default",
                "const",
            ] {
                assert!(
                    !keys_anywhere(&declaration["parameters"], keyword),
                    "{server}.{}: {keyword}",
                    declaration["name"]
                );
            }
        }
        for profile in [
            Profile::Plain,
            Profile::OpenAiStrict,
            Profile::Gemini,
            Profile::GeminiJsonSchema,
            Profile::AnthropicStrict,
        ] {
            for issue in toolkit.check(profile) {
                assert!(toolkit.get(&issue.tool).is_some(), "{server}: {issue}");
            }
        }
        assert_eq!(
            toolkit.to_anthropic_strict().as_array().unwrap().len(),
            listed.len()
        );
        assert_eq!(
            toolkit.to_gemini_json_schema()[0]["functionDeclarations"]
                .as_array()
                .unwrap()
                .len(),
            listed.len()
        );
        assert_eq!(
            toolkit.to_openai_responses().as_array().unwrap().len(),
            listed.len()
        );
    }
}

#[tokio::test]
async fn arguments_are_checked_against_real_schemas_before_sending() {
    let ctx = ToolContext::default();
    let cases = [
        (
            "filesystem",
            "read_text_file",
            json!({"path": 5}),
            Some(
                "invalid arguments for `read_text_file`: field `path`: invalid type: integer `5`, expected string",
            ),
        ),
        (
            "filesystem",
            "read_text_file",
            json!({}),
            Some("invalid arguments for `read_text_file`: missing field `path`"),
        ),
        (
            "filesystem",
            "read_text_file",
            json!({"path": "/a", "head": 2}),
            None,
        ),
        (
            "fastmcp",
            "forecast",
            json!({"city": "Oslo", "days": 9}),
            Some(
                "invalid arguments for `forecast`: field `days`: 9 is greater than the maximum of 7",
            ),
        ),
        (
            "fastmcp",
            "forecast",
            json!({"city": "O"}),
            Some(
                "invalid arguments for `forecast`: field `city`: \"O\" is 1 character long, fewer than the minimum of 2",
            ),
        ),
        (
            "fastmcp",
            "order",
            json!({"items": [{"apple": 2}], "priority": "urgent"}),
            Some(
                "invalid arguments for `order`: field `priority`: invalid value: string \"urgent\", expected \"low\" or \"high\"",
            ),
        ),
        (
            "fastmcp",
            "order",
            json!({"items": [{"apple": "two"}]}),
            Some(
                "invalid arguments for `order`: field `items[0].apple`: invalid type: string \"two\", expected integer",
            ),
        ),
        ("fastmcp", "order", json!({"items": [], "note": null}), None),
        (
            "everything",
            "get-sum",
            json!({"a": "two", "b": 40}),
            Some(
                "invalid arguments for `get-sum`: field `a`: invalid type: string \"two\", expected number",
            ),
        ),
        (
            "everything",
            "get-resource-links",
            json!({"count": 11}),
            Some(
                "invalid arguments for `get-resource-links`: field `count`: 11 is greater than the maximum of 10",
            ),
        ),
        ("everything", "get-sum", json!({"a": 2, "b": 40}), None),
    ];
    for server in SERVERS {
        let (remote, _) = serve(server).await;
        let toolkit = Toolkit::new().with_all(remote.tools());
        for (_, tool, args, refused) in cases.iter().filter(|case| case.0 == server) {
            let result = toolkit.execute(tool, args.clone(), &ctx).await;
            assert!(result.is_error, "{tool} {args}");
            match refused {
                Some(message) => assert_eq!(&result.output, message, "{tool} {args}"),
                // Sent: the fake server knows no such tool, and says so.
                None => assert_eq!(
                    result.output,
                    format!("unknown tool {tool}"),
                    "{tool} {args}"
                ),
            }
        }
    }
}
