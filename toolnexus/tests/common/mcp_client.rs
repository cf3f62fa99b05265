//! rmcp's own client, pinned to one protocol revision, driving our server over an in-process
//! pipe or streamable HTTP: the one `connect` of every MCP test, a scripted client (elicitation
//! answers, progress seen), a tap that keeps every message, and the check of each message the
//! server sent against the official JSON schema of the revision spoken
//! (`tests/mcp-schema/<revision>.json`, copied from the MCP specification repository).
#![allow(
    dead_code,
    reason = "each test binary compiles this module on its own and uses only part of it"
)]

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex, OnceLock};

use rmcp::model::{
    ClientCapabilities, ClientConfig, ClientJsonRpcMessage, ElicitRequestParams, ElicitResult,
    ElicitationAction, ElicitationCapability, FormElicitationCapability, Implementation,
    InputRequiredResult, InputResponses, ProgressNotificationParam, ProtocolVersion,
    ServerJsonRpcMessage, UrlElicitationCapability,
};
use rmcp::service::{NotificationContext, RequestContext, RoleClient, RunningService, ServiceExt};
use rmcp::transport::Transport;
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt, ErrorData};
use serde_json::{Value, json};
use toolnexus::Toolkit;
use toolnexus::mcp::McpServer;

/// Every revision rmcp speaks with our server, oldest first.
pub const REVISIONS: [ProtocolVersion; 4] = [
    ProtocolVersion::V_2025_03_26,
    ProtocolVersion::V_2025_06_18,
    ProtocolVersion::V_2025_11_25,
    ProtocolVersion::V_2026_07_28,
];

/// The elicitation modes a client declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Modes {
    None,
    Form,
    Url,
    Both,
}

/// A client that speaks `revision`, declares `modes`, answers elicitations from a script (or
/// declines when the script is empty) and keeps what it was asked and the progress it saw.
#[derive(Clone)]
pub struct TestClient {
    pub revision: ProtocolVersion,
    pub modes: Modes,
    pub answers: Arc<Mutex<VecDeque<ElicitResult>>>,
    pub asked: Arc<Mutex<Vec<ElicitRequestParams>>>,
    pub progress: Arc<Mutex<Vec<ProgressNotificationParam>>>,
    /// With no scripted answer left, never answer (rather than decline).
    pub stall: bool,
    /// Declares the tasks extension (`io.modelcontextprotocol/tasks`, 2026-07-28).
    pub tasks: bool,
}

impl TestClient {
    pub fn new(revision: ProtocolVersion, modes: Modes) -> Self {
        Self {
            revision,
            modes,
            answers: Arc::default(),
            asked: Arc::default(),
            progress: Arc::default(),
            stall: false,
            tasks: false,
        }
    }

    /// Queues the answer to the next elicitation.
    pub fn answer(&self, action: ElicitationAction, content: Option<Value>) -> &Self {
        let mut result = ElicitResult::new(action);
        result.content = content;
        self.answers.lock().unwrap().push_back(result);
        self
    }

    pub fn asked(&self) -> Vec<Value> {
        let asked = self.asked.lock().unwrap();
        asked
            .iter()
            .map(|params| serde_json::to_value(params).unwrap())
            .collect()
    }

    pub fn progress(&self) -> Vec<Value> {
        let seen = self.progress.lock().unwrap();
        seen.iter()
            .map(|params| serde_json::to_value(params).unwrap())
            .collect()
    }
}

