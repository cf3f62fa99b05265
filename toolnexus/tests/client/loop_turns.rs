//! The loop's turns: calls run concurrently in call order, results fed back, the RunResult
//! filled; deferred tools a search loaded are sent the next turn; unknown tools answered.

use serde_json::json;
use toolnexus::client::{Client, Message, Status, ToolCallRecord, Usage};
use toolnexus::{Toolkit, define_tool};

use crate::scripted::*;

#[tokio::test]
async fn a_two_turn_run_with_parallel_calls_is_done_with_everything_recorded() {
    let (adds, add) = counting("add");
    let (weathers, weather) = counting("get_weather");
    let toolkit = Toolkit::new().with(add).with(weather);
    let model = Scripted::new([
        calling(vec![
            call("c1", "get_weather", json!({"city": "Paris"})),
            call("c2", "add", json!({"a": 2, "b": 2})),
        ]),
        answering("Paris is sunny and 2 + 2 = 4."),
    ]);
    let client = Client::with_model(model.clone()).system("You help.");
    let result = client
        .run("Weather in Paris, and 2 + 2?", &toolkit)
        .await
        .unwrap();

    assert_eq!(result.status, Status::Done);
    assert_eq!(result.text, "Paris is sunny and 2 + 2 = 4.");
    assert_eq!((result.turns, result.tool_call_count), (2, 2));
    assert_eq!(
        result.usage,
        Usage {
            input_tokens: 30,
            output_tokens: 12
        }
    );
    assert_eq!(result.model, "scripted-1");
    assert_eq!(
        (&result.pending, result.limit, &result.parked),
        (&None, None, &None)
    );
    assert_eq!((runs(&adds), runs(&weathers)), (1, 1));
    assert_eq!(
        result.tool_calls,
        [
            ToolCallRecord {
                name: "get_weather".into(),
                args: json!({"city": "Paris"}),
                output: r#"get_weather({"city":"Paris"})"#.into(),
                is_error: false,
                metadata: None,
            },
            ToolCallRecord {
                name: "add".into(),
                args: json!({"a": 2, "b": 2}),
                output: r#"add({"a":2,"b":2})"#.into(),
                is_error: false,
                metadata: None,
            },
        ]
    );
    // System, prompt, the calls, their results in call order, the answer.
    let roles: Vec<_> = result.messages.iter().map(role).collect();
    assert_eq!(roles, ["system", "user", "assistant", "tool", "assistant"]);
    let Message::Tool { results } = &result.messages[3] else {
        unreachable!()
    };
    let ids: Vec<_> = results.iter().map(|r| r.call_id.as_str()).collect();
    assert_eq!(ids, ["c1", "c2"]);
    // The second request carried the first turn's results.
    let seen = model.seen.lock().unwrap();
    assert_eq!(seen[1].0, result.messages[..4]);
    assert_eq!(seen[0].1[0]["function"]["name"], "add");
    // The RunResult is the camelCase serde data the other ports return.
    let wire = serde_json::to_value(&result).unwrap();
    assert_eq!(wire["toolCallCount"], 2);
    assert_eq!(
        wire["usage"],
        json!({"inputTokens": 30, "outputTokens": 12})
    );
    assert_eq!(wire["status"], "done");
}

pub fn role(message: &Message) -> &'static str {
    match message {
        Message::System { .. } => "system",
        Message::User { .. } => "user",
        Message::Assistant { .. } => "assistant",
        Message::Tool { .. } => "tool",
    }
}

#[tokio::test]
async fn history_comes_between_the_system_prompt_and_the_prompt() {
    let model = Scripted::new([answering("fine")]);
    let client = Client::with_model(model.clone()).system("Be brief.");
    let history = vec![
        Message::user("Hi"),
        Message::Assistant {
            text: "Hello".into(),
            tool_calls: vec![],
            echo: None,
        },
    ];
    let result = client
        .run_with_history(history.clone(), "How are you?", &Toolkit::new())
        .await
        .unwrap();
    let mut expected = vec![Message::system("Be brief.")];
    expected.extend(history);
    expected.push(Message::user("How are you?"));
    assert_eq!(model.seen.lock().unwrap()[0].0, expected);
    assert_eq!(result.messages.len(), 5);
}

