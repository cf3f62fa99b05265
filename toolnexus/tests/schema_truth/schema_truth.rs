//! Schema truth (SPEC §11), verified by generation: for every tool of a zoo of parameter
//! shapes and every profile `check` reports clean, instances generated from the schema the
//! provider is sent are accepted by both entry points, which agree byte for byte; mutations
//! of them that either entry point accepts are valid under the plain schema once the nulls
//! that mean "absent" are removed; and a step just past any limit of the plain schema (a
//! bound, a length, a count, uniqueness) is refused with a message naming its path. Named regression cases, one per schema bug found so far, are in `regressions`.
//!
//! A failure prints the seed;
//! `SCHEMA_TRUTH_SEED=<seed> cargo test -p toolnexus --test schema_truth schema_truth::`
//! replays it.

pub mod generate;
pub mod mutate;
mod regressions;
mod zoo;

use std::sync::Arc;
use std::time::Instant;

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use serde_json::{Map, Value, json};
use toolnexus::{IssueKind, Profile, SchemaIssue, Tool, ToolContext, ToolResult, Toolkit};

use generate::Dialect;

/// Generated instances per clean (tool, profile) pair; each also yields a few mutants.
const CASES: u32 = 128;
const MUTANTS: usize = 3;

struct Harness {
    runtime: tokio::runtime::Runtime,
    ctx: ToolContext,
}

impl Harness {
    fn new() -> Self {
        Self {
            runtime: tokio::runtime::Builder::new_current_thread()
                .build()
                .expect("a current-thread runtime"),
            ctx: ToolContext::default(),
        }
    }

    /// Both entry points; they must agree on every input, accepted or not.
    fn run(&self, tool: &dyn Tool, args: &Value) -> Result<ToolResult, TestCaseError> {
        let direct = self.runtime.block_on(tool.execute(args.clone(), &self.ctx));
        let text = args.to_string();
        let raw = self.runtime.block_on(tool.execute_json(&text, &self.ctx));
        prop_assert_eq!(
            &direct,
            &raw,
            "{}: execute and execute_json disagree on {}",
            tool.name(),
            text
        );
        Ok(direct)
    }
}

/// The schema `tool` is sent under `profile`, read in the dialect that profile speaks.
fn sent_schema(tool: &Arc<dyn Tool>, profile: Profile) -> (Value, Dialect) {
    let toolkit = Toolkit::new().with_all([Arc::clone(tool)]);
    let plain = Value::Object(tool.input_schema().clone());
    match profile {
        Profile::Plain => {
            assert_eq!(toolkit.to_openai()[0]["function"]["parameters"], plain);
            assert_eq!(toolkit.to_anthropic()[0]["input_schema"], plain);
            assert_eq!(toolkit.to_mcp()[0]["inputSchema"], plain);
            (plain, Dialect::JsonSchema)
        }
        Profile::OpenAiStrict => {
            let function = toolkit.to_openai_strict()[0]["function"].clone();
            // A tool strict mode cannot say is sent non-strict, with the schema that can; a
            // limit said in its description alone keeps it strict.
            let exact = says_all(tool, profile);
            assert_eq!(function["strict"], exact, "{}", tool.name());
            if !exact {
                assert_eq!(function["parameters"], plain, "{}", tool.name());
            }
            (function["parameters"].clone(), Dialect::JsonSchema)
        }
        Profile::Gemini => {
            let declaration = toolkit.to_gemini()[0]["functionDeclarations"][0].clone();
            let parameters = declaration
                .get("parameters")
                .cloned()
                .unwrap_or_else(|| json!({"type": "object", "properties": {}}));
            (parameters, Dialect::Gemini)
        }
        Profile::GeminiJsonSchema => {
            let declaration = toolkit.to_gemini_json_schema()[0]["functionDeclarations"][0].clone();
            assert!(declaration.get("parameters").is_none(), "{}", tool.name());
            let parameters = declaration
                .get("parametersJsonSchema")
                .cloned()
                .unwrap_or_else(|| json!({"type": "object", "properties": {}}));
            (parameters, Dialect::JsonSchema)
        }
        Profile::AnthropicStrict => {
            let entry = toolkit.to_anthropic_strict()[0].clone();
            // As under OpenAI strict mode: what it cannot say sends the plain schema.
            let exact = says_all(tool, profile);
            assert_eq!(entry["strict"], exact, "{}", tool.name());
            if !exact {
                assert_eq!(entry["input_schema"], plain, "{}", tool.name());
            }
            (entry["input_schema"].clone(), Dialect::JsonSchema)
        }
        other => panic!("a profile this test does not know: {other:?}"),
    }
}

