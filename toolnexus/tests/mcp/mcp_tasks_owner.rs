//! A task is its caller's (SPEC §14) on every revision and transport: another caller's
//! `tasks/*` naming it gets exactly what an id that never existed gets, and the owner's task
//! goes on untouched. Another caller is another stdio connection, another HTTP session, or
//! another verified identity (stateless HTTP, `HttpOptions::verify_bearer`); one test per
//! method, revision and transport, each from the one [`foreign`] check.

use crate::common::mcp_client::line_pipe;
use crate::common::tasks::client_meta_2026;

use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{
    AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf,
};
use toolnexus::mcp::McpServer;

use super::mcp_tasks::with_handles;

/// An id that never existed, of the shape task ids have.
const NEVER: &str = "0123456789abcdef0123456789abcdef";

/// How long a caller listens for what must never come.
const SILENCE: Duration = Duration::from_millis(300);

/// The two task revisions: 2025-11-25's core tasks, 2026-07-28's extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Revision {
    Core,
    Extension,
}

/// How callers reach the server, and what tells two of them apart.
#[derive(Clone, Copy, Debug)]
enum Transport {
    /// Each caller on a stdio connection of its own.
    Stdio,
    /// Streamable HTTP with sessions, each caller in a session of its own, no identity.
    #[cfg(feature = "mcp-http")]
    Sessions,
    /// Stateless streamable HTTP, each caller signed in as a user of its own.
    #[cfg(feature = "mcp-http")]
    Verified,
    /// Streamable HTTP with sessions, each caller in a session of its own and signed in as a
    /// user of its own: the user, not the session, is the caller.
    #[cfg(feature = "mcp-http")]
    VerifiedSessions,
}

/// The `tasks/*` method tried by another caller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Method {
    Get,
    /// 2025-11-25 only.
    Result,
    Cancel,
    /// 2025-11-25 only.
    List,
    /// 2026-07-28 only.
    Update,
    /// 2026-07-28 only: `subscriptions/listen` naming the task.
    Listen,
}

/// One caller, speaking `revision` by hand over its own way to the server.
struct Caller {
    revision: Revision,
    way: Way,
    next_id: u64,
}

enum Way {
    Stdio {
        lines: Lines<BufReader<ReadHalf<DuplexStream>>>,
        write: WriteHalf<DuplexStream>,
    },
    #[cfg(feature = "mcp-http")]
    Http {
        client: crate::common::mcp_raw::Client,
        bearer: Option<String>,
        /// The event stream of the caller's `subscriptions/listen`, once it listens.
        listening: Option<crate::common::mcp_raw::Events>,
    },
}

/// The server the callers share: on stdio each caller gets a connection of its own to it.
struct Served {
    server: McpServer,
    transport: Transport,
    #[cfg(feature = "mcp-http")]
    running: Option<crate::common::mcp_raw::Running>,
}

impl Served {
    async fn start(server: McpServer, transport: Transport) -> Self {
        #[cfg(feature = "mcp-http")]
        let running = {
            use toolnexus::mcp::{CallerId, HttpOptions};
            // Stands in for a JWT check: `token-<user>` was issued to `<user>`.
            let verified = |options: HttpOptions| {
                options.verify_bearer(|token: String| async move {
                    let user = token.strip_prefix("token-")?;
                    Some(CallerId(user.to_owned()))
                })
            };
            let options = match transport {
                Transport::Stdio => None,
                Transport::Sessions => Some(HttpOptions::new()),
                Transport::Verified => Some(verified(HttpOptions::new().stateless(true))),
                Transport::VerifiedSessions => Some(verified(HttpOptions::new())),
            };
            match options {
                Some(options) => Some(crate::common::mcp_raw::serve(server.clone(), options).await),
                None => None,
            }
        };
        Self {
            server,
            transport,
            #[cfg(feature = "mcp-http")]
            running,
        }
    }

    /// Caller `user` speaking `revision` (on 2025-11-25, initialized): on its own connection,
    /// in its own session, or signed in as `user`.
    async fn caller(&self, user: &str, revision: Revision) -> Caller {
        let way = match self.transport {
            Transport::Stdio => {
                let (read, write) = line_pipe(self.server.clone());
                Way::Stdio {
                    lines: BufReader::new(read).lines(),
                    write,
                }
            }
            #[cfg(feature = "mcp-http")]
            Transport::Sessions | Transport::Verified | Transport::VerifiedSessions => {
                let running = self.running.as_ref().expect("served over HTTP");
                let verified = !matches!(self.transport, Transport::Sessions);
                Way::Http {
                    client: crate::common::mcp_raw::Client::new(running),
                    bearer: verified.then(|| format!("token-{user}")),
                    listening: None,
                }
            }
        };
        let mut caller = Caller {
            revision,
            way,
            next_id: 1,
        };
        if revision == Revision::Core {
            caller.initialize(user).await;
        }
        caller
    }