#[tokio::test]
async fn an_unknown_tool_is_answered_like_any_call_and_the_run_goes_on() {
    let model = Scripted::new([
        calling(vec![call("c1", "nope", json!({}))]),
        answering("sorry"),
    ]);
    let result = Client::with_model(model)
        .run("go", &Toolkit::new())
        .await
        .unwrap();
    assert_eq!(result.status, Status::Done);
    assert_eq!(result.tool_calls[0].output, "Unknown tool: nope");
    assert!(result.tool_calls[0].is_error);
}

#[tokio::test]
async fn a_deferred_tool_a_search_loaded_is_sent_on_the_next_turn() {
    let schema = json!({"type": "object", "properties": {}});
    let rare = define_tool(
        "convert_currency",
        "Converts an amount between currencies",
        schema,
    )
    .unwrap()
    .deferred(true)
    .sync(|_: serde_json::Value, _: &toolnexus::ToolContext| "42 EUR");
    let (_, add) = counting("add");
    let toolkit = Toolkit::new().with(add).with(rare);
    let model = Scripted::new([
        calling(vec![call(
            "s1",
            "search_tools",
            json!({"query": "convert currency"}),
        )]),
        calling(vec![call("c1", "convert_currency", json!({}))]),
        answering("42 EUR"),
    ]);
    let result = Client::with_model(model.clone())
        .run("Convert 40 USD", &toolkit)
        .await
        .unwrap();
    assert_eq!(result.status, Status::Done);
    let names = |turn: usize| -> Vec<String> {
        let seen = model.seen.lock().unwrap();
        seen[turn]
            .1
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
            .collect()
    };
    assert!(
        !names(0).contains(&"convert_currency".to_owned()),
        "{:?}",
        names(0)
    );
    assert!(names(0).contains(&"search_tools".to_owned()));
    assert!(
        names(1).contains(&"convert_currency".to_owned()),
        "{:?}",
        names(1)
    );
    assert_eq!(result.tool_calls[1].output, "42 EUR");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_can_be_spawned_on_a_multi_threaded_runtime() {
    let (_, add) = counting("add");
    let toolkit = Toolkit::new().with(add);
    let client = Client::with_model(Scripted::new([
        calling(vec![call("c1", "add", json!({}))]),
        answering("done"),
    ]));
    let spawned = tokio::spawn(async move { client.run("go", &toolkit).await });
    assert_eq!(spawned.await.unwrap().unwrap().status, Status::Done);
}

/// Two calls that each wait for the other: they finish only if the turn runs them at once.
#[tokio::test]
async fn the_calls_of_a_turn_run_at_once() {
    let barrier = std::sync::Arc::new(tokio::sync::Barrier::new(2));
    let meet = define_tool(
        "meet",
        "Waits for the other call",
        json!({"type": "object"}),
    )
    .unwrap()
    .run(move |_: serde_json::Value, _: toolnexus::ToolContext| {
        let barrier = barrier.clone();
        async move {
            barrier.wait().await;
            "met"
        }
    });
    let model = Scripted::new([
        calling(vec![
            call("c1", "meet", json!({})),
            call("c2", "meet", json!({})),
        ]),
        answering("both met"),
    ]);
    let client = Client::with_model(model).timeout(std::time::Duration::from_secs(20));
    let result = client.run("go", &Toolkit::new().with(meet)).await.unwrap();
    assert_eq!(result.status, Status::Done, "{:?}", result.tool_calls);
    let outputs: Vec<_> = result
        .tool_calls
        .iter()
        .map(|r| r.output.as_str())
        .collect();
    assert_eq!(outputs, ["met", "met"]);
}
