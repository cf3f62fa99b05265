//! Shared by every bench: short criterion settings for a small shared machine, and the
//! floor-ratio summary printed after each group (SPEC §9).
//!
//! Two ratios are printed for each pair. The criterion one divides the medians criterion
//! reported in this run (read back from its `estimates.json`); floor and subject are measured
//! one after the other, so on a shared machine a load change between them skews it. The
//! interleaved one alternates short batches of floor and subject and takes the median of the
//! per-round ratios, which cancels slow load drift; the budget verdict uses it.

use std::fs;
use std::hint::black_box;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant, SystemTime};

use criterion::Criterion;
use serde_json::Value;

/// Short settings: the machine has 2 cores and is shared with other builds.
pub fn criterion() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_millis(2500))
        .sample_size(40)
        .configure_from_args()
}

/// Where criterion writes its results, found the way criterion itself finds it.
fn output_dir() -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return PathBuf::from(home);
    }
    if let Some(target) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(target).join("criterion");
    }
    let from_metadata = std::env::var_os("CARGO").and_then(|cargo| {
        let output = Command::new(cargo)
            .args(["metadata", "--format-version", "1", "--no-deps"])
            .output()
            .ok()?;
        let metadata: Value = serde_json::from_slice(&output.stdout).ok()?;
        metadata["target_directory"].as_str().map(PathBuf::from)
    });
    from_metadata
        .unwrap_or_else(|| PathBuf::from("target"))
        .join("criterion")
}

/// The median (ns per iteration) criterion measured for `group/id` since `since`, if any.
fn median_ns(group: &str, id: &str, since: SystemTime) -> Option<f64> {
    let path = output_dir()
        .join(group)
        .join(id)
        .join("new")
        .join("estimates.json");
    let fresh = fs::metadata(&path).ok()?.modified().ok()? >= since;
    if !fresh {
        return None;
    }
    let estimates: Value = serde_json::from_slice(&fs::read(&path).ok()?).ok()?;
    estimates["median"]["point_estimate"].as_f64()
}

/// Collects floor/subject pairs and prints their ratios once the groups have run.
pub struct Summary {
    started: SystemTime,
    rows: Vec<Row>,
}

struct Row {
    group: &'static str,
    floor: &'static str,
    subject: &'static str,
    budget: Option<f64>,
    paired: Option<Paired>,
}

/// Medians of an interleaved floor/subject measurement.
struct Paired {
    floor_ns: f64,
    subject_ns: f64,
    ratio: f64,
}

/// Rounds of the interleaved measurement; each round times one batch of floor and subject.
const ROUNDS: usize = 60;
/// The target length of one batch.
const BATCH: Duration = Duration::from_millis(3);

/// `criterion --test` / `--list` (e.g. `cargo test --benches`): run nothing extra.
fn quick_mode() -> bool {
    std::env::args().any(|arg| arg == "--test" || arg == "--list")
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// Times `n` runs of `routine` on fresh inputs from `setup`; the setup and dropping the
/// outputs are outside the timed region.
fn time_batch<I, O>(
    n: usize,
    setup: &mut impl FnMut() -> I,
    routine: &mut impl FnMut(I) -> O,
) -> f64 {
    let inputs: Vec<I> = (0..n).map(|_| setup()).collect();
    let mut outputs = Vec::with_capacity(n);
    let start = Instant::now();
    for input in inputs {
        outputs.push(routine(black_box(input)));
    }
    let elapsed = start.elapsed();
    drop(black_box(outputs));
    elapsed.as_nanos() as f64 / n as f64
}

/// Alternates batches of `floor` and `subject` (the order flips every round).
fn interleave<I, A, B>(
    mut setup: impl FnMut() -> I,
    mut floor: impl FnMut(I) -> A,
    mut subject: impl FnMut(I) -> B,
) -> Paired {
    // Warm up both, then size a batch from the slower of the two.
    let once = time_batch(1, &mut setup, &mut floor).max(time_batch(1, &mut setup, &mut subject));
    let per_call = time_batch(8, &mut setup, &mut floor)
        .max(time_batch(8, &mut setup, &mut subject))
        .max(once / 8.0);
    let n = ((BATCH.as_nanos() as f64 / per_call.max(1.0)) as usize).clamp(1, 1_000_000);
    let (mut floors, mut subjects, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..ROUNDS {
        let (f, s) = if round % 2 == 0 {
            let f = time_batch(n, &mut setup, &mut floor);
            (f, time_batch(n, &mut setup, &mut subject))
        } else {
            let s = time_batch(n, &mut setup, &mut subject);
            (time_batch(n, &mut setup, &mut floor), s)
        };
        floors.push(f);
        subjects.push(s);
        ratios.push(s / f);
    }
    Paired {
        floor_ns: median(&mut floors),
        subject_ns: median(&mut subjects),
        ratio: median(&mut ratios),
    }
}

impl Summary {
    pub fn new() -> Self {
        Self {
            started: SystemTime::now(),
            rows: Vec::new(),
        }
    }

    /// Compares `group/subject` to `group/floor` (criterion ids of this run) and measures the
    /// same two routines interleaved, each given a fresh input from `setup`; `budget` is the
    /// largest allowed time ratio, checked against the interleaved ratio.
    #[allow(clippy::too_many_arguments)]
    pub fn compare_interleaved<I, A, B>(
        &mut self,
        group: &'static str,
        floor: &'static str,
        subject: &'static str,
        budget: Option<f64>,
        setup: impl FnMut() -> I,
        floor_routine: impl FnMut(I) -> A,
        subject_routine: impl FnMut(I) -> B,
    ) {
        let paired = (!quick_mode()).then(|| interleave(setup, floor_routine, subject_routine));
        self.rows.push(Row {
            group,
            floor,
            subject,
            budget,
            paired,
        });
    }

    /// Prints one line per pair: medians, ratios, the budget and whether it holds.
    pub fn print(&self) {
        println!();
        println!("== ratio to the hand-written floor (this run) ==");
        for row in &self.rows {
            println!("{}/{} vs {}:", row.group, row.subject, row.floor);
            let floor = median_ns(row.group, row.floor, self.started);
            let subject = median_ns(row.group, row.subject, self.started);
            let criterion_ratio = match (floor, subject) {
                (Some(floor), Some(subject)) => {
                    println!(
                        "  criterion medians:   floor {:>11}  subject {:>11}  ratio {:.2}x",
                        human(floor),
                        human(subject),
                        subject / floor
                    );
                    Some(subject / floor)
                }
                _ => {
                    println!("  criterion medians:   not measured in this run");
                    None
                }
            };
            if let Some(paired) = &row.paired {
                println!(
                    "  interleaved medians: floor {:>11}  subject {:>11}  ratio {:.2}x",
                    human(paired.floor_ns),
                    human(paired.subject_ns),
                    paired.ratio
                );
            }
            let ratio = row
                .paired
                .as_ref()
                .map(|paired| paired.ratio)
                .or(criterion_ratio);
            let verdict = match (row.budget, ratio) {
                (None, _) => "no budget (reported only)".to_owned(),
                (Some(budget), Some(ratio)) if ratio <= budget => {
                    format!("budget <= {budget:.2}x: OK")
                }
                (Some(budget), Some(_)) => format!("budget <= {budget:.2}x: MISSED"),
                (Some(budget), None) => format!("budget <= {budget:.2}x: not measured"),
            };
            println!("  {verdict}");
        }
    }
}

fn human(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{:.3} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.3} µs", ns / 1e3)
    } else {
        format!("{ns:.1} ns")
    }
}
