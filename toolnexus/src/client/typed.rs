//! Typed answers (SPEC §16B): a run whose final answer is a Rust value — asked of each API by
//! its own means through that API's §11 profile, decoded by the §11 checker, and sent back to
//! the model while it does not fit, within the §15B retry budget.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use crate::client::Client;
use crate::client::message::Message;
use crate::client::model::{AnswerSchema, ModelError, Reply};
use crate::client::outcome::{ParkedTurn, RunError, RunResult, Status};
use crate::client::run::{Asked, Judged, Run};
use crate::decode::decode_args_json;
use crate::decode::schema::{ToolSchema, tool_schema_built};
use crate::provider::profile::{IssueKind, Profile, SchemaIssue};
use crate::provider::tool_call::Api;
use crate::result::ToolResult;
use crate::result::lower::IntoToolError;
use crate::result::retry::Retry;
use crate::result::suspend::{Answer, Request};
use crate::tool::sanitize;
use crate::toolkit::Toolkit;

/// What [`Client::run_typed`] returns: the answer, decoded, and the whole run that gave it
/// ([`Status::Done`]; its [`text`](RunResult::text) is the answer's JSON).
#[derive(Clone, Debug, PartialEq)]
pub struct Typed<T> {
    /// The final answer.
    pub value: T,
    /// The run: its transcript (refused answers and what was said about them included), tool
    /// calls, turns and usage.
    pub run: RunResult,
}

impl AnswerSchema {
    /// The schema of `T` as `api` is asked for it (SPEC §16B), through that API's §11 profile:
    /// Chat Completions and Responses [`Profile::OpenAiStrict`] (sent with `"strict": true`),
    /// Anthropic [`Profile::Plain`] (the schema Anthropic's tools are sent with), Gemini
    /// [`Profile::GeminiJsonSchema`]. The name is `T`'s schema name with every character
    /// outside `[a-zA-Z0-9_-]` made `_`, cut to 64.
    ///
    /// What the profile cannot say is refused, never narrowed: `Err` holds every issue
    /// [`Profile::rewrite`] reports but those [`IssueKind::EnforcedByTool`] (a limit written
    /// into a description, which the answer's check enforces), each with the answer's name as
    /// its [`tool`](SchemaIssue::tool) — a map with any keys, a free `serde_json::Value` or a
    /// tuple under strict mode, a root that is not an object (every API wants an object).
    ///
    /// ```
    /// use std::collections::HashMap;
    /// use toolnexus::Api;
    /// use toolnexus::client::AnswerSchema;
    ///
    /// #[derive(toolnexus::JsonSchema, serde::Deserialize)]
    /// struct Prices { by_city: HashMap<String, f64> }
    ///
    /// let issues = AnswerSchema::of::<Prices>(Api::OpenAiChat).unwrap_err();
    /// assert_eq!((issues[0].tool.as_str(), issues[0].path.as_str()), ("Prices", "by_city"));
    /// assert!(AnswerSchema::of::<Prices>(Api::Gemini).is_ok()); // JSON Schema says maps
    /// ```
    pub fn of<T: JsonSchema>(api: Api) -> Result<Self, Vec<SchemaIssue>> {
        profiled::<T>(api, &tool_schema_built(T::json_schema, false))
    }
}

/// The profile each API's answer schema goes through.
fn profile_of(api: Api) -> Profile {
    match api {
        Api::OpenAiChat | Api::OpenAiResponses => Profile::OpenAiStrict,
        Api::Anthropic => Profile::Plain,
        Api::Gemini => Profile::GeminiJsonSchema,
    }
}

