//! `client.conversation(id)` on any `ConversationStore`: a conversation continued across runs
//! and clients, a parked run resumed once however many try at once, a resume whose run
//! fails keeping what ran, and a result the store cannot save handed back. Run here on `InMemoryConversations`; `redis` runs the same checks
//! on `RedisConversations`.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::{Value, json};
use tokio::sync::Barrier;
use toolnexus::client::{
    ClaimedRun, Client, Conversation, ConversationError, ConversationRunError, ConversationStore,
    InMemoryConversations, Message, ModelError, Status,
};
use toolnexus::{Answer, BoxFuture, Request, ToolContext, ToolResult, Toolkit, define_tool};

use crate::scripted::{Scripted, Turn, answering, call, calling};

/// What a refused second resume of conversation `id` says.
pub fn already_resumed(id: &str) -> String {
    format!("conversation `{id}` did not resume: its parked run was already resumed; nothing ran")
}

/// `deploy`: asks for approval, and once approved appends its `target` to `log` — a count
/// every process sees.
pub fn deploy_toolkit(log: &Path) -> Toolkit {
    let log = log.to_owned();
    let tool = define_tool(
        "deploy",
        "Deploys after approval",
        json!({"type": "object"}),
    )
    .unwrap()
    .sync(move |args: Value, ctx: &ToolContext| match &ctx.answer {
        Some(answer) if answer.ok => {
            let target = args["target"].as_str().unwrap_or("?").to_owned();
            let mut file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&log)
                .unwrap();
            std::io::Write::write_all(&mut file, format!("{target}\n").as_bytes()).unwrap();
            ToolResult::ok(format!("deployed {target}"))
        }
        _ => toolnexus::pending(Request::new("approval", "Deploy?")),
    });
    Toolkit::new().with(tool)
}

