//! The request bodies these tests render, kept for `scripts/provider-sdk-checks.py` to
//! validate with the providers' own SDK types: with `TOOLNEXUS_WIRE_CORPUS=DIR`, a test
//! writes `DIR/<api>.<name>.json` (`{"requests": […]}`) beside the wire tests' corpus. The
//! generated cases are then drawn from a fixed seed, so the corpus is the same on every run.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;

use proptest::test_runner::{Config, TestRng, TestRunner};
use serde_json::{Value, json};
use toolnexus::Api;

fn directory() -> Option<PathBuf> {
    std::env::var_os("TOOLNEXUS_WIRE_CORPUS").map(PathBuf::from)
}

/// A runner of `cases` generated cases: seeded from the entropy, or from a fixed seed when
/// the corpus is written.
pub fn runner(cases: u32) -> TestRunner {
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    if directory().is_some() {
        let rng = TestRng::deterministic_rng(config.rng_algorithm);
        TestRunner::new_with_rng(config, rng)
    } else {
        TestRunner::new(config)
    }
}

/// The name the script knows an API's corpus by.
fn file_stem(api: Api) -> &'static str {
    match api {
        Api::OpenAiChat => "openai_chat",
        Api::OpenAiResponses => "openai_responses",
        Api::Anthropic => "anthropic",
        Api::Gemini => "gemini",
    }
}

/// Request bodies by API, gathered while the cases run.
#[derive(Default)]
pub struct Corpus(Mutex<BTreeMap<&'static str, Vec<Value>>>);

impl Corpus {
    pub fn add(&self, api: Api, body: Value) {
        let mut bodies = self.0.lock().unwrap();
        bodies.entry(file_stem(api)).or_default().push(body);
    }

    /// How many bodies were gathered for `api`.
    pub fn count(&self, api: Api) -> usize {
        self.0
            .lock()
            .unwrap()
            .get(file_stem(api))
            .map_or(0, Vec::len)
    }

    /// Writes `DIR/<api>.<name>.json` for each API, when a corpus directory is set.
    pub fn write(self, name: &str) {
        let Some(dir) = directory() else {
            return;
        };
        std::fs::create_dir_all(&dir).unwrap();
        for (stem, requests) in self.0.into_inner().unwrap() {
            let path = dir.join(format!("{stem}.{name}.json"));
            let corpus = json!({ "requests": requests });
            std::fs::write(path, serde_json::to_string(&corpus).unwrap()).unwrap();
        }
    }
}
