//! Issue 41, item 5: what sharing Redis costs (SPEC §14B). Two `HttpServer`s, one on the
//! in-memory stores and one on `RedisStore`, each answering one keep-alive HTTP connection,
//! taking turns round by round: `tasks/get` of an ended task p50 on each (budget 1.5×), and
//! `tools/call` of a plain tool p50 on each (the shared record is not touched by calls that
//! are not approved retries, so ≈1×). Three ways a server runs: on one thread with the
//! client in it, on one thread with the client on a thread of its own, and on two workers.
//! Then the single-use record itself, `StateStore::first_use` p50 on Redis against the
//! in-memory one (the one round trip an approved retry adds), and `TaskStore::get` alone.
//!
//! Run: `TOOLNEXUS_TEST_REDIS_URL=redis://127.0.0.1:6379/ cargo bench -p toolnexus
//! --features redis,mcp-http --bench redis` (a loopback Redis: `redis-server --save ''`).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime};

use serde_json::{Value, json};
use toolnexus::mcp::{
    HttpOptions, HttpServer, InMemoryStateStore, McpServer, RedisStore, StateStore, TaskStore,
};
use toolnexus::{Toolkit, tool, tools};

/// Add two numbers.
#[tool]
async fn add(a: f64, b: f64) -> f64 {
    a + b
}

/// Ends as soon as it runs, as a task.
#[tool(task = "required")]
async fn instant() -> &'static str {
    "done"
}

const ROUNDS: usize = 20;
const PER_ROUND: usize = 50;

/// A server on a loopback port; its url.
async fn serve(server: McpServer) -> String {
    let http = HttpServer::bind("127.0.0.1:0", server, HttpOptions::new())
        .await
        .unwrap();
    let url = format!("http://{}/mcp", http.local_addr());
    tokio::spawn(http.run_until(std::future::pending()));
    url
}

/// One keep-alive connection to `url`.
struct Connection {
    client: reqwest::Client,
    url: String,
}

impl Connection {
    async fn post(&self, method: &str, name: &str, mut params: Value) -> Value {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities":
                {"extensions": {"io.modelcontextprotocol/tasks": {}}},
            "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "0"},
        });
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let text = self
            .client
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", method)
            .header("mcp-name", name)
            .body(body.to_string())
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        serde_json::from_str(&text).unwrap()
    }

    async fn call(&self) {
        let answer = self
            .post(
                "tools/call",
                "add",
                json!({"name": "add", "arguments": {"a": 2, "b": 40}}),
            )
            .await;
        assert_eq!(answer["result"]["content"][0]["text"], "42");
    }

    /// An ended task's id.
    async fn ended_task(&self) -> String {
        let created = self
            .post(
                "tools/call",
                "instant",
                json!({"name": "instant", "arguments": {}}),
            )
            .await;
        let id = created["result"]["taskId"]
            .as_str()
            .expect("a task")
            .to_owned();
        while self.get(&id).await["status"] != "completed" {}
        id
    }

    async fn get(&self, id: &str) -> Value {
        self.post("tasks/get", id, json!({"taskId": id})).await["result"].clone()
    }
}

fn p50(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// `floor` and `subject` taking turns, `PER_ROUND` each a round: their p50s.
async fn interleaved<F, S, FF, SF>(floor: F, subject: S) -> (Duration, Duration)
where
    F: Fn() -> FF,
    S: Fn() -> SF,
    FF: Future<Output = ()>,
    SF: Future<Output = ()>,
{
    let (mut floors, mut subjects) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        for _ in 0..PER_ROUND {
            let started = Instant::now();
            floor().await;
            floors.push(started.elapsed());
        }
        for _ in 0..PER_ROUND {
            let started = Instant::now();
            subject().await;
            subjects.push(started.elapsed());
        }
    }
    (p50(floors), p50(subjects))
}

fn print(what: &str, floor: Duration, subject: Duration, budget: &str) {
    println!(
        "  {what}: in memory p50 {:.1} µs, Redis p50 {:.1} µs, ratio {:.3} ({budget})",
        floor.as_secs_f64() * 1e6,
        subject.as_secs_f64() * 1e6,
        subject.as_secs_f64() / floor.as_secs_f64()
    );
}

