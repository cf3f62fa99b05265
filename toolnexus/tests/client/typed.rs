//! Typed answers (SPEC §16B): `Client::run_typed` on each of the four APIs against a model
//! that renders every request with `request_body_for` — the answer decoded by the §11
//! checker, refused answers sent back naming the path within the §15B budget, a parked typed
//! run resumed typed. The requests themselves are `typed_requests.rs`'.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use proptest::prelude::*;
use serde::Deserialize;
use serde_json::{Value, json};
use toolnexus::client::{
    Client, Message, Model, ModelError, ModelRequest, Reply, RunError, Status, request_body_for,
};
use toolnexus::{Answer, Api, BoxFuture, JsonSchema, ToolCall, Toolkit};

use crate::scripted::{approval, call, counting, runs};

/// Tomorrow's highs.
#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
pub struct Forecast {
    pub city: String,
    pub days: Vec<Day>,
}

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
pub struct Day {
    #[schemars(range(min = -90, max = 60))]
    pub high: i32,
}

/// `request_body_for` renders it.
#[derive(Clone)]
pub struct Answering {
    api: Api,
    replies: Arc<Mutex<VecDeque<Reply>>>,
    pub bodies: Arc<Mutex<Vec<Value>>>,
}

impl Answering {
    pub fn new(api: Api, replies: impl IntoIterator<Item = Reply>) -> Self {
        Self {
            api,
            replies: Arc::new(Mutex::new(replies.into_iter().collect())),
            bodies: Arc::default(),
        }
    }

    pub fn bodies(&self) -> Vec<Value> {
        self.bodies.lock().unwrap().clone()
    }
}

impl Model for Answering {
    fn api(&self) -> Api {
        self.api
    }

    fn name(&self) -> &str {
        "answering"
    }

    fn reply<'a>(&'a self, request: ModelRequest<'a>) -> BoxFuture<'a, Result<Reply, ModelError>> {
        let body = request_body_for(self.api, "m", request, false);
        self.bodies.lock().unwrap().push(body);
        let next = self.replies.lock().unwrap().pop_front();
        Box::pin(async move { next.ok_or_else(|| ModelError::fatal("the script ran out")) })
    }
}

/// `json` as `api` gives a final answer: Anthropic as the input of a call to the answer tool
/// `name` (with text beside it, which is not the answer), the others as the reply's text.
pub fn answer(api: Api, name: &str, json: &str) -> Reply {
    match api {
        Api::Anthropic => Reply {
            text: "Here it is.".into(),
            tool_calls: vec![ToolCall {
                id: "toolu_1".into(),
                name: name.into(),
                arguments: json.into(),
            }],
            ..Reply::default()
        },
        _ => Reply {
            text: json.into(),
            ..Reply::default()
        },
    }
}

/// Whether `body` asks for the answer by one API's means.
fn asks_for_the_answer(body: &Value) -> bool {
    let asked = ["response_format", "text", "tool_choice", "generationConfig"];
    asked.iter().filter(|key| body.get(**key).is_some()).count() == 1
}

const GOOD: &str = r#"{"city": "Paris", "days": [{"high": 21}, {"high": 18}]}"#;
const HOT: &str = r#"{"city": "Paris", "days": [{"high": 21}, {"high": 150}]}"#;
const HOT_DETAIL: &str = "field `days[1].high`: 150 is greater than the maximum of 60";

fn paris() -> Forecast {
    Forecast {
        city: "Paris".into(),
        days: vec![Day { high: 21 }, Day { high: 18 }],
    }
}

fn block_on<F: std::future::Future>(future: F) -> F::Output {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    runtime.block_on(future)
}

#[tokio::test]
async fn a_valid_first_answer_is_the_value_on_every_api() {
    for api in Api::ALL {
        let model = Answering::new(api, [answer(api, "Forecast", GOOD)]);
        let client = Client::with_model(model.clone()).system("Be brief.");
        let typed = client
            .run_typed::<Forecast>("Paris, next two days?", &Toolkit::new())
            .await
            .unwrap();
        assert_eq!(typed.value, paris(), "{api}");
        assert_eq!((typed.run.turns, typed.run.status), (1, Status::Done));
        assert_eq!(typed.run.text, GOOD);
        // The answer is the assistant's text on every API: no answer-tool call is kept.
        assert_eq!(
            typed.run.messages.last(),
            Some(&Message::Assistant {
                text: GOOD.into(),
                tool_calls: Vec::new(),
                echo: None,
            }),
            "{api}"
        );
        assert_eq!(model.bodies().len(), 1);
    }
}

