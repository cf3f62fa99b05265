//! `RedisConversations` (SPEC §16B) on a real `redis-server`: the shared one `.ci/run`
//! starts (`TOOLNEXUS_TEST_REDIS_URL`), and one of a test's own to stop and start. A parked
//! run is resumed once by two tasks on two connections and by two processes (this test
//! binary run again as a child); of two runs at once the first save wins; a conversation
//! stored before versions continues; every key expires.

mod processes;
#[path = "../../mcp/redis/redis_server.rs"]
mod redis_server;

use std::sync::Arc;
use std::time::Duration;

use toolnexus::client::{ConversationStore, Message, RedisConversations};
use toolnexus::{Answer, Toolkit};

use crate::concurrent::{
    assert_a_refused_answer_puts_the_parked_run_back, assert_a_run_parked_meanwhile_is_kept,
    assert_no_save_after_a_claim_undoes_it, assert_the_first_save_wins,
};
use crate::scripted::answering;
use crate::stores::{
    already_resumed, assert_a_failed_resume_keeps_what_ran, assert_continues_across_runs,
    assert_two_tasks_resume_once, client_on, deploy_toolkit, deployed, park,
};
use redis_server::{OwnRedis, prefix, shared_url, store_on, ttls};

/// Conversations on `url` under `prefix`, on a connection of their own.
async fn conversations(url: &str, prefix: &str) -> Arc<dyn ConversationStore> {
    Arc::new(RedisConversations::new(&store_on(url, prefix).await))
}

