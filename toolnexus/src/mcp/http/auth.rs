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
    let difference = given
        .iter()
        .zip(expected)
        .fold(0_u8, |difference, (a, b)| difference | (a ^ b));
    std::hint::black_box(difference) == 0
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
}
