//! SPEC §15: the local search's recall on a catalog of 218 real MCP tools
//! (`fixtures/tool_catalog.json`, assembled by `scripts/tool-catalog.py` from GitHub's MCP
//! server, the reference servers, Playwright's and Notion's), with queries written the way a
//! model asks for a tool. The figure is printed and stated in the README.

use serde_json::Value;
use toolnexus::{Api, RunState, ToolContext, ToolSearch, Toolkit, define_tool};

/// Each query with the tools that answer it (any one of them counts).
const QUERIES: &[(&str, &[&str])] = &[
    ("open a new pull request", &["create_pull_request"]),
    ("merge a pull request", &["merge_pull_request"]),
    ("list the open issues of a repository", &["list_issues"]),
    ("create an issue", &["create_issue", "issue_write"]),
    ("comment on an issue", &["add_issue_comment"]),
    ("search code across repositories", &["search_code"]),
    (
        "get the contents of a file in a repository",
        &["get_file_contents"],
    ),
    ("list the branches of a repository", &["list_branches"]),
    ("fork a repository", &["fork_repository"]),
    ("star a repository", &["star_repository"]),
    ("list releases", &["list_releases"]),
    ("latest release of a project", &["get_latest_release"]),
    (
        "dependabot alerts",
        &["list_dependabot_alerts", "get_dependabot_alert"],
    ),
    (
        "secret scanning alerts",
        &["list_secret_scanning_alerts", "get_secret_scanning_alert"],
    ),
    ("logs of a failed workflow job", &["get_job_logs"]),
    ("trigger a workflow run", &["actions_run_trigger"]),
    ("create a gist", &["create_gist"]),
    ("details of the authenticated user", &["get_me"]),
    (
        "mark all notifications as read",
        &["mark_all_notifications_read"],
    ),
    (
        "request reviewers for a pull request",
        &["request_pull_request_reviewers"],
    ),
    ("push several files in one commit", &["push_files"]),
    ("delete a file from a repository", &["delete_file"]),
    ("create a new repository", &["create_repository"]),
    ("find GitHub users", &["search_users"]),
    ("commit history of a branch", &["list_commits", "git_log"]),
    ("resolve a review thread", &["resolve_review_thread"]),
    (
        "read a text file from disk",
        &["read_text_file", "read_file"],
    ),
    ("write a file", &["write_file"]),
    ("edit lines in a file", &["edit_file"]),
    ("make a new folder", &["create_directory"]),
    ("recursive tree of a directory as JSON", &["directory_tree"]),
    ("rename or move a file", &["move_file"]),
    ("find files matching a pattern", &["search_files"]),
    ("file size and modification time", &["get_file_info"]),
    ("add entities to the knowledge graph", &["create_entities"]),
    ("search the knowledge graph", &["search_nodes"]),
    ("delete relations between entities", &["delete_relations"]),
    (
        "think step by step through a hard problem",
        &["sequentialthinking"],
    ),
    ("navigate the browser to a URL", &["browser_navigate"]),
    (
        "take a screenshot of the page",
        &["browser_take_screenshot"],
    ),
    ("click an element on the web page", &["browser_click"]),
    ("fill in a form", &["browser_fill_form"]),
    ("upload a file in the browser", &["browser_file_upload"]),
    ("press a key on the keyboard", &["browser_press_key"]),
    ("accessibility snapshot of the page", &["browser_snapshot"]),
    ("close the browser", &["browser_close"]),
    ("create a Notion page", &["API-post-page"]),
    ("search Notion pages by title", &["API-post-search"]),
    ("add a comment to a Notion page", &["API-create-a-comment"]),
    (
        "query a Notion database",
        &["API-query-data-source", "API-retrieve-a-database"],
    ),
    ("show staged changes", &["git_diff_staged"]),
    (
        "commit changes to the local git repository",
        &["git_commit"],
    ),
    ("switch to another branch", &["git_checkout"]),
    ("current time in a timezone", &["get_current_time"]),
    ("convert a time between time zones", &["convert_time"]),
    ("fetch a web page as markdown", &["fetch"]),
    ("add two numbers", &["get-sum"]),
    ("echo back a message", &["echo"]),
    (
        "long running operation with progress",
        &["trigger-long-running-operation"],
    ),
    ("return a tiny image", &["get-tiny-image"]),
];

/// The catalog as a toolkit of deferred tools, each named as its server names it.
fn catalog() -> Toolkit {
    catalog_of(0)
}

