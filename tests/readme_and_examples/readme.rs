//! What README.md says that can be checked against the repository itself: the paths it names
//! exist, its lists (fuzz targets, examples, the toolkit tests that use `#[tool]`) are whole,
//! the minimum Rust versions are the manifests', and the limits table is `HttpOptions`'
//! defaults. The behaviour behind each sentence is tested where that behaviour lives.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The repository's root: this package is its `tests/`.
fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|error| panic!("{path}: {error}"))
}

/// The README with every run of whitespace (line breaks included) made one space, so a
/// sentence reads the same however it is wrapped.
fn readme() -> String {
    read("README.md")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The text between `start` and the next `end` after it.
fn between<'a>(text: &'a str, start: &str, end: &str) -> &'a str {
    let from = text
        .find(start)
        .unwrap_or_else(|| panic!("the README no longer says {start:?}"))
        + start.len();
    let to = text[from..].find(end).expect("the end marker") + from;
    &text[from..to]
}

/// Every `` `code` `` span of `text`.
fn code_spans(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

/// The names of the `.rs` files in `dir` (not below it), without the extension.
fn rust_files(dir: &str) -> BTreeSet<String> {
    std::fs::read_dir(root().join(dir))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "rs"))
        .map(|path| path.file_stem().unwrap().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn every_path_the_readmes_name_exists() {
    for file in ["README.md", "toolnexus/benches/README.md"] {
        let text = read(file);
        let links = text
            .split("](")
            .skip(1)
            .filter_map(|rest| rest.split(')').next());
        for path in code_spans(&text).into_iter().chain(links) {
            let repository_path = [
                "tests/",
                "toolnexus/",
                "scripts/",
                "fuzz/",
                "examples/",
                "docs/",
                ".ci/",
            ]
            .iter()
            .any(|prefix| path.starts_with(prefix));
            if !repository_path || path.contains(' ') {
                continue;
            }
            let at = root().join(path);
            // `examples/mcp_server` names the example, `examples/mcp_server.rs` its source.
            let exists = at.exists() || PathBuf::from(format!("{}.rs", at.display())).exists();
            assert!(exists, "{file} names `{path}`, which does not exist");
        }
    }
}

#[test]
fn the_fuzz_list_names_every_fuzz_target() {
    let readme = readme();
    let list = between(
        &readme,
        "- `fuzz/` — `cargo fuzz` targets for",
        "(not in CI",
    );
    let targets = rust_files("fuzz/fuzz_targets");
    assert!(!targets.is_empty());
    let named: BTreeSet<String> = code_spans(list)
        .into_iter()
        .filter(|span| span.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .map(str::to_owned)
        .collect();
    assert_eq!(named, targets, "README: {list}");
}

/// The examples: a file `examples/NAME.rs` or a folder `examples/NAME/` with a `main.rs`,
/// but `conformance_client`, the conformance suite's client driver, which
/// `scripts/mcp-conformance.sh` runs on the suite's scenarios (no one runs it by hand).
fn examples() -> BTreeSet<String> {
    let mut examples = rust_files("examples");
    for entry in std::fs::read_dir(root().join("examples")).unwrap() {
        let path = entry.unwrap().path();
        if path.join("main.rs").is_file() {
            examples.insert(path.file_name().unwrap().to_string_lossy().into_owned());
        }
    }
    examples.remove("conformance_client");
    examples
}

#[test]
fn the_examples_table_names_every_example_and_each_runs_in_the_suite() {
    let readme = readme();
    let table = between(&readme, "| example | shows |", "## Serving over MCP");
    let named: BTreeSet<String> = code_spans(table)
        .into_iter()
        .filter_map(|span| span.strip_prefix("cargo run --example "))
        .map(|rest| rest.split(' ').next().unwrap().to_owned())
        .collect();
    assert_eq!(named, examples());
    let suite = read("tests/readme_and_examples/examples.rs");
    for example in named {
        assert!(
            suite.contains(&format!("run(\"{example}\")"))
                || suite.contains(&format!("example(\"{example}\")")),
            "tests/readme_and_examples/examples.rs does not run {example}"
        );
    }
}

/// Development: "mostly with tools built by hand with `define_tool`", and the files that
/// use `#[tool]` are named: exactly those.
#[test]
fn the_toolkit_tests_that_use_the_macro_are_the_ones_named() {
    let readme = readme();
    let sentence = between(
        &readme,
        "`toolkit/toolkit_of_macro_tools.rs` there runs",
        "Each package's tests",
    );
    let mut named: BTreeSet<String> = code_spans(sentence)
        .into_iter()
        .filter(|span| span.ends_with(".rs"))
        .map(str::to_owned)
        .collect();
    named.insert("toolkit/toolkit_of_macro_tools.rs".to_owned());
    let mut using = BTreeSet::new();
    let mut dirs = vec![String::new()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(root().join("toolnexus/tests").join(&dir)).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy();
            let at = if dir.is_empty() {
                name.into_owned()
            } else {
                format!("{dir}/{name}")
            };
            if path.is_dir() {
                dirs.push(at);
                continue;
            }
            if path.extension().is_none_or(|ext| ext != "rs") {
                continue;
            }
            let attribute = |line: &str| {
                let line = line.trim_start();
                line.starts_with("#[tool]") || line.starts_with("#[tool(")
            };
            if read(&format!("toolnexus/tests/{at}"))
                .lines()
                .any(attribute)
            {
                using.insert(at);
            }
        }
    }
    assert_eq!(named, using, "README: {sentence}");
}

/// `package.rust_version` of every package `cargo metadata` resolves for `toolnexus` with
/// `features` on this platform, following normal and build dependencies only (what a user's
/// build compiles here).
fn rust_versions(features: &[&str]) -> Vec<(String, (u32, u32))> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    // Offline, cargo can describe only the packages a build has fetched: this platform's.
    let output = std::process::Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--offline", "--locked"])
        .args(["--filter-platform", &host()])
        .args(features)
        .current_dir(root())
        .output()
        .expect("cargo metadata runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let packages = metadata["packages"].as_array().unwrap();
    let nodes = metadata["resolve"]["nodes"].as_array().unwrap();
    let id_of = |name: &str| {
        packages
            .iter()
            .find(|package| package["name"] == name && package["source"].is_null())
            .map(|package| package["id"].clone())
            .unwrap()
    };
    let mut seen = BTreeSet::new();
    let mut todo = vec![id_of("toolnexus")];
    while let Some(id) = todo.pop() {
        if !seen.insert(id.to_string()) {
            continue;
        }
        let node = nodes.iter().find(|node| node["id"] == id).unwrap();
        for dep in node["deps"].as_array().unwrap() {
            let compiled = dep["dep_kinds"]
                .as_array()
                .unwrap()
                .iter()
                .any(|kind| kind["kind"] != "dev");
            if compiled {
                todo.push(dep["pkg"].clone());
            }
        }
    }
    packages
        .iter()
        .filter(|package| seen.contains(&package["id"].to_string()))
        .filter_map(|package| {
            let version = package["rust_version"].as_str()?;
            Some((package["name"].as_str()?.to_owned(), minor(version)))
        })
        .collect()
}

/// The target triple `rustc` builds for by default, from `rustc -vV`.
fn host() -> String {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    let output = std::process::Command::new(rustc)
        .arg("-vV")
        .output()
        .expect("rustc runs");
    let text = String::from_utf8(output.stdout).unwrap();
    text.lines()
        .find_map(|line| line.strip_prefix("host: "))
        .expect("rustc -vV names its host")
        .to_owned()
}

fn minor(version: &str) -> (u32, u32) {
    let mut parts = version.split('.').map(|part| part.parse::<u32>().unwrap());
    (parts.next().unwrap(), parts.next().unwrap_or(0))
}

/// "The MCP features need Rust 1.88+ (rmcp's), the rest of the crate 1.85+". No other toolchain can be installed
/// where this runs, so what is checked is what can be: the workspace declares the README's
/// `rust-version` (and CI's `clippy -D warnings` then refuses, through `incompatible_msrv`,
/// any standard library item stabilized after it), every dependency a build without the
/// MCP features compiles declares at most that version, and with them the newest declared is
/// rmcp's, the README's other number. Language features newer than `rust-version` (none is
/// used) are not caught by any of this; only a build on that toolchain would.
#[test]
fn the_minimum_rust_versions_are_the_manifests() {
    let readme = readme();
    let versions = between(&readme, "The MCP features need Rust ", "+.");
    let (mcp, rest) = versions
        .split_once("+ (rmcp's), the rest of the crate ")
        .expect("\"1.88+ (rmcp's), the rest of the crate 1.85+\"");
    let (mcp, rest) = (minor(mcp), minor(rest));

    let manifest = read("Cargo.toml");
    let declared = between(&manifest, "[workspace.package]", "[workspace.dependencies]");
    let declared = between(declared, "rust-version = \"", "\"");
    assert_eq!(minor(declared), rest, "the workspace's rust-version");
    for member in ["toolnexus/Cargo.toml", "toolnexus-macros/Cargo.toml"] {
        assert!(
            read(member).contains("rust-version.workspace = true"),
            "{member}"
        );
    }

    let plain = rust_versions(&[]);
    assert!(plain.iter().any(|(name, _)| name == "serde"), "{plain:?}");
    for (name, version) in &plain {
        assert!(*version <= rest, "{name} needs Rust {version:?}");
    }
    let with_mcp = rust_versions(&["--features", "toolnexus/mcp-http"]);
    let newest = with_mcp.iter().map(|(_, version)| *version).max().unwrap();
    assert_eq!(newest, mcp, "{with_mcp:?}");
    assert!(with_mcp.contains(&("rmcp".to_owned(), mcp)), "{with_mcp:?}");
}

/// The integration-test binaries of `toolnexus/tests/` (a `.rs` file there, or a folder with a
/// `main.rs`, as cargo finds them) are the ones the README lists, and with this package's own
/// `[[test]]`s they are as many as it says.
#[test]
fn the_test_binaries_are_the_ones_named_and_counted() {
    let dir = root().join("toolnexus/tests");
    let mut binaries: BTreeSet<String> = rust_files("toolnexus/tests")
        .into_iter()
        .map(|name| format!("{name}.rs"))
        .collect();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.join("main.rs").is_file() {
            binaries.insert(format!("{}/", path.file_name().unwrap().to_string_lossy()));
        }
    }
    let readme = readme();
    let sentence = between(&readme, "one test binary per area:", "test binaries in all");
    // The binaries are the spans outside the parentheses that say what each holds.
    let mut depth = 0;
    let listed: String = sentence
        .chars()
        .filter(|&c| {
            depth += i32::from(c == '(') - i32::from(c == ')');
            depth == 0 && c != ')'
        })
        .collect();
    let named: BTreeSet<String> = code_spans(&listed)
        .into_iter()
        .filter(|span| span.ends_with('/') || span.ends_with(".rs"))
        .map(str::to_owned)
        .collect();
    assert_eq!(binaries, named, "README: {sentence}");
    let own = read("tests/Cargo.toml").matches("[[test]]").count();
    let count: usize = sentence
        .rsplit(' ')
        .find(|word| !word.is_empty())
        .and_then(|word| word.parse().ok())
        .unwrap_or_else(|| panic!("no count before \"test binaries in all\": {sentence}"));
    assert_eq!(binaries.len() + own, count, "README: {sentence}");
}

