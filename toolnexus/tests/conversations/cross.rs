//! One conversation across providers (SPEC §16, §16B): runs of `Client::with_model` on one
//! transcript, the model switched between runs (and between a parked run and its resume),
//! each API's replies in its real shape. Every request sent is checked: valid on its API
//! (`requests::check_request`), every call and result of the transcript in it, the echo of
//! its own API's replies kept and no other API's, each part carried where the API takes it
//! and its placeholder text where it does not. The bodies go to the SDK corpus.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::prelude::*;
use toolnexus::client::{
    Client, Conversation, ConversationStore, Echo, InMemoryConversations, Message, RunResult,
    Status,
};
use toolnexus::parts::{Source, from_bytes, part_bytes};
use toolnexus::{
    Answer, Api, ContentPart, Reason, Request, ToolContext, ToolResult, Toolkit, define_tool,
};

use crate::corpus::{Corpus, runner};
use crate::requests::check_request;
use crate::wire_models::{Script4, Sent, Step};

const PNG: &[u8] = b"\x89PNG\r\n\x1a\nchart";
const WAV: &[u8] = b"RIFF\x24\x00\x00\x00WAVEfmt recording";
const PDF: &[u8] = b"%PDF-1.7 report";
const TOOLS: [&str; 6] = ["weather", "chart", "record", "report", "fail", "deploy"];

/// The tools: text, an image, audio, a PDF, an error, and one that asks for approval.
fn toolkit() -> Toolkit {
    let tool = |name: &str, run: fn(&ToolContext) -> ToolResult| {
        define_tool(
            name,
            "A tool of the test",
            serde_json::json!({"type": "object"}),
        )
        .unwrap()
        .sync(move |_: serde_json::Value, ctx: &ToolContext| run(ctx))
    };
    Toolkit::new()
        .with(tool("weather", |_| ToolResult::ok("Sunny, 21 °C")))
        .with(tool("chart", |_| {
            ToolResult::ok("chart").with_part(from_bytes(PNG, "image/png"))
        }))
        .with(tool("record", |_| {
            ToolResult::ok("recording").with_part(from_bytes(WAV, "audio/wav"))
        }))
        .with(tool("report", |_| {
            ToolResult::ok("report").with_part(from_bytes(PDF, "application/pdf"))
        }))
        .with(tool("fail", |_| ToolResult::error("no station there")))
        .with(tool("deploy", |ctx| match &ctx.answer {
            Some(answer) if answer.ok => ToolResult::ok("deployed"),
            _ => toolnexus::pending(Request::new("approval", "Deploy?")),
        }))
}

/// One run of the conversation: the API it starts on, its tool rounds (parallel calls by
/// tool index), and how it is driven.
#[derive(Clone, Debug)]
struct RunPlan {
    api: Api,
    rounds: Vec<Vec<usize>>,
    thinking: bool,
    long_ids: bool,
    /// Through `client.conversation(id)` (else `run_with_history`).
    stored: bool,
    /// Suspensions answered in the loop by `wait_for` (else the run parks and is resumed).
    in_loop: bool,
    approve: bool,
    /// The API each resume of a parked run is made on (the first, then the next ones).
    resume_on: Api,
}

fn run_plan() -> impl Strategy<Value = RunPlan> {
    let api = prop::sample::select(Api::ALL.to_vec());
    let round = prop::collection::vec(0..TOOLS.len(), 1..4);
    (
        api.clone(),
        prop::collection::vec(round, 0..3),
        any::<[bool; 5]>(),
        api,
    )
        .prop_map(|(api, rounds, flags, resume_on)| {
            let [thinking, long_ids, stored, in_loop, approve] = flags;
            RunPlan {
                api,
                rounds,
                thinking,
                long_ids,
                stored,
                in_loop,
                approve,
                resume_on,
            }
        })
}