impl ClientHandler for TestClient {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        let form = FormElicitationCapability::default();
        let url = UrlElicitationCapability::new();
        capabilities.elicitation = match self.modes {
            Modes::None => None,
            Modes::Form => Some(ElicitationCapability::new().with_form(form)),
            Modes::Url => Some(ElicitationCapability::new().with_url(url)),
            Modes::Both => Some(ElicitationCapability::new().with_form(form).with_url(url)),
        };
        if self.tasks {
            capabilities.extensions = Some(
                [(
                    rmcp::model::TASKS_EXTENSION_ID.to_owned(),
                    Default::default(),
                )]
                .into(),
            );
        }
        ClientConfig::new(capabilities, Implementation::new("toolnexus-tests", "0"))
            .with_protocol_version(self.revision.clone())
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.asked.lock().unwrap().push(request);
        let next = self.answers.lock().unwrap().pop_front();
        if next.is_none() && self.stall {
            std::future::pending::<()>().await;
        }
        Ok(next.unwrap_or_else(|| ElicitResult::new(ElicitationAction::Decline)))
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress.lock().unwrap().push(params);
    }
}

/// Which way a message travelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    ToServer,
    FromServer,
}

/// Every message of one connection, in order, as JSON.
pub type Log = Arc<Mutex<Vec<(Dir, Value)>>>;

/// A client transport that keeps a copy of every message it carries.
pub struct Tap<T> {
    inner: T,
    log: Log,
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for Tap<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let value = serde_json::to_value(&item).expect("a client message serializes");
        self.log.lock().unwrap().push((Dir::ToServer, value));
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<ServerJsonRpcMessage> {
        let item = self.inner.receive().await?;
        let value = serde_json::to_value(&item).expect("a server message serializes");
        self.log.lock().unwrap().push((Dir::FromServer, value));
        Some(item)
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

/// Connects `client` over `transport` (tapped into `log`): `server/discover` for 2026-07-28,
/// `initialize` for the older revisions.
pub async fn connect_over<T>(
    client: TestClient,
    transport: T,
    log: &Log,
) -> RunningService<RoleClient, TestClient>
where
    T: Transport<RoleClient> + 'static,
{
    let revision = client.revision.clone();
    let tap = Tap {
        inner: transport,
        log: Arc::clone(log),
    };
    let lifecycle = if revision.has_initialize() {
        ClientLifecycleMode::Initialize
    } else {
        ClientLifecycleMode::Discover {
            preferred_versions: vec![revision.clone()],
        }
    };
    let running = client
        .serve_with_lifecycle(tap, lifecycle)
        .await
        .unwrap_or_else(|error| panic!("client at {revision} connects: {error}"));
    let info = running.peer_info().expect("handshake done");
    assert_eq!(info.protocol_version, revision, "negotiated revision");
    running
}

/// Serves `server` on one end of an in-process pipe and connects `client` on the other.
/// `server` served on `LineTransport` (stdio's framing) over an in-process pipe: the client's
/// ends of it.
pub fn line_pipe(
    server: McpServer,
) -> (
    tokio::io::ReadHalf<tokio::io::DuplexStream>,
    tokio::io::WriteHalf<tokio::io::DuplexStream>,
) {
    let (server_end, client_end) = tokio::io::duplex(64 * 1024);
    let (read, write) = tokio::io::split(server_end);
    tokio::spawn(async move {
        let transport = toolnexus::mcp::LineTransport::new(read, write);
        if let Ok(running) = server.serve(transport).await {
            let _ = running.waiting().await;
        }
    });
    tokio::io::split(client_end)
}

pub async fn connect_pipe(
    server: McpServer,
    client: TestClient,
) -> (RunningService<RoleClient, TestClient>, Log) {
    let (server_end, client_end) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        let running = server.serve(server_end).await.expect("server starts");
        running.waiting().await.expect("server stops cleanly")
    });
    let log = Log::default();
    let (read, write) = tokio::io::split(client_end);
    let transport = rmcp::transport::async_rw::AsyncRwTransport::new_client(read, write);
    let running = connect_over(client, transport, &log).await;
    (running, log)
}

/// `toolkit` served over a pipe to rmcp's default client (what the older tests use).
pub async fn connect(toolkit: Toolkit) -> RunningService<RoleClient, ()> {
    let (server_end, client_end) = tokio::io::duplex(64 * 1024);
    let server = McpServer::new(toolkit);
    tokio::spawn(async move {
        let running = server.serve(server_end).await.expect("server initializes");
        running.waiting().await.expect("server stops cleanly")
    });
    ().serve(client_end).await.expect("client initializes")
}

