//! 2025-11-25's core tasks (SPEC §14), as a client of that revision sends them, line by line
//! on stdio (over HTTP: `mcp_tasks_wire`): the capability, `execution.taskSupport`, `task: {ttl}`
//! on `tools/call`, `tasks/get`, `tasks/result` (a task's question put with
//! `elicitation/create`), `tasks/cancel`, and the refusals. Every message the server sends is
//! checked against the 2025-11-25 schema.

use crate::common::mcp_client::{line_pipe, valid_as};

use std::sync::atomic::Ordering;
use std::time::Duration;

use rmcp::model::ProtocolVersion;
use serde_json::{Value, json};
use tokio::io::{
    AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf,
};
use toolnexus::mcp::McpServer;

use super::mcp_tasks::with_handles;

/// A 2025-11-25 client on its own stdio connection, writing lines by hand.
struct Session {
    lines: Lines<BufReader<ReadHalf<DuplexStream>>>,
    write: WriteHalf<DuplexStream>,
    revision: ProtocolVersion,
    /// What it answers each `elicitation/create` with, and the questions it was asked.
    answer: Value,
    asked: Vec<Value>,
    /// The statuses `notifications/tasks/status` told, by task id, in order.
    told: Vec<(Value, Value)>,
}

impl Session {
    async fn open(server: McpServer, revision: ProtocolVersion) -> (Self, Value) {
        let (read, write) = line_pipe(server);
        let mut session = Self {
            lines: BufReader::new(read).lines(),
            write,
            revision: revision.clone(),
            answer: json!({"action": "accept", "content": {}}),
            asked: Vec::new(),
            told: Vec::new(),
        };
        let capabilities = json!({"elicitation": {}, "tasks": {"cancel": {}}});
        let params = json!({
            "protocolVersion": revision.as_str(),
            "capabilities": capabilities,
            "clientInfo": {"name": "by-hand", "version": "0"},
        });
        let initialized = session
            .request(0, "initialize", params, "InitializeResult")
            .await;
        session
            .send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        (session, initialized)
    }

    async fn send(&mut self, message: &Value) {
        let line = format!("{message}\n");
        self.write.write_all(line.as_bytes()).await.unwrap();
    }

    /// Request `id`, and its answer once it comes: the `result`, valid as `shape` of the
    /// revision, or the `error`. The server's questions meanwhile are answered.
    async fn request(&mut self, id: u64, method: &str, params: Value, shape: &str) -> Value {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        loop {
            let message = self.next().await;
            if message["method"] == "elicitation/create" {
                valid_as(&self.revision, "ElicitRequest", &message).unwrap();
                self.asked.push(message["params"].clone());
                let answer = json!({"jsonrpc": "2.0", "id": message["id"], "result": self.answer});
                self.send(&answer).await;
                continue;
            }
            if message["id"] != id {
                continue;
            }
            if let Some(error) = message.get("error") {
                valid_as(&self.revision, "JSONRPCErrorResponse", &message)
                    .or_else(|_| valid_as(&self.revision, "JSONRPCError", &message))
                    .unwrap();
                return json!({ "error": error });
            }
            valid_as(&self.revision, shape, &message["result"])
                .unwrap_or_else(|why| panic!("{method}: {why}: {message}"));
            return message["result"].clone();
        }
    }

    /// The next message the server sends; a status notification is checked and kept.
    async fn next(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(30), self.lines.next_line())
            .await
            .expect("the server sends")
            .unwrap()
            .expect("the connection stays open");
        let message: Value = serde_json::from_str(&line).unwrap();
        if message["method"] == "notifications/tasks/status" {
            valid_as(&self.revision, "TaskStatusNotification", &message).unwrap();
            let params = &message["params"];
            self.told
                .push((params["taskId"].clone(), params["status"].clone()));
        }
        message
    }

    /// The statuses told of task `id` once it has been told it ended.
    async fn told_until_end(&mut self, id: &Value) -> Vec<Value> {
        let told = |session: &Self| -> Vec<Value> {
            let of_id = session.told.iter().filter(|(task, _)| task == id);
            of_id.map(|(_, status)| status.clone()).collect()
        };
        while !told(self).last().is_some_and(|status| {
            ["completed", "failed", "cancelled"].contains(&status.as_str().unwrap())
        }) {
            self.next().await;
        }
        told(self)
    }
}

fn call_params(name: &str, arguments: Value, task: Option<Value>) -> Value {
    let mut params = json!({"name": name, "arguments": arguments});
    if let Some(task) = task {
        params["task"] = task;
    }
    params
}