/// The catalog, then its first `copies` tools again under an `again_` prefix (a second server
/// of the same kind).
fn catalog_of(copies: usize) -> Toolkit {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/tool_catalog.json"
    );
    let fixture: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut toolkit = Toolkit::new();
    for (server, tools) in fixture["servers"].as_object().unwrap() {
        for tool in tools.as_array().unwrap() {
            let name = tool["name"].as_str().unwrap();
            let mut def = define_tool(
                name,
                tool["description"].as_str().unwrap(),
                tool["inputSchema"].clone(),
            )
            .unwrap_or_else(|error| panic!("{server}: {error}"));
            if let Some(title) = tool["title"].as_str() {
                def = def.title(title);
            }
            let added = toolkit.register(std::sync::Arc::new(
                def.sync(|_: Value, _: &ToolContext| ""),
            ));
            assert!(added, "{server}: `{name}` is listed twice");
        }
    }
    let again: Vec<_> = toolkit.tools().iter().take(copies).cloned().collect();
    for tool in again {
        let def = define_tool(
            format!("again_{}", tool.name()),
            tool.description(),
            Value::Object(tool.input_schema().clone()),
        )
        .unwrap();
        toolkit.register(std::sync::Arc::new(
            def.sync(|_: Value, _: &ToolContext| ""),
        ));
    }
    toolkit.defer_all_but(Vec::<String>::new())
}

#[test]
fn a_run_that_loaded_5_of_250_tools_sends_under_a_tenth_of_the_bytes() {
    let toolkit = catalog_of(32);
    assert_eq!(toolkit.len(), 250);
    let mut run = RunState::default();
    for tool in toolkit.search("pull request", 5) {
        run.load(tool.name());
    }
    assert_eq!(run.loaded().count(), 5);
    let bytes = |value: Value| value.to_string().len();
    for (api, all) in [
        (Api::OpenAiChat, toolkit.to_openai()),
        (Api::Gemini, toolkit.to_gemini()),
    ] {
        let (sent, every) = (bytes(toolkit.definitions(api, &run)), bytes(all));
        println!(
            "{api:?}: {sent} of {every} bytes ({:.1}%)",
            sent as f64 * 100.0 / every as f64
        );
        assert!(sent * 10 < every, "{api:?}: {sent} of {every}");
    }
    let local = toolkit.clone().tool_search(ToolSearch::Local);
    let sent = bytes(local.definitions(Api::OpenAiResponses, &run));
    let every = bytes(local.to_openai_responses());
    println!("OpenAiResponses, local search: {sent} of {every} bytes");
    assert!(sent * 10 < every, "{sent} of {every}");
}

#[test]
fn the_catalog_has_at_least_200_real_tools_all_deferred() {
    let toolkit = catalog();
    assert!(toolkit.len() >= 200, "{}", toolkit.len());
    assert!(
        toolkit
            .tools()
            .iter()
            .all(|tool| toolkit.is_deferred(tool.name()))
    );
}

#[test]
fn recall_at_5_on_the_real_catalog() {
    let toolkit = catalog();
    let mut hits = [0usize; 2]; // top 1, top 5
    let mut missed = Vec::new();
    for (query, answers) in QUERIES {
        let found: Vec<&str> = toolkit
            .search(query, 5)
            .iter()
            .map(|tool| tool.name())
            .collect();
        if found.first().is_some_and(|first| answers.contains(first)) {
            hits[0] += 1;
        }
        if found.iter().any(|name| answers.contains(name)) {
            hits[1] += 1;
        } else {
            missed.push(format!("{query:?} ⇒ {found:?}"));
        }
    }
    let [top1, top5] = hits.map(|hit| hit as f64 / QUERIES.len() as f64);
    println!(
        "{} queries over {} tools: recall@1 {:.0}%, recall@5 {:.0}%\nmissed:\n{}",
        QUERIES.len(),
        toolkit.len(),
        top1 * 100.0,
        top5 * 100.0,
        missed.join("\n")
    );
    assert!(top5 >= 0.9, "recall@5 {top5:.2}: {missed:#?}");
    // The README states the figure measured here, word for word.
    let claim = format!(
        "**{} queries over {} tools: the right tool in the top 5 for {:.0}%, first for {:.0}%.**",
        QUERIES.len(),
        toolkit.len(),
        top5 * 100.0,
        top1 * 100.0
    );
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md")).unwrap();
    assert!(readme.contains(&claim), "the README should say {claim}");
}