/// [`AnswerSchema::of`] from `T`'s decoding schema, built once by the caller.
fn profiled<T: JsonSchema>(
    api: Api,
    decoding: &ToolSchema,
) -> Result<AnswerSchema, Vec<SchemaIssue>> {
    let mut name: String = sanitize(&T::schema_name()).chars().take(64).collect();
    if name.is_empty() {
        name = "answer".to_owned();
    }
    let profile = profile_of(api);
    let (schema, issues) = profile.rewrite(&decoding.input);
    let mut issues: Vec<SchemaIssue> = issues
        .into_iter()
        .filter(|issue| issue.kind != IssueKind::EnforcedByTool)
        .collect();
    if decoding.input.get("type").and_then(|kind| kind.as_str()) != Some("object") {
        issues.insert(
            0,
            SchemaIssue {
                tool: String::new(),
                profile,
                path: String::new(),
                lost: "an answer that is not an object".to_owned(),
                why: "every API asks for an object at an answer's root; wrap the type in a \
                      struct"
                    .to_owned(),
                kind: IssueKind::Unsaid,
            },
        );
    }
    for issue in &mut issues {
        issue.tool.clone_from(&name);
    }
    if issues.is_empty() {
        Ok(AnswerSchema { name, schema })
    } else {
        Err(issues)
    }
}

impl Client {
    /// Runs `prompt` as [`run`](Self::run) does, the final answer asked for in `T`'s schema by
    /// the API's own means ([`request_body_for`](crate::client::request_body_for) shows each)
    /// and decoded into a `T`: the value a Rust caller wants, with the run beside it.
    ///
    /// - **Before any request**, the schema is built for the model's API
    ///   ([`AnswerSchema::of`]); a `T` the API's profile cannot say (a map with any keys under
    ///   strict mode, say) is a [`RunError`] listing each [`SchemaIssue`], and the model is
    ///   never called. So is an answer named as a tool of `toolkit` is.
    /// - **The answer** is the text of a reply without tool calls (Chat Completions,
    ///   Responses, Gemini), or the input of the call to the answer tool (Anthropic, whose
    ///   text is not read). Tool calls before it run as in any run. It is checked and decoded
    ///   by the §11 checker that decodes tool arguments, so every keyword of `T`'s schema
    ///   holds, at any depth, including what the profile only says in words.
    /// - **A refused answer** stays in the transcript as the assistant's text (so the
    ///   transcript holds no answer-tool call, and continues on any API), followed by a user
    ///   message naming the path and what was wrong
    ///   (``Your answer does not fit the schema of `Forecast`: field `days[0].high`: 150 is
    ///   greater than the maximum of 60. …``), and the model is asked again. These retries
    ///   count in the toolkit's retry budget for a tool that sets none (SPEC §15B,
    ///   [`Toolkit::retries`], default 2: the answer may be refused twice in a row), and each
    ///   is a turn of [`max_turns`](Self::max_turns). Past the budget the run is a
    ///   [`RunError`] naming the count, the budget, the path and the limit, carrying the
    ///   run so far.
    /// - **A run that does not answer** — it parks on a suspension ([`Status::Pending`]) or a
    ///   budget ends it ([`Status::Incomplete`]) — is a [`RunError`] saying which, its
    ///   [`so_far`](RunError::so_far) the [`RunResult`] [`run`](Self::run) would return;
    ///   [`resume_typed`](Self::resume_typed) continues a parked one.
    ///
    /// On Anthropic every turn calls one tool (`tool_choice` `any`, no parallel calls), which
    /// extended thinking does not allow. On Gemini the request's `generationConfig` is the
    /// answer's (a [`request_param`](Self::request_param) of that name replaces it), and models
    /// before Gemini 3 refuse JSON output beside function declarations (HTTP 400, a
    /// [`RunError`] naming it).
    ///
    /// ```
    /// use toolnexus::client::{Client, Model, ModelError, ModelRequest, Reply};
    /// use toolnexus::{Api, BoxFuture, Toolkit};
    ///
    /// /// Tomorrow's weather.
    /// #[derive(toolnexus::JsonSchema, serde::Deserialize, Debug, PartialEq)]
    /// struct Forecast { city: String, high: i32 }
    ///
    /// /// A stand-in for a model that answers in the schema it is sent.
    /// struct Scripted;
    ///
    /// impl Model for Scripted {
    ///     fn api(&self) -> Api { Api::OpenAiChat }
    ///     fn name(&self) -> &str { "scripted" }
    ///     fn reply<'a>(&'a self, request: ModelRequest<'a>) -> BoxFuture<'a, Result<Reply, ModelError>> {
    ///         assert_eq!(request.answer.unwrap().name, "Forecast");
    ///         let text = r#"{"city": "Paris", "high": 21}"#.to_owned();
    ///         Box::pin(async move { Ok(Reply { text, ..Reply::default() }) })
    ///     }
    /// }
    ///
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let client = Client::with_model(Scripted);
    /// let forecast = client.run_typed::<Forecast>("Tomorrow in Paris?", &Toolkit::new()).await.unwrap();
    /// assert_eq!(forecast.value, Forecast { city: "Paris".into(), high: 21 });
    /// assert_eq!(forecast.run.turns, 1);
    /// # });
    /// ```
    pub async fn run_typed<T: DeserializeOwned + JsonSchema>(
        &self,
        prompt: impl Into<String>,
        toolkit: &Toolkit,
    ) -> Result<Typed<T>, RunError> {
        let run = Run::fresh(self, toolkit, Vec::new(), prompt.into(), None);
        self.drive_typed(run, Start::Fresh).await
    }

