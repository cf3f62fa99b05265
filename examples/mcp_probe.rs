//! Points `McpTools` at the servers of an `mcp.json` and reports what a model would get:
//! the revision spoken, each server's tools, what `Toolkit::check` says every provider
//! profile cannot express, and the results of the calls in a script. `scripts/mcp_real_servers.sh`
//! runs it against servers nobody here wrote.
//!
//! ```text
//! cargo run --example mcp_probe --features mcp-client -- mcp.json [calls.json] [--dump DIR]
//! ```
//!
//! `calls.json` is a list of `{"server", "tool", "args", "answer"?, "timeout_ms"?}`; a call
//! that suspends is answered with `answer` (an `Answer` without its id; none ⇒ approve)
//! through `call_with`; each call's deadline is `timeout_ms` (default 30,000).
//! `--dump DIR` writes each server's `tools/list` (as `Toolkit::to_mcp` sends it) to
//! `DIR/<server>.json`.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use toolnexus::mcp::McpTools;
use toolnexus::serde_json::{self, Value, json};
use toolnexus::{Answer, Profile, Request, ToolContext, Toolkit};

type Error = Box<dyn std::error::Error + Send + Sync>;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dump = args
        .iter()
        .position(|arg| arg == "--dump")
        .map(|at| args[at + 1].clone());
    let positional: Vec<&String> = args
        .iter()
        .enumerate()
        .filter(|(at, arg)| !arg.starts_with("--") && (*at == 0 || args[at - 1] != "--dump"))
        .map(|(_, arg)| arg)
        .collect();
    let Some(config) = positional.first() else {
        return Err("usage: mcp_probe mcp.json [calls.json] [--dump DIR]".into());
    };
    let servers = McpTools::from_config(config).await?;
    // The answer of the call being made, for the questions its server asks.
    let current: Arc<Mutex<Value>> = Arc::new(Mutex::new(json!({"ok": true})));
    let mut toolkits = Vec::new();
    for server in servers {
        // Questions a 2025-* server asks during a call: answered as the script says.
        let current = Arc::clone(&current);
        let server = server.on_elicitation(move |request: Request| {
            println!("    ~ elicitation ({}): {}", request.kind, request.prompt);
            let mut answer = current.lock().unwrap().clone();
            answer["id"] = json!(request.id);
            std::future::ready(serde_json::from_value::<Answer>(answer).expect("an Answer"))
        });
        let toolkit = Toolkit::new().with_all(server.tools());
        println!(
            "{}: {} tools, revision {}",
            server.name(),
            toolkit.len(),
            server.protocol_version().await.unwrap_or_default()
        );
        for profile in [
            Profile::OpenAiStrict,
            Profile::Gemini,
            Profile::AnthropicStrict,
        ] {
            let issues = toolkit.check(profile);
            println!("  check({profile:?}): {} issue(s)", issues.len());
            for issue in issues.iter().take(5) {
                println!("    {issue}");
            }
        }
        // Every profile renders every tool.
        for definitions in [
            toolkit.to_openai_strict(),
            toolkit.to_anthropic_strict(),
            toolkit.to_gemini(),
        ] {
            assert!(definitions.to_string().len() > 2);
        }
        if let Some(dir) = &dump {
            let path = std::path::Path::new(dir).join(format!("{}.json", server.name()));
            std::fs::write(
                &path,
                serde_json::to_string_pretty(&toolkit.to_mcp())? + "\n",
            )?;
            println!("  wrote {}", path.display());
        }
        toolkits.push((server.name().to_owned(), toolkit));
    }
    let Some(calls) = positional.get(1) else {
        return Ok(());
    };
    let calls: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(calls)?)?;
    for call in calls {
        let server = call["server"].as_str().unwrap_or_default();
        let tool = call["tool"].as_str().unwrap_or_default();
        let Some((_, toolkit)) = toolkits.iter().find(|(name, _)| name == server) else {
            println!("no server {server}");
            continue;
        };
        let progress = Arc::new(Mutex::new(0_usize));
        let seen = Arc::clone(&progress);
        let timeout = call["timeout_ms"].as_u64().unwrap_or(30_000);
        let ctx = ToolContext {
            timeout: Some(Duration::from_millis(timeout)),
            ..ToolContext::default()
        }
        .on_progress(move |_, _, _| *seen.lock().unwrap() += 1);
        let answer = call
            .get("answer")
            .cloned()
            .unwrap_or_else(|| json!({"ok": true}));
        *current.lock().unwrap() = answer.clone();
        let result = toolkit
            .call_with(
                tool,
                call["args"].clone(),
                &ctx,
                |request: Request| async move {
                    println!("    ~ suspended ({}): {}", request.kind, request.prompt);
                    let mut answer = answer;
                    answer["id"] = json!(request.id);
                    serde_json::from_value(answer).expect("an Answer")
                },
            )
            .await;
        let mut wire = serde_json::to_value(&result)?;
        let parts = wire.get_mut("parts").and_then(Value::as_array_mut);
        for part in parts.into_iter().flatten() {
            if let Some(data) = part.get_mut("data") {
                *data = json!(format!(
                    "<{} base64 chars>",
                    data.as_str().map_or(0, str::len)
                ));
            }
        }
        let mut shown = wire.to_string();
        if shown.len() > 400 {
            shown.truncate(
                shown
                    .char_indices()
                    .take_while(|(at, _)| *at < 400)
                    .last()
                    .map_or(0, |(at, _)| at),
            );
            shown.push('…');
        }
        println!(
            "  {server}.{tool} {} => {shown} (progress seen: {})",
            call["args"],
            progress.lock().unwrap()
        );
    }
    Ok(())
}