/// What [`Toolkit::check`] reports for `tool` alone.
fn check(tool: &Arc<dyn Tool>, profile: Profile) -> Vec<SchemaIssue> {
    Toolkit::new().with_all([Arc::clone(tool)]).check(profile)
}

/// Whether the schema `profile` sends says all the tool takes, in its keywords or, for limits
/// the tool enforces, in a description.
fn says_all(tool: &Arc<dyn Tool>, profile: Profile) -> bool {
    check(tool, profile)
        .iter()
        .all(|issue| issue.kind == IssueKind::EnforcedByTool)
}

/// Gemini's OpenAPI subset as JSON Schema, so an instance can be checked against what Gemini
/// was sent: `nullable` becomes a `null` branch, and objects hold only the keys they declare
/// (the reading `gemini_schema` documents).
fn gemini_as_json_schema(schema: &Value) -> Value {
    let Value::Object(map) = schema else {
        return schema.clone();
    };
    let mut out = Map::new();
    for (key, value) in map {
        let lowered = match key.as_str() {
            "properties" => Value::Object(
                value
                    .as_object()
                    .expect("properties")
                    .iter()
                    .map(|(name, property)| (name.clone(), gemini_as_json_schema(property)))
                    .collect(),
            ),
            "items" => gemini_as_json_schema(value),
            "anyOf" => Value::Array(
                value
                    .as_array()
                    .expect("anyOf")
                    .iter()
                    .map(gemini_as_json_schema)
                    .collect(),
            ),
            "nullable" => continue,
            _ => value.clone(),
        };
        out.insert(key.clone(), lowered);
    }
    if out.get("type") == Some(&json!("object")) {
        out.insert("additionalProperties".to_owned(), Value::Bool(false));
    }
    if map.get("nullable") == Some(&Value::Bool(true)) {
        return json!({"anyOf": [out, {"type": "null"}]});
    }
    Value::Object(out)
}

/// The arguments minus the nulls that mean "absent" (SPEC §5), which the plain schema says by
/// leaving the key out: top-level nulls of parameters that are not required, and `null` for
/// the whole arguments object, which means `{}`.
fn without_absent_nulls(args: &Value, plain: &Value) -> Value {
    if args.is_null() {
        return json!({});
    }
    let mut args = args.clone();
    let required = plain["required"].as_array().cloned().unwrap_or_default();
    if let Value::Object(map) = &mut args {
        map.retain(|key, value| !value.is_null() || required.contains(&json!(key)));
    }
    integral_floats_as_integers(&mut args);
    args
}