    /// [`resume`](Self::resume) for a typed run that parked ([`run_typed`](Self::run_typed)'s
    /// [`RunError`] whose [`so_far`](RunError::so_far) is [`Status::Pending`]): the waiting
    /// call runs once more with `answer`, and the run goes on asking for a `T` — the same `T`
    /// it was started with, which the parked [`RunResult`] does not record. An answer to
    /// another request, or a run that is not pending, is refused and nothing runs, as
    /// `resume` refuses it; so is a `T` the API cannot be asked for.
    pub async fn resume_typed<T: DeserializeOwned + JsonSchema>(
        &self,
        parked: RunResult,
        answer: Answer,
        toolkit: &Toolkit,
    ) -> Result<Typed<T>, RunError> {
        let (mut result, turn, at, request) = self.unpark(parked, &answer)?;
        result.status = Status::Incomplete;
        let state = turn.run_state.clone();
        let run = Run::new(self, toolkit, result, state, None);
        let resumed = Box::new((turn, at, request, answer));
        self.drive_typed(run, Start::Resumed(resumed)).await
    }

    /// Runs `run` from `start` asking for a `T`, once the API is known to be able to ask for
    /// it; the decoded answer, or why there is none.
    async fn drive_typed<T: DeserializeOwned + JsonSchema>(
        &self,
        mut run: Run<'_>,
        start: Start,
    ) -> Result<Typed<T>, RunError> {
        let api = self.model.api();
        let decoding = tool_schema_built(T::json_schema, false);
        let answer = match profiled::<T>(api, &decoding) {
            Ok(answer) => answer,
            Err(issues) => return Err(run.fail(ModelError::fatal(unaskable(api, &issues)))),
        };
        if run.toolkit.get(&answer.name).is_some() {
            let clash = format!(
                "the answer `{}` cannot be asked for: the toolkit has a tool of that name",
                answer.name
            );
            return Err(run.fail(ModelError::fatal(clash)));
        }
        let check = |text: &str| {
            decode_args_json::<T>(&answer.name, text, &decoding)
                .map(drop)
                .map_err(|refused| detail(&answer.name, &refused))
        };
        run.asked = Some(Asked {
            schema: &answer,
            check: &check,
        });
        let result = match start {
            Start::Fresh => self.drive(run.turns()).await?,
            Start::Resumed(resumed) => {
                let (turn, at, request, answer) = *resumed;
                self.drive(run.resume(turn, at, request, answer)).await?
            }
        };
        let unanswered = match result.status {
            Status::Done => {
                return match decode_args_json::<T>(&answer.name, &result.text, &decoding) {
                    Ok(value) => Ok(Typed { value, run: result }),
                    // The check passed this text: only a `Deserialize` that changes its mind
                    // gets here.
                    Err(refused) => Err(failed(api, detail(&answer.name, &refused), result)),
                };
            }
            Status::Pending => {
                let prompt = result
                    .pending
                    .as_ref()
                    .map_or("", |request| &request.prompt);
                format!("the run parked before answering, on `{prompt}`")
            }
            Status::Incomplete => {
                let limit = serde_json::to_value(result.limit).unwrap_or_default();
                format!(
                    "the run ended before answering: its limit `{}` was reached",
                    limit.as_str().unwrap_or("none")
                )
            }
        };
        Err(failed(api, unanswered, result))
    }
}

