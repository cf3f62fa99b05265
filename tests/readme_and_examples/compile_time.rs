//! The README's compile-time figures against rig are the ones `toolnexus/benches/README.md`
//! records, and that table is what `scripts/compile-time-vs-rig.sh` measures: the tools
//! registered as each library's users register them. (The timing itself is run by hand; it
//! downloads rig.)

use std::path::Path;

fn read(path: &str) -> String {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    std::fs::read_to_string(root.join(path)).unwrap_or_else(|error| panic!("{path}: {error}"))
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `x` in `…x×…`: the number just before the first `×` after `marker`.
fn ratio_after(text: &str, marker: &str) -> String {
    let from = text.find(marker).unwrap_or_else(|| panic!("no {marker:?}")) + marker.len();
    let rest = &text[from..];
    let times = rest.find('×').expect("a ratio");
    let number = rest[..times]
        .rsplit(|c: char| !(c.is_ascii_digit() || c == '.'))
        .next()
        .unwrap();
    assert!(!number.is_empty(), "no number before × after {marker:?}");
    number.to_owned()
}

/// The bench table's row starting `| label |`: its cells.
fn row(table: &str, label: &str) -> Vec<String> {
    let start = format!("| {label} |");
    let line = table
        .lines()
        .find(|line| line.starts_with(&start))
        .unwrap_or_else(|| panic!("no row {label:?}"));
    line.trim_matches('|')
        .split('|')
        .map(|cell| cell.trim().trim_matches('*').to_owned())
        .collect()
}

/// `a / b s` ⇒ `b`, the median.
fn median(cell: &str) -> f64 {
    let median = cell.split('/').nth(1).expect("min / median");
    median.trim().trim_end_matches(" s").parse().unwrap()
}

#[test]
fn the_readme_ratios_are_the_bench_tables() {
    let readme = one_line(&read("README.md"));
    let benches = read("toolnexus/benches/README.md");
    for (label, marker) in [
        ("from clean, wall", "build in about"),
        (
            "one fn body edited, wall",
            "rig 0.44's `#[rig_tool]`'s time with `#[tool]`,",
        ),
    ] {
        let cells = row(&benches, label);
        let (toolnexus, rig, ratio) = (median(&cells[1]), median(&cells[2]), &cells[3]);
        assert_eq!(
            format!("{:.2}×", toolnexus / rig),
            *ratio,
            "{label}: the ratio of the medians"
        );
        assert_eq!(
            format!("{}×", ratio_after(&readme, marker)),
            *ratio,
            "README, {label}"
        );
    }
}

#[test]
fn the_race_registers_the_tools_as_users_do() {
    let script = read("scripts/compile-time-vs-rig.sh");
    for needed in [
        ") -> Result<i64, std::io::Error> {",
        "Toolkit::new().with_all(tools![",
        "set.add_tool(Add%d);",
        "ROUNDS=",
        "min and median",
    ] {
        assert!(
            script.contains(needed),
            "the script no longer has {needed:?}"
        );
    }
    assert_eq!(
        script.matches("Result<i64, std::io::Error>").count(),
        3,
        "both sides' fns return Result<i64, std::io::Error> (and the header says so)"
    );
}