/// The names of a manifest's `[features]`.
fn features(manifest: &str) -> BTreeSet<String> {
    let table = between(manifest, "[features]", "\n[");
    table
        .lines()
        .filter_map(|line| {
            line.split_once(" = ")
                .map(|(name, _)| name.trim().to_owned())
        })
        .filter(|name| !name.starts_with('#'))
        .collect()
}

/// The "Features" table lists every feature of `toolnexus` and no other, and the sentence
/// after it every feature of the examples' package.
#[test]
fn the_features_table_is_whole() {
    let raw = read("README.md");
    let table = between(&raw, "| feature | brings | in your tokio |", "\n\n");
    let listed: BTreeSet<String> = table
        .lines()
        .filter_map(|row| row.strip_prefix("| `"))
        .map(|row| row.split('`').next().unwrap().to_owned())
        .collect();
    let readme = readme();
    assert_eq!(listed, features(&read("toolnexus/Cargo.toml")));

    let sentence = between(
        &readme,
        "The examples' package",
        "is not a feature of `toolnexus`",
    );
    let named: BTreeSet<String> = code_spans(sentence)
        .into_iter()
        .filter(|span| !span.contains(['/', ' ', '.']))
        .map(str::to_owned)
        .collect();
    assert_eq!(named, features(&read("Cargo.toml")));
}