#[tokio::test]
async fn a_2025_11_25_client_asks_for_a_task_polls_it_and_reads_its_result() {
    let (toolkit, gate, _) = with_handles();
    let (mut client, initialized) =
        Session::open(McpServer::new(toolkit), ProtocolVersion::V_2025_11_25).await;
    assert_eq!(
        initialized["capabilities"]["tasks"],
        json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}})
    );
    let listed = client
        .request(1, "tools/list", json!({}), "ListToolsResult")
        .await;
    let support: Vec<(&str, &Value)> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| {
            (
                tool["name"].as_str().unwrap(),
                &tool["execution"]["taskSupport"],
            )
        })
        .collect();
    assert!(
        support.contains(&("slow", &json!("optional"))),
        "{support:?}"
    );
    assert!(
        support.contains(&("publish_report", &json!("required"))),
        "{support:?}"
    );

    let ask = call_params("slow", json!({}), Some(json!({"ttl": 5000})));
    let created = client
        .request(2, "tools/call", ask, "CreateTaskResult")
        .await;
    let task = &created["task"];
    assert_eq!(
        (&task["status"], &task["ttl"]),
        (&json!("working"), &json!(5000))
    );
    let id = task["taskId"].as_str().unwrap().to_owned();
    // Polled until the tool's progress report reaches the record.
    let mut polled = json!(null);
    for poll in 0..2000 {
        polled = client
            .request(
                100 + poll,
                "tasks/get",
                json!({"taskId": id}),
                "GetTaskResult",
            )
            .await;
        if polled.get("statusMessage").is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(polled["status"], "working");
    assert_eq!(polled["statusMessage"], "waiting for the gate");
    gate.notify_one();
    let result = client
        .request(4, "tasks/result", json!({"taskId": id}), "CallToolResult")
        .await;
    assert_eq!(result["content"][0]["text"], "through the gate");
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        id.as_str()
    );
    // The tool's progress report (a new status message, still `working`), then its end.
    assert_eq!(
        client.told_until_end(&json!(id)).await,
        [json!("working"), json!("completed")]
    );
    let ended = client
        .request(5, "tasks/get", json!({"taskId": id}), "GetTaskResult")
        .await;
    assert_eq!(ended["status"], "completed");

    // Asked for a task, a tool that needs none answers with one too; asked for none, a
    // task-only tool is refused with the way to call it.
    let quick = call_params("quick", json!({"n": 1}), Some(json!({})));
    let created = client
        .request(6, "tools/call", quick, "CreateTaskResult")
        .await;
    let id = created["task"]["taskId"].clone();
    let result = client
        .request(7, "tasks/result", json!({"taskId": id}), "CallToolResult")
        .await;
    assert_eq!(result["content"][0]["text"], "quick 1");
}

#[tokio::test]
async fn tasks_result_puts_the_tasks_question_to_the_client_and_uses_its_answer_once() {
    let (toolkit, _, _) = with_handles();
    let server = McpServer::new(toolkit).task_ttl(Duration::from_secs(2));
    let (mut client, _) = Session::open(server, ProtocolVersion::V_2025_11_25).await;
    // A longer ttl than the server keeps tasks is cut to the server's.
    let publish = call_params(
        "publish_report",
        json!({"name": "q3"}),
        Some(json!({"ttl": 60_000})),
    );
    let created = client
        .request(1, "tools/call", publish, "CreateTaskResult")
        .await;
    assert_eq!(created["task"]["ttl"], 2000);
    let id = created["task"]["taskId"].clone();
    let result = client
        .request(2, "tasks/result", json!({"taskId": id}), "CallToolResult")
        .await;
    assert_eq!(result["content"][0]["text"], "published q3");
    assert_eq!(
        client.told_until_end(&id).await,
        [
            json!("input_required"),
            json!("working"),
            json!("completed")
        ]
    );
    assert_eq!(client.asked.len(), 1);
    assert_eq!(client.asked[0]["message"], "Publish report q3?");
    // 2025-11-25 ties a request sent while serving `tasks/result` to its task.
    assert_eq!(
        client.asked[0]["_meta"]["io.modelcontextprotocol/related-task"],
        json!({ "taskId": id }),
        "{}",
        client.asked[0]
    );
    // Read again, the ended task answers the same, and asks nothing more.
    let again = client
        .request(3, "tasks/result", json!({"taskId": id}), "CallToolResult")
        .await;
    assert_eq!(again, result);
    assert_eq!(client.asked.len(), 1);

    // Declined: the loop rule's words, and the tool never ran.
    client.answer = json!({"action": "decline"});
    let publish = call_params("publish_report", json!({"name": "q4"}), Some(json!({})));
    let created = client
        .request(4, "tools/call", publish, "CreateTaskResult")
        .await;
    let id = created["task"]["taskId"].clone();
    let result = client
        .request(5, "tasks/result", json!({"taskId": id}), "CallToolResult")
        .await;
    assert_eq!(
        (&result["content"][0]["text"], &result["isError"]),
        (&json!("declined/expired: Publish report q4?"), &json!(true))
    );
    let related = &client.asked[1]["_meta"]["io.modelcontextprotocol/related-task"];
    assert_eq!(related, &json!({ "taskId": id }));
}