fn main() {
    let url = std::env::var("TOOLNEXUS_TEST_REDIS_URL")
        .expect("TOOLNEXUS_TEST_REDIS_URL: a loopback Redis (redis-server --save '')");
    // Servers run on one thread (`examples/mcp_server`) or on the multi-thread runtime
    // (`#[tokio::main]`). With the client in the server's one thread, the in-memory answer
    // never waits on another thread, so the Redis round trip weighs most there; a real client
    // is never in the server's thread, so the server's thread waits for it in both.
    println!("one thread, the client in it (current_thread runtime):");
    current_thread().block_on(async {
        let (memory, redis, store) = servers(&url).await;
        // A real client is never in the server's thread: shown for the round trip's weight.
        measure(
            &memory,
            &redis,
            "budget 1.5, not judged: no client runs in the server's thread",
        )
        .await;
        measure_store(&store, &redis).await;
    });
    println!("one thread, the client on a thread of its own (two current_thread runtimes):");
    let (sender, served) = std::sync::mpsc::channel();
    let for_servers = url.clone();
    // Never joined: the process ends with `main`.
    std::thread::spawn(move || {
        current_thread().block_on(async {
            sender.send(servers(&for_servers).await).unwrap();
            std::future::pending::<()>().await;
        });
    });
    let (memory, redis, _) = served.recv().unwrap();
    current_thread().block_on(measure(&memory, &redis, "budget 1.5"));
    println!("two worker threads, the client among them (multi_thread runtime):");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let (memory, redis, store) = servers(&url).await;
        measure(&memory, &redis, "budget 1.5").await;
        measure_store(&store, &redis).await;
    });
}

fn current_thread() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// Two servers on the runtime this runs on, one on the in-memory stores and one on Redis:
/// their urls, each with an ended task's id, and the Redis store.
async fn servers(url: &str) -> (Served, Served, Arc<RedisStore>) {
    let toolkit = || Toolkit::new().with_all(tools![add, instant]);
    let store = Arc::new(
        RedisStore::connect(url)
            .await
            .unwrap()
            .with_prefix("toolnexus-bench:")
            .await
            .unwrap(),
    );
    let memory = serve(McpServer::new(toolkit())).await;
    let redis = serve(
        McpServer::new(toolkit())
            .with_state_store(store.clone())
            .with_task_store(store.clone()),
    )
    .await;
    (Served::of(memory).await, Served::of(redis).await, store)
}

/// A server's url and the id of an ended task on it.
struct Served {
    url: String,
    ended: String,
}

impl Served {
    async fn of(url: String) -> Self {
        let ended = connect(&url).ended_task().await;
        Self { url, ended }
    }
}

fn connect(url: &str) -> Connection {
    Connection {
        client: reqwest::Client::new(),
        url: url.to_owned(),
    }
}

/// `tasks/get` and a plain `tools/call` on each server, over one keep-alive connection each;
/// `budget` is printed beside the `tasks/get` ratio.
async fn measure(memory: &Served, redis: &Served, budget: &str) {
    let (on_memory, on_redis) = (connect(&memory.url), connect(&redis.url));
    for _ in 0..20 {
        on_memory.call().await;
        on_redis.call().await;
    }
    let (floor, subject) = interleaved(
        || async {
            assert_eq!(on_memory.get(&memory.ended).await["status"], "completed");
        },
        || async {
            assert_eq!(on_redis.get(&redis.ended).await["status"], "completed");
        },
    )
    .await;
    print("tasks/get over HTTP", floor, subject, budget);
    let (floor, subject) = interleaved(|| on_memory.call(), || on_redis.call()).await;
    print(
        "tools/call of a plain tool over HTTP",
        floor,
        subject,
        "no store touched",
    );
}

/// The store alone, on the runtime its connection was made on: the single-use record, and
/// the one read a `tasks/get` makes.
async fn measure_store(store: &RedisStore, redis: &Served) {
    let memory_store = InMemoryStateStore::new();
    let expires = SystemTime::now() + Duration::from_secs(600);
    // Fresh ids in every run of every process: each is a first use.
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let id = || {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        format!("bench-{}-{n}", std::process::id())
    };
    let (floor, subject) = interleaved(
        || {
            let id = id();
            let memory_store = &memory_store;
            async move { assert!(memory_store.first_use(&id, expires).await.unwrap()) }
        },
        || {
            let id = id();
            async move { assert!(store.first_use(&id, expires).await.unwrap()) }
        },
    )
    .await;
    print(
        "StateStore::first_use (the approved retry's record)",
        floor,
        subject,
        "one Redis round trip",
    );

    // The read a `tasks/get` makes, alone: one `HGET`, against `first_use`'s one `SET`,
    // so what a `tasks/get` over HTTP adds beyond its round trip shows.
    let (set, get) = interleaved(
        || {
            let id = id();
            async move { assert!(store.first_use(&id, expires).await.unwrap()) }
        },
        || async { assert!(TaskStore::get(store, &redis.ended).await.unwrap().is_some()) },
    )
    .await;
    println!(
        "  TaskStore::get alone: p50 {:.1} µs, beside first_use's {:.1} µs",
        get.as_secs_f64() * 1e6,
        set.as_secs_f64() * 1e6,
    );
}
