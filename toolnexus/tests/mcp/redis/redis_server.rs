//! The Redis the tests run against: the shared one, or one of a test's own to stop and start.

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tempfile::TempDir;
use toolnexus::mcp::RedisStore;

const VARIABLE: &str = "TOOLNEXUS_TEST_REDIS_URL";

/// The shared Redis's url: `None` (with a word on how to get one) when it is not set outside
/// CI; in CI (`CI` set) its absence fails the test, so the Redis tests never pass unrun.
pub fn shared_url() -> Option<String> {
    match std::env::var(VARIABLE) {
        Ok(url) => Some(url),
        Err(_) if std::env::var_os("CI").is_some() => {
            panic!("{VARIABLE} is not set, and CI is: .ci/run starts a redis-server and sets it")
        }
        Err(_) => {
            eprintln!(
                "skipped: {VARIABLE} is not set. Start a Redis (`apt-get install redis-server`, \
                 then `redis-server --port 6390 --save ''`) and run with \
                 {VARIABLE}=redis://127.0.0.1:6390/, or run .ci/run, which does both"
            );
            None
        }
    }
}

/// A key prefix no other test uses, so tests share one Redis without seeing each other.
pub fn prefix() -> String {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let n = NEXT.fetch_add(1, Ordering::SeqCst);
    format!("toolnexus-test:{}:{nanos}:{n}:", std::process::id())
}

/// A store on `url` under a prefix of its own.
pub async fn store_on(url: &str, prefix: &str) -> RedisStore {
    RedisStore::connect(url)
        .await
        .unwrap()
        .with_prefix(prefix)
        .await
        .unwrap()
}

/// Every key under `prefix` with its time to live in milliseconds (`-1`: none).
pub fn ttls(url: &str, prefix: &str) -> Vec<(String, i64)> {
    let mut connection = redis::Client::open(url).unwrap().get_connection().unwrap();
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{prefix}*"))
        .query(&mut connection)
        .unwrap();
    keys.into_iter()
        .map(|key| {
            let ttl: i64 = redis::cmd("PTTL").arg(&key).query(&mut connection).unwrap();
            (key, ttl)
        })
        .collect()
}

/// A `redis-server` of the test's own on a free loopback port, with an append-only file in a
/// directory of its own, so that stopping and starting it keeps what was written.
pub struct OwnRedis {
    port: u16,
    dir: TempDir,
    child: Option<Child>,
}

impl OwnRedis {
    pub fn start() -> Self {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut own = Self {
            port,
            dir: tempfile::tempdir().unwrap(),
            child: None,
        };
        own.start_again();
        own
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// Starts it (again), and waits (a bounded number of tries) until it answers.
    pub fn start_again(&mut self) {
        let child = Command::new("redis-server")
            .args(["--bind", "127.0.0.1", "--port", &self.port.to_string()])
            .arg("--dir")
            .arg(self.dir.path())
            .args([
                "--save",
                "",
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",
            ])
            .stdout(Stdio::null())
            .spawn()
            .expect("redis-server is installed (apt-get install redis-server)");
        self.child = Some(child);
        for _ in 0..200 {
            let answered = redis::Client::open(self.url())
                .unwrap()
                .get_connection_with_timeout(Duration::from_millis(100))
                .and_then(|mut connection| redis::cmd("PING").query::<String>(&mut connection));
            if answered.is_ok() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("redis-server on port {} did not start", self.port);
    }

    /// Stops it as an operator would (`SHUTDOWN`: the append-only file is complete).
    pub fn stop(&mut self) {
        if let Ok(mut connection) = redis::Client::open(self.url()).unwrap().get_connection() {
            let _ = redis::cmd("SHUTDOWN").query::<()>(&mut connection);
        }
        if let Some(mut child) = self.child.take() {
            child.wait().unwrap();
        }
    }
}

impl Drop for OwnRedis {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
