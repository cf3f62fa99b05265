//! Runs of one conversation at the same moment, on any `ConversationStore`: the first save
//! wins and the other is refused with its result handed back, a run parked meanwhile stays
//! parked and resumes once, nothing saved after a claim puts the claimed run back or
//! overwrites the resumed run's competitor, and a refused answer puts it back itself. Run
//! here on `InMemoryConversations` (and over generated interleavings); `redis` runs the same
//! checks on `RedisConversations`.

use std::path::PathBuf;
use std::sync::Arc;

use proptest::prelude::*;
use serde_json::json;
use tempfile::TempDir;
use tokio::sync::Notify;
use tokio::task::JoinHandle;
use toolnexus::client::{
    Client, Conversation, ConversationError, ConversationRunError, ConversationStore,
    InMemoryConversations, Message, Model, ModelError, ModelRequest, Reply, RunResult,
};
use toolnexus::{Answer, Api, BoxFuture, Request, Toolkit};

use crate::scripted::{Scripted, Turn, answering};
use crate::stores::{already_resumed, client_on, deploy_toolkit, deployed, park};

/// A model held between its run reading the conversation and saving it: it says when it is
/// asked (`asked`), then answers its script only once `go` is notified.
#[derive(Clone)]
struct Held {
    script: Scripted,
    asked: Arc<Notify>,
    go: Arc<Notify>,
}

impl Model for Held {
    fn api(&self) -> Api {
        Api::OpenAiChat
    }

    fn name(&self) -> &str {
        "held"
    }

    fn reply<'a>(&'a self, request: ModelRequest<'a>) -> BoxFuture<'a, Result<Reply, ModelError>> {
        let reply = self.script.reply(request);
        Box::pin(async move {
            self.asked.notify_one();
            self.go.notified().await;
            reply.await
        })
    }
}

type Running = JoinHandle<Result<RunResult, ConversationRunError>>;

/// A client on `store` whose model answers `turn` once let go, and that model.
fn held_client(store: &Arc<dyn ConversationStore>, turn: Turn) -> (Client, Held) {
    let held = Held {
        script: Scripted::new([turn]),
        asked: Arc::default(),
        go: Arc::default(),
    };
    let client = Client::with_model(held.clone())
        .system("You deploy.")
        .conversations(Arc::clone(store));
    (client, held)
}

/// A run of `id` on `store` that has read the conversation and waits in its model call until
/// its `go`.
async fn held_run(
    store: &Arc<dyn ConversationStore>,
    id: &str,
    prompt: &str,
    turn: Turn,
    toolkit: &Toolkit,
) -> (Running, Arc<Notify>) {
    let (client, held) = held_client(store, turn);
    let (id, prompt, toolkit) = (id.to_owned(), prompt.to_owned(), toolkit.clone());
    let run = tokio::spawn(async move { client.conversation(id).run(prompt, &toolkit).await });
    held.asked.notified().await;
    (run, held.go)
}

/// The result a refused save handed back, after checking that it was refused because the
/// conversation `id` changed.
fn refused_as_changed(id: &str, refused: ConversationRunError) -> RunResult {
    assert_eq!(
        refused.to_string(),
        format!(
            "conversation `{id}` changed since it was read (another run saved or resumed it): \
             nothing was stored; the run's result was not saved: this error carries it"
        )
    );
    let ConversationRunError::NotSaved { error, result } = refused else {
        panic!("refused as not saved: {refused}");
    };
    assert_eq!(error, ConversationError::Changed { id: id.into() });
    *result
}

/// Two runs of one conversation — one not stored yet, one stored — each on its own store
/// (`a`, `b`), the second reading it before the first saves: the first save wins, the second
/// is refused with its own result handed back, and the stored transcript is the first's.
pub async fn assert_the_first_save_wins(
    a: Arc<dyn ConversationStore>,
    b: Arc<dyn ConversationStore>,
) {
    let toolkit = Toolkit::new();
    let (client, _) = client_on(&a, vec![answering("Hello.")]);
    client
        .conversation("stored")
        .run("Hi.", &toolkit)
        .await
        .unwrap();
    for id in ["new", "stored"] {
        let before = a.get(id).await.unwrap().unwrap_or_default();
        let (first, go_first) =
            held_run(&a, id, "I am Ada.", answering("Hi, Ada."), &toolkit).await;
        let (second, go_second) =
            held_run(&b, id, "I am Bob.", answering("Hi, Bob."), &toolkit).await;
        go_first.notify_one();
        let first = first.await.unwrap().unwrap();
        go_second.notify_one();
        let second = refused_as_changed(id, second.await.unwrap().unwrap_err());
        assert_eq!(second.text, "Hi, Bob.");
        assert_eq!(second.messages.last(), Some(&assistant("Hi, Bob.")));
        let stored = b.get(id).await.unwrap().unwrap();
        assert_eq!(
            stored.messages, first.messages,
            "{id}: the first run's transcript"
        );
        assert_eq!(stored.messages.last(), Some(&assistant("Hi, Ada.")));
        assert_eq!(stored.version, before.version + 1, "{id}: one save went in");
        assert_eq!(stored.parked, None);
    }
}