/// SPEC §10B: a client answer that is no elicitation result (here a `null` field, which no
/// form sends) answers nothing: `tasks/result` is `-32602` saying why, the tool has not run,
/// and the next `tasks/result` asks again.
#[tokio::test]
async fn a_malformed_answer_to_the_tasks_question_is_invalid_params_and_asked_again() {
    let (toolkit, _, _) = with_handles();
    let (mut client, _) =
        Session::open(McpServer::new(toolkit), ProtocolVersion::V_2025_11_25).await;
    client.answer = json!({"action": "accept", "content": {"ok": null}});
    let publish = call_params("publish_report", json!({"name": "q5"}), Some(json!({})));
    let created = client
        .request(1, "tools/call", publish, "CreateTaskResult")
        .await;
    let id = created["task"]["taskId"].clone();
    let refused = client
        .request(2, "tasks/result", json!({"taskId": id}), "CallToolResult")
        .await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("is not an elicitation result") && message.contains("content.ok"),
        "{message}"
    );
    let status = client
        .request(3, "tasks/get", json!({"taskId": id}), "GetTaskResult")
        .await;
    assert_eq!(status["status"], "input_required");

    client.answer = json!({"action": "accept", "content": {}});
    let result = client
        .request(4, "tasks/result", json!({"taskId": id}), "CallToolResult")
        .await;
    assert_eq!(result["content"][0]["text"], "published q5");
    assert_eq!(client.asked.len(), 2);
}

#[tokio::test]
async fn tasks_cancel_stops_a_task_once_and_every_other_mistake_is_refused() {
    let (toolkit, _, dropped) = with_handles();
    let server = McpServer::new(toolkit);
    let (mut client, _) = Session::open(server.clone(), ProtocolVersion::V_2025_11_25).await;
    let stuck = call_params("stuck", json!({}), Some(json!({})));
    let created = client
        .request(1, "tools/call", stuck, "CreateTaskResult")
        .await;
    let id = created["task"]["taskId"].clone();
    let cancelled = client
        .request(2, "tasks/cancel", json!({"taskId": id}), "CancelTaskResult")
        .await;
    assert_eq!(cancelled["status"], "cancelled");
    assert!(
        dropped.load(Ordering::SeqCst),
        "the tool's future is dropped"
    );
    let error = |reply: Value| {
        let error = &reply["error"];
        (
            error["code"].as_i64().unwrap(),
            error["message"].as_str().unwrap().to_owned(),
        )
    };
    let again = client
        .request(3, "tasks/cancel", json!({"taskId": id}), "CancelTaskResult")
        .await;
    assert_eq!(
        error(again),
        (
            -32602,
            format!(
                "task `{}` has already ended (cancelled); it cannot be cancelled",
                id.as_str().unwrap()
            )
        )
    );
    let plain = call_params("plain_tool", json!({}), Some(json!({})));
    assert_eq!(
        error(client.request(4, "tools/call", plain, "CreateTaskResult").await),
        (-32601, "tool `plain_tool` does not run as a task: call it without `task` (its `execution.taskSupport` is `forbidden`)".to_owned())
    );
    let untasked = call_params("publish_report", json!({"name": "q5"}), None);
    assert_eq!(
        error(
            client
                .request(5, "tools/call", untasked, "CallToolResult")
                .await
        ),
        (
            -32601,
            "tool `publish_report` runs only as a task: call it with `task` (2025-11-25's tasks)"
                .to_owned()
        )
    );
    assert_eq!(
        error(
            client
                .request(6, "tasks/list", json!({"cursor": "x"}), "ListTasksResult")
                .await
        ),
        (
            -32602,
            "`tasks/list`: `cursor` \"x\" is not one this server gave".to_owned()
        )
    );
    let unknown = json!({"taskId": "0123456789abcdef0123456789abcdef"});
    assert_eq!(
        error(
            client
                .request(7, "tasks/get", unknown, "GetTaskResult")
                .await
        )
        .0,
        -32602
    );
    let own = "io.toolnexus/2025-11-25/tasks/get";
    assert_eq!(
        error(
            client
                .request(8, own, json!({"taskId": id}), "GetTaskResult")
                .await
        ),
        (-32601, own.to_owned())
    );
    // Another connection is another caller: the task is not there for it.
    let (mut other, _) = Session::open(server, ProtocolVersion::V_2025_11_25).await;
    assert_eq!(
        error(
            other
                .request(1, "tasks/get", json!({"taskId": id}), "GetTaskResult")
                .await
        )
        .0,
        -32602
    );
    let listed = other
        .request(2, "tasks/list", json!({}), "ListTasksResult")
        .await;
    assert_eq!(listed, json!({"tasks": []}));
}