/// The targets `deploy` ran for, in order.
pub fn deployed(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// A client on `store` whose model answers `turns`.
pub fn client_on(store: &Arc<dyn ConversationStore>, turns: Vec<Turn>) -> (Client, Scripted) {
    let model = Scripted::new(turns);
    let client = Client::with_model(model.clone())
        .system("You deploy.")
        .conversations(Arc::clone(store));
    (client, model)
}

/// Parks conversation `id` on a `deploy` of `target`, through `store`: its pending request.
pub async fn park(
    store: &Arc<dyn ConversationStore>,
    id: &str,
    target: &str,
    log: &Path,
) -> Request {
    let (client, _) = client_on(
        store,
        vec![calling(vec![call(
            "d1",
            "deploy",
            json!({"target": target}),
        )])],
    );
    let parked = client
        .conversation(id)
        .run(format!("deploy {target}"), &deploy_toolkit(log))
        .await
        .unwrap();
    assert_eq!(parked.status, Status::Pending);
    let stored = store
        .get(id)
        .await
        .unwrap()
        .expect("the conversation is stored");
    assert_eq!(stored.parked.as_ref(), Some(&parked));
    parked.pending.expect("a parked run waits on a request")
}

/// A second run on another client — on `second`, which may be another store on the same
/// backend — is sent the first run's transcript; another id is not.
pub async fn assert_continues_across_runs(
    first: Arc<dyn ConversationStore>,
    second: Arc<dyn ConversationStore>,
) {
    let toolkit = Toolkit::new();
    let (client, _) = client_on(&first, vec![answering("Hello, Ada.")]);
    client
        .conversation("ada")
        .run("I am Ada.", &toolkit)
        .await
        .unwrap();

    let (client, model) = client_on(&second, vec![answering("Ada."), answering("Who?")]);
    let result = client
        .conversation("ada")
        .run("Who am I?", &toolkit)
        .await
        .unwrap();
    let expected = vec![
        Message::system("You deploy."),
        Message::user("I am Ada."),
        assistant("Hello, Ada."),
        Message::user("Who am I?"),
    ];
    assert_eq!(model.seen.lock().unwrap()[0].0, expected);
    assert_eq!(result.messages[..4], expected[..]);
    let stored = second.get("ada").await.unwrap().unwrap();
    assert_eq!(stored.messages, result.messages);
    assert_eq!(stored.parked, None);

    client
        .conversation("bob")
        .run("Who am I?", &toolkit)
        .await
        .unwrap();
    let sent = &model.seen.lock().unwrap()[1].0;
    assert_eq!(
        *sent,
        [Message::system("You deploy."), Message::user("Who am I?")]
    );
}

fn assistant(text: &str) -> Message {
    Message::Assistant {
        text: text.into(),
        tool_calls: Vec::new(),
        echo: None,
    }
}

/// How one attempt to resume a conversation ended: resumed, or the refusal's message.
pub type Outcome = Result<(), String>;

/// Two tasks, each a client on its own store (`a`, `b`), resume the same `rounds` parked
/// runs at the same moment: each run resumes once, its tool runs once, the other is refused.
pub async fn assert_two_tasks_resume_once(
    a: Arc<dyn ConversationStore>,
    b: Arc<dyn ConversationStore>,
    rounds: usize,
) {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("deployed");
    let mut answers = Vec::new();
    for round in 0..rounds {
        let request = park(&a, &format!("c-{round}"), &format!("t-{round}"), &log).await;
        answers.push(Answer::approve(&request));
    }
    let barrier = Arc::new(Barrier::new(2));
    let racers = [a, b].map(|store| {
        let (barrier, answers, log) = (Arc::clone(&barrier), answers.clone(), log.clone());
        tokio::spawn(async move {
            let (client, _) = client_on(&store, (0..rounds).map(|_| answering("done")).collect());
            let toolkit = deploy_toolkit(&log);
            let mut outcomes = Vec::new();
            for (round, answer) in answers.into_iter().enumerate() {
                barrier.wait().await;
                let conversation = client.conversation(format!("c-{round}"));
                let resumed = conversation.resume(answer, &toolkit).await;
                outcomes.push(resumed.map(|_| ()).map_err(|e| e.to_string()));
            }
            outcomes
        })
    });
    let [first, second] = racers;
    let (first, second) = (first.await.unwrap(), second.await.unwrap());
    assert_resumed_once(&[first, second], &log, rounds);
}

/// Of each round's outcomes (one list per racer), one resumed and the others were refused as
/// already resumed; `deploy` ran once per round.
pub fn assert_resumed_once(outcomes: &[Vec<Outcome>], log: &Path, rounds: usize) {
    for round in 0..rounds {
        let of_round: Vec<&Outcome> = outcomes.iter().map(|racer| &racer[round]).collect();
        let resumed = of_round.iter().filter(|outcome| outcome.is_ok()).count();
        assert_eq!(resumed, 1, "round {round}: {of_round:?}");
        for refused in of_round.iter().filter_map(|outcome| outcome.as_ref().err()) {
            assert_eq!(*refused, already_resumed(&format!("c-{round}")));
        }
    }
    let mut ran = deployed(log);
    ran.sort();
    let mut expected: Vec<String> = (0..rounds).map(|round| format!("t-{round}")).collect();
    expected.sort();
    assert_eq!(ran, expected, "each parked tool ran once");
}

#[tokio::test]
async fn a_conversation_continues_across_runs_in_memory() {
    let store: Arc<dyn ConversationStore> = Arc::new(InMemoryConversations::new());
    assert_continues_across_runs(Arc::clone(&store), store).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_tasks_resuming_one_parked_run_in_memory_run_it_once() {
    let store: Arc<dyn ConversationStore> = Arc::new(InMemoryConversations::new());
    assert_two_tasks_resume_once(Arc::clone(&store), store, 20).await;
}

/// The model fails after the approved tool ran: the error carries what ran, and the store
/// keeps it too — the conversation goes on from the tool's result, never from a call without
/// its result, and the tool does not run again.
pub async fn assert_a_failed_resume_keeps_what_ran(store: Arc<dyn ConversationStore>) {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("deployed");
    let request = park(&store, "failing", "prod", &log).await;
    let failing = Turn::Fail(ModelError::fatal("the model is gone"));
    let (client, _) = client_on(&store, vec![failing]);
    let toolkit = deploy_toolkit(&log);
    let error = client
        .conversation("failing")
        .resume(Answer::approve(&request), &toolkit)
        .await
        .unwrap_err();
    let ConversationRunError::Run(error) = error else {
        panic!("the run failed: {error}");
    };
    assert_eq!(deployed(&log), ["prod"]);
    let stored = store.get("failing").await.unwrap().unwrap();
    assert_eq!(stored.parked, None);
    assert_eq!(stored.messages, error.so_far.messages);
    let Some(Message::Tool { results }) = stored.messages.last() else {
        panic!(
            "the transcript ends with the tool's result: {:?}",
            stored.messages
        );
    };
    assert_eq!(results[0].result.output, "deployed prod");

    let (client, model) = client_on(&store, vec![answering("It is deployed.")]);
    let next = client
        .conversation("failing")
        .run("Is it deployed?", &toolkit)
        .await
        .unwrap();
    assert_eq!(next.text, "It is deployed.");
    assert_eq!(
        model.seen.lock().unwrap()[0].0[..stored.messages.len()],
        stored.messages[..]
    );
    let again = client
        .conversation("failing")
        .resume(Answer::approve(&request), &toolkit)
        .await;
    assert_eq!(again.unwrap_err().to_string(), already_resumed("failing"));
    assert_eq!(deployed(&log), ["prod"]);
}

#[tokio::test]
async fn a_resume_whose_model_then_fails_keeps_what_ran_in_memory() {
    assert_a_failed_resume_keeps_what_ran(Arc::new(InMemoryConversations::new())).await;
}

/// An in-memory store whose saves fail while `failing` is set, as a store that lost its
/// backend between the claim and the save would.
#[derive(Default)]
struct FailingSaves {
    inner: InMemoryConversations,
    failing: AtomicBool,
}

impl ConversationStore for FailingSaves {
    fn get<'a>(
        &'a self,
        id: &'a str,
    ) -> BoxFuture<'a, Result<Option<Conversation>, ConversationError>> {
        self.inner.get(id)
    }

    fn save<'a>(
        &'a self,
        id: &'a str,
        conversation: &'a Conversation,
    ) -> BoxFuture<'a, Result<(), ConversationError>> {
        if self.failing.load(Ordering::SeqCst) {
            let refused = ConversationError::Unavailable {
                id: id.to_owned(),
                reason: "the disk is full".to_owned(),
            };
            return Box::pin(async move { Err(refused) });
        }
        self.inner.save(id, conversation)
    }

    fn claim_parked<'a>(
        &'a self,
        id: &'a str,
    ) -> BoxFuture<'a, Result<ClaimedRun, ConversationError>> {
        self.inner.claim_parked(id)
    }
}