/// A run parks on an approval while another run of the same conversation is in flight: the
/// in-flight run's save is refused, and the parked run is still there, resumed once.
pub async fn assert_a_run_parked_meanwhile_is_kept(
    a: Arc<dyn ConversationStore>,
    b: Arc<dyn ConversationStore>,
) {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("deployed");
    let toolkit = deploy_toolkit(&log);
    let (in_flight, go) =
        held_run(&a, "approval", "Status?", answering("All quiet."), &toolkit).await;
    let request = park(&b, "approval", "prod", &log).await;
    go.notify_one();
    let refused = refused_as_changed("approval", in_flight.await.unwrap().unwrap_err());
    assert_eq!(refused.text, "All quiet.");

    let stored = a.get("approval").await.unwrap().unwrap();
    let parked = stored.parked.expect("the parked run was not overwritten");
    assert_eq!(parked.pending.as_ref(), Some(&request));
    assert_eq!(stored.messages, parked.messages);
    let (client, _) = client_on(&a, vec![answering("deployed")]);
    let done = client
        .conversation("approval")
        .resume(Answer::approve(&request), &toolkit)
        .await
        .unwrap();
    assert_eq!(done.text, "deployed");
    let again = client
        .conversation("approval")
        .resume(Answer::approve(&request), &toolkit)
        .await;
    assert_eq!(again.unwrap_err().to_string(), already_resumed("approval"));
    assert_eq!(deployed(&log), ["prod"]);
}

/// A conversation parked on a `deploy` of `prod`, and what a test of it needs.
struct Parked {
    /// Holds the log's directory.
    _dir: TempDir,
    log: PathBuf,
    toolkit: Toolkit,
    request: Request,
    /// The conversation as stored once parked.
    stored: Conversation,
}

async fn parked(store: &Arc<dyn ConversationStore>, id: &str) -> Parked {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("deployed");
    let request = park(store, id, "prod", &log).await;
    Parked {
        toolkit: deploy_toolkit(&log),
        stored: store.get(id).await.unwrap().unwrap(),
        _dir: dir,
        log,
        request,
    }
}

/// After a claim, nothing saved puts the claimed run back or is overwritten: a copy read
/// before the claim is refused; a run while the resume holds the claim is refused before it
/// calls a model (its calls would have no results); the resumed run's result is what is
/// stored; the tool ran once and a later resume is still refused.
pub async fn assert_no_save_after_a_claim_undoes_it(store: Arc<dyn ConversationStore>) {
    let Parked {
        _dir,
        log,
        toolkit,
        request,
        stored: read_before_the_claim,
    } = parked(&store, "claimed").await;

    let (resumer, held) = held_client(&store, answering("deployed"));
    let answer = Answer::approve(&request);
    let resume_toolkit = toolkit.clone();
    let resuming = tokio::spawn(async move {
        resumer
            .conversation("claimed")
            .resume(answer, &resume_toolkit)
            .await
    });
    held.asked.notified().await;
    assert_eq!(deployed(&log), ["prod"], "claimed, and the tool ran");

    let refused = store.save("claimed", &read_before_the_claim).await;
    assert_eq!(
        refused,
        Err(ConversationError::Changed {
            id: "claimed".into()
        })
    );
    let (client, model) = client_on(&store, vec![answering("Nothing else.")]);
    let between = client
        .conversation("claimed")
        .run("Anything else?", &toolkit)
        .await
        .unwrap_err();
    assert!(
        matches!(between, ConversationRunError::Resuming { .. }),
        "{between}"
    );
    assert!(model.seen.lock().unwrap().is_empty(), "no model was called");

    held.go.notify_one();
    let resumed = resuming.await.unwrap().unwrap();
    assert_eq!(resumed.text, "deployed");
    let stored = store.get("claimed").await.unwrap().unwrap();
    assert_eq!(stored.messages, resumed.messages, "the resumed run is kept");
    assert_eq!(stored.parked, None);
    let again = client
        .conversation("claimed")
        .resume(Answer::approve(&request), &toolkit)
        .await;
    assert_eq!(again.unwrap_err().to_string(), already_resumed("claimed"));
    assert_eq!(deployed(&log), ["prod"]);
}