#[tokio::test]
async fn a_conversation_continues_across_runs_and_fresh_stores_on_redis() {
    let Some(url) = shared_url() else { return };
    let prefix = prefix();
    let first = conversations(&url, &prefix).await;
    // Another connection, as another process has: it sees only what is in Redis.
    let second = conversations(&url, &prefix).await;
    assert_continues_across_runs(first, second).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_tasks_on_two_connections_resume_a_parked_run_once() {
    let Some(url) = shared_url() else { return };
    let prefix = prefix();
    let a = conversations(&url, &prefix).await;
    let b = conversations(&url, &prefix).await;
    assert_two_tasks_resume_once(a, b, 20).await;
}

#[tokio::test]
async fn a_resume_whose_model_then_fails_keeps_what_ran_on_redis() {
    let Some(url) = shared_url() else { return };
    assert_a_failed_resume_keeps_what_ran(conversations(&url, &prefix()).await).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn of_two_runs_at_once_on_two_connections_the_first_save_wins() {
    let Some(url) = shared_url() else { return };
    let prefix = prefix();
    let a = conversations(&url, &prefix).await;
    let b = conversations(&url, &prefix).await;
    assert_the_first_save_wins(a, b).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_parked_while_another_is_in_flight_on_another_connection_is_kept() {
    let Some(url) = shared_url() else { return };
    let prefix = prefix();
    let a = conversations(&url, &prefix).await;
    let b = conversations(&url, &prefix).await;
    assert_a_run_parked_meanwhile_is_kept(a, b).await;
}

#[tokio::test]
async fn no_save_after_a_claim_undoes_it_on_redis() {
    let Some(url) = shared_url() else { return };
    assert_no_save_after_a_claim_undoes_it(conversations(&url, &prefix()).await).await;
}

#[tokio::test]
async fn a_refused_answer_puts_the_parked_run_back_on_redis() {
    let Some(url) = shared_url() else { return };
    assert_a_refused_answer_puts_the_parked_run_back(conversations(&url, &prefix()).await).await;
}

/// A conversation written before versions (its transcript key, no `version:` key) reads as
/// version 0 and continues; a version key that is not a count is reported, not guessed.
#[tokio::test]
async fn a_conversation_stored_before_versions_reads_as_version_0_and_continues() {
    let Some(url) = shared_url() else { return };
    let prefix = prefix();
    let store = conversations(&url, &prefix).await;
    let mut redis = redis::Client::open(url.as_str())
        .unwrap()
        .get_connection()
        .unwrap();
    let transcript =
        serde_json::to_string(&[Message::user("Hi"), Message::user("Still here")]).unwrap();
    let _: () = redis::cmd("SET")
        .arg(format!("{prefix}conversation:old"))
        .arg(&transcript)
        .arg("PX")
        .arg(60_000)
        .query(&mut redis)
        .unwrap();
    let old = store.get("old").await.unwrap().unwrap();
    assert_eq!((old.messages.len(), old.version, old.parked), (2, 0, None));

    let (client, model) = client_on(&store, vec![answering("Welcome back.")]);
    let next = client
        .conversation("old")
        .run("Hello?", &Toolkit::new())
        .await
        .unwrap();
    assert_eq!(model.seen.lock().unwrap()[0].0[1..3], old.messages[..]);
    let stored = store.get("old").await.unwrap().unwrap();
    assert_eq!((stored.messages, stored.version), (next.messages, 1));

    let _: () = redis::cmd("SET")
        .arg(format!("{prefix}version:old"))
        .arg("many")
        .query(&mut redis)
        .unwrap();
    let unreadable = store.get("old").await.unwrap_err().to_string();
    assert!(
        unreadable
            .starts_with("conversation `old` could not be read: its version `many` is not a count"),
        "{unreadable}"
    );
}

#[tokio::test]
async fn redis_down_refuses_the_resume_runs_nothing_and_the_next_try_resumes_once() {
    if shared_url().is_none() {
        return;
    }
    let mut redis = OwnRedis::start();
    let store = conversations(&redis.url(), &prefix()).await;
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("deployed");
    let request = park(&store, "down", "prod", &log).await;
    let toolkit = deploy_toolkit(&log);
    let (client, model) = client_on(&store, vec![answering("deployed")]);

    redis.stop();
    let shown = redis.url().trim_end_matches('/').to_owned() + "/0";
    let refused = client
        .conversation("down")
        .resume(Answer::approve(&request), &toolkit)
        .await
        .unwrap_err()
        .to_string();
    let start = format!("conversation `down`: Redis at {shown} did not answer (");
    assert!(refused.starts_with(&start), "{refused}");
    assert!(
        refused.ends_with("; nothing ran, and what was stored is kept for the next try"),
        "{refused}"
    );
    let refused = client
        .conversation("down")
        .run("anything new?", &toolkit)
        .await
        .unwrap_err()
        .to_string();
    assert!(refused.starts_with(&start), "{refused}");
    assert!(deployed(&log).is_empty(), "nothing ran");
    assert_eq!(model.calls(), 0, "the model was not called");

    redis.start_again();
    let kept = store.get("down").await.unwrap().unwrap();
    assert_eq!(
        kept.parked.and_then(|run| run.pending),
        Some(request.clone()),
        "the parked run was not lost"
    );
    let resumed = client
        .conversation("down")
        .resume(Answer::approve(&request), &toolkit)
        .await
        .unwrap();
    assert_eq!(resumed.text, "deployed");
    assert_eq!(deployed(&log), ["prod"]);
    let again = client
        .conversation("down")
        .resume(Answer::approve(&request), &toolkit)
        .await;
    assert_eq!(again.unwrap_err().to_string(), already_resumed("down"));
    assert_eq!(deployed(&log), ["prod"]);
}

/// Every key under the store's prefix has a time to live, at each stage: parked, resumed,
/// refused, continued — and it is the store's `with_ttl`.
#[tokio::test]
async fn every_key_the_conversation_store_writes_expires() {
    let Some(url) = shared_url() else { return };
    let prefix = prefix();
    let ttl = Duration::from_secs(600);
    let redis = store_on(&url, &prefix).await;
    let store: Arc<dyn ConversationStore> = Arc::new(RedisConversations::new(&redis).with_ttl(ttl));
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("deployed");
    let expiring = |stage: &str, kinds: &[&str]| {
        let keys = ttls(&url, &prefix);
        let mut found: Vec<&str> = keys
            .iter()
            .map(|(key, _)| key[prefix.len()..].split(':').next().unwrap())
            .collect();
        found.sort_unstable();
        assert_eq!(found, kinds, "{stage}: {keys:?}");
        for (key, left) in &keys {
            let left = u128::try_from(*left).unwrap_or(0);
            assert!(
                left > 0 && left <= ttl.as_millis(),
                "{stage}: {key} expires in {left} ms"
            );
        }
    };
    let toolkit = deploy_toolkit(&log);
    let request = park(&store, "ttl", "prod", &log).await;
    expiring("parked", &["conversation", "parked", "version"]);
    let (client, _) = client_on(&store, vec![answering("deployed"), answering("yes")]);
    let conversation = client.conversation("ttl");
    conversation
        .resume(Answer::approve(&request), &toolkit)
        .await
        .unwrap();
    expiring("resumed", &["conversation", "resumed", "version"]);
    conversation
        .resume(Answer::approve(&request), &toolkit)
        .await
        .unwrap_err();
    expiring("refused", &["conversation", "resumed", "version"]);
    conversation.run("done?", &toolkit).await.unwrap();
    expiring("continued", &["conversation", "resumed", "version"]);
}
