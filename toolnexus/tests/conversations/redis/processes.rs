//! Two processes resume the same parked runs at the same moment on one Redis: this test
//! binary, run again twice as a child (`resume_as_a_child`), meeting at each round
//! on a Redis key so that they resume it at the same moment.

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use toolnexus::Answer;

use super::redis_server::{prefix, shared_url};
use super::{conversations, redis_server::store_on};
use crate::scripted::answering;
use crate::stores::{Outcome, assert_resumed_once, client_on, deploy_toolkit, park};

/// Set in a child: `url`, `prefix`, the log file and the number of rounds, one a line.
const CHILD: &str = "TOOLNEXUS_TEST_RESUME_CHILD";
const ROUNDS: usize = 10;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_processes_resume_a_parked_run_once() {
    let Some(url) = shared_url() else { return };
    let prefix = prefix();
    let store = conversations(&url, &prefix).await;
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("deployed");
    for round in 0..ROUNDS {
        park(&store, &format!("c-{round}"), &format!("t-{round}"), &log).await;
    }
    let children: Vec<_> = (0..2)
        .map(|_| {
            let config = format!("{url}\n{prefix}\n{}\n{ROUNDS}", log.display());
            tokio::task::spawn_blocking(move || child(&config))
        })
        .collect();
    let mut outcomes = Vec::new();
    for child in children {
        let output = child.await.unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "{stdout}\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        outcomes.push(outcomes_in(&stdout));
    }
    assert_resumed_once(&outcomes, &log, ROUNDS);
    for round in 0..ROUNDS {
        let stored = store.get(&format!("c-{round}")).await.unwrap().unwrap();
        assert_eq!(stored.parked, None);
        assert_eq!(stored.messages.last().map(text_of), Some("done".to_owned()));
    }
}

fn text_of(message: &toolnexus::client::Message) -> String {
    match message {
        toolnexus::client::Message::Assistant { text, .. } => text.clone(),
        other => format!("{other:?}"),
    }
}

/// This binary run as a child resuming every round, its outcomes on stdout.
fn child(config: &str) -> Output {
    Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "redis::processes::resume_as_a_child",
            "--ignored",
        ])
        .args(["--nocapture", "--test-threads", "1"])
        .env(CHILD, config)
        .output()
        .unwrap()
}

/// Each round's outcome, from a child's `round N: resumed` or `round N: refused: MESSAGE`.
fn outcomes_in(stdout: &str) -> Vec<Outcome> {
    let outcomes: Vec<Outcome> = stdout
        .lines()
        // The first follows libtest's `test … ... ` on the same line.
        .filter_map(|line| line.split_once("round ").map(|(_, rest)| rest))
        .map(|line| {
            let (_, outcome) = line.split_once(": ").unwrap();
            match outcome.strip_prefix("refused: ") {
                Some(message) => Err(message.to_owned()),
                None => {
                    assert_eq!(outcome, "resumed");
                    Ok(())
                }
            }
        })
        .collect();
    assert_eq!(outcomes.len(), ROUNDS, "{stdout}");
    outcomes
}

/// Says this child reached `round`, and waits (polling) until the other one has too: both
/// resume it at the same moment.
fn meet(redis: &mut redis::Connection, prefix: &str, round: usize) {
    let key = format!("{prefix}barrier:{round}");
    let _: () = redis::pipe()
        .cmd("INCR")
        .arg(&key)
        .cmd("EXPIRE")
        .arg(&key)
        .arg(60)
        .query(redis)
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while redis::cmd("GET").arg(&key).query::<i64>(redis).unwrap() < 2 {
        assert!(
            Instant::now() < deadline,
            "the other child did not reach round {round}"
        );
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// The child's part: a fresh client and store, each parked run's request read from Redis,
/// then each round resumed as soon as the other child reached it too, each outcome printed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a child process of two_processes_resume_a_parked_run_once"]
async fn resume_as_a_child() {
    let Ok(config) = std::env::var(CHILD) else {
        return;
    };
    let [url, prefix, log, rounds] = config.lines().collect::<Vec<_>>()[..] else {
        panic!("{CHILD} is `url, prefix, log, rounds`, one a line: {config:?}");
    };
    let rounds: usize = rounds.parse().unwrap();
    let store = std::sync::Arc::new(toolnexus::client::RedisConversations::new(
        &store_on(url, prefix).await,
    )) as std::sync::Arc<dyn toolnexus::client::ConversationStore>;
    let (client, _) = client_on(&store, (0..rounds).map(|_| answering("done")).collect());
    let toolkit = deploy_toolkit(Path::new(log));
    let mut answers = Vec::new();
    for round in 0..rounds {
        let stored = store.get(&format!("c-{round}")).await.unwrap().unwrap();
        let request = stored.parked.and_then(|run| run.pending).unwrap();
        answers.push(Answer::approve(&request));
    }
    let mut barrier = redis::Client::open(url).unwrap().get_connection().unwrap();
    for (round, answer) in answers.into_iter().enumerate() {
        // Blocks this runtime's thread: nothing else runs in the child meanwhile.
        meet(&mut barrier, prefix, round);
        match client
            .conversation(format!("c-{round}"))
            .resume(answer, &toolkit)
            .await
        {
            Ok(_) => println!("round {round}: resumed"),
            Err(refused) => println!("round {round}: refused: {refused}"),
        }
    }
}