/// The official schema of `revision`.
fn schema(revision: &ProtocolVersion) -> &'static Value {
    static SCHEMAS: OnceLock<BTreeMap<&'static str, Value>> = OnceLock::new();
    let schemas = SCHEMAS.get_or_init(|| {
        let parse = |text: &str| serde_json::from_str::<Value>(text).expect("a schema parses");
        BTreeMap::from([
            (
                "2025-03-26",
                parse(include_str!("../mcp-schema/2025-03-26.json")),
            ),
            (
                "2025-06-18",
                parse(include_str!("../mcp-schema/2025-06-18.json")),
            ),
            (
                "2025-11-25",
                parse(include_str!("../mcp-schema/2025-11-25.json")),
            ),
            (
                "2026-07-28",
                parse(include_str!("../mcp-schema/2026-07-28.json")),
            ),
        ])
    });
    &schemas[revision.as_str()]
}

/// Whether `value` is valid as definition `name` of `revision`'s schema.
pub fn valid_as(revision: &ProtocolVersion, name: &str, value: &Value) -> Result<(), String> {
    type Validators = BTreeMap<(String, String), Arc<jsonschema::Validator>>;
    static VALIDATORS: OnceLock<Mutex<Validators>> = OnceLock::new();
    let key = (revision.as_str().to_owned(), name.to_owned());
    let cached = VALIDATORS
        .get_or_init(Mutex::default)
        .lock()
        .unwrap()
        .get(&key)
        .cloned();
    let validator = match cached {
        Some(validator) => validator,
        None => {
            let mut root = schema(revision).clone();
            let defs = if root.get("$defs").is_some() {
                "$defs"
            } else {
                "definitions"
            };
            assert!(
                root[defs].get(name).is_some(),
                "{revision} defines no {name}"
            );
            root["$ref"] = json!(format!("#/{defs}/{name}"));
            let validator = Arc::new(
                jsonschema::validator_for(&root)
                    .unwrap_or_else(|error| panic!("{revision} schema compiles: {error}")),
            );
            VALIDATORS
                .get()
                .unwrap()
                .lock()
                .unwrap()
                .insert(key, Arc::clone(&validator));
            validator
        }
    };
    let errors: Vec<String> = validator
        .iter_errors(value)
        .map(|error| format!("{error} at {}", error.instance_path))
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("; "))
    }
}

/// Whether `value` is valid as definition `name` of the tasks extension's schema
/// (`tests/mcp-schema/ext-tasks-draft.json`, from `modelcontextprotocol/ext-tasks`).
pub fn valid_as_task_shape(name: &str, value: &Value) -> Result<(), String> {
    static VALIDATORS: OnceLock<Mutex<BTreeMap<String, Arc<jsonschema::Validator>>>> =
        OnceLock::new();
    let validators = VALIDATORS.get_or_init(Mutex::default);
    let validator = validators.lock().unwrap().get(name).cloned();
    let validator = validator.unwrap_or_else(|| {
        let mut root: Value =
            serde_json::from_str(include_str!("../mcp-schema/ext-tasks-draft.json")).unwrap();
        assert!(
            root["$defs"].get(name).is_some(),
            "the extension defines no {name}"
        );
        root["$ref"] = json!(format!("#/$defs/{name}"));
        let validator = Arc::new(jsonschema::validator_for(&root).expect("the schema compiles"));
        validators
            .lock()
            .unwrap()
            .insert(name.to_owned(), Arc::clone(&validator));
        validator
    });
    let errors: Vec<String> = validator
        .iter_errors(value)
        .map(|error| format!("{error} at {}", error.instance_path))
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("; "))
    }
}

/// The tasks extension's definition for a result of `method`, where it defines one.
fn task_definition(method: &str, result: &Value) -> Option<&'static str> {
    match method {
        "tools/call" if result["resultType"] == "task" => Some("CreateTaskResult"),
        "tasks/get" => Some("GetTaskResult"),
        "tasks/update" => Some("UpdateTaskResult"),
        "tasks/cancel" => Some("CancelTaskResult"),
        _ => None,
    }
}

