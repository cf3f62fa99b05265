//! SPEC §10B, verified by generation: an answer is checked like arguments on every path it
//! takes — `Toolkit::call`/`call_with` (what `wait_for` returns), MCP 2025-11-25
//! `elicitation/create` results and MCP 2026-07-28 `inputResponses` (over stdio,
//! `LineTransport`). For generated form schemas (flat objects of strings with and without
//! listed choices and lengths, integers and numbers with bounds, booleans, required or not),
//! answers generated from the schema are accepted and reach the tool as they were sent; a
//! step just past any limit is refused, naming its field, and the tool does not run; and any
//! other mutation is accepted only if the schema admits it (once the nulls that mean
//! "absent" are gone), on every path alike.

use crate::common::asking;
use crate::schema_truth::{generate, mutate};

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::{Map, Value, json};
use toolnexus::{Answer, Request, ToolResult, Toolkit};

use asking::{accept, fill};
use generate::Dialect;

/// The SPEC's example, in process: the tool never sees the refused answer.
#[tokio::test]
async fn toolkit_call_refuses_an_answer_outside_the_schema() {
    let (toolkit, asked, runs) = fill();
    *asked.lock().unwrap() = json!({
        "type": "object",
        "properties": {"env": {"type": "string", "enum": ["staging", "production"]}},
        "required": ["env"],
    });
    let moon = toolkit
        .call("fill", json!({}), |request: Request| async move {
            accept(&request, json!({"env": "moon"}))
        })
        .await;
    assert!(moon.is_error);
    assert_eq!(
        moon.output,
        "answer to `fill`: field `env`: unknown variant `moon`, expected one of `staging`, `production`"
    );
    assert_eq!(runs.load(Ordering::SeqCst), 0);
    let staging = toolkit
        .call("fill", json!({}), |request: Request| async move {
            accept(&request, json!({"env": "staging"}))
        })
        .await;
    assert_eq!(
        (staging.output.as_str(), staging.is_error),
        (r#"{"env":"staging"}"#, false)
    );
    // A declined answer is the loop rule's, whatever its data.
    let declined = toolkit
        .call("fill", json!({}), |request: Request| async move {
            Answer {
                ok: false,
                ..accept(&request, json!({"env": "moon"}))
            }
        })
        .await;
    assert_eq!(declined.output, "declined/expired: Fill in the form");
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

/// Creates a table.
#[toolnexus::tool(approval = "Create table {name}?")]
fn create_table(name: String, schema: Value) -> String {
    format!("created {name} with {schema}")
}

/// An approval's data is the call's arguments (SPEC §10A): an argument named `schema` is
/// shown to the human, not a question the approval's answer must fit.
#[tokio::test]
async fn an_approval_with_an_argument_named_schema_asks_no_question() {
    let toolkit = Toolkit::new().with_all(toolnexus::tools![create_table]);
    let schema =
        json!({"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]});
    let created = toolkit
        .call(
            "create_table",
            json!({"name": "t", "schema": schema}),
            |request: Request| async move {
                assert_eq!(request.kind, "approval");
                accept(&request, json!({}))
            },
        )
        .await;
    assert!(!created.is_error, "{}", created.output);
    assert!(
        created.output.starts_with("created t with "),
        "{}",
        created.output
    );
}

/// One property of a form, as MCP forms allow them.
fn property() -> impl Strategy<Value = Value> {
    let choices = prop::collection::btree_set("[a-z]{1,6}", 1..4);
    prop_oneof![
        choices
            .clone()
            .prop_map(|choices| json!({"type": "string", "enum": choices})),
        choices.prop_map(|choices| {
            let titled: Vec<Value> = choices
                .iter()
                .map(|choice| json!({"const": choice, "title": choice.to_uppercase()}))
                .collect();
            json!({"type": "string", "oneOf": titled})
        }),
        (0_u64..4, 0_u64..6).prop_map(
            |(min, more)| json!({"type": "string", "minLength": min, "maxLength": min + more})
        ),
        Just(json!({"type": "string"})),
        (-50_i64..50, 0_i64..100).prop_map(
            |(low, span)| json!({"type": "integer", "minimum": low, "maximum": low + span})
        ),
        (-5.0_f64..5.0)
            .prop_map(|low| json!({"type": "number", "minimum": low, "maximum": low + 10.0})),
        Just(json!({"type": "boolean"})),
    ]
}

/// A form's schema: a flat object of 1 to 4 properties, each required or not.
fn form() -> impl Strategy<Value = Value> {
    prop::collection::btree_map("[a-z]{1,8}", (property(), any::<bool>()), 1..5).prop_map(
        |properties| {
            let required: Vec<&String> = properties
                .iter()
                .filter(|(_, (_, required))| *required)
                .map(|(name, _)| name)
                .collect();
            let schemas: Map<String, Value> = properties
                .iter()
                .map(|(name, (schema, _))| (name.clone(), schema.clone()))
                .collect();
            json!({"type": "object", "properties": schemas, "required": required})
        },
    )
}

/// An answer generated from `schema`, with the keys it does not name left out (an MCP form
/// answers its own fields; the checker would let other keys through as the schema does).
fn answers(schema: &Value) -> BoxedStrategy<Value> {
    let named: Vec<String> = schema["properties"]
        .as_object()
        .map(|properties| properties.keys().cloned().collect())
        .unwrap_or_default();
    generate::instances(schema, Dialect::JsonSchema)
        .prop_map(move |mut answer| {
            if let Some(map) = answer.as_object_mut() {
                map.retain(|key, _| named.contains(key));
            }
            answer
        })
        .boxed()
}

/// Whether every value of `answer` is one an elicitation result's `content` carries: a
/// string, a number, a boolean or an array of strings (MCP's `ElicitResult`).
fn elicitation_content(answer: &Value) -> bool {
    answer.as_object().is_some_and(|content| {
        content.values().all(|value| match value {
            Value::String(_) | Value::Number(_) | Value::Bool(_) => true,
            Value::Array(items) => items.iter().all(Value::is_string),
            Value::Null | Value::Object(_) => false,
        })
    })
}

/// `answer` minus the top-level nulls of keys that are not required (absent, SPEC §11).
fn without_absent_nulls(answer: &Value, schema: &Value) -> Value {
    let mut answer = answer.clone();
    let required = schema["required"].as_array().cloned().unwrap_or_default();
    if let Some(map) = answer.as_object_mut() {
        map.retain(|key, value| !value.is_null() || required.contains(&json!(key)));
    }
    answer
}

/// What one path made of an answer: the tool's result.
type Path<'a> = &'a dyn Fn(&Value) -> ToolResult;

/// Generated schemas and answers over every path in `paths` (named, and whether the answer
/// crosses MCP), each checked against the tool's run count in `runs`.
fn generated_answers_over(
    paths: &[(&str, bool, Path<'_>)],
    asked: &Mutex<Value>,
    runs: &AtomicUsize,
) {
    let config = Config {
        cases: 48,
        failure_persistence: None,
        ..Config::default()
    };
    let strategy = (
        form().prop_flat_map(|schema| (Just(schema.clone()), answers(&schema))),
        prop::collection::vec(mutate::mutation(), 1..3),
    )
        .prop_map(|((schema, answer), mutations)| (schema, answer, mutations));
    let mut runner = TestRunner::new(config);
    let outcome = runner.run(&strategy, |(schema, answer, mutations)| {
        *asked.lock().unwrap() = schema.clone();
        let validator = jsonschema::validator_for(&schema).expect("a valid schema");
        for &(name, over_mcp, path) in paths {
            let before = runs.load(Ordering::SeqCst);
            let result = path(&answer);
            prop_assert!(
                !result.is_error,
                "{name} refuses {answer}: {}",
                result.output
            );
            prop_assert_eq!(result.output.parse::<Value>().ok(), Some(answer.clone()));
            prop_assert_eq!(runs.load(Ordering::SeqCst), before + 1);

            for (field, past) in mutate::past_limits(&schema, &answer) {
                let before = runs.load(Ordering::SeqCst);
                let result = path(&past);
                prop_assert!(
                    result.is_error
                        && result
                            .output
                            .starts_with(&format!("answer to `fill`: field `{field}`: ")),
                    "{name}: past a limit at `{field}`, {past} gives {}",
                    result.output
                );
                prop_assert_eq!(runs.load(Ordering::SeqCst), before, "{} ran the tool", name);
            }

            let mut mutant = answer.clone();
            for mutation in &mutations {
                mutate::apply(&mut mutant, mutation);
            }
            if !mutant.is_object() {
                // An answer's data is an object; MCP cannot carry another.
                continue;
            }
            let before = runs.load(Ordering::SeqCst);
            let result = path(&mutant);
            if over_mcp && !elicitation_content(&mutant) {
                // SPEC §10B: what no elicitation result can carry (a null, an object, an
                // array of non-strings) answers nothing over MCP, whatever the schema says.
                prop_assert!(
                    result.is_error && result.output.contains("is not an elicitation result"),
                    "{name} on {mutant}: {}",
                    result.output
                );
                prop_assert_eq!(runs.load(Ordering::SeqCst), before, "{} ran the tool", name);
                continue;
            }
            let admitted = validator.is_valid(&without_absent_nulls(&mutant, &schema));
            prop_assert_eq!(
                !result.is_error,
                admitted,
                "{} on {} (schema {}): {}",
                name,
                mutant,
                schema,
                result.output
            );
            let ran = runs.load(Ordering::SeqCst) - before;
            prop_assert_eq!(
                ran,
                usize::from(admitted),
                "{} ran the tool {} times",
                name,
                ran
            );
            if !admitted {
                prop_assert!(
                    result.output.starts_with("answer to `fill`: "),
                    "{name}: {}",
                    result.output
                );
            }
        }
        Ok::<(), TestCaseError>(())
    });
    if let Err(failure) = outcome {
        panic!("{failure}");
    }
}

#[test]
fn generated_answers_are_accepted_and_mutated_ones_refused_on_every_path() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (toolkit, asked, runs) = fill();
    let in_process = |answer: &Value| {
        runtime.block_on(toolkit.call("fill", json!({}), |request: Request| {
            let answer = accept(&request, answer.clone());
            async move { answer }
        }))
    };
    #[cfg(not(feature = "mcp"))]
    generated_answers_over(&[("Toolkit::call", false, &in_process)], &asked, &runs);
    #[cfg(feature = "mcp")]
    {
        let clients = runtime.block_on(mcp::clients(toolkit.clone()));
        let elicited = |answer: &Value| runtime.block_on(clients.elicited(answer));
        let retried = |answer: &Value| runtime.block_on(clients.retried(answer));
        generated_answers_over(
            &[
                ("Toolkit::call", false, &in_process),
                ("elicitation/create (2025-11-25)", true, &elicited),
                ("inputResponses (2026-07-28)", true, &retried),
            ],
            &asked,
            &runs,
        );
        runtime.block_on(clients.close());
    }
}

#[cfg(feature = "mcp")]
use crate::common::mcp_client;

#[cfg(feature = "mcp")]
mod mcp {
    use rmcp::model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, ElicitationAction, InputResponses,
        ProtocolVersion,
    };
    use rmcp::service::{RoleClient, RunningService, ServiceError, ServiceExt};
    use rmcp::transport::async_rw::AsyncRwTransport;
    use serde_json::{Value, json};
    use toolnexus::mcp::{LineTransport, McpServer};
    use toolnexus::{ToolResult, Toolkit};

    use super::mcp_client::{Log, Modes, TestClient, connect_over};

    pub struct Clients {
        older: (RunningService<RoleClient, TestClient>, TestClient),
        mrtr: RunningService<RoleClient, TestClient>,
    }

    /// A 2025-11-25 and a 2026-07-28 client of `toolkit`, each over stdio.
    pub async fn clients(toolkit: Toolkit) -> Clients {
        let older = TestClient::new(ProtocolVersion::V_2025_11_25, Modes::Form);
        let script = older.clone();
        Clients {
            older: (stdio(toolkit.clone(), older).await, script),
            mrtr: stdio(
                toolkit,
                TestClient::new(ProtocolVersion::V_2026_07_28, Modes::Form),
            )
            .await,
        }
    }

    async fn stdio(toolkit: Toolkit, client: TestClient) -> RunningService<RoleClient, TestClient> {
        let (server_end, client_end) = tokio::io::duplex(64 * 1024);
        let (read, write) = tokio::io::split(server_end);
        tokio::spawn(async move {
            if let Ok(running) = McpServer::new(toolkit)
                .serve(LineTransport::new(read, write))
                .await
            {
                let _ = running.waiting().await;
            }
        });
        let (read, write) = tokio::io::split(client_end);
        connect_over(
            client,
            AsyncRwTransport::new_client(read, write),
            &Log::default(),
        )
        .await
    }

    /// The result's text as a [`ToolResult`].
    fn lowered(result: &CallToolResult) -> ToolResult {
        let text = result.content[0].as_text().unwrap().text.clone();
        match result.is_error {
            Some(true) => ToolResult::error(text),
            _ => ToolResult::ok(text),
        }
    }

    fn call() -> CallToolRequestParams {
        CallToolRequestParams::new("fill").with_arguments(Default::default())
    }

    impl Clients {
        /// `fill` called by the 2025-11-25 client, which accepts with `answer`.
        pub async fn elicited(&self, answer: &Value) -> ToolResult {
            let (client, script) = &self.older;
            script.answer(ElicitationAction::Accept, Some(answer.clone()));
            lowered(&client.call_tool(call()).await.unwrap())
        }

        /// `fill` called by the 2026-07-28 client, retried with `answer`.
        pub async fn retried(&self, answer: &Value) -> ToolResult {
            let CallToolResponse::InputRequired(question) =
                self.mrtr.call_tool_once(call()).await.unwrap()
            else {
                panic!("fill asks first");
            };
            let responses: InputResponses = question
                .input_requests
                .unwrap()
                .into_keys()
                .map(|key| (key, json!({"action": "accept", "content": answer})))
                .collect();
            let retry = call()
                .with_input_responses(responses)
                .with_request_state(question.request_state.unwrap());
            match self.mrtr.call_tool_once(retry).await {
                Ok(CallToolResponse::Complete(result)) => lowered(&result),
                // A retry refused with -32602 (SPEC §10B): its message, as `McpTools` reads it.
                Err(ServiceError::McpError(error)) => ToolResult::error(error.message),
                other => panic!("expected a result, got {other:?}"),
            }
        }

        pub async fn close(self) {
            self.older.0.cancel().await.unwrap();
            self.mrtr.cancel().await.unwrap();
        }
    }
}