/// A size as the README writes it: `16 MiB + 64 KiB`.
#[cfg(feature = "mcp-http")]
fn bytes(text: &str) -> usize {
    text.split(" + ")
        .map(|term| match term.split_once(' ') {
            Some((count, "MiB")) => count.parse::<usize>().unwrap() << 20,
            Some((count, "KiB")) => count.parse::<usize>().unwrap() << 10,
            _ => panic!("not a size: {term}"),
        })
        .sum()
}

/// The "Running it on a network" table's defaults are `HttpOptions::new()`'s, and the stdio
/// line limit is the one the README gives.
#[cfg(feature = "mcp-http")]
#[test]
fn the_limits_table_is_the_defaults() {
    let readme = readme();
    let table = between(&readme, "| limit | default | past it |", "```");
    let defaults = format!("{:?}", toolnexus::mcp::HttpOptions::new());
    let mut checked = 0;
    for row in table.split("| `").skip(1) {
        let mut cells = row.split(" | ");
        let setting = cells.next().unwrap().trim_end_matches('`');
        let default = cells.next().unwrap();
        let default = default.split(" (").next().unwrap();
        let value = if let Some(minutes) = default.strip_suffix(" min") {
            format!("{}s", minutes.parse::<u64>().unwrap() * 60)
        } else if let Some(seconds) = default.strip_suffix(" s") {
            format!("{seconds}s")
        } else if default.contains("iB") {
            bytes(default).to_string()
        } else {
            default.to_owned()
        };
        let field = format!("{setting}: {value},");
        assert!(
            defaults.contains(&field) || defaults.contains(&format!("{setting}: {value} }}")),
            "README says {field} but the defaults are {defaults}"
        );
        checked += 1;
    }
    assert_eq!(checked, 6, "{table}");

    let line = between(&readme, "also for a line over `MAX_LINE_BYTES`, ", ",");
    assert_eq!(bytes(line), toolnexus::mcp::MAX_LINE_BYTES);
}