/// The schema definition a result of `method` must satisfy at `revision`.
fn result_definition(revision: &ProtocolVersion, method: &str, result: &Value) -> &'static str {
    match method {
        "initialize" => "InitializeResult",
        "server/discover" => "DiscoverResult",
        "tools/list" => "ListToolsResult",
        "tools/call" if result["resultType"] == "input_required" => "InputRequiredResult",
        "tools/call" => "CallToolResult",
        "ping" if revision.has_initialize() => "EmptyResult",
        _ => "Result",
    }
}

/// Checks every message the server sent in `log` against `revision`'s schema: the JSON-RPC
/// envelope, then each result as the definition of its request's method, each notification
/// as a `ServerNotification` and each request as a `ServerRequest` (2026-07-28 has none).
/// Returns how many messages were checked.
pub fn check_log(revision: &ProtocolVersion, log: &Log) -> usize {
    let log = log.lock().unwrap();
    let methods: BTreeMap<String, String> = log
        .iter()
        .filter(|(dir, _)| *dir == Dir::ToServer)
        .filter_map(|(_, message)| {
            Some((
                message.get("id")?.to_string(),
                message.get("method")?.as_str()?.to_owned(),
            ))
        })
        .collect();
    let mut checked = 0;
    for (_, message) in log.iter().filter(|(dir, _)| *dir == Dir::FromServer) {
        let fail = |what: &str, problem: String| -> ! {
            panic!("{revision}: {what} is not valid: {problem}\n{message:#}")
        };
        valid_as(revision, "JSONRPCMessage", message).unwrap_or_else(|p| fail("message", p));
        match (
            message.get("id"),
            message.get("method"),
            message.get("result"),
        ) {
            (Some(id), None, Some(result)) => {
                let method = methods
                    .get(&id.to_string())
                    .unwrap_or_else(|| panic!("a response to an unknown request {id}"));
                if let Some(definition) = task_definition(method, result) {
                    valid_as_task_shape(definition, result)
                        .unwrap_or_else(|p| fail(&format!("{method} result ({definition})"), p));
                    checked += 1;
                    continue;
                }
                let definition = result_definition(revision, method, result);
                valid_as(revision, definition, result)
                    .unwrap_or_else(|p| fail(&format!("{method} result ({definition})"), p));
            }
            (Some(_), Some(method), _) => {
                assert!(
                    revision.has_initialize(),
                    "{revision} forbids server requests, got {method}"
                );
                valid_as(revision, "ServerRequest", message)
                    .unwrap_or_else(|p| fail("server request", p));
            }
            (None, Some(method), _) if method == "notifications/tasks" => {
                valid_as_task_shape("TaskStatusNotification", message)
                    .unwrap_or_else(|p| fail("notification", p));
            }
            (None, Some(_), _) => valid_as(revision, "ServerNotification", message)
                .unwrap_or_else(|p| fail("notification", p)),
            _ => {}
        }
        checked += 1;
    }
    checked
}

/// The HTTP client transport for `url`, tapped into a fresh log.
#[cfg(feature = "mcp-http")]
pub async fn connect_http(
    url: &str,
    client: TestClient,
) -> (RunningService<RoleClient, TestClient>, Log) {
    use rmcp::transport::StreamableHttpClientTransport;
    let log = Log::default();
    let transport = StreamableHttpClientTransport::from_uri(url.to_owned());
    let running = connect_over(client, transport, &log).await;
    (running, log)
}

/// An accepting answer, with no fields, to every request of an `InputRequiredResult`: what
/// the approved retry of a suspended call sends back.
pub fn accept_every(question: &InputRequiredResult) -> InputResponses {
    question
        .input_requests
        .as_ref()
        .expect("an input_required result asks something")
        .keys()
        .map(|key| (key.clone(), json!({"action": "accept", "content": {}})))
        .collect()
}