/// `tasks/list`: the caller's tasks, oldest first, a hundred a page.
#[tokio::test]
async fn tasks_list_pages_through_the_callers_tasks_oldest_first() {
    let (toolkit, _, _) = with_handles();
    let (mut client, initialized) =
        Session::open(McpServer::new(toolkit), ProtocolVersion::V_2025_11_25).await;
    assert_eq!(initialized["capabilities"]["tasks"]["list"], json!({}));
    let mut ids = Vec::new();
    for n in 0..101 {
        let quick = call_params("quick", json!({"n": n}), Some(json!({})));
        let created = client
            .request(n, "tools/call", quick, "CreateTaskResult")
            .await;
        ids.push(created["task"]["taskId"].as_str().unwrap().to_owned());
    }
    let first = client
        .request(200, "tasks/list", json!({}), "ListTasksResult")
        .await;
    let cursor = json!({"cursor": first["nextCursor"]});
    let second = client
        .request(201, "tasks/list", cursor, "ListTasksResult")
        .await;
    assert_eq!(first["tasks"].as_array().unwrap().len(), 100);
    assert!(second.get("nextCursor").is_none(), "{second}");
    let listed: Vec<&Value> = [&first, &second]
        .into_iter()
        .flat_map(|page| page["tasks"].as_array().unwrap())
        .collect();
    let mut listed_ids: Vec<String> = listed
        .iter()
        .map(|task| task["taskId"].as_str().unwrap().to_owned())
        .collect();
    // Oldest first; tasks made in the same millisecond may come in any order among them.
    let created: Vec<&str> = listed
        .iter()
        .map(|task| task["createdAt"].as_str().unwrap())
        .collect();
    assert!(
        created.windows(2).all(|pair| pair[0] <= pair[1]),
        "{created:?}"
    );
    listed_ids.sort();
    ids.sort();
    assert_eq!(listed_ids, ids);
}

/// 2025-06-18 has no tasks: no capability, no `execution`, and a `task` on `tools/call` is
/// not one (the call runs inline).
#[tokio::test]
async fn an_older_session_gets_no_tasks_whatever_it_sends() {
    let (toolkit, _, _) = with_handles();
    let (mut client, initialized) =
        Session::open(McpServer::new(toolkit), ProtocolVersion::V_2025_06_18).await;
    assert!(
        initialized["capabilities"].get("tasks").is_none(),
        "{initialized}"
    );
    let listed = client
        .request(1, "tools/list", json!({}), "ListToolsResult")
        .await;
    assert!(
        listed["tools"]
            .as_array()
            .unwrap()
            .iter()
            .all(|tool| tool.get("execution").is_none()),
        "{listed}"
    );
    let quick = call_params("quick", json!({"n": 2}), Some(json!({"ttl": 1000})));
    let result = client
        .request(2, "tools/call", quick, "CallToolResult")
        .await;
    assert_eq!(result["content"][0]["text"], "quick 2");
}

/// Past `max_tasks` a 2025-11-25 client asking for a task is refused, as a JSON-RPC error (its
/// create result has no room for an `isError` one), and the tool does not run.
#[tokio::test]
async fn past_max_tasks_a_2025_11_25_task_is_refused_and_does_not_run() {
    let (toolkit, _, dropped) = with_handles();
    let server = McpServer::new(toolkit).max_tasks(1);
    let (mut client, _) = Session::open(server, ProtocolVersion::V_2025_11_25).await;
    let stuck = call_params("stuck", json!({}), Some(json!({})));
    client
        .request(1, "tools/call", stuck, "CreateTaskResult")
        .await;
    let quick = call_params("quick", json!({"n": 1}), Some(json!({})));
    let refused = client
        .request(2, "tools/call", quick, "CreateTaskResult")
        .await;
    assert_eq!(refused["error"]["code"], -32603, "{refused}");
    assert_eq!(
        refused["error"]["message"],
        "tool `quick` did not run: this server already runs its limit of 1 tasks; try again once one has ended"
    );
    assert!(!dropped.load(Ordering::SeqCst), "the first task runs on");
}