/// Where a typed run starts: its prompt (already in the run's transcript), or a parked turn,
/// the position of its waiting call, the request it waits on and the answer to it.
enum Start {
    Fresh,
    Resumed(Box<(ParkedTurn, usize, Request, Answer)>),
}

/// A typed run's error that is no provider's: `message`, and the run as it ended.
fn failed(api: Api, message: String, so_far: RunResult) -> RunError {
    RunError {
        api,
        status: None,
        message,
        so_far: Box::new(so_far),
    }
}

/// Why `api` cannot be asked for the answer: each issue on its own line.
fn unaskable(api: Api, issues: &[SchemaIssue]) -> String {
    let mut message = format!(
        "the answer cannot be asked of {api} without narrowing it ({} cannot say it):",
        issues[0].profile
    );
    for issue in issues {
        let at = if issue.path.is_empty() {
            String::new()
        } else {
            format!(" at `{}`", issue.path)
        };
        message.push_str(&format!(
            "\n- `{}`{at}: {}: {}",
            issue.tool, issue.lost, issue.why
        ));
    }
    message
}

/// The checker's ``invalid arguments for `NAME`: DETAIL`` as its DETAIL (the path and the
/// limit).
fn detail(name: &str, refused: &ToolResult) -> String {
    let prefix = format!("invalid arguments for `{name}`: ");
    let output = &refused.output;
    output.strip_prefix(&prefix).unwrap_or(output).to_owned()
}

impl Run<'_> {
    /// What a typed run makes of `reply`: tool calls to run, or a candidate answer — taken
    /// when it fits, else refused (counted against the retry budget, and the refusal appended
    /// for the model to read).
    pub(crate) fn judge_answer(&mut self, asked: Asked<'_>, reply: Reply) -> Judged {
        let name = asked.schema.name.as_str();
        let (given, echo) = if self.client.model.api() == Api::Anthropic {
            match reply.tool_calls.iter().find(|call| call.name == name) {
                // The forced tool's input is the answer; its call is not kept (see below).
                Some(call) => (Some(call.arguments.clone()), None),
                None if !reply.tool_calls.is_empty() => return Judged::Calls(reply),
                None => (None, reply.echo),
            }
        } else if reply.tool_calls.is_empty() {
            (Some(reply.text.clone()), reply.echo)
        } else {
            return Judged::Calls(reply);
        };
        // The answer is kept as the assistant's text on every API: a transcript holding a call
        // to a tool no API is sent again would be refused where it continues.
        let text = given.clone().unwrap_or(reply.text);
        self.result.text.clone_from(&text);
        self.result.messages.push(Message::Assistant {
            text,
            tool_calls: Vec::new(),
            echo,
        });
        let wrong = match given {
            Some(given) => match (asked.check)(&given) {
                Ok(()) => return Judged::Taken,
                Err(wrong) => wrong,
            },
            None => format!("the answer was given as text, not as the input of `{name}`"),
        };
        let mut counted = Retry::new(wrong.clone()).into_tool_error();
        self.toolkit.count_in(&mut self.state, name, &mut counted);
        if self.state.exhausted() == Some(name) {
            let times = self.state.retries_of(name);
            return Judged::Exhausted(format!(
                "the answer `{name}` was refused {times} times in a row, past its retry budget \
                 of {} (`Toolkit::retries`): {wrong}",
                times.saturating_sub(1)
            ));
        }
        let again = if self.client.model.api() == Api::Anthropic {
            format!("Call `{name}` again")
        } else {
            "Answer again".to_owned()
        };
        self.result.messages.push(Message::user(format!(
            "Your answer does not fit the schema of `{name}`: {wrong}. {again} with the whole \
             answer, corrected."
        )));
        Judged::Refused
    }
}