    async fn shut_down(self) {
        #[cfg(feature = "mcp-http")]
        if let Some(running) = self.running {
            running.shut_down().await;
        }
    }
}

impl Caller {
    /// 2025-11-25's handshake, as client `user`.
    async fn initialize(&mut self, user: &str) {
        let params = json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"elicitation": {}},
            "clientInfo": {"name": user, "version": "0"},
        });
        let initialized = self.request("initialize", params).await;
        assert!(initialized.get("result").is_some(), "{initialized}");
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        self.send(&initialized).await;
    }

    /// Request `method` with `params`, and the whole JSON-RPC answer to it (`result` or
    /// `error`); what else the server sends meanwhile is passed over.
    async fn request(&mut self, method: &str, mut params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        if self.revision == Revision::Extension {
            params["_meta"] = client_meta_2026();
        }
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        match self.way {
            Way::Stdio { .. } => {
                self.send(&message).await;
                loop {
                    let answer = self.next_line().await.expect("the server answers");
                    if answer["id"] == id && answer.get("method").is_none() {
                        return answer;
                    }
                }
            }
            #[cfg(feature = "mcp-http")]
            Way::Http { .. } => {
                let response = self.post(&message).await;
                let text = tokio::time::timeout(Duration::from_secs(30), response.text())
                    .await
                    .expect("the server answers")
                    .unwrap();
                crate::common::mcp_raw::message_in(&text)
            }
        }
    }

    /// Sends a message that is not answered (a notification).
    async fn send(&mut self, message: &Value) {
        match &mut self.way {
            Way::Stdio { write, .. } => {
                let line = format!("{message}\n");
                write.write_all(line.as_bytes()).await.unwrap();
            }
            #[cfg(feature = "mcp-http")]
            Way::Http { .. } => {
                let response = self.post(message).await;
                assert!(response.status().is_success(), "{message}");
            }
        }
    }

    /// The next line the server sends on stdio, if one comes within 30 s.
    async fn next_line(&mut self) -> Option<Value> {
        let lines = match &mut self.way {
            Way::Stdio { lines, .. } => lines,
            #[cfg(feature = "mcp-http")]
            Way::Http { .. } => unreachable!("lines are read on stdio only"),
        };
        let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
            .await
            .ok()?
            .unwrap()?;
        Some(serde_json::from_str(&line).unwrap())
    }

    /// POSTs `message` as this caller's revision asks, in its session, with its token.
    #[cfg(feature = "mcp-http")]
    async fn post(&mut self, message: &Value) -> reqwest::Response {
        let Way::Http { client, bearer, .. } = &mut self.way else {
            unreachable!("posted over HTTP only")
        };
        let revision = match self.revision {
            Revision::Core => "2025-11-25",
            Revision::Extension => "2026-07-28",
        };
        let mut request = client
            .http
            .post(&client.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(message.to_string());
        // `initialize` says its revision in its body; every later request in a header.
        if message["method"] != "initialize" {
            request = request.header("mcp-protocol-version", revision);
        }
        if let (Revision::Extension, Some(method)) = (self.revision, message["method"].as_str()) {
            request = request.header("mcp-method", method);
            // What SEP-2243 names: the tool called, the task asked about.
            let params = &message["params"];
            if let Some(name) = params["name"].as_str().or(params["taskId"].as_str()) {
                request = request.header("mcp-name", name);
            }
        }
        if let Some(session) = &client.session {
            request = request.header("mcp-session-id", session);
        }
        if let Some(token) = bearer {
            request = request.bearer_auth(token);
        }
        let response = tokio::time::timeout(Duration::from_secs(30), request.send())
            .await
            .expect("the server answers")
            .unwrap();
        if let Some(session) = response.headers().get("mcp-session-id") {
            client.session = Some(session.to_str().unwrap().to_owned());
        }
        response
    }
}

impl Caller {
    /// Starts a task of `tool` with `arguments` (on 2025-11-25, asking for one); its id.
    async fn started(&mut self, tool: &str, arguments: Value) -> String {
        let mut params = json!({"name": tool, "arguments": arguments});
        if self.revision == Revision::Core {
            params["task"] = json!({});
        }
        let created = self.request("tools/call", params).await;
        let task = match self.revision {
            Revision::Core => &created["result"]["task"],
            Revision::Extension => &created["result"],
        };
        let id = task["taskId"].as_str();
        id.unwrap_or_else(|| panic!("a task: {created}")).to_owned()
    }

    /// `tasks/get` of `id`: its `result`.
    async fn get(&mut self, id: &str) -> Value {
        let got = self.request("tasks/get", json!({"taskId": id})).await;
        assert!(got.get("result").is_some(), "{got}");
        got["result"].clone()
    }