#[tokio::test]
async fn tool_calls_before_the_answer_run_as_in_any_run() {
    for api in Api::ALL {
        let (runs, add) = counting("add");
        let toolkit = Toolkit::new().with(add);
        let model = Answering::new(
            api,
            [
                Reply {
                    tool_calls: vec![call("c1", "add", json!({}))],
                    ..Reply::default()
                },
                answer(api, "Forecast", GOOD),
            ],
        );
        let typed = Client::with_model(model.clone())
            .run_typed::<Forecast>("go", &toolkit)
            .await
            .unwrap();
        assert_eq!((typed.value, typed.run.turns), (paris(), 2), "{api}");
        assert_eq!(runs.load(std::sync::atomic::Ordering::SeqCst), 1);
        assert_eq!(typed.run.tool_calls[0].name, "add");
        // Both requests asked for the answer.
        assert!(model.bodies().iter().all(asks_for_the_answer), "{api}");
    }
}

#[tokio::test]
async fn an_answer_refused_once_goes_back_naming_the_path_then_the_next_is_taken() {
    for api in Api::ALL {
        let model = Answering::new(
            api,
            [answer(api, "Forecast", HOT), answer(api, "Forecast", GOOD)],
        );
        let typed = Client::with_model(model.clone())
            .run_typed::<Forecast>("Paris?", &Toolkit::new())
            .await
            .unwrap();
        assert_eq!((typed.value, typed.run.turns), (paris(), 2), "{api}");
        let again = if api == Api::Anthropic {
            "Call `Forecast` again"
        } else {
            "Answer again"
        };
        let retry = format!(
            "Your answer does not fit the schema of `Forecast`: {HOT_DETAIL}. {again} with the \
             whole answer, corrected."
        );
        // The transcript: the prompt, the refused answer as text, the retry, the answer.
        assert_eq!(
            typed.run.messages[1..3],
            [
                Message::Assistant {
                    text: HOT.into(),
                    tool_calls: Vec::new(),
                    echo: None,
                },
                Message::user(retry.clone()),
            ],
            "{api}"
        );
        // The second request carries the retry, on the API's own wire.
        let bodies = model.bodies();
        assert_eq!(bodies.len(), 2);
        let sent = bodies[1].to_string();
        assert!(
            sent.contains(&Value::from(retry).to_string()),
            "{api}: {sent}"
        );
    }
}

#[tokio::test]
async fn an_answer_refused_every_time_is_a_run_error_naming_the_path_and_the_limit() {
    for api in Api::ALL {
        let model = Answering::new(api, (0..10).map(|_| answer(api, "Forecast", HOT)));
        let error: RunError = Client::with_model(model.clone())
            .run_typed::<Forecast>("Paris?", &Toolkit::new())
            .await
            .unwrap_err();
        assert_eq!(
            error.message,
            format!(
                "the answer `Forecast` was refused 3 times in a row, past its retry budget of 2 \
                 (`Toolkit::retries`): {HOT_DETAIL}"
            ),
            "{api}"
        );
        assert_eq!((error.api, error.status), (api, None));
        assert_eq!(error.so_far.turns, 3);
        assert_eq!(model.bodies().len(), 3);
        // Every refused answer is in the transcript, each followed by its retry but the last.
        let retries = error
            .so_far
            .messages
            .iter()
            .filter(|message| matches!(message, Message::User { text, .. } if text.contains(HOT_DETAIL)))
            .count();
        assert_eq!(retries, 2);
    }
}

#[tokio::test]
async fn an_answer_that_is_not_json_is_refused_and_retried() {
    let model = Answering::new(
        Api::OpenAiChat,
        [
            answer(Api::OpenAiChat, "Forecast", "Sunny, 21°."),
            answer(Api::OpenAiChat, "Forecast", GOOD),
        ],
    );
    let typed = Client::with_model(model)
        .run_typed::<Forecast>("Paris?", &Toolkit::new())
        .await
        .unwrap();
    assert_eq!(typed.value, paris());
    let Message::User { text, .. } = &typed.run.messages[2] else {
        panic!("{:?}", typed.run.messages)
    };
    assert!(
        text.starts_with("Your answer does not fit the schema of `Forecast`: "),
        "{text}"
    );
    // The parser's own words, as a tool's arguments get them.
    assert!(text.contains("expected value at line 1 column 1"), "{text}");
}

#[tokio::test]
async fn anthropic_text_without_the_answer_tool_is_refused() {
    let model = Answering::new(
        Api::Anthropic,
        [
            Reply {
                text: GOOD.into(),
                ..Reply::default()
            },
            answer(Api::Anthropic, "Forecast", GOOD),
        ],
    );
    let typed = Client::with_model(model)
        .run_typed::<Forecast>("Paris?", &Toolkit::new())
        .await
        .unwrap();
    assert_eq!(typed.run.turns, 2);
    assert_eq!(
        typed.run.messages[2],
        Message::user(
            "Your answer does not fit the schema of `Forecast`: the answer was given as text, \
             not as the input of `Forecast`. Call `Forecast` again with the whole answer, \
             corrected."
        )
    );
}