/// An answer the run refuses (to another request) puts the parked run back over the
/// version its claim left: it is parked again, a copy read before the claim still cannot be
/// saved over it, and it resumes once.
pub async fn assert_a_refused_answer_puts_the_parked_run_back(store: Arc<dyn ConversationStore>) {
    let Parked {
        _dir,
        log,
        toolkit,
        request,
        stored: parked,
    } = parked(&store, "back").await;
    let (client, _) = client_on(&store, vec![answering("deployed")]);
    let conversation = client.conversation("back");

    let stranger = Answer::approve(&Request::new("approval", "Deploy?"));
    let refused = conversation.resume(stranger, &toolkit).await.unwrap_err();
    assert!(matches!(refused, ConversationRunError::Run(_)), "{refused}");
    let put_back = store.get("back").await.unwrap().unwrap();
    assert_eq!(put_back.parked, parked.parked, "parked again, unchanged");
    assert_eq!(
        put_back.version,
        parked.version + 2,
        "claimed, then put back"
    );
    let stale = store.save("back", &parked).await;
    assert_eq!(stale, Err(ConversationError::Changed { id: "back".into() }));

    let done = conversation
        .resume(Answer::approve(&request), &toolkit)
        .await
        .unwrap();
    assert_eq!(done.text, "deployed");
    let again = conversation
        .resume(Answer::approve(&request), &toolkit)
        .await;
    assert_eq!(again.unwrap_err().to_string(), already_resumed("back"));
    assert_eq!(deployed(&log), ["prod"]);
}

fn assistant(text: &str) -> Message {
    Message::Assistant {
        text: text.into(),
        tool_calls: Vec::new(),
        echo: None,
    }
}

#[tokio::test]
async fn of_two_runs_at_once_the_first_save_wins_in_memory() {
    let store: Arc<dyn ConversationStore> = Arc::new(InMemoryConversations::new());
    assert_the_first_save_wins(Arc::clone(&store), store).await;
}

#[tokio::test]
async fn a_run_parked_while_another_is_in_flight_is_kept_in_memory() {
    let store: Arc<dyn ConversationStore> = Arc::new(InMemoryConversations::new());
    assert_a_run_parked_meanwhile_is_kept(Arc::clone(&store), store).await;
}

#[tokio::test]
async fn no_save_after_a_claim_undoes_it_in_memory() {
    assert_no_save_after_a_claim_undoes_it(Arc::new(InMemoryConversations::new())).await;
}

#[tokio::test]
async fn a_refused_answer_puts_the_parked_run_back_in_memory() {
    assert_a_refused_answer_puts_the_parked_run_back(Arc::new(InMemoryConversations::new())).await;
}

#[test]
fn a_conversation_stored_before_versions_reads_as_version_0() {
    let hi = Message::user("Hi");
    let old: Conversation = serde_json::from_value(json!({"messages": [hi]})).unwrap();
    assert_eq!(
        old,
        Conversation {
            messages: vec![Message::user("Hi")],
            parked: None,
            version: 0,
        }
    );
    let written = serde_json::to_value(Conversation { version: 7, ..old }).unwrap();
    assert_eq!(written["version"], 7);
}

/// Runs `order.len() / 2` runs of one conversation, interleaved as `order` says: each run's
/// first appearance is when it reads the conversation, its second when it saves. The
/// store must hold the last run that saved; which runs were refused.
async fn interleave(order: &[usize]) -> Vec<bool> {
    let store: Arc<dyn ConversationStore> = Arc::new(InMemoryConversations::new());
    let toolkit = Toolkit::new();
    let mut waiting: Vec<Option<(Running, Arc<Notify>)>> =
        (0..order.len() / 2).map(|_| None).collect();
    let mut refused = vec![false; waiting.len()];
    let mut stored = Vec::new();
    for &run in order {
        if let Some((running, go)) = waiting[run].take() {
            go.notify_one();
            match running.await.unwrap() {
                Ok(result) => stored = result.messages,
                Err(error) => {
                    let handed_back = refused_as_changed("c", error);
                    assert_eq!(handed_back.text, format!("run {run}"));
                    refused[run] = true;
                }
            }
        } else {
            let prompt = format!("prompt {run}");
            let reading = held_run(
                &store,
                "c",
                &prompt,
                answering(&format!("run {run}")),
                &toolkit,
            );
            waiting[run] = Some(reading.await);
        }
    }
    let kept = store.get("c").await.unwrap().unwrap();
    assert_eq!(
        kept.messages, stored,
        "the store holds the last run that saved"
    );
    refused
}

/// `0, 0, 1, 1, …`: each of `runs` runs' read and save, to be shuffled.
fn twice_each(runs: usize) -> Vec<usize> {
    (0..runs).flat_map(|run| [run, run]).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// However runs of one conversation interleave, a save succeeds exactly when no other
    /// save went in since its run read the conversation (what a version check guarantees),
    /// and the stored transcript is the last successful run's.
    #[test]
    fn a_save_succeeds_exactly_when_nothing_was_saved_since_its_read(
        order in (2usize..6).prop_flat_map(|runs| Just(twice_each(runs)).prop_shuffle())
    ) {
        let refused = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(interleave(&order));
        let mut read_at = vec![0usize; refused.len()];
        let mut saves = 0usize;
        let mut seen = vec![false; refused.len()];
        for &run in &order {
            if seen[run] {
                let expected_refused = saves != read_at[run];
                prop_assert_eq!(refused[run], expected_refused, "run {} in {:?}", run, order);
                if !expected_refused {
                    saves += 1;
                }
            } else {
                seen[run] = true;
                read_at[run] = saves;
            }
        }
    }
}