impl RunPlan {
    fn steps(&self, run: usize) -> Vec<Step> {
        let step = |text: String, calls: Vec<&'static str>| Step {
            text,
            calls,
            thinking: self.thinking,
            long_ids: self.long_ids,
        };
        let mut steps: Vec<Step> = self
            .rounds
            .iter()
            .enumerate()
            .map(|(n, round)| {
                let text = if n % 2 == 0 {
                    String::new()
                } else {
                    "Checking.".into()
                };
                step(text, round.iter().map(|&tool| TOOLS[tool]).collect())
            })
            .collect();
        steps.push(step(format!("Answer {run}."), Vec::new()));
        steps
    }

    fn client(&self, script: &Script4, api: Api, store: &Arc<InMemoryConversations>) -> Client {
        let client = Client::with_model(script.model(api))
            .system("You are an operations assistant.")
            .conversations(store.clone());
        if !self.in_loop {
            return client;
        }
        let approve = self.approve;
        client.wait_for(move |request: Request| async move { answer(&request, approve) })
    }
}

fn answer(request: &Request, approve: bool) -> Answer {
    if approve {
        Answer::approve(request)
    } else {
        Answer::decline(request, Reason::Declined)
    }
}

fn next_api(api: Api) -> Api {
    let at = Api::ALL.iter().position(|a| *a == api).unwrap();
    Api::ALL[(at + 1) % Api::ALL.len()]
}

const ID: &str = "conversation-1";

/// Runs `plans` one after the other on one transcript (begun with a user image), each on its
/// own API; returns every request sent.
async fn converse(plans: &[RunPlan]) -> Vec<Sent> {
    let script = Script4::default();
    let store = Arc::new(InMemoryConversations::new());
    let toolkit = toolkit();
    let mut transcript = vec![
        Message::User {
            text: "Here is the site map.".into(),
            parts: vec![from_bytes(b"\x89PNG\r\n\x1a\nsite map", "image/png")],
        },
        Message::Assistant {
            text: "Noted.".into(),
            tool_calls: Vec::new(),
            echo: None,
        },
    ];
    for (at, plan) in plans.iter().enumerate() {
        script.push(plan.steps(at));
        let client = plan.client(&script, plan.api, &store);
        let prompt = format!("Request {at}: check the site.");
        let mut result: RunResult = if plan.stored {
            let stored = Conversation {
                messages: transcript.clone(),
                parked: None,
                version: store.get(ID).await.unwrap().map_or(0, |c| c.version),
            };
            store.save(ID, &stored).await.unwrap();
            client.conversation(ID).run(prompt, &toolkit).await.unwrap()
        } else {
            client
                .run_with_history(transcript.clone(), prompt, &toolkit)
                .await
                .unwrap()
        };
        let mut resume_on = plan.resume_on;
        while result.status == Status::Pending {
            let request = result.pending.clone().unwrap();
            let next = plan.client(&script, resume_on, &store);
            let answer = answer(&request, plan.approve);
            result = if plan.stored {
                next.conversation(ID)
                    .resume(answer, &toolkit)
                    .await
                    .unwrap()
            } else {
                next.resume(result, answer, &toolkit).await.unwrap()
            };
            resume_on = next_api(resume_on);
        }
        assert_eq!(result.status, Status::Done, "{result:?}");
        assert_eq!(result.text, format!("Answer {at}."));
        assert_eq!(script.left(), 0, "every scripted reply was asked for");
        // The next run continues from this transcript (its system prompt is the client's).
        transcript = result.messages[1..].to_vec();
    }
    script.sent.lock().unwrap().clone()
}

/// The placeholder a part the API cannot take is sent as (SPEC §8A).
fn placeholder(part: &ContentPart) -> String {
    let mime = part.media().map_or("text/plain", |m| m.mime_type.as_str());
    format!(
        "[unsupported {} part ({mime}, {} bytes)]",
        part.type_name(),
        part_bytes(part)
    )
}

/// Whether `api` carries a part of `mime` (as a user part or in a tool's result).
fn carried(api: Api, mime: &str) -> bool {
    match mime {
        "image/png" | "application/pdf" => true,
        "audio/wav" => api == Api::OpenAiChat,
        other => panic!("no expectation for {other}"),
    }
}

