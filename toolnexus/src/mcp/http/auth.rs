//! The bearer token check.

use hyper::header::HeaderValue;

/// Whether `header` is `Bearer <token>` (scheme case-insensitive), compared in constant time
/// so the answer's timing does not reveal how much of a guess was right.
pub(super) fn bearer_matches(header: Option<&HeaderValue>, token: &[u8]) -> bool {
    let Some((scheme, given)) = header.and_then(|value| {
        let value = value.as_bytes();
        let space = value.iter().position(|&byte| byte == b' ')?;
        Some((&value[..space], &value[space + 1..]))
    }) else {
        return false;
    };
    scheme.eq_ignore_ascii_case(b"bearer") && constant_time_eq(given.trim_ascii_start(), token)
}

/// Compares every byte whatever the first difference; only the length can leave early, and
/// the length of a token is no secret worth keeping.
fn constant_time_eq(given: &[u8], expected: &[u8]) -> bool {
    if given.len() != expected.len() {
        return false;
    }
    std::hint::black_box(difference(given.iter().zip(expected))) == 0
}

/// The OR of every pair's XOR: it reads every pair, whichever differs first.
fn difference<'a>(pairs: impl Iterator<Item = (&'a u8, &'a u8)>) -> u8 {
    pairs.fold(0_u8, |difference, (a, b)| difference | (a ^ b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_exact_bearer_token_matches() {
        let token = b"s3cret";
        let header = |text: &'static str| HeaderValue::from_static(text);
        assert!(bearer_matches(Some(&header("Bearer s3cret")), token));
        assert!(bearer_matches(Some(&header("bearer s3cret")), token));
        assert!(!bearer_matches(Some(&header("Bearer s3cre")), token));
        assert!(!bearer_matches(Some(&header("Bearer s3cretx")), token));
        assert!(!bearer_matches(Some(&header("Basic s3cret")), token));
        assert!(!bearer_matches(Some(&header("s3cret")), token));
        assert!(!bearer_matches(None, token));
    }

    /// The comparison does not stop at the first byte that differs: a guess wrong in its
    /// first byte costs as many reads as one wrong only in its last.
    #[test]
    fn the_comparison_reads_every_byte_whichever_differs() {
        let token = b"0123456789abcdef";
        for guess in [b"X123456789abcdef", b"0123456789abcdeX", token] {
            let read = std::cell::Cell::new(0);
            let pairs = guess
                .iter()
                .zip(token)
                .inspect(|_| read.set(read.get() + 1));
            let same = difference(pairs) == 0;
            assert_eq!(same, guess == token);
            assert_eq!(read.get(), token.len());
        }
        assert!(constant_time_eq(token, token));
        assert!(!constant_time_eq(b"X123456789abcdef", token));
    }
}