#[tokio::test]
async fn a_result_the_store_cannot_save_is_handed_back_and_nothing_runs_twice() {
    let failing = Arc::new(FailingSaves::default());
    let store: Arc<dyn ConversationStore> = failing.clone();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("deployed");
    let request = park(&store, "c", "prod", &log).await;
    let toolkit = deploy_toolkit(&log);
    let (client, _) = client_on(&store, vec![answering("deployed")]);
    let conversation = client.conversation("c");

    // An answer to another request is refused and the parked run put back — here the put
    // back fails, so the error hands the parked run over, unchanged.
    failing.failing.store(true, Ordering::SeqCst);
    let stranger = Answer::approve(&Request::new("approval", "Deploy?"));
    let error = conversation.resume(stranger, &toolkit).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        "conversation `c`: the disk is full; the run's result was not saved: this error carries it"
    );
    let ConversationRunError::NotSaved { result: parked, .. } = error else {
        panic!("not saved: {error}");
    };
    assert_eq!(parked.pending.as_ref(), Some(&request));
    assert!(deployed(&log).is_empty(), "nothing ran");
    // Saved again by its caller, over the version the claim left, it resumes — once.
    failing.failing.store(false, Ordering::SeqCst);
    let claimed = store.get("c").await.unwrap().unwrap();
    assert_eq!(claimed.parked, None);
    let again = Conversation {
        messages: parked.messages.clone(),
        parked: Some(*parked),
        version: claimed.version,
    };
    store.save("c", &again).await.unwrap();

    failing.failing.store(true, Ordering::SeqCst);
    let error = conversation
        .resume(Answer::approve(&request), &toolkit)
        .await
        .unwrap_err();
    let ConversationRunError::NotSaved { result, .. } = error else {
        panic!("not saved: {error}");
    };
    assert_eq!(
        (result.status, result.text.as_str()),
        (Status::Done, "deployed")
    );
    assert_eq!(deployed(&log), ["prod"]);
    failing.failing.store(false, Ordering::SeqCst);
    let refused = conversation
        .resume(Answer::approve(&request), &toolkit)
        .await;
    assert_eq!(refused.unwrap_err().to_string(), already_resumed("c"));
    assert_eq!(deployed(&log), ["prod"]);
}

/// While a resume holds the claimed parked run (its result not saved yet), a run of the same
/// conversation is refused before the model is called: its transcript would end with calls
/// that have no results, which every API refuses.
#[tokio::test]
async fn a_run_while_a_resume_holds_the_parked_run_is_refused_and_calls_no_model() {
    let store: Arc<dyn ConversationStore> = Arc::new(InMemoryConversations::new());
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("deployed");
    park(&store, "busy", "prod", &log).await;
    let ClaimedRun { .. } = store.claim_parked("busy").await.unwrap();

    let (client, model) = client_on(&store, vec![answering("never sent")]);
    let refused = client
        .conversation("busy")
        .run("Is it deployed?", &Toolkit::new())
        .await
        .unwrap_err();
    assert!(matches!(refused, ConversationRunError::Resuming { .. }));
    assert_eq!(
        refused.to_string(),
        "conversation `busy` is being resumed (its calls have no results yet): try again once \
         the resume is done; nothing ran"
    );
    assert!(model.seen.lock().unwrap().is_empty());
    assert!(deployed(&log).is_empty());
}