/// `3.0` written as `3`, which JSON Schema counts as the same integer. jsonschema 0.33 gets
/// that right for `"type": "integer"` but refuses `0.0` under `["integer", "null"]`, so the
/// oracle is given the integer spelling.
fn integral_floats_as_integers(value: &mut Value) {
    match value {
        Value::Number(number) => {
            if let Some(float) = number
                .as_f64()
                .filter(|f| number.is_f64() && f.fract() == 0.0)
            {
                if float.abs() < 9_007_199_254_740_992.0 {
                    *value = json!(float as i64);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(integral_floats_as_integers),
        Value::Object(map) => map.values_mut().for_each(integral_floats_as_integers),
        _ => {}
    }
}

/// The seed of this run: `SCHEMA_TRUTH_SEED`, else the clock.
fn seed() -> u64 {
    std::env::var("SCHEMA_TRUTH_SEED")
        .ok()
        .and_then(|seed| seed.parse().ok())
        .unwrap_or_else(|| {
            let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
            now.map_or(1, |elapsed| elapsed.as_nanos() as u64)
        })
}

/// A runner for `cases` cases on `seed`. XorShift rather than proptest's default ChaCha: in an
/// unoptimized test build it is what keeps thousands of cases within seconds.
fn runner(seed: u64, cases: u32) -> TestRunner {
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    bytes[8..].copy_from_slice(&(!seed).to_le_bytes());
    TestRunner::new_with_rng(
        Config {
            cases,
            failure_persistence: None,
            ..Config::default()
        },
        TestRng::from_seed(RngAlgorithm::XorShift, &bytes),
    )
}

/// Runs `cases` instances generated from `sent` (in `dialect`) through both entry points of
/// `tool`, which must accept them, and `mutants` mutations of each, which, where accepted,
/// must be valid under the plain schema. Returns how many instances ran.
///
/// With `described` (the profile says some limits in descriptions only, which the generator
/// does not read), an instance that breaks one is not one the provider was told it may send:
/// it still goes through both entry points, which must agree, but whether it is refused is
/// the decoder's limit enforcement to answer (SPEC §11, "Consistent").
fn generate_and_run(
    harness: &Harness,
    tool: &dyn Tool,
    (sent, dialect): (&Value, Dialect),
    cases: u32,
    mutants: usize,
    described: bool,
) -> usize {
    let plain = Value::Object(tool.input_schema().clone());
    let plain_validator = jsonschema::draft202012::new(&plain).expect("a valid plain schema");
    let as_json_schema = match dialect {
        Dialect::JsonSchema => sent.clone(),
        Dialect::Gemini => gemini_as_json_schema(sent),
    };
    let sent_validator =
        jsonschema::draft202012::new(&as_json_schema).expect("a valid sent schema");
    let strategy = (
        generate::instances(sent, dialect),
        prop::collection::vec(prop::collection::vec(mutate::mutation(), 1..3), mutants),
    );
    let seed = seed();
    let ran = std::cell::Cell::new(0);
    let outcome = runner(seed, cases).run(&strategy, |(args, mutants)| {
        ran.set(ran.get() + 1);
        // The generator's own check: the instance is one the provider may send.
        prop_assert!(
            sent_validator.is_valid(&args),
            "generated {args}, invalid under {sent}"
        );
        let result = harness.run(tool, &args)?;
        let past_a_described_limit =
            described && !plain_validator.is_valid(&without_absent_nulls(&args, &plain));
        if past_a_described_limit {
            // A limit said only in words: the model may break it, and the tool refuses it.
            prop_assert!(
                result.is_error,
                "accepts {args}, past a limit said in words"
            );
            // Its mutants would break that limit too.
            return Ok(());
        }
        prop_assert!(!result.is_error, "refuses {args}: {}", result.output);
        // A step past any limit is refused, naming where: the value, or (inside a flattened
        // value, where serde cannot say) the value it is in, or no place, but never another.
        for (path, past) in mutate::past_limits(&plain, &args) {
            prop_assert!(
                !plain_validator.is_valid(&past),
                "{past} is within the limits"
            );
            let result = harness.run(tool, &past)?;
            let named = (1..=path.len())
                .filter(|end| path.len() == *end || matches!(path.as_bytes()[*end], b'.' | b'['))
                .any(|end| {
                    result
                        .output
                        .contains(&format!("field `{}`: ", &path[..end]))
                })
                || !result.output.contains("field `");
            prop_assert!(
                result.is_error && named,
                "past a limit at `{path}`, {past} gives {}",
                result.output
            );
        }
        for mutations in mutants {
            let mut mutant = args.clone();
            for mutation in &mutations {
                mutate::apply(&mut mutant, mutation);
            }
            let result = harness.run(tool, &mutant)?;
            if !result.is_error {
                let present = without_absent_nulls(&mutant, &plain);
                let errors: Vec<String> = plain_validator
                    .iter_errors(&present)
                    .map(|error| error.to_string())
                    .collect();
                prop_assert!(
                    errors.is_empty(),
                    "accepts {mutant}, which its plain schema refuses: {}",
                    errors.join("; ")
                );
            }
        }
        Ok(())
    });
    if let Err(failure) = outcome {
        panic!(
            "{} under {sent}: {failure}\n(replay with SCHEMA_TRUTH_SEED={seed})",
            tool.name()
        );
    }
    ran.get()
}

#[test]
fn what_a_provider_is_told_the_tool_accepts() {
    let harness = Harness::new();
    let started = Instant::now();
    let mut generated = 0;
    let mut pairs = Vec::new();
    for tool in zoo::all() {
        for profile in Profile::ALL {
            if !says_all(&tool, profile) {
                // Still sent as `check` describes: strict mode falls back to the plain schema.
                sent_schema(&tool, profile);
                continue;
            }
            pairs.push(format!("{}/{profile:?}", tool.name()));
            let described = !check(&tool, profile).is_empty();
            let (sent, dialect) = sent_schema(&tool, profile);
            generated += generate_and_run(
                &harness,
                tool.as_ref(),
                (&sent, dialect),
                CASES,
                MUTANTS,
                described,
            );
        }
    }
    // Every tool is clean under the plain profile, and most under the others.
    assert_eq!(pairs.len(), 86, "{pairs:?}");
    assert_eq!(generated, pairs.len() * CASES as usize);
    println!(
        "{generated} instances and {} mutants over {} (tool, profile) pairs in {:.2?}",
        generated * MUTANTS,
        pairs.len(),
        started.elapsed()
    );
    // How often `execute_json` read text the judge could not vouch for, and so decoded it
    // again from a `Value` (counted in debug builds, by every test of this process: run this
    // one alone, `cargo test --test schema_truth what_a_provider -- --nocapture`).
    #[cfg(debug_assertions)]
    {
        let [vouched, unsure, refused] = toolnexus::__private::judged_text_verdicts();
        println!("judged text: {vouched} vouched for, {unsure} unsure, {refused} refused");
    }
}
