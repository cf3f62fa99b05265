//! How long a run waits before asking the model again after a retryable failure (SPEC §16):
//! exponential backoff with jitter from the client's base (500 ms by default), or the
//! provider's `Retry-After`, never more than a minute.

use std::hash::BuildHasher;
use std::time::Duration;

use crate::client::model::ModelError;

/// The longest wait before a retry, whatever the provider asks.
pub(crate) const MAX_WAIT: Duration = Duration::from_secs(60);

/// The wait before retry number `attempt` (0 for the first) after `error`: its
/// `retry_after` when the provider gave one, else `base` doubled per attempt, scaled by a
/// random factor between ½ and 1 (so clients that failed together do not retry together).
pub(crate) fn wait_before_retry(base: Duration, attempt: u32, error: &ModelError) -> Duration {
    if let Some(asked) = error.retry_after {
        return asked.min(MAX_WAIT);
    }
    let doubled = base.saturating_mul(1u32.checked_shl(attempt).unwrap_or(u32::MAX));
    doubled.min(MAX_WAIT).mul_f64(0.5 + jitter() / 2.0)
}

/// A random number in [0, 1), from the standard library's per-process random hasher keys.
fn jitter() -> f64 {
    let bits = std::collections::hash_map::RandomState::new().hash_one(std::time::Instant::now());
    (bits >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wait_doubles_with_jitter_and_is_capped() {
        let error = ModelError::http(503, "busy");
        let base = Duration::from_millis(500);
        for attempt in 0..4 {
            let full = base * 2u32.pow(attempt);
            let wait = wait_before_retry(base, attempt, &error);
            assert!(wait >= full / 2 && wait <= full, "{attempt}: {wait:?}");
        }
        assert!(wait_before_retry(base, 40, &error) <= MAX_WAIT);
    }

    #[test]
    fn retry_after_is_honoured_up_to_a_minute() {
        let error = ModelError::http(429, "slow down");
        let base = Duration::from_millis(500);
        let asked = error.clone().with_retry_after(Duration::from_secs(7));
        assert_eq!(wait_before_retry(base, 0, &asked), Duration::from_secs(7));
        let greedy = error.with_retry_after(Duration::from_secs(3600));
        assert_eq!(wait_before_retry(base, 0, &greedy), MAX_WAIT);
    }
}