#[tokio::test]
async fn the_toolkit_s_retry_budget_counts_refused_answers() {
    for (budget, refusals) in [(0, 1), (1, 2), (4, 5)] {
        let model = Answering::new(
            Api::Gemini,
            (0..10).map(|_| answer(Api::Gemini, "Forecast", HOT)),
        );
        let error = Client::with_model(model.clone())
            .run_typed::<Forecast>("Paris?", &Toolkit::new().retries(budget))
            .await
            .unwrap_err();
        assert!(
            error.message.starts_with(&format!(
                "the answer `Forecast` was refused {refusals} times in a row, past its retry budget of {budget}"
            )),
            "{}",
            error.message
        );
        assert_eq!(model.bodies().len(), refusals as usize);
    }
}

#[tokio::test]
async fn a_run_that_ends_before_answering_is_an_error_saying_which_budget() {
    let (_, add) = counting("add");
    let calling = Reply {
        tool_calls: vec![call("c1", "add", json!({}))],
        ..Reply::default()
    };
    let model = Answering::new(Api::OpenAiChat, [calling.clone(), calling]);
    let error = Client::with_model(model)
        .max_turns(2)
        .run_typed::<Forecast>("Paris?", &Toolkit::new().with(add))
        .await
        .unwrap_err();
    assert_eq!(
        error.message,
        "the run ended before answering: its limit `maxTurns` was reached"
    );
    assert_eq!(error.so_far.status, Status::Incomplete);
}

#[tokio::test]
async fn a_typed_run_that_parks_is_resumed_typed_from_its_stored_form() {
    for api in Api::ALL {
        let (deploys, deploy) = approval("deploy", "Deploy?");
        let toolkit = Toolkit::new().with(deploy);
        let deploying = Reply {
            tool_calls: vec![call("c1", "deploy", json!({}))],
            ..Reply::default()
        };
        let model = Answering::new(
            api,
            [
                deploying,
                answer(api, "Forecast", HOT),
                answer(api, "Forecast", GOOD),
            ],
        );
        let client = Client::with_model(model.clone());
        let error = client
            .run_typed::<Forecast>("Deploy, then forecast.", &toolkit)
            .await
            .unwrap_err();
        assert_eq!(
            error.message,
            "the run parked before answering, on `Deploy?`"
        );
        assert_eq!(error.so_far.status, Status::Pending);
        let stored = serde_json::to_string(&error.so_far).unwrap();
        let parked: toolnexus::client::RunResult = serde_json::from_str(&stored).unwrap();
        let request = parked.pending.clone().unwrap();

        // An answer to another request is refused, and nothing runs.
        let mut other = Answer::approve(&request);
        other.id = "another".into();
        let refused = client
            .resume_typed::<Forecast>(parked.clone(), other, &toolkit)
            .await
            .unwrap_err();
        assert!(
            refused.message.contains("nothing ran"),
            "{}",
            refused.message
        );
        assert_eq!((runs(&deploys), model.bodies().len()), (1, 1));

        let typed = client
            .resume_typed::<Forecast>(parked, Answer::approve(&request), &toolkit)
            .await
            .unwrap();
        assert_eq!((typed.value, typed.run.turns), (paris(), 3), "{api}");
        assert_eq!(runs(&deploys), 2);
        // Every request after the resume still asked for the answer, the retry included.
        let bodies = model.bodies();
        assert_eq!(bodies.len(), 3);
        assert!(bodies.iter().all(asks_for_the_answer), "{api}");
        assert!(bodies[2].to_string().contains(HOT_DETAIL), "{api}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// Any first answer: taken at once when every high is within the schema's bounds, else
    /// refused naming the first high out of bounds, and the second answer taken.
    #[test]
    fn a_generated_answer_is_taken_or_refused_naming_its_path(
        highs in proptest::collection::vec(-200i32..200, 0..5),
        at in 0usize..4,
    ) {
        let api = Api::ALL[at];
        let first = json!({"city": "Oslo", "days": highs.iter().map(|high| json!({"high": high})).collect::<Vec<_>>()});
        let model = Answering::new(api, [answer(api, "Forecast", &first.to_string()), answer(api, "Forecast", GOOD)]);
        let typed = block_on(Client::with_model(model).run_typed::<Forecast>("Oslo?", &Toolkit::new())).unwrap();
        match highs.iter().position(|high| !(-90..=60).contains(high)) {
            None => {
                prop_assert_eq!(typed.run.turns, 1);
                let days: Vec<i32> = typed.value.days.iter().map(|day| day.high).collect();
                prop_assert_eq!(days, highs);
            }
            Some(wrong) => {
                prop_assert_eq!(typed.run.turns, 2);
                prop_assert_eq!(typed.value, paris());
                let Message::User { text, .. } = &typed.run.messages[2] else { panic!() };
                let high = highs[wrong];
                let limit = if high > 60 { "greater than the maximum of 60" } else { "less than the minimum of -90" };
                let expected = format!("field `days[{wrong}].high`: {high} is {limit}");
                prop_assert!(text.contains(&expected), "{} lacks {}", text, expected);
            }
        }
    }
}