/// "Signing in to remote servers": the `auth/*` scenarios it says do not pass are exactly the
/// expected failures `scripts/mcp-conformance-auth.sh` gives the suite (none, today), and the
/// count it says pass is the suite's 33 less them.
#[test]
fn the_sign_in_section_names_the_expected_auth_failures() {
    let readme = readme();
    let section = between(
        &readme,
        "## Signing in to remote servers",
        "## How it compares",
    );
    let named: BTreeSet<&str> = code_spans(section)
        .into_iter()
        .filter(|span| span.starts_with("auth/") && *span != "auth/*")
        .collect();
    let yaml = read("scripts/mcp-conformance-auth-expected-failures.yaml");
    let expected: BTreeSet<&str> = yaml
        .lines()
        .filter_map(|line| line.trim().strip_prefix("- "))
        .collect();
    assert_eq!(named, expected);
    let claim = match 33 - expected.len() {
        33 => "all 33 `auth/*` client scenarios".to_owned(),
        passing => format!("{passing} of the 33 `auth/*` client scenarios"),
    };
    assert!(section.contains(&claim), "{section}");
}

/// The "Features" row of `client`: hyper on rustls with ring, and no reqwest (whose TLS
/// features would be unified into every reqwest of a user's build) nor aws-lc-rs. That it sets
/// no process-wide provider is `toolnexus/tests/client_http/tls.rs`'s to show.
#[test]
fn the_client_feature_is_hyper_on_rustls_with_ring_without_reqwest() {
    let raw = read("README.md");
    let row = between(&raw, "| `client` |", "\n");
    assert!(
        row.contains("hyper on rustls with ring: no reqwest, no aws-lc-rs"),
        "{row}"
    );
    let manifest = read("toolnexus/Cargo.toml");
    let client = between(&manifest, "\nclient = [", "]");
    for needed in ["dep:hyper-rustls", "dep:rustls", "hyper-util/client-legacy"] {
        assert!(client.contains(needed), "{needed}: {client}");
    }
    assert!(!client.contains("reqwest"), "{client}");
    for dependency in ["\nhyper-rustls = ", "\nrustls = "] {
        let line = between(&manifest, dependency, "\n");
        assert!(
            line.contains("default-features = false") && line.contains("\"ring\""),
            "{dependency}: {line}"
        );
    }
}