/// Checks one request against the transcript it was rendered from.
fn check_sent(sent: &Sent) {
    let Sent {
        api,
        messages,
        body,
    } = sent;
    let api = *api;
    let (calls, results) = check_request(api, body);
    let (mut expected_calls, mut expected_results) = (0, 0);
    let json = body.to_string();
    let mut parts: Vec<&ContentPart> = Vec::new();
    for message in messages {
        match message {
            Message::Assistant {
                tool_calls, echo, ..
            } => {
                expected_calls += tool_calls.len();
                let Some(echo) = echo else { continue };
                for id in item_ids(echo) {
                    assert_eq!(
                        json.contains(&format!("\"{id}\"")),
                        echo.api == api,
                        "{api}: Responses' item `{id}` is Responses' alone: {json}"
                    );
                }
                for signature in signatures(&echo.items) {
                    assert_eq!(
                        json.contains(&signature),
                        echo.api == api,
                        "{}'s echo sent to {api} (or its own left out): {json}",
                        echo.api
                    );
                }
            }
            Message::Tool { results } => {
                expected_results += results.len();
                parts.extend(results.iter().flat_map(|r| &r.result.parts));
            }
            Message::User { parts: user, .. } => parts.extend(user),
            Message::System { .. } => {}
        }
    }
    assert_eq!(
        (calls, results),
        (expected_calls, expected_results),
        "{api}: every call and result of the transcript is sent"
    );
    for part in parts {
        let media = part.media().unwrap();
        let Source::Data(data) = &media.source else {
            panic!("only inline parts here")
        };
        if carried(api, &media.mime_type) {
            assert!(json.contains(data.as_str()), "{api}: {media:?} not carried");
        } else {
            assert!(!json.contains(data.as_str()), "{api}: {media:?} sent");
            assert!(json.contains(&placeholder(part)), "{api}: {media:?} unsaid");
        }
    }
}

/// The ids of the output items Responses made (`rs_…`, `msg_…`, `fc_…`): never sent to
/// another API.
fn item_ids(echo: &Echo) -> Vec<String> {
    if echo.api != Api::OpenAiResponses {
        return Vec::new();
    }
    echo.items
        .iter()
        .filter_map(|item| item["id"].as_str().map(str::to_owned))
        .collect()
}

/// The reasoning signatures in an echo's items, whatever the API calls them.
fn signatures(items: &[serde_json::Value]) -> Vec<String> {
    let mut found = Vec::new();
    for item in items {
        for key in ["encrypted_content", "signature", "thoughtSignature"] {
            if let Some(signature) = item.get(key).and_then(|s| s.as_str()) {
                found.push(signature.to_owned());
            }
        }
    }
    found
}

fn block_on<T>(future: impl Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(future)
}

/// A run on `api` with one round of every tool at once, its suspension answered in the loop.
fn every_tool_on(api: Api) -> RunPlan {
    RunPlan {
        api,
        rounds: vec![(0..TOOLS.len()).collect(), vec![0]],
        thinking: true,
        long_ids: false,
        stored: false,
        in_loop: true,
        approve: true,
        resume_on: api,
    }
}

#[test]
fn each_api_continues_a_conversation_begun_on_each_other() {
    let corpus = Corpus::default();
    for from in Api::ALL {
        for to in Api::ALL.into_iter().filter(|to| *to != from) {
            // Begun on `from`, continued on `to`, and back on `from`.
            let plans = [every_tool_on(from), every_tool_on(to), every_tool_on(from)];
            let sent = block_on(converse(&plans));
            assert_eq!(sent.len(), 9, "three turns a run");
            for request in &sent {
                check_sent(request);
                corpus.add(request.api, request.body.clone());
            }
            // The first request on `to` carries the whole run made on `from`.
            let first_on_to = &sent[3];
            assert_eq!(first_on_to.api, to);
            assert_eq!(
                check_request(to, &first_on_to.body),
                (7, 7),
                "{from} → {to}"
            );
        }
    }
    assert!(
        Api::ALL
            .iter()
            .all(|api| corpus.count(*api) == 3 * (2 * 3 + 3))
    );
    corpus.write("switched");
}

