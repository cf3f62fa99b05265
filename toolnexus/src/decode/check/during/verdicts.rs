//! How often judged argument text ended each way, counted in debug builds so that a test can
//! say how often text takes the reference path after the judge (`tests/schema_truth.rs`).

use std::sync::atomic::{AtomicUsize, Ordering};

static VERDICTS: [AtomicUsize; 3] = [const { AtomicUsize::new(0) }; 3];

/// Counts one verdict: 0 vouched, 1 unsure, 2 refused (`Verdict`).
pub(super) fn count(verdict: usize) {
    VERDICTS[verdict].fetch_add(1, Ordering::Relaxed);
}

/// The judged texts so far in this process: `[vouched, unsure, refused]`. Unsure text decoded
/// but held something the judge does not follow, and takes the tree check over the text read
/// again; refused text failed the judged decoding (a value the schema or serde refuses, or a
/// required key missing), and is decoded the reference way, from a `Value`.
pub fn judged_text_verdicts() -> [usize; 3] {
    std::array::from_fn(|verdict| VERDICTS[verdict].load(Ordering::Relaxed))
}
