//! The API key is in no `Debug` and no error: not of the client or its model, not of any
//! fault's `RunError` — not even when the provider quotes the key it refused.

use std::time::Duration;

use serde_json::json;
use toolnexus::Api;
use toolnexus::client::{Client, HttpModel, RunError};

use crate::stand_in::{Answer, StandIn};
use crate::{FAKE_KEY, client, run, wire};

/// Fails when `text` shows the key, or a long enough piece of it to matter.
fn assert_hidden(text: &str) {
    assert!(!text.contains(FAKE_KEY), "the key leaked: {text}");
    assert!(
        !text.contains("FAKEKEY-0123"),
        "part of the key leaked: {text}"
    );
}

/// A `RunError`'s every rendering.
fn assert_hidden_in(error: &RunError) {
    assert_hidden(&error.to_string());
    assert_hidden(&format!("{error:?}"));
    assert_hidden(&format!("{error:#?}"));
}

#[test]
fn debug_of_the_client_and_the_model_hides_the_key_and_header_values() {
    for api in Api::ALL {
        let model = HttpModel::new(api, "m")
            .api_key(FAKE_KEY)
            .header("x-secret", FAKE_KEY);
        let shown = format!("{model:?} {model:#?}");
        assert_hidden(&shown);
        assert!(
            shown.contains("<redacted>") && shown.contains("x-secret"),
            "{shown}"
        );
        let client = Client::new(api, "m")
            .api_key(FAKE_KEY)
            .header("authorization", FAKE_KEY);
        assert_hidden(&format!("{client:?} {client:#?}"));
    }
}

#[tokio::test]
async fn no_fault_shows_the_key() {
    let chat = &wire::all()[0];
    let quoting = json!({"error": {"message": format!("Incorrect API key provided: {FAKE_KEY}."), "type": "invalid_request_error"}});
    let faults = vec![
        Answer::Json(401, Vec::new(), quoting.to_string()),
        Answer::Json(503, Vec::new(), quoting.to_string()),
        Answer::Json(200, Vec::new(), "not json".into()),
        Answer::Drop,
        Answer::Truncated(chat.first.to_string()[..30].to_owned()),
        Answer::Stall(Vec::new()),
    ];
    for fault in faults {
        let server = StandIn::start(vec![fault.clone()]).await;
        let client = client(chat.api, chat.model, &server)
            .read_timeout(Duration::from_millis(200))
            .retries(0);
        let error = run(&client, false).await.unwrap_err();
        assert_hidden_in(&error);
        if let Answer::Json(401, ..) = fault {
            assert_eq!(error.message, "Incorrect API key provided: <redacted>.");
        }
    }
    // Nothing listens: the connection is refused.
    let refused = Client::new(Api::Anthropic, "m")
        .base_url("http://127.0.0.1:9")
        .api_key(FAKE_KEY)
        .retries(0);
    let error = run(&refused, true).await.unwrap_err();
    assert_hidden_in(&error);
}

#[test]
fn api_key_env_names_the_variable_it_did_not_find() {
    let error = Client::new(Api::Gemini, "m")
        .api_key_env("TOOLNEXUS_TEST_SURELY_UNSET_KEY")
        .unwrap_err();
    assert_eq!(error.variable, "TOOLNEXUS_TEST_SURELY_UNSET_KEY");
    assert_eq!(
        error.to_string(),
        "the environment variable TOOLNEXUS_TEST_SURELY_UNSET_KEY is not set"
    );
    // A variable that is set (PATH always is) is taken as the key.
    assert!(Client::new(Api::Gemini, "m").api_key_env("PATH").is_ok());
}