/// Every order of the four APIs, from each first API.
fn orders() -> Vec<Vec<Api>> {
    let mut orders = vec![Vec::new()];
    for _ in 0..Api::ALL.len() {
        orders = orders
            .into_iter()
            .flat_map(|order: Vec<Api>| {
                Api::ALL
                    .into_iter()
                    .filter(|api| !order.contains(api))
                    .map(|api| [order.clone(), vec![api]].concat())
                    .collect::<Vec<_>>()
            })
            .collect();
    }
    orders
}

#[test]
fn a_conversation_moves_through_the_four_apis_in_every_order() {
    let corpus = Corpus::default();
    let orders = orders();
    assert_eq!(orders.len(), 24);
    for order in orders {
        let plans: Vec<RunPlan> = order.iter().map(|api| every_tool_on(*api)).collect();
        let sent = block_on(converse(&plans));
        let apis: Vec<Api> = sent.iter().step_by(3).map(|request| request.api).collect();
        assert_eq!(apis, order);
        for request in sent {
            check_sent(&request);
            corpus.add(request.api, request.body);
        }
    }
    corpus.write("chained");
}

#[test]
fn a_run_parked_on_one_api_is_resumed_on_each_other() {
    let corpus = Corpus::default();
    for from in Api::ALL {
        for to in Api::ALL.into_iter().filter(|to| *to != from) {
            let plan = RunPlan {
                rounds: vec![vec![5, 1]],
                in_loop: false,
                resume_on: to,
                long_ids: true,
                ..every_tool_on(from)
            };
            let sent = block_on(converse(&[plan]));
            // The turn's calls made on `from`, answered (the approval too) on `to`.
            assert_eq!(sent.len(), 2);
            assert_eq!((sent[0].api, sent[1].api), (from, to));
            for request in &sent {
                check_sent(request);
                corpus.add(request.api, request.body.clone());
            }
        }
    }
    corpus.write("resumed");
}

#[test]
fn long_ids_of_compatible_servers_are_cut_to_what_openai_takes() {
    let plan = RunPlan {
        long_ids: true,
        ..every_tool_on(Api::OpenAiChat)
    };
    let sent = block_on(converse(&[
        plan.clone(),
        plan,
        every_tool_on(Api::OpenAiResponses),
    ]));
    let first = sent[1].messages.iter().find_map(|m| match m {
        Message::Assistant { tool_calls, .. } => tool_calls.first(),
        _ => None,
    });
    assert!(
        first.unwrap().id.len() > 40,
        "the server's own id is kept in the transcript"
    );
    for request in &sent {
        check_sent(request);
    }
}

#[test]
fn generated_conversations_stay_valid_on_every_api_they_move_to() {
    let corpus = Corpus::default();
    // What the cases covered: switches between runs, runs parked on one API and resumed on
    // another, runs through the conversation store.
    let covered = [(); 3].map(|()| AtomicUsize::new(0));
    let plans = prop::collection::vec(run_plan(), 1..7);
    runner(96)
        .run(&plans, |plans| {
            for request in block_on(converse(&plans)) {
                check_sent(&request);
                corpus.add(request.api, request.body);
            }
            let switches = plans.windows(2).filter(|w| w[0].api != w[1].api).count();
            let parks = |plan: &&RunPlan| {
                !plan.in_loop && plan.rounds.iter().flatten().any(|&t| TOOLS[t] == "deploy")
            };
            let moved = plans
                .iter()
                .filter(parks)
                .filter(|p| p.resume_on != p.api)
                .count();
            let stored = plans.iter().filter(|plan| plan.stored).count();
            for (count, n) in covered.iter().zip([switches, moved, stored]) {
                count.fetch_add(n, Ordering::Relaxed);
            }
            Ok(())
        })
        .unwrap();
    assert!(
        covered
            .iter()
            .all(|count| count.load(Ordering::Relaxed) > 10),
        "{covered:?}"
    );
    corpus.write("generated");
}