    /// Polls `tasks/get` until the task is `status` (a bounded number of polls).
    async fn until(&mut self, id: &str, status: &str) -> Value {
        for _ in 0..400 {
            let task = self.get(id).await;
            if task["status"] == status {
                return task;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("task {id} never became {status}: {}", self.get(id).await);
    }

    /// `subscriptions/listen` to `ids`: the acknowledgment.
    async fn listen(&mut self, ids: &[&str]) -> Value {
        let mut params = json!({"notifications": {"taskIds": ids}});
        params["_meta"] = client_meta_2026();
        let message =
            json!({"jsonrpc": "2.0", "id": 0, "method": "subscriptions/listen", "params": params});
        #[cfg(feature = "mcp-http")]
        if matches!(self.way, Way::Http { .. }) {
            let response = self.post(&message).await;
            let mut events = crate::common::mcp_raw::Events::of(response);
            let acknowledged = events.next().await;
            if let Way::Http { listening, .. } = &mut self.way {
                *listening = Some(events);
            }
            return acknowledged;
        }
        self.send(&message).await;
        self.next_line().await.expect("an acknowledgment")
    }

    /// What the `subscriptions/listen` stream tells within [`SILENCE`], if anything.
    async fn heard(&mut self) -> Option<Value> {
        match &mut self.way {
            Way::Stdio { lines, .. } => {
                let line = tokio::time::timeout(SILENCE, lines.next_line())
                    .await
                    .ok()?;
                Some(serde_json::from_str(&line.unwrap()?).unwrap())
            }
            #[cfg(feature = "mcp-http")]
            Way::Http { listening, .. } => {
                let events = listening.as_mut().expect("listening");
                tokio::time::timeout(SILENCE, events.next()).await.ok()
            }
        }
    }
}

/// `theirs`, the answer to a request naming task `id`, is `never`'s, the answer to the same
/// request naming [`NEVER`]: the same error, word for word but for the id.
fn as_for_an_id_that_never_existed(theirs: &Value, id: &str, never: &Value) {
    assert!(never.get("error").is_some(), "{never}");
    let theirs_error = theirs["error"].to_string().replace(id, NEVER);
    assert_eq!(theirs_error, never["error"].to_string(), "{theirs}");
}

/// The check of every test here: `alice` starts a task, `bob` tries `method` on it and on an
/// id that never existed and gets the same answer for both, and alice's task goes on as it
/// was (not cancelled, not answered, its result still hers).
async fn foreign(revision: Revision, transport: Transport, method: Method) {
    let (toolkit, _, dropped) = with_handles();
    let server = McpServer::new(toolkit).task_after(Duration::from_millis(20));
    let served = Served::start(server, transport).await;
    let mut owner = served.caller("alice", revision).await;
    let mut other = served.caller("bob", revision).await;
    let (tool, arguments) = match method {
        Method::Result => ("quick", json!({"n": 1})),
        Method::Update => ("publish_report", json!({"name": "q1"})),
        _ => ("stuck", json!({})),
    };
    let id = owner.started(tool, arguments).await;
    match method {
        Method::Get | Method::Result | Method::Cancel => {
            let name = match method {
                Method::Get => "tasks/get",
                Method::Result => "tasks/result",
                _ => "tasks/cancel",
            };
            if method == Method::Result {
                // Ended, so that a result is there to be (wrongly) handed over.
                owner.until(&id, "completed").await;
            }
            let theirs = other.request(name, json!({"taskId": id})).await;
            let never = other.request(name, json!({"taskId": NEVER})).await;
            as_for_an_id_that_never_existed(&theirs, &id, &never);
        }
        Method::Update => {
            let key = crate::common::tasks::input_key(&owner.until(&id, "input_required").await);
            let accept = |id: &str| {
                let answer = json!({"action": "accept", "content": {}});
                json!({"taskId": id, "inputResponses": {&key: answer}})
            };
            let theirs = other.request("tasks/update", accept(&id)).await;
            let never = other.request("tasks/update", accept(NEVER)).await;
            as_for_an_id_that_never_existed(&theirs, &id, &never);
            // The question waits for alice's answer: hers is the one used.
            let decline = json!({"action": "decline"});
            let hers = json!({"taskId": id, "inputResponses": {&key: decline}});
            let answered = owner.request("tasks/update", hers).await;
            assert!(answered.get("result").is_some(), "{answered}");
            let done = owner.until(&id, "completed").await;
            assert_eq!(
                done["result"]["content"][0]["text"], "declined/expired: Publish report q1?",
                "{done}"
            );
        }
        Method::List => {
            let theirs = other.request("tasks/list", json!({})).await;
            assert_eq!(theirs["result"], json!({"tasks": []}), "{theirs}");
            let hers = owner.request("tasks/list", json!({})).await;
            assert_eq!(hers["result"]["tasks"][0]["taskId"], id, "{hers}");
        }
        Method::Listen => {
            let acknowledged = other.listen(&[&id, NEVER]).await;
            assert_eq!(
                acknowledged["params"]["notifications"]["taskIds"],
                json!([id, NEVER]),
                "{acknowledged}"
            );
            // Alice's task as it is, then as it ends: neither told to bob, as nothing is of
            // an id that never existed.
            assert_eq!(other.heard().await, None);
            let cancelled = owner.request("tasks/cancel", json!({"taskId": id})).await;
            assert!(cancelled.get("result").is_some(), "{cancelled}");
            owner.until(&id, "cancelled").await;
            assert_eq!(other.heard().await, None);
        }
    }
    match method {
        Method::Result => {
            let hers = owner.request("tasks/result", json!({"taskId": id})).await;
            assert_eq!(hers["result"]["content"][0]["text"], "quick 1", "{hers}");
        }
        Method::Get | Method::Cancel | Method::List => {
            tokio::time::sleep(SILENCE).await;
            assert_eq!(owner.get(&id).await["status"], "working");
            assert!(!dropped.load(Ordering::SeqCst), "alice's task runs on");
        }
        Method::Update | Method::Listen => {}
    }
    served.shut_down().await;
}

/// One test per method, revision and transport, each the [`foreign`] check.
macro_rules! foreign_callers {
    ($($(#[$attr:meta])* $name:ident: $revision:ident, $transport:ident, $method:ident;)*) => {$(
        $(#[$attr])*
        #[tokio::test]
        async fn $name() {
            foreign(Revision::$revision, Transport::$transport, Method::$method).await;
        }
    )*};
}

foreign_callers! {
    core_get_on_another_stdio_connection: Core, Stdio, Get;
    core_result_on_another_stdio_connection: Core, Stdio, Result;
    core_cancel_on_another_stdio_connection: Core, Stdio, Cancel;
    core_list_on_another_stdio_connection: Core, Stdio, List;
    extension_get_on_another_stdio_connection: Extension, Stdio, Get;
    extension_update_on_another_stdio_connection: Extension, Stdio, Update;
    extension_cancel_on_another_stdio_connection: Extension, Stdio, Cancel;
    extension_listen_on_another_stdio_connection: Extension, Stdio, Listen;
}

/// The same checks over streamable HTTP.
#[cfg(feature = "mcp-http")]
mod over_http {
    use super::{Method, Revision, Transport, foreign};

    foreign_callers! {
        core_get_in_another_http_session: Core, Sessions, Get;
        core_result_in_another_http_session: Core, Sessions, Result;
        core_cancel_in_another_http_session: Core, Sessions, Cancel;
        core_list_in_another_http_session: Core, Sessions, List;
        core_get_as_another_verified_user: Core, Verified, Get;
        core_result_as_another_verified_user: Core, Verified, Result;
        core_cancel_as_another_verified_user: Core, Verified, Cancel;
        core_list_as_another_verified_user: Core, Verified, List;
        core_get_as_another_verified_user_in_a_session: Core, VerifiedSessions, Get;
        core_result_as_another_verified_user_in_a_session: Core, VerifiedSessions, Result;
        core_cancel_as_another_verified_user_in_a_session: Core, VerifiedSessions, Cancel;
        core_list_as_another_verified_user_in_a_session: Core, VerifiedSessions, List;
        extension_get_as_another_verified_user: Extension, Verified, Get;
        extension_update_as_another_verified_user: Extension, Verified, Update;
        extension_cancel_as_another_verified_user: Extension, Verified, Cancel;
        extension_listen_as_another_verified_user: Extension, Verified, Listen;
    }
}

/// The verified identity comes first (SPEC §14): signed in as the same user, a caller in
/// another session is the same caller, and reaches the task.
#[cfg(feature = "mcp-http")]
#[tokio::test]
async fn the_same_verified_user_reaches_its_task_from_another_session() {
    let (toolkit, _, _) = with_handles();
    let served = Served::start(McpServer::new(toolkit), Transport::VerifiedSessions).await;
    let mut first = served.caller("alice", Revision::Core).await;
    let mut second = served.caller("alice", Revision::Core).await;
    let session = |caller: &Caller| match &caller.way {
        Way::Http { client, .. } => client.session.clone().expect("a session"),
        Way::Stdio { .. } => unreachable!("over HTTP"),
    };
    assert_ne!(session(&first), session(&second));
    let id = first.started("stuck", json!({})).await;
    assert_eq!(second.get(&id).await["status"], "working");
    let listed = second.request("tasks/list", json!({})).await;
    assert_eq!(listed["result"]["tasks"][0]["taskId"], id, "{listed}");
    served.shut_down().await;
}
